//! The crate root is a promise to service authors: what they use, and no
//! more. These read `lib.rs` as written, so a re-export added at the root
//! has to be weighed here.

/// The names `lib.rs` re-exports at the root (`pub use` at the start of a
/// line, single names and braced lists, over several lines).
fn root_exports() -> Vec<String> {
    let source = include_str!("lib.rs");
    let mut names = Vec::new();
    let mut rest = source;
    while let Some(at) = rest.find("\npub use ") {
        rest = &rest[at + "\npub use ".len()..];
        let end = rest.find(';').unwrap_or(rest.len());
        let item = &rest[..end];
        let list = match (item.find('{'), item.rfind('}')) {
            (Some(open), Some(close)) => &item[open + 1..close],
            _ => item.rsplit("::").next().unwrap_or(item),
        };
        names.extend(
            list.split(',')
                .map(|name| name.trim().rsplit("::").next().unwrap_or("").to_owned())
                .filter(|name| !name.is_empty()),
        );
    }
    names
}

#[test]
fn the_root_holds_at_most_fifteen_items_and_no_plumbing() {
    let names = root_exports();
    assert!(
        names.len() <= 15,
        "{} items at the root: {names:?}",
        names.len()
    );
    for plumbing in [
        "BlockingLimit",
        "MemoryBudget",
        "Reservation",
        "OffWorkers",
        "Rewind",
        "is_json_media_type",
        "is_identity_coding",
        "PendingRequest",
        "record_metrics",
    ] {
        assert!(
            !names.iter().any(|name| name == plumbing),
            "{plumbing} at the root"
        );
    }
    for needed in [
        "TerseLayer",
        "Terse",
        "ResponseFuture",
        "Format",
        "Settings",
        "CompactLine",
    ] {
        assert!(
            names.iter().any(|name| name == needed),
            "{needed} missing: {names:?}"
        );
    }
}
