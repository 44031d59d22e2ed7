//! At most one warning per route per interval: a handler that returns a
//! record of the wrong shape on every request must not flood the logs.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How often a route may log that its records do not fit.
pub(crate) const LOG_INTERVAL: Duration = Duration::from_secs(60);

/// When each route last logged, shared by every clone of the service.
///
/// Keyed by registered route pattern, never by anything a request chooses,
/// so the map holds at most one entry per registered resource.
#[derive(Debug, Clone, Default)]
pub(crate) struct LogGate {
    routes: Arc<Mutex<HashMap<String, Entry>>>,
}

#[derive(Debug)]
struct Entry {
    last: Instant,
    suppressed: u64,
}

impl LogGate {
    /// Whether `route` may log now; when it may, how many warnings were held
    /// back since it last did.
    pub(crate) fn admit(&self, route: &str, now: Instant) -> Option<u64> {
        // A panic elsewhere while the lock was held leaves plain data behind.
        let mut routes = self.routes.lock().unwrap_or_else(PoisonError::into_inner);
        match routes.get_mut(route) {
            Some(entry) if now.saturating_duration_since(entry.last) < LOG_INTERVAL => {
                entry.suppressed = entry.suppressed.saturating_add(1);
                None
            }
            Some(entry) => {
                let suppressed = entry.suppressed;
                *entry = Entry {
                    last: now,
                    suppressed: 0,
                };
                Some(suppressed)
            }
            None => {
                routes.insert(
                    route.to_owned(),
                    Entry {
                        last: now,
                        suppressed: 0,
                    },
                );
                Some(0)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_warning_per_route_per_interval() {
        let gate = LogGate::default();
        let start = Instant::now();
        assert_eq!(gate.admit("/a", start), Some(0));
        assert_eq!(gate.admit("/a", start), None);
        assert_eq!(gate.admit("/b", start), Some(0));
        assert_eq!(gate.admit("/a", start + LOG_INTERVAL / 2), None);
        assert_eq!(gate.admit("/a", start + LOG_INTERVAL), Some(2));
        assert_eq!(gate.admit("/a", start + LOG_INTERVAL), None);
        // A clone shares the gate, as clones of the service do.
        assert_eq!(
            gate.clone().admit("/b", start + Duration::from_secs(1)),
            None
        );
    }
}
