//! A `serde_json::Value` flattened into document slots (behind
//! [`Document::from_value`](super::Document::from_value)).

use serde_json::Value;

use super::{NumberClass, Slot, Text};
use crate::encode::number;

/// The slots and side buffer of a document holding `value`; all text lives in
/// the side buffer. `None` when the text or the nodes pass 4 Gi (offsets are
/// `u32`).
pub(super) fn flatten(value: &Value) -> Option<(Vec<Slot>, String)> {
    let mut out = Flattener {
        slots: Vec::new(),
        owned: String::new(),
        too_large: false,
    };
    out.value(value);
    (!out.too_large).then_some((out.slots, out.owned))
}

struct Flattener {
    slots: Vec<Slot>,
    owned: String,
    /// Set when an offset did not fit; the result is then discarded.
    too_large: bool,
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
                    len: self.count(items.len()),
                    end: self.count(self.slots.len()),
                };
            }
            Value::Object(map) => {
                let at = self.open();
                for (key, item) in map {
                    self.string(key);
                    self.value(item);
                }
                self.slots[at] = Slot::Object {
                    len: self.count(map.len()),
                    end: self.count(self.slots.len()),
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
    fn text(&mut self, start: usize) -> Text {
        Text {
            start: self.count(start),
            end: self.count(self.owned.len()),
        }
    }

    fn count(&mut self, n: usize) -> u32 {
        u32::try_from(n).unwrap_or_else(|_| {
            self.too_large = true;
            0
        })
    }
}
