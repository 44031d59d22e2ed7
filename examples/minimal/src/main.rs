//! The smallest axum service with the terse layer.
//!
//! ```sh
//! cargo run -p minimal            # http://127.0.0.1:3000
//! curl 'http://127.0.0.1:3000/api/v1/events?limit=3&format=toon'
//! curl 'http://127.0.0.1:3000/api/v1/events?limit=3&format=compact'
//! curl --http2-prior-knowledge 'http://127.0.0.1:3000/api/v1/events?limit=3&format=toon'
//! ```
//!
//! `--addr HOST:PORT` listens elsewhere; `--no-layer` serves the same routes
//! without the layer, to measure what the layer costs. The port serves
//! HTTP/1.1 and HTTP/2 over cleartext (h2c, prior knowledge) alike.

use axum::extract::{Path, Query};
use axum::http::StatusCode;
use axum::{Json, Router, routing::get};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tower_terse::{CompactLine, ErrorEnvelope, TerseLayer};

/// A calendar event as the API stores it, and the one line an agent reads
/// for it with `format=compact`.
#[derive(Debug, Clone, Serialize, Deserialize, CompactLine)]
#[compact(
    noun = "event",
    line = "{start_at|date} {start_at|time}-{end_at|time} {title}{? @ {location}} ({attendees} people, {status})"
)]
struct Event {
    id: String,
    title: String,
    start_at: String,
    end_at: String,
    location: Option<String>,
    organizer: String,
    attendees: u32,
    status: String,
}

const TITLES: [&str; 8] = [
    "Sprint planning",
    "Design review: onboarding flow",
    "1:1 Maya / Jonas",
    "Customer call, Acme GmbH",
    "Incident retro #142",
    "Lunch & learn: async Rust",
    "Quarterly budget sync",
    "Hiring panel: backend engineer",
];
const LOCATIONS: [Option<&str>; 4] = [Some("Room 4.12"), None, Some("Zoom"), Some("Café Mitte")];
const ORGANIZERS: [&str; 3] = [
    "maya@example.com",
    "jonas@example.com",
    "li.wei@example.com",
];
const STATUSES: [&str; 3] = ["confirmed", "confirmed", "tentative"];
const TOTAL: usize = 120;

/// The `n`th event of a deterministic calendar: the same data on every run.
fn event(n: usize) -> Event {
    let start = 9 * 60 + (n % 5) * 90;
    let day = 2 + n / 5;
    let time = |minutes: usize| {
        format!(
            "2026-03-{day:02}T{:02}:{:02}:00Z",
            minutes / 60,
            minutes % 60
        )
    };
    Event {
        id: format!("evt_{:04}", 1000 + n),
        title: TITLES[n % TITLES.len()].to_owned(),
        start_at: time(start),
        end_at: time(start + 30 + (n % 3) * 30),
        location: LOCATIONS[n % LOCATIONS.len()].map(str::to_owned),
        organizer: ORGANIZERS[n % ORGANIZERS.len()].to_owned(),
        attendees: 2 + (n * 7 % 11) as u32,
        status: STATUSES[n % STATUSES.len()].to_owned(),
    }
}

#[derive(Debug, Deserialize)]
struct Page {
    limit: Option<usize>,
    offset: Option<usize>,
}

async fn list_events(Query(page): Query<Page>) -> Json<Value> {
    let limit = page.limit.unwrap_or(20).min(100);
    let offset = page.offset.unwrap_or(0).min(TOTAL);
    let data: Vec<Event> = (offset..(offset + limit).min(TOTAL)).map(event).collect();
    Json(json!({
        "data": data,
        "meta": {"total": TOTAL, "limit": limit, "offset": offset},
    }))
}

async fn get_event(Path(id): Path<String>) -> Result<Json<Event>, ErrorEnvelope> {
    (0..TOTAL)
        .map(event)
        .find(|event| event.id == id)
        .map(Json)
        .ok_or_else(|| {
            ErrorEnvelope::new(StatusCode::NOT_FOUND, "not_found", format!("no event {id}"))
        })
}

fn routes() -> Router {
    Router::new()
        .route("/api/v1/events", get(list_events))
        .route("/api/v1/events/{id}", get(get_event))
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let addr = args
        .windows(2)
        .find(|pair| pair[0] == "--addr")
        .map_or("127.0.0.1:3000", |pair| pair[1].as_str())
        .to_owned();
    let app = if args.iter().any(|arg| arg == "--no-layer") {
        routes()
    } else {
        routes().layer(TerseLayer::new().resource::<Event>("/api/v1/events"))
    };
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    // The bound address, so `--addr 127.0.0.1:0` tells which port it got.
    println!("listening on http://{}", listener.local_addr()?);
    axum::serve(listener, app).await
}
