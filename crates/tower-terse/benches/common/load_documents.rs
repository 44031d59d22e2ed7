//! The load bench's two documents (`benches/load/documents.py`): 120 flat
//! rows and 52 nested orders in an envelope, about 14 KB each, written
//! compact. The same fields, value ranges and sizes from a seeded generator
//! of this file (not Python's), so every run renders the same bytes.

use bytes::Bytes;
use serde_json::{Value, json};

const WORDS: [&str; 11] = [
    "alpha", "beta", "gamma", "delta", "copper", "river", "stone", "maple", "orbit", "lantern",
    "harbor",
];

/// A small seeded generator (xorshift64*): the documents need variety, not
/// quality.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// In `low..=high`.
    fn int(&mut self, low: u64, high: u64) -> u64 {
        low + self.next() % (high - low + 1)
    }

    /// In `0..1`.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// `unit() * scale`, rounded to two decimals as Python's `round` does.
    fn money(&mut self, scale: f64) -> f64 {
        (self.unit() * scale * 100.0).round() / 100.0
    }

    fn word(&mut self) -> &'static str {
        WORDS[self.next() as usize % WORDS.len()]
    }

    fn title(&mut self) -> String {
        let word = self.word();
        word[..1].to_uppercase() + &word[1..]
    }
}

/// `[{id,name,email,active,score,created}, ...]`, 120 rows.
pub fn flat() -> Bytes {
    let mut rng = Rng(29);
    let rows: Vec<Value> = (0..120)
        .map(|i| {
            json!({
                "id": i,
                "name": format!("{} {}", rng.word(), rng.word()),
                "email": format!("user{i}@example.com"),
                "active": rng.unit() < 0.7,
                "score": rng.money(100.0),
                "created": format!("2025-{:02}-{:02}", rng.int(1, 12), rng.int(1, 28)),
            })
        })
        .collect();
    Bytes::from(Value::Array(rows).to_string())
}

/// `{"data":[order, ...],"total":52,"page":1}`: orders with a nested
/// customer and address, one to four items, a total and optional notes.
pub fn nested() -> Bytes {
    let mut rng = Rng(29);
    let statuses = ["paid", "shipped", "pending", "refunded"];
    let notes = [None, Some("leave at the door"), Some("gift wrap")];
    let orders: Vec<Value> = (0..52)
        .map(|i| {
            let status = statuses[rng.next() as usize % statuses.len()];
            let customer = json!({
                "id": rng.int(1000, 9999),
                "name": format!("{} {}", rng.title(), rng.title()),
                "address": {"city": rng.title(), "zip": rng.int(10000, 99999).to_string()},
            });
            let items: Vec<Value> = (0..rng.int(1, 4))
                .map(|_| {
                    json!({
                        "sku": format!("SKU-{}", rng.int(100, 999)),
                        "qty": rng.int(1, 5),
                        "price": rng.money(80.0),
                    })
                })
                .collect();
            json!({
                "id": format!("ord_{i:05}"),
                "status": status,
                "customer": customer,
                "items": items,
                "total": rng.money(300.0),
                "notes": notes[rng.next() as usize % notes.len()],
            })
        })
        .collect();
    Bytes::from(json!({"data": orders, "total": 52, "page": 1}).to_string())
}

/// The line templates of the load bench's `[[resource]]` entries.
pub const FLAT_LINE: &str = "{name} <{email}> score {score}, since {created}";
/// See [`FLAT_LINE`].
pub const NESTED_LINE: &str =
    "{status} for {customer.name} in {customer.address.city}, total {total}";
