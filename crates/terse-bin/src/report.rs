//! `terse report`: what a running service's list endpoints cost an agent,
//! in tokens, as JSON (as sent, and minified), as TOON and as compact lines.
//!
//! Each endpoint is requested three times with `limit=10` and
//! `format=json|toon|compact`, and each body is counted exactly (o200k_base)
//! as it arrived; the JSON body is also counted minified
//! ([`tower_terse::format::minify_json`]), the form the layer serves a TOON request
//! when that is the cheapest. A format the layer declined (TOON not
//! cheaper, compact not registered) arrives as JSON and is counted as such,
//! so the table shows what an agent would really pay.
//!
//! The HTTP client is `ureq` without TLS: blocking calls fit a command that
//! makes 21 requests in a row, it needs no async runtime, and it reads
//! chunked bodies and timeouts correctly where a hand-written client on
//! `TcpStream` would have to re-implement them.

use std::fmt::{self, Write as _};
use std::time::Duration;

use serde_json::{Value, json};

/// The agent-api example's resources, as `(name, path)`: every list
/// endpoint it has (`--agent-api`).
pub const AGENT_API_ENDPOINTS: &[(&str, &str)] = &[
    ("events", "/api/v1/events"),
    ("notes", "/api/v1/notes"),
    ("emails", "/api/v1/emails"),
    ("contacts", "/api/v1/contacts"),
    ("files", "/api/v1/files"),
    ("diary", "/api/v1/diary"),
    ("search", "/api/v1/search?q=budget"),
];

/// Records requested per endpoint.
pub const LIMIT: u32 = 10;

/// Arguments of `terse report`.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Base URL of the service.
    #[arg(long, default_value = "http://127.0.0.1:3000")]
    pub url: String,
    /// An endpoint to measure as NAME=PATH (repeatable), such as
    /// `--endpoint users=/api/users`.
    #[arg(long = "endpoint", value_name = "NAME=PATH")]
    pub endpoints: Vec<String>,
    /// Measure the list endpoints of the agent-api example (before any
    /// `--endpoint`).
    #[arg(long)]
    pub agent_api: bool,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Why a report could not be made.
#[derive(Debug)]
pub enum ReportError {
    /// An `--endpoint` is not `NAME=PATH`.
    Endpoint(String),
    /// Neither `--endpoint` nor `--agent-api` was given.
    NoEndpoints,
    /// A request failed or did not answer 2xx.
    Http {
        /// The URL requested.
        url: String,
        /// What went wrong.
        message: String,
    },
}

impl fmt::Display for ReportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoEndpoints => f.write_str(
                "no endpoint to measure: give --endpoint NAME=PATH (e.g. --endpoint users=/api/users), or --agent-api for the agent-api example",
            ),
            Self::Endpoint(e) => write!(
                f,
                "--endpoint {e:?} is not NAME=PATH (e.g. events=/api/v1/events)"
            ),
            Self::Http { url, message } => write!(f, "GET {url}: {message}"),
        }
    }
}

impl std::error::Error for ReportError {}

/// The three renderings of one endpoint an agent can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    /// `format=json`.
    Json,
    /// `format=toon`.
    Toon,
    /// `format=compact`.
    Compact,
}

impl Asked {
    /// The `format=` value.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Json => "json",
            Self::Toon => "toon",
            Self::Compact => "compact",
        }
    }
}

/// The URL of `path` on `base` with `limit` and `format` added.
///
/// ```
/// use terse_bin::report::{Asked, url};
///
/// assert_eq!(
///     url("http://127.0.0.1:3000/", "/api/v1/search?q=budget", Asked::Compact),
///     "http://127.0.0.1:3000/api/v1/search?q=budget&limit=10&format=compact"
/// );
/// ```
pub fn url(base: &str, path: &str, asked: Asked) -> String {
    let sep = if path.contains('?') { '&' } else { '?' };
    format!(
        "{}{path}{sep}limit={LIMIT}&format={}",
        base.trim_end_matches('/'),
        asked.name()
    )
}

/// One body as it arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    /// The `Content-Type` it came with.
    pub content_type: String,
    /// Its size.
    pub bytes: usize,
    /// Its exact o200k_base token count.
    pub tokens: usize,
}

impl Sample {
    /// Whether it came as JSON (any JSON media type): a TOON request
    /// answered with JSON fell back.
    pub fn is_json(&self) -> bool {
        http::HeaderValue::from_str(&self.content_type)
            .is_ok_and(|value| tower_terse::proxy::is_json_media_type(&value))
    }
}

