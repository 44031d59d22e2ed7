//! How much memory a rendering may take beyond the body, known before it
//! starts, so that the memory budget can hold it.
//!
//! A rewrite holds more than its body and its output while it runs: the
//! parsed document. That is what a hostile body inflates: a list of empty
//! arrays (`[[],[],...]`) is three bytes of JSON per value, and each value
//! is a 12-byte slot in the parsed document (`terse_toon::document`, which
//! TOON and compact lines read), and a `serde_json::Value` of 80 bytes and
//! more where a tree is built (`?fields=`, and an MCP block's compact
//! envelope read back as text). So the
//! bound is counted per value: one pass over the body, strings skipped,
//! counts the values (each but the first follows `,` `:` `[` or `{`) and
//! the deepest nesting. Then the bound is what one value can take on the
//! path the plan takes, room for unescaped strings, and the output up to
//! where the encoder stops (`max_output_bytes`), with the indentation the
//! depth costs. This module's tests measure renderings with a counting
//! allocator and hold them under the bound.
//!
//! The same pass tells the work a rendering will do ([`Cost::work`]):
//! whether it runs on an async worker or off the workers follows that, not
//! the body's size. A body of 80 KB nested 60 levels writes a megabyte of
//! TOON, most of it indentation, and counts it.

use crate::format::Format;
use crate::toon::EncodeOptions;

/// Bytes per value on the TOON path: the document's 12-byte slot, twice
/// over while its vector grows, and the encoder's bookkeeping.
const DOCUMENT_VALUE_BYTES: usize = 32;

/// Bytes per value where a `serde_json::Value` tree is built, or may be:
/// `?fields=` projections (the tree, then the document TOON is encoded
/// from) and compact lines.
///
/// Compact lines read the parsed document (a 12-byte slot per value, twice
/// over while the tape grows) and keep one 16-byte node per record for its
/// id: some 35 bytes per value, measured at about 24 beyond the body and
/// output on the HTTP envelope. But an MCP text block's lines are written
/// from the envelope read back with `serde_json` (`render::compact`'s
/// `as_text`): its `meta`, which holds every entry of the body but the
/// records, becomes a `Value` tree beside the document, measured at about 216
/// bytes per value beyond the body and output (a body of small arrays
/// beside one record; `compact_lines_stay_within_their_bound`). One bound
/// serves both styles, since the cost is known by format alone.
pub(crate) const TREE_VALUE_BYTES: usize = 224;

/// What any rendering may take whatever the body: first capacities of
/// buffers, the encoder's small tables.
pub(crate) const FIXED_BYTES: usize = 8 << 10;

/// Bytes of output per value beyond the text it comes from: TOON indents
/// `indent` spaces per level of nesting, and adds a few bytes of syntax.
const fn output_value_bytes(depth: usize, indent: usize) -> usize {
    depth.saturating_mul(indent).saturating_add(8)
}

/// How many bytes of parsing one byte counted exactly is worth: the BPE
/// counts text several times slower than the encoder reads and writes it.
const EXACT_COUNT_WEIGHT: usize = 4;

/// The work of counting `bytes` of text exactly, in the units of
/// [`Cost::work`]: what settling a near tie of the smart fallback costs
/// once both its texts are known.
pub(crate) fn exact_count_work(bytes: usize) -> usize {
    bytes.saturating_mul(EXACT_COUNT_WEIGHT)
}

/// What rendering a body will cost, known before it starts: the memory it
/// may take and the work it will do, both from one pass over the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cost {
    /// An upper bound on the bytes it allocates beyond the body itself
    /// (see [`working_bytes`]).
    pub(crate) memory: usize,
    /// The work, in bytes parsed or written: the body, the output it may
    /// write (indentation included, which is what a deeply nested body
    /// multiplies), and the bytes counted exactly, weighted.
    pub(crate) work: usize,
}

