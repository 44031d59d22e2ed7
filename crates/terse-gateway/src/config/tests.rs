use std::time::Duration;

use super::*;

/// A duration as `[gateway]` reads one.
fn parse_duration(text: &str) -> Result<Duration, String> {
    super::schema::duration("timeout", text.to_owned())
}

fn error(source: &str) -> String {
    Config::parse("t.toml", source).unwrap_err().to_string()
}

#[test]
fn byte_limits_are_checked_against_their_range() {
    assert_eq!(
        error("[layer]\nmax_body_bytes = 34359738368\n"),
        "t.toml:2: `max_body_bytes` must be between 1 and 1073741824, not 34359738368"
    );
    assert!(error("[layer]\n\nmax_output_bytes = 0\n").starts_with("t.toml:3: `max_output_bytes`"));
    assert!(
        error("[mcp]\npath = \"/mcp\"\nmax_message_bytes = 2147483648\n")
            .starts_with("t.toml:3: `max_message_bytes`")
    );
    assert!(
        error("[gateway]\nmax_buffered_bytes = 1000\n")
            .starts_with("t.toml:2: `max_buffered_bytes`")
    );
    assert!(error("[gateway]\nmax_connections = 0\n").starts_with("t.toml:2: `max_connections`"));
    assert!(error("[gateway]\nsend_timeout = \"0s\"\n").starts_with("t.toml:2: `send_timeout`"));
    assert!(
        error("[gateway]\ntrusted_proxies = [\"10.0.0.0/8\", \"10.0.0.0/40\"]\n")
            .starts_with("t.toml:2: `trusted_proxies`: \"10.0.0.0/40\"")
    );
    assert!(
        error("[gateway]\npublic_origin = \"https://a\\\"b\"\n")
            .starts_with("t.toml:2: `public_origin`: \"https://a\\\"b\"")
    );
}

#[test]
fn the_request_log_is_on_unless_switched_off() {
    assert!(Config::default().request_log());
    let on = Config::parse("t.toml", "[gateway]\nrequest_log = true").unwrap();
    assert!(on.request_log());
    let off = Config::parse("t.toml", "[gateway]\nrequest_log = false").unwrap();
    assert!(!off.request_log());
    let wrong = error("[gateway]\nrequest_log = \"off\"\n");
    assert!(wrong.starts_with("t.toml:2"), "{wrong}");
}

#[test]
fn the_hostile_client_keys_reach_the_server_and_the_upstream() {
    let config = Config::parse(
        "t.toml",
        "[gateway]\nheader_read_timeout = \"2s\"\nkeep_alive_timeout = \"3s\"\nsend_timeout = \"4s\"\nmax_connections = 10\nmax_concurrent_streams = 5\nmax_buffered_bytes = 2097152\ntrusted_proxies = [\"127.0.0.1\"]\n",
    )
    .unwrap();
    let options = config.server_options();
    assert_eq!(options.header_read_timeout, Duration::from_secs(2));
    assert_eq!(options.idle_timeout, Duration::from_secs(3));
    assert_eq!(options.send_timeout, Duration::from_secs(4));
    assert_eq!(options.max_connections, Some(10));
    assert_eq!(options.max_concurrent_streams, 5);
    assert_eq!(config.memory_budget().limit(), 2 << 20);
    assert!(config.trusted_proxies().contains([127, 0, 0, 1].into()));
    let copy = config.clone();
    let held = copy.memory_budget().try_reserve(100).unwrap();
    assert_eq!(
        config.memory_budget().in_use(),
        100,
        "clones share one budget"
    );
    drop(held);
    assert_eq!(
        Config::default().memory_budget().limit(),
        DEFAULT_BUFFERED_BYTES
    );
}

