//! Writing a node back out through serde (`serde_json::to_string(&node)`).

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use super::number::Exact;
use super::{Kind, Node, Number};

/// Serializes as the JSON data the node holds, the way a
/// `serde_json::Value` with the same data serializes.
impl Serialize for Node<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.kind() {
            Kind::Null => serializer.serialize_unit(),
            Kind::Bool(b) => serializer.serialize_bool(b),
            Kind::Number(n) => n.serialize(serializer),
            Kind::String(s) => serializer.serialize_str(s),
            Kind::Array(len) => {
                let mut seq = serializer.serialize_seq(Some(len))?;
                for item in self.items() {
                    seq.serialize_element(&item)?;
                }
                seq.end()
            }
            Kind::Object(len) => {
                let mut map = serializer.serialize_map(Some(len))?;
                for (key, value) in self.entries() {
                    map.serialize_entry(key, &value)?;
                }
                map.end()
            }
        }
    }
}

impl Serialize for Number<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.exact() {
            Exact::U64(n) => serializer.serialize_u64(n),
            Exact::I64(n) => serializer.serialize_i64(n),
            Exact::F64(f) => serializer.serialize_f64(f),
        }
    }
}