/// The [`Cost`] of rendering `body` as `format` (projected with `?fields=`
/// when `projected`) with TOON's `options`, the output stopped at
/// `max_output_bytes`; `exact` when its tokens may be counted exactly (the
/// exact count, or a near tie of the smart fallback).
pub(crate) fn cost(
    body: &[u8],
    format: Format,
    projected: bool,
    options: &EncodeOptions,
    max_output_bytes: usize,
    exact: bool,
) -> Cost {
    let count_weight = if exact { EXACT_COUNT_WEIGHT } else { 0 };
    if let (Format::Json, false) = (format, projected) {
        // Counted as it is: nothing is built, nothing written.
        return Cost {
            memory: 0,
            work: body.len().saturating_mul(count_weight.max(1)),
        };
    }
    let shape = shape(body);
    // What the output may hold: the text of the body, and its
    // indentation, up to where the encoder stops.
    let output = shape
        .values
        .saturating_mul(shape.depth.saturating_mul(options.indent_size))
        .saturating_add(body.len())
        .min(max_output_bytes);
    let counted = body.len().saturating_add(output);
    Cost {
        memory: working_bytes_of(&shape, body, format, projected, options, max_output_bytes),
        work: body
            .len()
            .saturating_add(output)
            .saturating_add(counted.saturating_mul(count_weight)),
    }
}

/// An upper bound on the bytes rendering `body` as `format` (projected with
/// `?fields=` when `projected`) with TOON's `options` allocates while it
/// runs beyond the body itself: its structure, unescaped strings, and its
/// output, which the encoder stops at `max_output_bytes`.
#[cfg_attr(not(any(test, feature = "mcp")), allow(dead_code))]
pub(crate) fn working_bytes(
    body: &[u8],
    format: Format,
    projected: bool,
    options: &EncodeOptions,
    max_output_bytes: usize,
) -> usize {
    cost(body, format, projected, options, max_output_bytes, false).memory
}

/// [`working_bytes`] of a body of this shape.
fn working_bytes_of(
    shape: &JsonShape,
    body: &[u8],
    format: Format,
    projected: bool,
    options: &EncodeOptions,
    max_output_bytes: usize,
) -> usize {
    let per_value = match (format, projected) {
        (Format::Json, false) => return 0,
        (Format::Toon, false) => DOCUMENT_VALUE_BYTES,
        _ => TREE_VALUE_BYTES,
    };
    let &JsonShape { values, depth } = shape;
    // Twice: a growing `String` may hold double what it has written.
    let output = values
        .saturating_mul(output_value_bytes(depth, options.indent_size))
        .saturating_add(body.len().saturating_mul(2))
        .min(max_output_bytes)
        .saturating_mul(2);
    // Unescaped strings and numbers: at most the body, twice while their
    // buffer grows.
    values
        .saturating_mul(per_value)
        .saturating_add(body.len().saturating_mul(2))
        .saturating_add(output)
        .saturating_add(FIXED_BYTES)
}

/// What the bound needs to know of a JSON body (a TOON body's is
/// `ToonShape`).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct JsonShape {
    /// An upper bound on the values and keys: every one but the first
    /// follows one of `,` `:` `[` `{` outside strings.
    values: usize,
    /// The deepest nesting of arrays and objects.
    pub(super) depth: usize,
}

