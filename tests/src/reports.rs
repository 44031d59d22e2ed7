//! What the layers report, caught for assertions: a `metrics` recorder that
//! keeps every counter, and a `tracing` subscriber that keeps every event of
//! target `terse`. Both are process-wide: they are installed once per test
//! binary, and each test that reads them holds the binary's
//! [`PROCESS`](crate::process::PROCESS) lock alone ([`install`]), so that
//! what it reads is what it caused. Between such tests both are inert, so
//! the other tests of the binary run as in a process without them.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use metrics::{
    Counter, CounterFn, Gauge, Histogram, Key, KeyName, Metadata, Recorder, SharedString, Unit,
};
use tokio::sync::RwLockWriteGuard;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Subscriber};

/// Whether a test holding the process reads the recorder and subscriber:
/// while it is off they count and keep nothing, and the layers' reporting
/// sees no subscriber that wants its events.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// The process, held alone by a test that reads what the layers report;
/// the recorder and subscriber go inert again when it is dropped.
pub struct Alone {
    _guard: RwLockWriteGuard<'static, ()>,
}

impl Drop for Alone {
    fn drop(&mut self) {
        ACTIVE.store(false, Ordering::SeqCst);
    }
}

/// Takes the process alone, installs a [`Counters`] recorder and an
/// [`Events`] subscriber as the process's globals the first time, and
/// returns the guard and both, every counter at zero and no event kept.
///
/// Hold the guard to the end of the test: every other test of the binary
/// holds [`PROCESS`](crate::process::PROCESS) while it runs, so nothing
/// else is counted meanwhile.
///
/// # Panics
///
/// When another recorder or subscriber was installed first.
pub async fn install() -> (Alone, Counters, Events) {
    static INSTALLED: OnceLock<(Counters, Events)> = OnceLock::new();
    let alone = crate::process::PROCESS.write().await;
    let (counters, events) = INSTALLED
        .get_or_init(|| {
            let counters = Counters::default();
            metrics::set_global_recorder(counters.clone()).expect("one recorder per process");
            let events = Events::default();
            tracing::subscriber::set_global_default(events.clone())
                .expect("one subscriber per process");
            (counters, events)
        })
        .clone();
    counters.reset();
    events.clear();
    ACTIVE.store(true, Ordering::SeqCst);
    (Alone { _guard: alone }, counters, events)
}

/// Every counter, by name and sorted labels.
#[derive(Clone, Default)]
pub struct Counters(Arc<Mutex<BTreeMap<String, Arc<Value>>>>);

#[derive(Default)]
struct Value(AtomicU64);

impl CounterFn for Value {
    fn increment(&self, value: u64) {
        self.0.fetch_add(value, Ordering::Relaxed);
    }
    fn absolute(&self, value: u64) {
        self.0.store(value, Ordering::Relaxed);
    }
}

fn key_text(key: &Key) -> String {
    let mut labels: Vec<String> = key
        .labels()
        .map(|label| format!("{}={}", label.key(), label.value()))
        .collect();
    labels.sort();
    format!("{}{{{}}}", key.name(), labels.join(","))
}

impl Counters {
    /// The value of the counter `name{label=value,...}`, labels sorted by
    /// name; 0 when it was never registered.
    pub fn get(&self, key: &str) -> u64 {
        let all = self.0.lock().unwrap();
        all.get(key)
            .map_or(0, |value| value.0.load(Ordering::Relaxed))
    }

    /// Every counter back to zero. The values stay registered: a handle
    /// the layer took earlier still counts into them.
    fn reset(&self) {
        for value in self.0.lock().unwrap().values() {
            value.0.store(0, Ordering::Relaxed);
        }
    }
}

impl Recorder for Counters {
    fn describe_counter(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_gauge(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_histogram(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn register_counter(&self, key: &Key, _: &Metadata<'_>) -> Counter {
        if !ACTIVE.load(Ordering::SeqCst) {
            return Counter::noop();
        }
        let value = self
            .0
            .lock()
            .unwrap()
            .entry(key_text(key))
            .or_default()
            .clone();
        Counter::from_arc(value)
    }
    fn register_gauge(&self, _: &Key, _: &Metadata<'_>) -> Gauge {
        Gauge::noop()
    }
    fn register_histogram(&self, _: &Key, _: &Metadata<'_>) -> Histogram {
        Histogram::noop()
    }
}

/// Every debug event of target `terse`, as `field=value ...`.
#[derive(Clone, Default)]
pub struct Events(Arc<Mutex<Vec<String>>>);

struct Line(String);

impl Visit for Line {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        let _ = write!(self.0, " {}={:?}", field.name(), value);
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        let _ = write!(self.0, " {}={}", field.name(), value);
    }
}

impl Events {
    /// Every event so far, as `field=value ...`.
    pub fn lines(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }

    /// Forgets every event so far.
    fn clear(&self) {
        self.0.lock().unwrap().clear();
    }
}

impl Subscriber for Events {
    // Asked at each event (never cached as always or never): whether it is
    // wanted changes with `ACTIVE`.
    fn register_callsite(&self, metadata: &'static tracing::Metadata<'static>) -> Interest {
        if metadata.target() == "terse" {
            Interest::sometimes()
        } else {
            Interest::never()
        }
    }
    fn enabled(&self, metadata: &tracing::Metadata<'_>) -> bool {
        metadata.target() == "terse" && ACTIVE.load(Ordering::SeqCst)
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut line = Line(String::new());
        event.record(&mut line);
        self.0.lock().unwrap().push(line.0.trim().to_owned());
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}
