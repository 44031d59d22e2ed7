//! A `serde_json::Value` flattened into document slots (behind
//! [`Document::from_value`](super::Document::from_value)).

use serde_json::Value;

use super::{NumberClass, Slot, Text};
use crate::encode::number;

/// The slots and side buffer of a document holding `value`; all text lives in
/// the side buffer.
pub(super) fn flatten(value: &Value) -> (Vec<Slot>, String) {
    let mut out = Flattener {
        slots: Vec::new(),
        owned: String::new(),
    };
    out.value(value);
    (out.slots, out.owned)
}

struct Flattener {
    slots: Vec<Slot>,
    owned: String,
}

impl Flattener {
    // Recursive like serde_json's own walks; a parsed `Value` is at most 128
    // levels deep.
    fn value(&mut self, value: &Value) {
        match value {
            Value::Null => self.slots.push(Slot::Null),
            Value::Bool(b) => self.slots.push(Slot::Bool(*b)),
            Value::Number(n) => {
                let start = self.owned.len();
                number::write_number(&mut self.owned, n);
                let text = self.text(start);
                self.slots.push(Slot::Number(text, NumberClass::of(n)));
            }
            Value::String(s) => self.string(s),
            Value::Array(items) => {
                let at = self.open();
                for item in items {
                    self.value(item);
                }
                self.slots[at] = Slot::Array {
                    len: count(items.len()),
                    end: count(self.slots.len()),
                };
            }
            Value::Object(map) => {
                let at = self.open();
                for (key, item) in map {
                    self.string(key);
                    self.value(item);
                }
                self.slots[at] = Slot::Object {
                    len: count(map.len()),
                    end: count(self.slots.len()),
                };
            }
        }
    }

    /// Pushes a placeholder for an array or object head; returns its index.
    fn open(&mut self) -> usize {
        self.slots.push(Slot::Null);
        self.slots.len() - 1
    }

    fn string(&mut self, s: &str) {
        let start = self.owned.len();
        self.owned.push_str(s);
        let text = self.text(start);
        self.slots.push(Slot::String(text));
    }

    /// The side buffer from `start` to its end.
    fn text(&self, start: usize) -> Text {
        Text {
            start: count(start),
            end: count(self.owned.len()),
        }
    }
}

fn count(n: usize) -> u32 {
    u32::try_from(n).expect("a document holds at most 4 GiB of text and 4 Gi nodes")
}
