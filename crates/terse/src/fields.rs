//! Sparse fieldsets: `?fields=a,b,c.d` keeps only those keys of each record.

use std::fmt;

use serde_json::{Map, Value};

/// A parsed `fields` list: a tree of key paths.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Fields {
    root: Node,
}

/// Keys to keep at one level; a key whose node has no children is kept whole.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Node {
    children: Vec<(String, Node)>,
}

/// A `fields` list with an empty path segment, such as `a..b` or `.a`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FieldsError {
    path: String,
}

impl fmt::Display for FieldsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "field path `{}` has an empty segment", self.path)
    }
}

impl Fields {
    /// Parses a comma-separated list of dotted paths; `None` when it names no field.
    pub(crate) fn parse(spec: &str) -> Result<Option<Fields>, FieldsError> {
        let mut fields = Fields::default();
        for path in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let segments: Vec<&str> = path.split('.').map(str::trim).collect();
            if segments.iter().any(|s| s.is_empty()) {
                return Err(FieldsError {
                    path: path.to_owned(),
                });
            }
            fields.root.insert(&segments);
        }
        Ok((!fields.root.children.is_empty()).then_some(fields))
    }

    /// Projects a response body: each record of a root array or of the first
    /// list found under `list_keys`, or else the single root object.
    pub(crate) fn project(&self, body: &mut Value, list_keys: &[String], id_key: &str) {
        match body {
            Value::Array(records) => self.project_records(records, id_key),
            Value::Object(map) => {
                let list_key = list_keys
                    .iter()
                    .find(|key| matches!(map.get(key.as_str()), Some(Value::Array(_))));
                match list_key.and_then(|key| map.get_mut(key.as_str())) {
                    Some(Value::Array(records)) => self.project_records(records, id_key),
                    _ => self.root.project_object(map, Some(id_key)),
                }
            }
            _ => {}
        }
    }

    fn project_records(&self, records: &mut [Value], id_key: &str) {
        for record in records {
            if let Value::Object(map) = record {
                self.root.project_object(map, Some(id_key));
            }
        }
    }
}

impl Node {
    fn insert(&mut self, segments: &[&str]) {
        let Some((first, rest)) = segments.split_first() else {
            return;
        };
        match self.children.iter().position(|(key, _)| key == first) {
            Some(at) => {
                let child = &mut self.children[at].1;
                // An existing whole key already covers any deeper path.
                if rest.is_empty() {
                    child.children.clear();
                } else if !child.children.is_empty() {
                    child.insert(rest);
                }
            }
            None => {
                let mut child = Node::default();
                child.insert(rest);
                self.children.push(((*first).to_owned(), child));
            }
        }
    }

    fn child(&self, key: &str) -> Option<&Node> {
        self.children.iter().find(|(k, _)| k == key).map(|(_, n)| n)
    }

    fn project_object(&self, map: &mut Map<String, Value>, id_key: Option<&str>) {
        map.retain(|key, value| match self.child(key) {
            Some(node) => {
                node.project_value(value);
                true
            }
            None => Some(key.as_str()) == id_key,
        });
    }

    fn project_value(&self, value: &mut Value) {
        if self.children.is_empty() {
            return;
        }
        match value {
            Value::Object(map) => self.project_object(map, None),
            Value::Array(items) => items.iter_mut().for_each(|item| self.project_value(item)),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn keys() -> Vec<String> {
        ["data", "items", "results"].map(String::from).to_vec()
    }

    fn projected(spec: &str, mut body: Value) -> Value {
        Fields::parse(spec)
            .unwrap()
            .unwrap()
            .project(&mut body, &keys(), "id");
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
        assert_eq!(Fields::parse(" , ").unwrap(), None);
        assert_eq!(Fields::parse("").unwrap(), None);
        let err = Fields::parse("a,b..c").unwrap_err();
        assert_eq!(err.to_string(), "field path `b..c` has an empty segment");
        assert!(Fields::parse(".a").is_err());
    }
}
