//! Record shapes and the list envelopes around them.

use serde_json::{Map, Value, json};

use crate::rng::Rng;
use crate::text::*;

/// Record shapes; each sample draws its records from one of these, as a list
/// endpoint would.
#[derive(Clone, Copy)]
pub enum Shape {
    User,
    Event,
    Order,
    Product,
    Log,
    Message,
    File,
    Metric,
    Commit,
}

pub const SHAPES: [Shape; 9] = [
    Shape::User,
    Shape::Event,
    Shape::Order,
    Shape::Product,
    Shape::Log,
    Shape::Message,
    Shape::File,
    Shape::Metric,
    Shape::Commit,
];

impl Shape {
    pub fn noun(self) -> &'static str {
        match self {
            Shape::User => "users",
            Shape::Event => "events",
            Shape::Order => "orders",
            Shape::Product => "products",
            Shape::Log => "logs",
            Shape::Message => "messages",
            Shape::File => "files",
            Shape::Metric => "metrics",
            Shape::Commit => "commits",
        }
    }
}

/// Per-sample choices that every record of the sample shares, so the records
/// of one list have the same keys.
pub struct Style {
    pub uuid_ids: bool,
    pub nested: bool,
    pub with_tags: bool,
}

pub fn record(rng: &mut Rng, shape: Shape, lang: Lang, style: &Style, index: usize) -> Value {
    let lang = lang.resolve(rng);
    let mut m = Map::new();
    let id = if style.uuid_ids {
        json!(uuid(rng))
    } else {
        json!(1000 + index as i64 * rng.range(1, 7))
    };
    m.insert("id".into(), id);
    match shape {
        Shape::User => {
            m.insert("name".into(), json!(person(rng, lang)));
            m.insert("email".into(), json!(email(rng)));
            m.insert("active".into(), json!(rng.chance(0.8)));
            m.insert("created_at".into(), json!(timestamp(rng)));
            m.insert("city".into(), json!(rng.pick(CITIES)));
            if style.nested {
                m.insert(
                    "profile".into(),
                    json!({
                        "bio": words(rng, lang, 3, 14),
                        "avatar": url(rng),
                        "followers": rng.range(0, 50_000),
                    }),
                );
            }
        }
        Shape::Event => {
            m.insert("title".into(), json!(words(rng, lang, 2, 7)));
            m.insert("start_at".into(), json!(timestamp(rng)));
            m.insert("end_at".into(), json!(timestamp(rng)));
            let location = if rng.chance(0.3) {
                Value::Null
            } else {
                json!(rng.pick(CITIES))
            };
            m.insert("location".into(), location);
            m.insert("recurring".into(), json!(rng.chance(0.3)));
            m.insert("organizer".into(), json!(person(rng, lang)));
        }
        Shape::Order => {
            m.insert("customer".into(), json!(person(rng, lang)));
            m.insert("status".into(), json!(rng.pick(STATUSES)));
            m.insert("total".into(), price(rng));
            m.insert(
                "currency".into(),
                json!(rng.pick(&["USD", "EUR", "JPY", "KRW", "MXN"])),
            );
            m.insert("items".into(), json!(rng.range(1, 12)));
            m.insert("placed_at".into(), json!(timestamp(rng)));
            if style.nested {
                m.insert(
                    "shipping".into(),
                    json!({
                        "city": rng.pick(CITIES),
                        "zip": format!("{:05}", rng.range(1000, 99_999)),
                        "tracking": hex(rng, 20).to_uppercase(),
                    }),
                );
                let lines: Vec<Value> = (0..rng.range(1, 3))
                    .map(|_| {
                        json!({
                            "sku": format!("SKU-{}", hex(rng, 6).to_uppercase()),
                            "qty": rng.range(1, 5),
                            "unit_price": price(rng),
                        })
                    })
                    .collect();
                m.insert("lines".into(), Value::Array(lines));
            }
        }
        Shape::Product => {
            m.insert(
                "sku".into(),
                json!(format!("SKU-{}", hex(rng, 8).to_uppercase())),
            );
            m.insert("name".into(), json!(words(rng, lang, 1, 4)));
            m.insert("price".into(), price(rng));
            m.insert("stock".into(), json!(rng.range(0, 900)));
            m.insert(
                "rating".into(),
                json!((rng.unit() * 40.0).round() / 10.0 + 1.0),
            );
            m.insert("description".into(), json!(words(rng, lang, 6, 30)));
        }
        Shape::Log => {
            m.insert("ts".into(), json!(timestamp(rng)));
            m.insert("level".into(), json!(rng.pick(LEVELS)));
            m.insert(
                "service".into(),
                json!(rng.pick(&["api", "billing-worker", "auth", "gateway"])),
            );
            m.insert("trace_id".into(), json!(hex(rng, 32)));
            m.insert("message".into(), json!(words(rng, lang, 3, 12)));
            m.insert("latency_ms".into(), number(rng));
            if rng.chance(0.3) {
                m.insert("detail".into(), json!(rng.pick(CODE)));
            } else {
                m.insert("detail".into(), Value::Null);
            }
        }
        Shape::Message => {
            m.insert("author".into(), json!(person(rng, lang)));
            m.insert("sent_at".into(), json!(timestamp(rng)));
            let mut body = words(rng, lang, 5, 40);
            while rng.chance(0.3) {
                body.push_str(rng.pick(&["\n", "\n\n", " \"", "\" "]));
                body.push_str(&words(rng, lang, 3, 20));
            }
            m.insert("body".into(), json!(body));
            m.insert("reactions".into(), json!(rng.range(0, 40)));
            m.insert("thread".into(), json!(uuid(rng)));
        }
        Shape::File => {
            m.insert(
                "filename".into(),
                json!(format!(
                    "{}_{}.{}",
                    rng.pick(&["report", "avatar", "invoice", "backup", "photo"]),
                    rng.range(1, 999),
                    rng.pick(&["pdf", "png", "jpg", "json", "tar.gz"])
                )),
            );
            m.insert("size".into(), json!(rng.range(100, 50_000_000)));
            m.insert("sha256".into(), json!(hex(rng, 64)));
            let url_safe = rng.chance(0.3);
            let len = 12 + rng.below(150);
            m.insert("content".into(), json!(base64(rng, len, url_safe)));
            m.insert("uploaded_at".into(), json!(timestamp(rng)));
        }
        Shape::Metric => {
            m.insert(
                "name".into(),
                json!(format!(
                    "{}.{}",
                    rng.pick(&["http", "db", "cache", "queue"]),
                    rng.pick(&["requests_total", "latency_p99", "hit_ratio", "depth"])
                )),
            );
            m.insert("value".into(), number(rng));
            m.insert("min".into(), number(rng));
            m.insert("max".into(), number(rng));
            m.insert("samples".into(), json!(rng.range(1, 1_000_000)));
            if style.nested {
                let series: Vec<Value> = (0..rng.range(3, 12)).map(|_| number(rng)).collect();
                m.insert("series".into(), Value::Array(series));
            }
            m.insert("at".into(), json!(timestamp(rng)));
            m.insert(
                "lat".into(),
                json!(((rng.unit() * 180.0 - 90.0) * 1e6).round() / 1e6),
            );
            m.insert(
                "lon".into(),
                json!(((rng.unit() * 360.0 - 180.0) * 1e6).round() / 1e6),
            );
        }
        Shape::Commit => {
            m.insert("sha".into(), json!(hex(rng, 40)));
            m.insert("author".into(), json!(person(rng, lang)));
            m.insert("summary".into(), json!(words(rng, lang, 3, 10)));
            m.insert("diff".into(), json!(rng.pick(CODE)));
            m.insert("committed_at".into(), json!(timestamp(rng)));
            m.insert("additions".into(), json!(rng.range(0, 900)));
            m.insert("deletions".into(), json!(rng.range(0, 400)));
        }
    }
    if style.with_tags {
        m.insert("tags".into(), tags(rng));
    }
    Value::Object(m)
}

pub fn envelope(rng: &mut Rng, shape: Shape, records: &[Value]) -> Value {
    let list = Value::Array(records.to_vec());
    match rng.below(4) {
        0 => list,
        1 if records.len() == 1 => records[0].clone(),
        _ => {
            let mut m = Map::new();
            m.insert(
                (rng.pick(&["data", "items", "results", shape.noun()])).into(),
                list,
            );
            m.insert(
                "meta".into(),
                json!({
                    "total": records.len() + rng.below(500),
                    "limit": records.len(),
                    "offset": rng.below(10) * records.len(),
                    "next": if rng.chance(0.5) { json!(base64(rng, 18, true)) } else { Value::Null },
                }),
            );
            Value::Object(m)
        }
    }
}
