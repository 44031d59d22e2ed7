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

/// An array or object of the walk whose elements are still being flattened,
/// and the index of its head slot.
struct Open<'v> {
    elements: Elements<'v>,
    head: usize,
    len: usize,
}

enum Elements<'v> {
    Array(std::slice::Iter<'v, Value>),
    Object(serde_json::map::Iter<'v>),
}

impl Flattener {
    /// Flattens `value` in document order. The open arrays and objects are
    /// kept in a vector, not on the call stack: a `Value` built in code can
    /// be nested far deeper than any parser allows.
    fn value(&mut self, value: &Value) {
        let mut open: Vec<Open<'_>> = Vec::new();
        let mut next = Some(value);
        loop {
            if let Some(value) = next.take() {
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
                    Value::Array(items) => open.push(Open {
                        elements: Elements::Array(items.iter()),
                        head: self.open(),
                        len: items.len(),
                    }),
                    Value::Object(map) => open.push(Open {
                        elements: Elements::Object(map.iter()),
                        head: self.open(),
                        len: map.len(),
                    }),
                }
            }
            let Some(innermost) = open.last_mut() else {
                return;
            };
            match &mut innermost.elements {
                Elements::Array(items) => next = items.next(),
                Elements::Object(entries) => {
                    if let Some((key, item)) = entries.next() {
                        self.string(key);
                        next = Some(item);
                    }
                }
            }
            if next.is_none() {
                // The innermost open value has no element left: close it.
                let Some(closed) = open.pop() else {
                    return;
                };
                let len = self.count(closed.len);
                let end = self.count(self.slots.len());
                self.slots[closed.head] = match closed.elements {
                    Elements::Array(_) => Slot::Array { len, end },
                    Elements::Object(_) => Slot::Object {
                        len,
                        end,
                        keys: 0,
                        seen: false,
                    },
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