#[test]
fn every_kind_of_mistake_names_its_line() {
    assert_eq!(
        error("[layer]\nsmart_fallback = true\nnope = 1\n"),
        "t.toml:3: unknown field `nope`, expected one of `enabled`, `default_format`, `max_body_bytes`, `max_output_bytes`, `offload_threshold`, `max_concurrent_rewrites`, `max_rewrite_wait`, `max_rewrite_wait_ms`, `count_plain_responses`, `smart_fallback`, `exact_token_count`, `fields_enabled`, `max_fields`, `max_field_depth`, `max_fields_length`, `list_keys`, `id_key`, `format_param`, `fields_param`, `prefer_header`, `toon`, `decode_toon_requests`, `rewrite_memo_bytes`, `request_body_timeout`, `request_body_min_rate`"
    );
    assert!(error("[layer]\n\nmax_body_bytes = -1\n").starts_with("t.toml:3: "));
    assert_eq!(
        error("[[resource]]\nroute = \"/t\"\nnoun = \"task\"\nline = \"{title|nosuchfilter}\"\n"),
        "t.toml:4: line template, column 8: unknown filter `nosuchfilter`; known filters: time, date, ago, bytes, short, trunc, upper, lower, join, default, flag"
    );
    assert!(
        error("[[resource]]\nroute = \"t/{\"\nnoun = \"t\"\nline = \"{a}\"\n")
            .starts_with("t.toml:2: invalid route pattern")
    );
    assert!(
        error("[gateway]\nconnect_timeout = \"5 s\"\n").starts_with("t.toml:2: `connect_timeout`")
    );
    assert!(
        error("[layer.toon]\ndelimiter = \";\"\n").starts_with("t.toml:2: unknown TOON delimiter")
    );
    assert!(error("[layer]\ndefault_format = \"xml\"\n").starts_with("t.toml:2: unknown format"));
    assert!(error("[gateway]\nupstream = \"https://x\"\n").starts_with("t.toml:2: `upstream`"));
    assert!(error("[layer\n").starts_with("t.toml:1: "));
    assert!(
        error("[[resource]]\nroute = \"/t\"\nline = \"{a}\"\n")
            .starts_with("t.toml:1: missing field `noun`")
    );
}

#[test]
fn layer_values_are_checked_where_they_are_read() {
    for (toml, line, message) in [
        (
            "[layer]\nid_key = \"\"\n",
            2,
            "`id_key` must be 1 to 256 bytes long",
        ),
        (
            "[layer]\nprefer_header = \"a b\"\n",
            2,
            "`prefer_header` \"a b\" is not a valid header name",
        ),
        (
            "[layer]\nmax_concurrent_rewrites = 0\n",
            2,
            "`max_concurrent_rewrites` must be between 1 and 4096, not 0",
        ),
        ("[layer]\nlist_keys = []\n\nlist_keys = [\"\"]\n", 4, ""),
        (
            "\n[layer]\nlist_keys = [\"\"]\n",
            3,
            "`list_keys` takes at most 64 keys",
        ),
    ] {
        let err = Config::parse("t.toml", toml).unwrap_err();
        assert_eq!(err.line(), Some(line), "{err}");
        assert!(err.message().contains(message), "{err}");
        assert!(err.column().is_some(), "{err}");
    }
}

#[test]
fn route_mistakes_name_their_line() {
    assert!(
        error("[[route]]\npath = \"t/{\"\n").starts_with("t.toml:2: invalid route pattern"),
        "{}",
        error("[[route]]\npath = \"t/{\"\n")
    );
    assert!(error("[[route]]\nsmart_fallback = true\n").contains("missing field `path`"));
    let unknown = error("[[route]]\npath = \"/a\"\n\nnope = 1\n");
    assert!(unknown.contains("unknown field `nope`"), "{unknown}");
    let wrong = error("[[route]]\npath = \"/a\"\nmax_fields = \"many\"\n");
    assert!(wrong.starts_with("t.toml:"), "{wrong}");
    let range = error("[[route]]\npath = \"/a\"\n[route.toon]\nindent = 99\n");
    assert!(
        range.contains("`indent` must be between 1 and 16"),
        "{range}"
    );
}

