//! A calendar MCP server on the official Rust SDK (`rmcp`), whose tool
//! results reach agents as TOON or compact lines through
//! [`tower_terse::mcp::McpLayer`], added in one line in [`app`].
//!
//! Tools: `list_events` (a day or a week of events), `get_event`,
//! `find_free_slots` and `weather_forecast`. Every tool answers with JSON
//! text content; `list_events`, `get_event` and `weather_forecast` also
//! with `structuredContent`. The data is made up and depends only on the
//! arguments, so answers are the same on every run.

use axum::Router;
use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{CallToolResult, ContentBlock, ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use rmcp::{ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::{Value, json};
use tower_terse::mcp::{McpLayer, McpTool};

/// How `list_events` results read as compact lines.
pub const EVENT_LINE: &str =
    "{start|time}-{end|time} {title}{? @{location}}{? ({attendees} people)}";

/// The MCP endpoint at `/mcp`, with the terse layer: TOON when the client
/// sends `X-Prefer-Format: toon`, compact lines for `list_events` with
/// `compact`, the server's own JSON otherwise. `json_response` answers
/// simple calls as `application/json` instead of an event stream.
pub fn app(json_response: bool) -> Router {
    without_layer(json_response).layer(McpLayer::new().tool("list_events", events_tool()))
}

/// The same server without the layer: what the server itself sends.
pub fn without_layer(json_response: bool) -> Router {
    let config = StreamableHttpServerConfig::default()
        .with_json_response(json_response)
        .with_legacy_session_mode(!json_response);
    let mcp = StreamableHttpService::new(
        || Ok(Calendar::new()),
        LocalSessionManager::default().into(),
        config,
    );
    Router::new().nest_service("/mcp", mcp)
}

/// Compact lines for `list_events`: the records under `events`.
pub fn events_tool() -> McpTool {
    // The template is a constant that parses (checked by the tests).
    McpTool::from_template("events", "event", EVENT_LINE).unwrap_or_else(|err| panic!("{err}"))
}

/// The calendar's tools.
#[derive(Debug, Clone)]
pub struct Calendar {
    #[allow(dead_code)] // read by the code `tool_handler` generates
    tool_router: ToolRouter<Self>,
}

impl Default for Calendar {
    fn default() -> Self {
        Self::new()
    }
}

/// `list_events` arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ListEvents {
    /// First day, `YYYY-MM-DD`.
    pub date: String,
    /// How many days from `date` (1 to 7; default 1).
    #[serde(default)]
    pub days: Option<u32>,
}

/// `get_event` arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct GetEvent {
    /// The event's id, as `list_events` gives it.
    pub id: String,
}

/// `find_free_slots` arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct FindFreeSlots {
    /// The day, `YYYY-MM-DD`.
    pub date: String,
    /// Length of a slot in minutes (default 30).
    #[serde(default)]
    pub duration_minutes: Option<u32>,
}

/// `weather_forecast` arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct WeatherForecast {
    /// The city.
    pub city: String,
    /// How many days (1 to 10; default 5).
    #[serde(default)]
    pub days: Option<u32>,
}

#[tool_router]
impl Calendar {
    /// A calendar with its tools.
    pub fn new() -> Self {
        Calendar {
            tool_router: Self::tool_router(),
        }
    }

    #[tool(description = "List the events of a day or of up to a week, in start order")]
    fn list_events(&self, Parameters(args): Parameters<ListEvents>) -> CallToolResult {
        match day_number(&args.date) {
            Some(day) => {
                CallToolResult::structured(events(day, args.days.unwrap_or(1).clamp(1, 7)))
            }
            None => bad_date(&args.date),
        }
    }

    #[tool(description = "One event with its details, by id")]
    fn get_event(&self, Parameters(args): Parameters<GetEvent>) -> CallToolResult {
        match find_event(&args.id) {
            Some(event) => CallToolResult::structured(event),
            None => CallToolResult::error(vec![ContentBlock::text(format!(
                "no event with id {}",
                args.id
            ))]),
        }
    }

    #[tool(description = "Free slots of a working day (09:00 to 18:00 UTC) between its events")]
    fn find_free_slots(&self, Parameters(args): Parameters<FindFreeSlots>) -> CallToolResult {
        let Some(day) = day_number(&args.date) else {
            return bad_date(&args.date);
        };
        let minutes = args.duration_minutes.unwrap_or(30).clamp(5, 540);
        let slots = free_slots(day, minutes);
        // Text only, no structuredContent: the way most servers answer.
        CallToolResult::success(vec![ContentBlock::text(slots.to_string())])
    }

    #[tool(description = "Daily weather forecast for a city")]
    fn weather_forecast(&self, Parameters(args): Parameters<WeatherForecast>) -> CallToolResult {
        CallToolResult::structured(forecast(&args.city, args.days.unwrap_or(5).clamp(1, 10)))
    }
}

#[tool_handler]
impl ServerHandler for Calendar {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_instructions("A calendar: events, free slots and the weather.")
    }
}

fn bad_date(date: &str) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(format!(
        "`{date}` is not a date (YYYY-MM-DD)"
    ))])
}

