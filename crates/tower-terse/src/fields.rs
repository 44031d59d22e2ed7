//! Sparse fieldsets: `?fields=a,b,c.d` keeps only those keys of each record.
//!
//! The list comes from the query string, so it is hostile until checked: its
//! length, its number of paths and the depth of each path are limited before
//! anything is built, the paths are kept in a flat arena (no tree whose drop
//! recurses), and both parsing and projecting walk with loops and an explicit
//! stack. Parsing is linear in the list; projecting is linear in the body
//! times the (bounded) number of keys at one level of the list.

use std::fmt;

use serde_json::{Map, Value};

/// How large a `fields` list may be; see `TerseLayer::max_fields`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FieldsLimits {
    pub(crate) max_paths: usize,
    pub(crate) max_depth: usize,
    pub(crate) max_length: usize,
}

impl Default for FieldsLimits {
    fn default() -> Self {
        FieldsLimits {
            max_paths: crate::defaults::MAX_FIELDS,
            max_depth: crate::defaults::MAX_FIELD_DEPTH,
            max_length: crate::defaults::MAX_FIELDS_LENGTH,
        }
    }
}

/// A parsed `fields` list: the key paths as a tree in an arena, node 0 the
/// root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fields {
    nodes: Vec<Node>,
    /// FNV-1a of the list as written, to tell representations apart.
    fingerprint: u32,
}

/// Keys to keep at one level, each with the index of its node; a key whose
/// node has no children is kept whole.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Node {
    children: Vec<(String, usize)>,
}

/// Why a `fields` list was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FieldsError {
    /// A path with an empty segment, such as `a..b` or `.a`.
    EmptySegment { path: String },
    /// The list is longer than the limit, in bytes.
    TooLong { length: usize, max: usize },
    /// The list names more paths than the limit.
    TooManyPaths { max: usize },
    /// A path has more segments than the limit.
    TooDeep { path: String, max: usize },
}

impl FieldsError {
    /// The error envelope's code: a list that is wrong, or one that is too
    /// large to be served.
    pub(crate) fn code(&self) -> &'static str {
        match self {
            FieldsError::EmptySegment { .. } => "invalid_fields",
            _ => "fields_too_complex",
        }
    }
}

/// 32-bit FNV-1a: a few lines, stable by definition, which `std`'s hasher
/// is not promised to be.
fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5, |hash, &byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    })
}

/// At most this many bytes of a client's path are echoed in an error.
const ECHO: usize = 64;

/// `path`, cut to [`ECHO`] bytes on a character boundary, marked when cut.
fn echo(path: &str) -> String {
    if path.len() <= ECHO {
        return path.to_owned();
    }
    let mut end = ECHO;
    while !path.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &path[..end])
}

impl fmt::Display for FieldsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldsError::EmptySegment { path } => {
                write!(f, "field path `{path}` has an empty segment")
            }
            FieldsError::TooLong { length, max } => {
                write!(
                    f,
                    "the list is {length} bytes long, more than the {max} allowed"
                )
            }
            FieldsError::TooManyPaths { max } => {
                write!(f, "the list names more than the {max} paths allowed")
            }
            FieldsError::TooDeep { path, max } => {
                write!(
                    f,
                    "field path `{path}` has more than the {max} segments allowed"
                )
            }
        }
    }
}

impl Fields {
    /// Parses a comma-separated list of dotted paths within `limits`;
    /// `None` when it names no field.
    pub(crate) fn parse(spec: &str, limits: FieldsLimits) -> Result<Option<Fields>, FieldsError> {
        if spec.len() > limits.max_length {
            return Err(FieldsError::TooLong {
                length: spec.len(),
                max: limits.max_length,
            });
        }
        let mut fields = Fields {
            nodes: vec![Node::default()],
            fingerprint: fnv1a(spec.as_bytes()),
        };
        let paths = spec.split(',').map(str::trim).filter(|p| !p.is_empty());
        for (count, path) in paths.enumerate() {
            if count >= limits.max_paths {
                return Err(FieldsError::TooManyPaths {
                    max: limits.max_paths,
                });
            }
            let depth = path.split('.').count();
            if depth > limits.max_depth {
                return Err(FieldsError::TooDeep {
                    path: echo(path),
                    max: limits.max_depth,
                });
            }
            if path.split('.').any(|segment| segment.trim().is_empty()) {
                return Err(FieldsError::EmptySegment { path: echo(path) });
            }
            fields.insert(path.split('.').map(str::trim), depth);
        }
        Ok((!fields.nodes[0].children.is_empty()).then_some(fields))
    }