#[test]
fn mcp_mistakes_name_their_line() {
    let tool = "[[mcp.tool]]\nname = \"list_events\"\nlist = \"events\"\nnoun = \"event\"\n";
    assert!(error("[mcp]\npath = \"mcp\"\n").starts_with("t.toml:2: `path` must start with `/`"));
    assert!(
        error("[[mcp.tool]]\nname = \"a\"\nlist = \"items\"\n")
            .starts_with("t.toml:1: a tool needs `list`, `noun` and `line` together")
    );
    assert!(
        error("[mcp]\npath = \"/mcp\"\ncolour = 1\n")
            .starts_with("t.toml:3: unknown field `colour`")
    );
    assert!(
        error("[mcp]\npath = \"/mcp\"\ndefault_format = \"xml\"\n")
            .starts_with("t.toml:3: unknown format")
    );
    assert_eq!(
        error(&format!(
            "[mcp]\npath = \"/mcp\"\n{tool}line = \"{{title|nosuchfilter}}\"\n"
        )),
        "t.toml:7: line template, column 8: unknown filter `nosuchfilter`; known filters: time, date, ago, bytes, short, trunc, upper, lower, join, default, flag"
    );
    assert_eq!(
        error(&format!(
            "[mcp]\npath = \"/mcp\"\n{tool}line = \"{{title}}\"\n{tool}line = \"{{title}}\"\n"
        )),
        "t.toml:8: tool `list_events` is declared twice (tools 1 and 2)"
    );
    assert!(
        error(&format!(
            "[mcp]\npath = \"/mcp\"\n{tool}line = \"{{a}}\"\nwhat = 1\n"
        ))
        .starts_with("t.toml:8: unknown field `what`")
    );
}

#[test]
fn the_mcp_agent_keys_and_tool_formats_are_checked() {
    let config = Config::parse(
        "t.toml",
        "[mcp]\nformat_argument = true\nhint = \"descriptions\"\nmeta_counts = true\n[[mcp.tool]]\nname = \"read_file\"\nformat = \"json\"\n",
    )
    .unwrap();
    assert!(config.mcp().is_none(), "no path: nothing for the gateway");
    assert!(config.mcp_layer().is_some(), "but a layer for stdio");
    assert!(
        error("[mcp]\nhint = \"everywhere\"\n")
            .starts_with("t.toml:2: unknown hint \"everywhere\"")
    );
    assert!(error("[mcp]\nformat_argument = \"yes\"\n").starts_with("t.toml:2: "));
    assert!(
        error("[[mcp.tool]]\nname = \"a\"\nformat = \"xml\"\n")
            .starts_with("t.toml:3: unknown format")
    );
    assert!(
        error("[mcp]\n\n[[mcp.tool]]\nname = \"a\"\n").starts_with(
            "t.toml:3: a tool needs `list`, `noun` and `line` together, or a `format`"
        )
    );
}

#[test]
fn a_resource_names_its_list_and_total() {
    let config = Config::parse(
        "t.toml",
        "[[resource]]\nroute = \"/t\"\nnoun = \"task\"\nline = \"{a}\"\nlist = \"tasks\"\ntotal_key = \"meta.hits\"\n",
    )
    .unwrap();
    let debug = format!("{:?}", config.layer());
    for part in ["list_key: \"tasks\"", "total_key: \"meta.hits\""] {
        assert!(debug.contains(part), "{part}: {debug}");
    }
    assert!(
        error("[[resource]]\nroute = \"/t\"\nnoun = \"t\"\nline = \"{a}\"\nlist = \"\"\n")
            .starts_with("t.toml:5: `list` must be 1 to 256 bytes long")
    );
}