/// Days since 1970-01-01 of a `YYYY-MM-DD` date.
fn day_number(date: &str) -> Option<i64> {
    let mut parts = date.split('-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return None;
    }
    let (y, m, d): (i64, i64, i64) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    // Howard Hinnant's days_from_civil.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

/// `YYYY-MM-DD` of a day number.
fn date_of(day: i64) -> String {
    let z = day + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// One event of the day plan: start minute, length, title, location,
/// attendees, recurrence.
type Planned = (
    u32,
    u32,
    &'static str,
    Option<&'static str>,
    u32,
    Option<&'static str>,
);

/// The events of one day.
const DAY_PLAN: [Planned; 6] = [
    (
        9 * 60,
        15,
        "Team standup",
        Some("Room Ada"),
        8,
        Some("weekdays"),
    ),
    (
        10 * 60,
        60,
        "Design review: billing export",
        Some("Room Turing"),
        5,
        None,
    ),
    (
        12 * 60 + 30,
        45,
        "Lunch with Maya",
        Some("Café Central"),
        2,
        None,
    ),
    (14 * 60, 30, "1:1 with Jonas", None, 2, Some("weekly")),
    (
        15 * 60,
        90,
        "Quarterly planning",
        Some("Room Hopper"),
        12,
        None,
    ),
    (17 * 60, 30, "Support handover", None, 4, Some("weekdays")),
];

fn time_of(date: &str, minute: u32) -> String {
    format!("{date}T{:02}:{:02}:00Z", minute / 60, minute % 60)
}

/// The events of `day`; weekends have fewer.
fn day_events(day: i64) -> Vec<Value> {
    let date = date_of(day);
    // 1970-01-01 was a Thursday: 2 and 3 are Saturday and Sunday.
    let weekend = matches!(day.rem_euclid(7), 2 | 3);
    DAY_PLAN
        .iter()
        .enumerate()
        .filter(|(i, _)| !weekend || *i == 2)
        .map(
            |(i, &(start, minutes, title, location, attendees, recurrence))| {
                json!({
                    "id": format!("evt_{}_{}", date.replace('-', ""), i + 1),
                    "title": title,
                    "start": time_of(&date, start),
                    "end": time_of(&date, start + minutes),
                    "location": location,
                    "attendees": attendees,
                    "organizer": if i % 2 == 0 { "maya@example.com" } else { "jonas@example.com" },
                    "recurrence": recurrence,
                    "status": "confirmed",
                })
            },
        )
        .collect()
}

fn events(day: i64, days: u32) -> Value {
    let events: Vec<Value> = (0..i64::from(days))
        .flat_map(|offset| day_events(day + offset))
        .collect();
    json!({
        "from": date_of(day),
        "to": date_of(day + i64::from(days) - 1),
        "timezone": "UTC",
        "events": events,
    })
}

fn find_event(id: &str) -> Option<Value> {
    let rest = id.strip_prefix("evt_")?;
    let (date, _) = rest.split_once('_')?;
    if date.len() != 8 {
        return None;
    }
    let day = day_number(&format!("{}-{}-{}", &date[..4], &date[4..6], &date[6..]))?;
    let mut event = day_events(day)
        .into_iter()
        .find(|event| event["id"] == id)?;
    event["description"] = json!("Agenda and notes are in the shared folder.");
    event["conference"] =
        json!({"provider": "meet", "url": format!("https://meet.example.com/{id}")});
    Some(event)
}

fn free_slots(day: i64, minutes: u32) -> Value {
    let date = date_of(day);
    let weekend = matches!(day.rem_euclid(7), 2 | 3);
    let mut busy: Vec<(u32, u32)> = DAY_PLAN
        .iter()
        .enumerate()
        .filter(|(i, _)| !weekend || *i == 2)
        .map(|(_, &(start, length, ..))| (start, start + length))
        .collect();
    busy.sort_unstable();
    let mut slots = Vec::new();
    let mut at = 9 * 60;
    for (start, end) in busy.into_iter().chain([(18 * 60, 18 * 60)]) {
        while at + minutes <= start {
            slots.push(json!({"start": time_of(&date, at), "end": time_of(&date, at + minutes)}));
            at += minutes;
        }
        at = at.max(end);
    }
    json!({"date": date, "duration_minutes": minutes, "slots": slots})
}

fn forecast(city: &str, days: u32) -> Value {
    const CONDITIONS: [&str; 5] = [
        "sunny",
        "partly cloudy",
        "cloudy",
        "light rain",
        "thunderstorms",
    ];
    let seed = city
        .bytes()
        .fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
    let days: Vec<Value> = (0..days)
        .map(|i| {
            let v = seed.wrapping_add(i.wrapping_mul(2_654_435_761)) >> 3;
            let high = 14 + (v % 15) as i64;
            json!({
                "date": date_of(20_241 + i64::from(i)),
                "high_c": high,
                "low_c": high - 6 - (v % 4) as i64,
                "conditions": CONDITIONS[(v % 5) as usize],
                "precipitation_mm": ((v >> 4) % 80) as f64 / 10.0,
                "wind_kmh": 5 + (v >> 8) % 30,
            })
        })
        .collect();
    json!({"city": city, "units": "metric", "days": days})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_round_trip() {
        for date in ["1970-01-01", "2000-02-29", "2025-06-02", "2025-12-31"] {
            assert_eq!(date_of(day_number(date).unwrap()), date);
        }
        assert_eq!(day_number("2025-13-01"), None);
        assert_eq!(day_number("2025-6-1"), None);
    }

    #[test]
    fn the_event_template_parses() {
        assert_eq!(events_tool().list_key(), "events");
    }

    #[test]
    fn events_are_found_by_id() {
        let day = day_number("2025-06-02").unwrap();
        let first = &events(day, 1)["events"][0];
        let found = find_event(first["id"].as_str().unwrap()).unwrap();
        assert_eq!(found["title"], first["title"]);
        assert!(find_event("evt_x").is_none());
    }
}