    /// A short hash of the list as the client wrote it, stable across
    /// processes and releases: it tells apart the ETags of the
    /// representations that different lists give.
    pub(crate) fn fingerprint(&self) -> u32 {
        self.fingerprint
    }

    /// Adds one path of `depth` segments to the tree.
    fn insert<'s>(&mut self, segments: impl Iterator<Item = &'s str>, depth: usize) {
        let mut at = 0;
        for (i, segment) in segments.enumerate() {
            let last = i + 1 == depth;
            match self.child(at, segment) {
                Some(child) => {
                    if last {
                        // A whole key covers any deeper path given before;
                        // the nodes below stay in the arena, unreachable.
                        self.nodes[child].children.clear();
                        return;
                    }
                    if self.nodes[child].children.is_empty() {
                        // Already kept whole: the deeper path adds nothing.
                        return;
                    }
                    at = child;
                }
                None => {
                    let child = self.nodes.len();
                    self.nodes.push(Node::default());
                    self.nodes[at].children.push((segment.to_owned(), child));
                    at = child;
                }
            }
        }
    }

    fn child(&self, node: usize, key: &str) -> Option<usize> {
        self.nodes[node]
            .children
            .iter()
            .find(|(k, _)| k == key)
            .map(|&(_, child)| child)
    }

    /// Projects a response body: each record of a root array or of the first
    /// list found under `list_keys`, or else the single root object.
    pub(crate) fn project(&self, body: &mut Value, list_keys: &[String], id_key: &str) {
        match body {
            Value::Array(records) => self.project_records(records, id_key),
            Value::Object(map) => {
                let list_key = crate::compact::envelope::list_key(list_keys, |key| {
                    matches!(map.get(key), Some(Value::Array(_)))
                });
                match list_key.and_then(|key| map.get_mut(key)) {
                    Some(Value::Array(records)) => self.project_records(records, id_key),
                    _ => self.project_from(map, id_key),
                }
            }
            _ => {}
        }
    }

    fn project_records(&self, records: &mut [Value], id_key: &str) {
        for record in records {
            if let Value::Object(map) = record {
                self.project_from(map, id_key);
            }
        }
    }

    /// Projects one record, its id kept at the top, with a stack of the
    /// values still to project under each node (arrays are projected item by
    /// item with the node of the key that holds them).
    fn project_from(&self, record: &mut Map<String, Value>, id_key: &str) {
        let mut stack: Vec<(&mut Value, usize)> = Vec::new();
        self.keep(record, 0, Some(id_key), &mut stack);
        while let Some((value, node)) = stack.pop() {
            match value {
                Value::Object(map) => self.keep(map, node, None, &mut stack),
                Value::Array(items) => stack.extend(items.iter_mut().map(|item| (item, node))),
                _ => {}
            }
        }
    }

    /// Keeps the keys of `map` that `node` lists (and `id_key`), and queues
    /// the kept values that are to be projected further.
    fn keep<'v>(
        &self,
        map: &'v mut Map<String, Value>,
        node: usize,
        id_key: Option<&str>,
        stack: &mut Vec<(&'v mut Value, usize)>,
    ) {
        map.retain(|key, _| self.child(node, key).is_some() || Some(key.as_str()) == id_key);
        for (key, value) in map.iter_mut() {
            if let Some(child) = self.child(node, key) {
                if !self.nodes[child].children.is_empty() {
                    stack.push((value, child));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn keys() -> Vec<String> {
        crate::defaults::LIST_KEYS
            .iter()
            .map(|&key| key.to_owned())
            .collect()
    }

    fn projected(spec: &str, mut body: Value) -> Value {
        Fields::parse(spec, FieldsLimits::default())
            .unwrap()
            .unwrap()
            .project(&mut body, &keys(), crate::defaults::ID_KEY);
        body
    }

    #[test]
    fn root_arrays_keep_listed_keys_and_the_id() {
        let body = json!([{"id": 1, "name": "a", "x": 1}, {"name": "b", "id": 2, "y": 2}, 3]);
        assert_eq!(
            projected("name", body),
            json!([{"id": 1, "name": "a"}, {"name": "b", "id": 2}, 3])
        );
    }

    #[test]
    fn lists_under_list_keys_are_projected_and_siblings_kept() {
        let body = json!({"items": [{"id": 1, "a": 1, "b": 2}], "meta": {"total": 1}});
        assert_eq!(
            projected("b", body),
            json!({"items": [{"id": 1, "b": 2}], "meta": {"total": 1}})
        );
    }

    #[test]
    fn single_objects_and_nested_paths() {
        let body = json!({
            "id": "u1",
            "name": "Ada",
            "address": {"city": "London", "zip": "N1"},
            "tags": [{"k": 1, "v": 2}, {"k": 3, "v": 4}],
        });
        assert_eq!(
            projected("address.city, tags.v", body),
            json!({"id": "u1", "address": {"city": "London"}, "tags": [{"v": 2}, {"v": 4}]})
        );
    }

    #[test]
    fn a_whole_key_covers_deeper_paths_in_any_order() {
        let body = json!({"a": {"b": 1, "c": 2}});
        assert_eq!(projected("a.b,a", body.clone()), body);
        assert_eq!(projected("a,a.b", body.clone()), body);
    }

    #[test]
    fn empty_lists_and_bad_paths() {
        let limits = FieldsLimits::default();
        assert_eq!(Fields::parse(" , ", limits).unwrap(), None);
        assert_eq!(Fields::parse("", limits).unwrap(), None);
        let err = Fields::parse("a,b..c", limits).unwrap_err();
        assert_eq!(err.to_string(), "field path `b..c` has an empty segment");
        assert_eq!(err.code(), "invalid_fields");
        assert!(Fields::parse(".a", limits).is_err());
    }

    #[test]
    fn lists_past_a_limit_are_refused_before_anything_is_built() {
        let limits = FieldsLimits {
            max_paths: 3,
            max_depth: 3,
            max_length: 40,
        };
        assert!(Fields::parse("a,b,c", limits).unwrap().is_some());
        let err = Fields::parse("a,b,c,d", limits).unwrap_err();
        assert_eq!(err, FieldsError::TooManyPaths { max: 3 });
        assert_eq!(err.code(), "fields_too_complex");
        assert!(Fields::parse("a.b.c", limits).unwrap().is_some());
        let err = Fields::parse("a.b.c.d", limits).unwrap_err();
        assert_eq!(
            err.to_string(),
            "field path `a.b.c.d` has more than the 3 segments allowed"
        );
        let err = Fields::parse(&"a,".repeat(21), limits).unwrap_err();
        assert_eq!(
            err,
            FieldsError::TooLong {
                length: 42,
                max: 40
            }
        );
    }

    #[test]
    fn echoed_paths_are_cut_short() {
        let limits = FieldsLimits {
            max_length: usize::MAX,
            ..FieldsLimits::default()
        };
        let path = "é".repeat(100) + "..x";
        let message = Fields::parse(&path, limits).unwrap_err().to_string();
        assert!(message.len() < 120, "{message}");
        assert!(message.contains('…'));
    }

    #[test]
    fn huge_lists_parse_and_drop_without_recursion() {
        // Limits set out of the way: even then nothing recurses per segment.
        let limits = FieldsLimits {
            max_paths: usize::MAX,
            max_depth: usize::MAX,
            max_length: usize::MAX,
        };
        let deep = vec!["a"; 200_000].join(".");
        let wide: String = (0..2_000).map(|i| format!("k{i},")).collect();
        let result = std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(move || {
                let deep = Fields::parse(&deep, limits).unwrap().unwrap();
                let mut body = json!({"a": {"a": 1, "b": 2}, "id": 1});
                deep.project(&mut body, &keys(), "id");
                let wide = Fields::parse(&wide, limits).unwrap().unwrap();
                let mut body = json!({"k1999": 1, "x": 2});
                wide.project(&mut body, &keys(), "id");
                body
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(result, json!({"k1999": 1}));
    }

    #[test]
    fn nested_arrays_of_records_are_projected_with_the_node_that_holds_them() {
        let body = json!({"id": 1, "groups": [[{"a": 1, "b": 2}], [{"a": 3, "c": 4}]], "z": 0});
        assert_eq!(
            projected("groups.a", body),
            json!({"id": 1, "groups": [[{"a": 1}], [{"a": 3}]]})
        );
    }
}