#[test]
fn the_mcp_section_builds_its_layer() {
    let config = Config::parse(
        "t.toml",
        "[layer]\nprefer_header = \"x-format\"\n[mcp]\npath = \"/mcp\"\nmax_message_bytes = 1024\n[[mcp.tool]]\nname = \"a\"\nlist = \"items\"\nnoun = \"item\"\nline = \"{title}\"\nid = \"key\"\n",
    )
    .unwrap();
    let (path, layer) = config.mcp().unwrap();
    assert_eq!(path, "/mcp");
    let debug = format!("{layer:?}");
    for part in [
        "x-format",
        "max_message_bytes: 1024",
        "\"items\"",
        "\"key\"",
    ] {
        assert!(debug.contains(part), "{part}: {debug}");
    }
    assert!(Config::default().mcp().is_none());
}

#[test]
fn durations() {
    assert_eq!(parse_duration("1ms"), Ok(Duration::from_millis(1)));
    assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
    assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
    assert_eq!(parse_duration("5s"), Ok(Duration::from_secs(5)));
    assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
    for bad in [
        "",
        "0s",
        "s",
        "-1s",
        "2h",
        "61m",
        "99999999999999999999ms",
        "1.5s",
        "5",
    ] {
        assert!(parse_duration(bad).is_err(), "{bad}");
    }
}

#[test]
fn an_empty_file_is_the_defaults() {
    let config = Config::parse("t.toml", "").unwrap();
    assert_eq!(config.upstream_url(), None);
    assert_eq!(config.server_options(), ServerOptions::default());
}

#[test]
fn untrusted_headers_are_header_names() {
    assert!(
        error("[gateway]\nuntrusted_headers = [\"X-Remote-User\", \"bad header\"]\n")
            .starts_with("t.toml:2: `untrusted_headers`: \"bad header\" is not a header name")
    );
    assert!(
        Config::parse(
            "t.toml",
            "[gateway]\nuntrusted_headers = [\"X-Remote-User\"]\n"
        )
        .is_ok()
    );
    assert!(
        error("[layer]\nrequest_body_timeout = \"2h\"\n")
            .starts_with("t.toml:2: `request_body_timeout` must be at most")
    );
}

#[test]
fn counts_are_bounded_and_every_mcp_error_has_a_column() {
    let routes = "[[route]]\npath = \"/a\"\n".repeat(MAX_RESOURCES + 1);
    let err = Config::parse("t.toml", &format!("[layer]\n{routes}")).unwrap_err();
    assert_eq!(err.line(), Some(2), "{err}");
    assert!(err.message().contains("more than 1024"), "{err}");
    let tools: String = (0..=MAX_RESOURCES)
        .map(|i| format!("[[mcp.tool]]\nname = \"t{i}\"\nformat = \"json\"\n"))
        .collect();
    let err = Config::parse("t.toml", &tools).unwrap_err();
    assert!(err.message().contains("more than 1024 tools"), "{err}");
    for source in [
        "[mcp]\nhint = \"x\"\n",
        "[mcp]\n\n[[mcp.tool]]\nname = \"a\"\n",
        "[mcp]\nallowed_hosts = [\"\"]\n",
        "[[mcp.tool]]\nname = \"\"\nformat = \"json\"\n",
    ] {
        let err = Config::parse("t.toml", source).unwrap_err();
        assert!(err.line().is_some() && err.column().is_some(), "{err}");
    }
}

#[test]
fn the_gateway_keys_are_read_into_their_types() {
    let config = Config::parse(
        "t.toml",
        "[gateway]\nupstream = \"http://[::1]:8000\"\nlisten = \"0.0.0.0:8080\"\nmetrics_listen = \"127.0.0.1:9464\"\ntrusted_proxies = [\"10.0.0.0/8\"]\n",
    )
    .unwrap();
    assert_eq!(config.upstream_url(), Some("http://[::1]:8000"));
    assert_eq!(config.listen(), Some(([0, 0, 0, 0], 8080).into()));
    assert_eq!(config.metrics_listen(), Some(([127, 0, 0, 1], 9464).into()));
    assert!(config.trusted_proxies().contains([10, 9, 8, 7].into()));
    let err = Config::parse("gw.toml", "nope = 1").unwrap_err();
    assert_eq!(
        (err.file(), err.line(), err.column()),
        ("gw.toml", Some(1), Some(1))
    );
    assert!(err.message().starts_with("unknown field `nope`"));
    let err = Config::parse("t.toml", "[layer]\nmax_body_bytes = \"big\"\n").unwrap_err();
    assert!(err.to_string().starts_with("t.toml:2: "), "{err}");
    let err = Config::parse("t.toml", "[gateway]\nlisten = \"é:1\"\n").unwrap_err();
    assert_eq!((err.line(), err.column()), (Some(2), Some(10)), "{err}");
}