/// One endpoint, measured in the three formats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// Resource name.
    pub name: String,
    /// Path requested (before `limit` and `format`).
    pub path: String,
    /// `format=json`.
    pub json: Sample,
    /// The `format=json` body minified.
    pub minified: Sample,
    /// `format=toon` (JSON again when the layer found TOON not cheaper).
    pub toon: Sample,
    /// `format=compact` (JSON again when compact does not apply).
    pub compact: Sample,
}

/// Percent fewer tokens in `tokens` than in `baseline` (negative when more).
pub fn reduction(baseline: usize, tokens: usize) -> f64 {
    if baseline == 0 {
        return 0.0;
    }
    (1.0 - tokens as f64 / baseline as f64) * 100.0
}

impl Row {
    /// Percent fewer tokens as TOON than as JSON.
    pub fn toon_reduction(&self) -> f64 {
        reduction(self.json.tokens, self.toon.tokens)
    }

    /// Percent fewer tokens as compact lines than as JSON.
    pub fn compact_reduction(&self) -> f64 {
        reduction(self.json.tokens, self.compact.tokens)
    }
}

/// Every endpoint measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The base URL measured.
    pub url: String,
    /// One row per endpoint, in request order.
    pub rows: Vec<Row>,
}

impl Report {
    /// Sums of JSON, TOON and compact tokens over all rows.
    pub fn totals(&self) -> (usize, usize, usize) {
        self.rows.iter().fold((0, 0, 0), |(j, t, c), r| {
            (j + r.json.tokens, t + r.toon.tokens, c + r.compact.tokens)
        })
    }

    /// The mean over rows of the compact reduction (each endpoint weighs the same).
    pub fn mean_compact_reduction(&self) -> f64 {
        mean(self.rows.iter().map(Row::compact_reduction))
    }

    /// The mean over rows of the TOON reduction.
    pub fn mean_toon_reduction(&self) -> f64 {
        mean(self.rows.iter().map(Row::toon_reduction))
    }

    /// The report as a text table.
    pub fn table(&self) -> String {
        let mut out = format!(
            "token report for {} (limit={LIMIT}, o200k_base)\n\n",
            self.url
        );
        let _ = writeln!(
            out,
            "{:<10} {:>6} {:>8} {:>6} {:>8} {:>10} {:>13}",
            "resource", "JSON", "minified", "TOON", "compact", "TOON saves", "compact saves"
        );
        for r in &self.rows {
            let fell_back = if r.toon.is_json() { "*" } else { " " };
            let _ = writeln!(
                out,
                "{:<10} {:>6} {:>8} {:>6} {:>8} {:>9.1}%{fell_back} {:>12.1}%",
                r.name,
                r.json.tokens,
                r.minified.tokens,
                r.toon.tokens,
                r.compact.tokens,
                r.toon_reduction(),
                r.compact_reduction()
            );
        }
        let (j, t, c) = self.totals();
        let m: usize = self.rows.iter().map(|r| r.minified.tokens).sum();
        let _ = writeln!(
            out,
            "{:<10} {:>6} {:>8} {:>6} {:>8} {:>9.1}%  {:>12.1}%",
            "total",
            j,
            m,
            t,
            c,
            reduction(j, t),
            reduction(j, c)
        );
        let _ = writeln!(
            out,
            "{:<10} {:>6} {:>8} {:>6} {:>8} {:>9.1}%  {:>12.1}%",
            "mean",
            "",
            "",
            "",
            "",
            self.mean_toon_reduction(),
            self.mean_compact_reduction()
        );
        if self.rows.iter().any(|r| r.toon.is_json()) {
            out.push_str(
                "\n* TOON was not cheaper: the layer served the JSON (minified when it had whitespace to drop)\n",
            );
        }
        out
    }

    /// The report as one JSON object.
    pub fn to_json(&self) -> Value {
        let sample = |s: &Sample| json!({"tokens": s.tokens, "bytes": s.bytes, "content_type": s.content_type});
        let (j, t, c) = self.totals();
        let m: usize = self.rows.iter().map(|r| r.minified.tokens).sum();
        json!({
            "url": self.url,
            "limit": LIMIT,
            "resources": self.rows.iter().map(|r| json!({
                "name": r.name,
                "path": r.path,
                "json": sample(&r.json),
                "json_minified": sample(&r.minified),
                "toon": sample(&r.toon),
                "compact": sample(&r.compact),
                "toon_reduction_pct": round1(r.toon_reduction()),
                "compact_reduction_pct": round1(r.compact_reduction()),
            })).collect::<Vec<_>>(),
            "total": {"json": j, "json_minified": m, "toon": t, "compact": c,
                      "toon_reduction_pct": round1(reduction(j, t)),
                      "compact_reduction_pct": round1(reduction(j, c))},
            "mean_toon_reduction_pct": round1(self.mean_toon_reduction()),
            "mean_compact_reduction_pct": round1(self.mean_compact_reduction()),
        })
    }
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    if n == 0 { 0.0 } else { sum / n as f64 }
}