/// One pass over `body`, strings skipped (a quote ends a string unless
/// escaped), 64 bytes at a time ([`super::shape_scan`]). Text that is not
/// JSON gets some shape; rendering it stops at its first error anyway.
pub(super) fn shape(body: &[u8]) -> JsonShape {
    let (values, depth) = super::shape_scan::count(body);
    JsonShape { values, depth }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::fields::{Fields, FieldsLimits};
    use crate::render::settings::RenderSettings;
    use crate::render::{RenderPlan, render};
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    /// Counts the bytes this thread holds, and the most it held, so that a
    /// rendering's peak is measured while other tests run on other threads.
    struct Counting;

    thread_local! {
        static HELD: Cell<isize> = const { Cell::new(0) };
        static PEAK: Cell<isize> = const { Cell::new(0) };
    }

    fn held(change: isize) {
        // `try_with`: nothing to count while the thread's locals are torn down.
        let _ = HELD.try_with(|held| {
            let now = held.get() + change;
            held.set(now);
            let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
        });
    }

    // SAFETY: every call is passed on to `System` unchanged; the counting
    // touches only `const` thread-locals, which never allocate.
    #[allow(unsafe_code)]
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            held(layout.size() as isize);
            // SAFETY: the caller's contract, passed on.
            unsafe { System.alloc(layout) }
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            held(-(layout.size() as isize));
            // SAFETY: the caller's contract, passed on.
            unsafe { System.dealloc(ptr, layout) }
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            held(new_size as isize - layout.size() as isize);
            // SAFETY: the caller's contract, passed on.
            unsafe { System.realloc(ptr, layout, new_size) }
        }
    }

    #[global_allocator]
    static COUNTING: Counting = Counting;

    /// The most this thread held beyond what it held before, while `f` ran
    /// (the layer's tests hold a whole rewrite to its reservation with it).
    pub(crate) fn peak_of(f: impl FnOnce()) -> usize {
        let base = HELD.with(Cell::get);
        PEAK.with(|peak| peak.set(base));
        f();
        (PEAK.with(Cell::get) - base).max(0) as usize
    }

    /// Renders `body` as TOON, and as JSON projected with `?fields=`, and
    /// holds the peak of each under its bound. The smart fallback is off:
    /// counting tokens builds nothing from the body (the tokenizer it may
    /// settle a near tie with is built once per process, and its caches
    /// once per thread).
    fn within_bound(name: &str, body: &[u8]) {
        for indent in [2, 16] {
            within_bound_indented(name, body, indent);
        }
    }

    /// RenderSettings whose output is not bounded, without the smart fallback.
    fn unbounded_settings(options: &EncodeOptions) -> RenderSettings {
        RenderSettings {
            toon_options: options.clone(),
            smart_fallback: false,
            ..RenderSettings::default()
        }
    }

    fn within_bound_indented(name: &str, body: &[u8], indent: usize) {
        let options = EncodeOptions::default().with_indent_size(indent);
        let list_keys = ["data".to_owned()];
        let settings = unbounded_settings(&options);
        let fields = Fields::parse("a,b.c,id", FieldsLimits::default())
            .ok()
            .flatten();
        for (format, fields) in [
            (Format::Toon, None),
            (Format::Toon, fields.as_ref()),
            (Format::Json, fields.as_ref()),
        ] {
            let plan = RenderPlan {
                fields,
                list_keys: &list_keys,
                ..RenderPlan::new(format, true)
            };
            let bound = working_bytes(body, format, fields.is_some(), &options, usize::MAX);
            let peak = peak_of(|| drop(render(body, None, &plan, &settings)));
            assert!(
                peak <= bound,
                "{name} as {format:?}, fields {}, indent {indent}: {peak} bytes held, bound {bound}: {}",
                fields.is_some(),
                String::from_utf8_lossy(&body[..body.len().min(200)])
            );
        }
    }

    #[test]
    fn renderings_stay_within_their_bound() {
        let n = 20_000;
        let shapes = [
            ("zeros", format!("[{}0]", "0,".repeat(n))),
            ("empty arrays", format!("[{}[]]", "[],".repeat(n))),
            ("empty objects", format!("[{}{{}}]", "{},".repeat(n))),
            ("rows of zeros", format!("[{}[0]]", "[0],".repeat(n))),
            (
                "small records",
                format!("[{}{{\"a\":0}}]", "{\"a\":0},".repeat(n)),
            ),
            (
                "records with the fields",
                format!(
                    "[{}{{\"a\":1}}]",
                    "{\"a\":1,\"b\":{\"c\":2},\"id\":3},".repeat(n)
                ),
            ),
            (
                "repeated keys",
                format!("{{{}\"k\":1}}", "\"k\":[0],".repeat(n)),
            ),
            ("deep", format!("{}0{}", "[".repeat(120), "]".repeat(120))),
            (
                "enveloped",
                format!(
                    "{{\"data\":[{}{{}}],\"total\":1}}",
                    "{\"a\":[1,2]},".repeat(n)
                ),
            ),
            ("escapes", format!("[\"{}\"]", "\\u00e9\\n".repeat(n))),
            ("broken at the end", format!("[{}[0]", "[0],".repeat(n))),
        ];
        for (name, body) in &shapes {
            within_bound(name, body.as_bytes());
        }
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
        for entry in std::fs::read_dir(corpus).expect("tests/corpus") {
            let path = entry.expect("entry").path();
            if path.extension().is_some_and(|e| e == "json") {
                let body = std::fs::read(&path).expect("read");
                within_bound(&path.display().to_string(), &body);
            }
        }
    }

    /// With the smart fallback on, a TOON request of a pretty-printed body
    /// holds its TOON and the same JSON minified at once: still within the
    /// bound. The tokenizer a near tie is settled with is warmed first (it
    /// is built once per process, its caches once per thread).
    #[test]
    fn weighing_the_minified_json_stays_within_the_bound() {
        let options = EncodeOptions::default();
        let settings = RenderSettings {
            smart_fallback: true,
            ..unbounded_settings(&options)
        };
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
        let mut minified = 0;
        for entry in std::fs::read_dir(corpus).expect("tests/corpus") {
            let path = entry.expect("entry").path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let body = std::fs::read(&path).expect("read");
            let plan = RenderPlan::new(Format::Toon, true);
            let warm = render(&body, None, &plan, &settings);
            minified += usize::from(warm.outcome.minified);
            let bound = working_bytes(&body, Format::Toon, false, &options, usize::MAX);
            let peak = peak_of(|| drop(render(&body, None, &plan, &settings)));
            assert!(
                peak <= bound,
                "{}: {peak} bytes held, bound {bound}",
                path.display()
            );
        }
        assert!(minified > 0, "some corpus document is served minified");
    }

    /// Renders `body` as compact lines (the envelope, and the text an MCP
    /// block gets, whose `otherwise` is TOON) and holds the peak of each
    /// under the bound of `Format::Compact`.
    fn lines_within_bound(name: &str, body: &[u8], lines: bool) {
        use crate::compact::{CompactResource, Template};
        use crate::render::{LineStyle, RecordLines};
        let options = EncodeOptions::default();
        let list_keys = ["data".to_owned()];
        let settings = unbounded_settings(&options);
        let template = Template::parse("{a} {b.c|default(none)}{? x{a|upper}}").expect("template");
        let resource = CompactResource::new("item", template);
        for (style, otherwise) in [
            (LineStyle::Envelope, Format::Json),
            (LineStyle::Text, Format::Toon),
        ] {
            let plan = RenderPlan {
                lines: Some(RecordLines {
                    resource: &resource,
                    list_keys: &list_keys,
                    label: "/items",
                    path: None,
                    style,
                }),
                otherwise,
                ..RenderPlan::new(Format::Compact, true)
            };
            let bound = working_bytes(body, Format::Compact, false, &options, usize::MAX);
            let mut served = None;
            let peak = peak_of(|| served = render(body, None, &plan, &settings).outcome.served);
            assert_eq!(
                served == Some(Format::Compact),
                lines,
                "{name} as {style:?} lines"
            );
            assert!(
                peak <= bound,
                "{name} as {style:?} lines: {peak} bytes held, bound {bound}: {}",
                String::from_utf8_lossy(&body[..body.len().min(200)])
            );
        }
    }

    #[test]
    fn compact_lines_stay_within_their_bound() {
        let n = 20_000;
        let shapes = [
            (
                "records",
                format!(
                    "[{}{{\"id\":0}}]",
                    "{\"id\":1,\"a\":\"x\",\"b\":{\"c\":2.5}},".repeat(n)
                ),
            ),
            (
                "enveloped records with meta",
                format!(
                    "{{\"data\":[{}{{\"id\":\"z\"}}],\"total\":99999,\"next\":\"p2\"}}",
                    "{\"id\":\"k\",\"a\":\"\\u00e9\\n\"},".repeat(n)
                ),
            ),
            (
                "small records without fields",
                format!("[{}{{\"id\":0}}]", "{\"id\":0},".repeat(n)),
            ),
            ("not records", format!("[{}0]", "[],".repeat(n))),
            (
                "not a list",
                format!("{{{}\"k\":1}}", "\"k\":[0],".repeat(n)),
            ),
            (
                "a record without an id",
                format!("[{}{{}}]", "{\"id\":1},".repeat(n)),
            ),
            // Everything but the one record is `meta`, which an MCP text
            // block reads back as a tree: the most a value takes here.
            (
                "one record beside many small arrays",
                format!("{{\"data\":[{{\"id\":1}}],\"x\":[{}0]}}", "[0],".repeat(n)),
            ),
            (
                "one record beside a wide meta",
                format!(
                    "{{\"data\":[{{\"id\":1}}],\"meta\":{{{}\"z\":0}}}}",
                    (0..n).map(|i| format!("\"k{i}\":[0],")).collect::<String>()
                ),
            ),
        ];
        for (i, (name, body)) in shapes.iter().enumerate() {
            // The first three and the last two render as lines; the others
            // fall back.
            lines_within_bound(name, body.as_bytes(), !(3..=5).contains(&i));
        }
    }

    /// JSON values of every kind, nested, with keys from a small pool (so
    /// that records share fields, and keys repeat in text).
    fn json_value() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        use serde_json::Value;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            "[a-z ,:\"\\\\é]{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(6, 256, 8, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                proptest::collection::vec(("[abcid]{1,2}", inner), 0..6)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        #[test]
        fn any_json_renders_within_its_bound(value in json_value()) {
            within_bound("generated", value.to_string().as_bytes());
        }

        #[test]
        fn skipping_strings_counts_as_reading_them(bytes in proptest::collection::vec(
            proptest::sample::select(b"[]{},:\\\" a0-".to_vec()), 0..400))
        {
            proptest::prop_assert_eq!(shape(&bytes), shape_bytewise(&bytes));
        }

        #[test]
        fn blocks_without_escapes_count_as_reading_them(bytes in proptest::collection::vec(
            proptest::sample::select(b"[]{},:\" a0-".to_vec()), 0..600))
        {
            // Backslashes send a block to the byte loop; without them every
            // block is read by its masks.
            proptest::prop_assert_eq!(shape(&bytes), shape_bytewise(&bytes));
        }

        #[test]
        fn any_bytes_have_a_shape(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..512)) {
            let JsonShape { values, depth } = shape(&bytes);
            proptest::prop_assert!(values <= bytes.len() + 1 && depth <= bytes.len());
        }
    }

    /// The shape read a byte at a time, as the rules say it, strings
    /// included: what the pass that skips strings is held to.
    fn shape_bytewise(body: &[u8]) -> JsonShape {
        let (mut values, mut depth, mut deepest) = (1usize, 0usize, 0usize);
        let mut in_string = false;
        let mut escaped = false;
        for &byte in body {
            if in_string {
                match (escaped, byte) {
                    (true, _) => escaped = false,
                    (false, b'\\') => escaped = true,
                    (false, b'"') => in_string = false,
                    _ => {}
                }
                continue;
            }
            match byte {
                b'"' => in_string = true,
                b'[' | b'{' => {
                    values += 1;
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                b',' | b':' => values += 1,
                _ => {}
            }
        }
        JsonShape {
            values,
            depth: deepest,
        }
    }

    #[test]
    fn the_shape_counts_values_and_depth_outside_strings() {
        let shape_of = |json: &str| {
            let JsonShape { values, depth } = shape(json.as_bytes());
            (values, depth)
        };
        assert_eq!(shape_of(""), (1, 0));
        assert_eq!(shape_of("0"), (1, 0));
        assert_eq!(shape_of("[1,2,3]"), (4, 1));
        assert_eq!(shape_of(r#"{"a":1,"b":[2]}"#), (6, 2));
        assert_eq!(shape_of(&"[0],".repeat(1000)), (2001, 1));
        // Brackets and separators inside strings are text.
        assert_eq!(shape_of(r#"["[[,:{", "\"]]", "\\"]"#), (4, 1));
        // An unterminated string ends the text.
        assert_eq!(shape_of(r#"["abc"#), (2, 1));
        assert_eq!(shape_of(r#"["\"#), (2, 1));
    }

    #[test]
    fn a_tree_costs_more_than_the_document() {
        let body = br#"[{"a":1},{"a":2}]"#;
        let options = EncodeOptions::default();
        let bound =
            |format, projected| working_bytes(body, format, projected, &options, usize::MAX);
        let toon = bound(Format::Toon, false);
        assert!(toon >= 2 * body.len());
        assert!(bound(Format::Toon, true) > toon);
        assert!(bound(Format::Compact, false) > toon);
        assert_eq!(bound(Format::Json, false), 0);
        assert!(bound(Format::Json, true) > toon);
        // The output is counted up to where the encoder stops.
        assert!(working_bytes(body, Format::Toon, false, &options, 10) < toon);
    }
}