#[test]
fn one_blocking_limit_from_the_layer_keys_is_shared_by_every_layer() {
    let config = Config::parse(
        "t.toml",
        "[layer]\nmax_concurrent_rewrites = 3\nmax_rewrite_wait = \"40ms\"\n[mcp]\npath = \"/mcp\"\n",
    )
    .unwrap();
    assert_eq!(config.blocking_limit().slots(), 3);
    assert_eq!(config.blocking_limit().wait(), Duration::from_millis(40));
    let (_, mcp) = config.mcp().unwrap();
    for debug in [format!("{:?}", config.layer()), format!("{mcp:?}")] {
        assert!(debug.contains("slots: 3, wait: 40ms"), "{debug}");
    }
}

#[test]
fn the_memory_budget_takes_its_range_edges_and_places_a_value_past_them() {
    let max = MAX_BUFFERED_BYTES;
    for bytes in [MIN_BUFFERED_BYTES, max] {
        let config = Config::parse(
            "t.toml",
            &format!("[gateway]\nmax_buffered_bytes = {bytes}"),
        );
        assert_eq!(config.unwrap().memory_budget().limit(), bytes);
    }
    for bytes in [MIN_BUFFERED_BYTES as u64 - 1, max as u64 + 1] {
        let text =
            format!("[gateway]\nlisten = \"127.0.0.1:3000\"\n  max_buffered_bytes = {bytes}\n");
        let err = Config::parse("t.toml", &text).unwrap_err();
        assert_eq!((err.line(), err.column()), (Some(3), Some(24)), "{err}");
        assert_eq!(
            err.to_string(),
            format!(
                "t.toml:3: `max_buffered_bytes` must be between 1048576 and {max}, not {bytes}"
            )
        );
    }
    assert_eq!(DEFAULT_BUFFERED_BYTES, 256 << 20);
}

/// A file of its own in the temporary directory, removed on drop.
struct TempFile(std::path::PathBuf);

impl TempFile {
    fn new(name: &str, bytes: &[u8]) -> TempFile {
        let path = std::env::temp_dir().join(format!("terse-{}-{name}", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn a_file_too_large_not_utf8_or_missing_is_refused_by_name() {
    let large = TempFile::new("large.toml", &vec![b'#'; MAX_CONFIG_BYTES + 1]);
    let err = Config::load(&large.0).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("{}: larger than 1048576 bytes", large.0.display())
    );
    let latin1 = TempFile::new("latin1.toml", b"# caf\xe9\n");
    let err = Config::load(&latin1.0).unwrap_err();
    assert_eq!((err.line(), err.message()), (None, "not UTF-8"));
    let err = Config::load("/no/such/terse.toml".as_ref()).unwrap_err();
    assert!(err.message().starts_with("cannot read: "), "{err}");
    let exact = TempFile::new("exact.toml", &vec![b'#'; MAX_CONFIG_BYTES]);
    assert!(Config::load(&exact.0).is_ok());
    assert!(Config::parse("t.toml", &"#".repeat(MAX_CONFIG_BYTES + 1)).is_err());
}

#[test]
fn a_position_counts_characters_from_one() {
    use super::file::position;
    assert_eq!(position("", 0), (1, 1));
    assert_eq!(position("ab\ncd", 3), (2, 1));
    assert_eq!(position("ab\ncd", 2), (1, 3));
    assert_eq!(position("é\nxé = 1", 6), (2, 3), "after two characters");
    assert_eq!(
        position("é", 1),
        (1, 1),
        "inside a character: that character"
    );
}