/// The agent-api example's endpoints, owned, for [`measure`].
pub fn agent_api_endpoints() -> Vec<(String, String)> {
    AGENT_API_ENDPOINTS
        .iter()
        .map(|(n, p)| ((*n).to_owned(), (*p).to_owned()))
        .collect()
}

/// Reads `NAME=PATH` arguments.
pub fn endpoints(args: &[String]) -> Result<Vec<(String, String)>, ReportError> {
    args.iter()
        .map(|a| match a.split_once('=') {
            Some((name, path)) if !name.is_empty() && path.starts_with('/') => {
                Ok((name.to_owned(), path.to_owned()))
            }
            _ => Err(ReportError::Endpoint(a.clone())),
        })
        .collect()
}

/// Requests every endpoint in the three formats and counts the tokens.
pub fn measure(base: &str, endpoints: &[(String, String)]) -> Result<Report, ReportError> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into();
    let fetch = |path: &str, asked: Asked| -> Result<(Sample, String), ReportError> {
        let url = url(base, path, asked);
        let fail = |message: String| ReportError::Http {
            url: url.clone(),
            message,
        };
        let mut response = agent.get(&url).call().map_err(|e| {
            fail(match e {
                ureq::Error::Io(io) => format!("{io} (is the service running?)"),
                ureq::Error::StatusCode(code) => format!("the service answered {code}"),
                other => other.to_string(),
            })
        })?;
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let body = response
            .body_mut()
            .read_to_string()
            .map_err(|e| fail(e.to_string()))?;
        let sample = Sample {
            content_type,
            bytes: body.len(),
            tokens: tower_terse::tokens::exact(&body),
        };
        Ok((sample, body))
    };
    let rows = endpoints
        .iter()
        .map(|(name, path)| {
            let (json, body) = fetch(path, Asked::Json)?;
            let minified = tower_terse::format::minify_json(&body);
            let minified = Sample {
                bytes: minified.len(),
                tokens: tower_terse::tokens::exact(&minified),
                ..json.clone()
            };
            Ok(Row {
                name: name.clone(),
                path: path.clone(),
                json,
                minified,
                toon: fetch(path, Asked::Toon)?.0,
                compact: fetch(path, Asked::Compact)?.0,
            })
        })
        .collect::<Result<Vec<_>, ReportError>>()?;
    Ok(Report {
        url: base.trim_end_matches('/').to_owned(),
        rows,
    })
}

/// Runs `terse report` and returns what it prints.
pub fn run(args: &Args) -> Result<String, ReportError> {
    let mut all = if args.agent_api {
        agent_api_endpoints()
    } else {
        Vec::new()
    };
    all.extend(endpoints(&args.endpoints)?);
    if all.is_empty() {
        return Err(ReportError::NoEndpoints);
    }
    let report = measure(&args.url, &all)?;
    Ok(if args.json {
        format!("{}\n", report.to_json())
    } else {
        report.table()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(tokens: usize, content_type: &str) -> Sample {
        Sample {
            content_type: content_type.to_owned(),
            bytes: tokens * 4,
            tokens,
        }
    }

    #[test]
    fn reductions_and_means() {
        let row = |name: &str, j, t, c| Row {
            name: name.to_owned(),
            path: format!("/{name}"),
            json: sample(j, "application/json"),
            minified: sample(j, "application/json"),
            toon: sample(t, "text/toon; charset=utf-8"),
            compact: sample(c, "application/json"),
        };
        let report = Report {
            url: "http://x".to_owned(),
            rows: vec![row("a", 1000, 600, 100), row("b", 100, 100, 50)],
        };
        assert_eq!(report.totals(), (1100, 700, 150));
        assert!((report.mean_compact_reduction() - 70.0).abs() < 1e-9);
        assert!((report.mean_toon_reduction() - 20.0).abs() < 1e-9);
        let table = report.table();
        assert!(table.contains("90.0%"), "{table}");
        assert_eq!(report.to_json()["total"]["compact"], 150);
    }

    #[test]
    fn endpoint_arguments() {
        assert!(endpoints(&[]).unwrap().is_empty());
        assert_eq!(agent_api_endpoints().len(), 7);
        let parsed = endpoints(&["users=/api/users".to_owned()]).unwrap();
        assert_eq!(parsed, [("users".to_owned(), "/api/users".to_owned())]);
        assert!(endpoints(&["nopath".to_owned()]).is_err());
        assert!(endpoints(&["x=relative".to_owned()]).is_err());
        assert_eq!(reduction(0, 5), 0.0);
    }
}
