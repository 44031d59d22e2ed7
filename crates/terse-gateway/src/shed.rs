//! Room for a new connection at the cap: the open connection that has
//! waited longest with nothing in flight (no request yet, or none since its
//! last answer) is closed to make room.
//!
//! Without it, a new client at the cap waits until some connection ends,
//! which an idle keep-alive connection or a client that sends nothing does
//! only at its timeout (`keep_alive_timeout`, `header_read_timeout`): a few
//! hundred silent connections would hold everyone else off for that long.
//!
//! Finding the connection idle the longest among all of them would cost
//! work in proportion to the open connections for every connection made at
//! the cap, which a client decides. So, as caches with approximate LRU do,
//! a bounded sample is looked at: [`SAMPLE`] connections, from a cursor that
//! goes round all of them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::Notify;
use tokio::time::Instant;

use crate::conn::Activity;

/// How many open connections one shed looks at, at most.
pub(crate) const SAMPLE: usize = 64;

/// The open connections, for shedding.
#[derive(Debug, Default)]
pub(crate) struct Open {
    inner: Mutex<Slots>,
}

#[derive(Debug, Default)]
struct Slots {
    entries: Vec<Option<Entry>>,
    free: Vec<usize>,
    /// Where the next sample starts.
    cursor: usize,
}

#[derive(Debug)]
struct Entry {
    activity: Arc<Activity>,
    shed: Arc<Shed>,
}

/// The signal to one connection that it is shed.
#[derive(Debug, Default)]
pub(crate) struct Shed {
    asked: AtomicBool,
    notify: Notify,
}

impl Shed {
    /// Completes once the connection is asked to close to make room.
    pub(crate) async fn asked(&self) {
        self.notify.notified().await;
    }
}

/// A connection's place among the open ones; dropping it takes it out.
#[derive(Debug)]
pub(crate) struct Registration {
    open: Arc<Open>,
    index: usize,
}

impl Drop for Registration {
    fn drop(&mut self) {
        let mut slots = self.open.lock();
        if let Some(entry) = slots.entries.get_mut(self.index) {
            *entry = None;
            slots.free.push(self.index);
        }
    }
}

impl Open {
    fn lock(&self) -> std::sync::MutexGuard<'_, Slots> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds a connection; it can be shed until the registration is dropped.
    pub(crate) fn register(self: &Arc<Self>, activity: Arc<Activity>) -> (Registration, Arc<Shed>) {
        let shed = Arc::new(Shed::default());
        let entry = Entry {
            activity,
            shed: shed.clone(),
        };
        let mut slots = self.lock();
        let index = match slots.free.pop() {
            Some(index) => {
                slots.entries[index] = Some(entry);
                index
            }
            None => {
                slots.entries.push(Some(entry));
                slots.entries.len() - 1
            }
        };
        let registration = Registration {
            open: self.clone(),
            index,
        };
        (registration, shed)
    }

    /// Asks the connection idle the longest, of a sample of [`SAMPLE`], to
    /// close. `false` when every connection sampled is busy (or closing
    /// already).
    pub(crate) fn shed_one(&self) -> bool {
        let mut slots = self.lock();
        let len = slots.entries.len();
        if len == 0 {
            return false;
        }
        let start = slots.cursor % len;
        let mut oldest: Option<(Instant, &Arc<Shed>)> = None;
        for step in 0..SAMPLE.min(len) {
            let Some(entry) = &slots.entries[(start + step) % len] else {
                continue;
            };
            if entry.shed.asked.load(Ordering::Relaxed) {
                continue;
            }
            let Some(since) = entry.activity.idle_since() else {
                continue;
            };
            if oldest.is_none_or(|(at, _)| since < at) {
                oldest = Some((since, &entry.shed));
            }
        }
        let shed = oldest.map(|(_, shed)| shed.clone());
        slots.cursor = (start + SAMPLE) % len;
        drop(slots);
        match shed {
            Some(shed) => {
                shed.asked.store(true, Ordering::Relaxed);
                shed.notify.notify_one();
                true
            }
            None => false,
        }
    }

    /// How many connections are registered.
    #[cfg(test)]
    fn len(&self) -> usize {
        let slots = self.lock();
        slots.entries.len() - slots.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn the_connection_idle_the_longest_is_shed_first() {
        let open = Arc::new(Open::default());
        let quiet = Activity::new();
        let (_q, quiet_shed) = open.register(quiet.clone());
        tokio::time::advance(std::time::Duration::from_secs(5)).await;
        let busy = Activity::new();
        let _request = busy.request();
        let (_b, busy_shed) = open.register(busy);
        let recent = Activity::new();
        let (_r, recent_shed) = open.register(recent);

        assert!(open.shed_one());
        assert!(
            quiet_shed.asked.load(Ordering::Relaxed),
            "the oldest idle one"
        );
        assert!(!recent_shed.asked.load(Ordering::Relaxed));
        // Asked once: the next shed takes the next idle connection, never
        // the busy one.
        assert!(open.shed_one());
        assert!(recent_shed.asked.load(Ordering::Relaxed));
        assert!(!open.shed_one(), "only a busy connection is left");
        assert!(!busy_shed.asked.load(Ordering::Relaxed));
        // The signal waits for the connection to look.
        quiet_shed.asked().await;
    }

    #[test]
    fn a_dropped_registration_frees_its_place() {
        let open = Arc::new(Open::default());
        let (first, _) = open.register(Activity::new());
        let (second, _) = open.register(Activity::new());
        assert_eq!(open.len(), 2);
        drop(first);
        assert_eq!(open.len(), 1);
        let (_third, _) = open.register(Activity::new());
        assert_eq!(open.len(), 2);
        assert_eq!(open.lock().entries.len(), 2, "the freed place is reused");
        drop(second);
        assert_eq!(open.len(), 1);
    }

    #[test]
    fn a_shed_looks_at_a_bounded_sample() {
        let open = Arc::new(Open::default());
        // All busy: one shed looks at SAMPLE of them and gives up.
        let activities: Vec<_> = (0..3 * SAMPLE).map(|_| Activity::new()).collect();
        let _requests: Vec<_> = activities.iter().map(|a| a.request()).collect();
        let _registrations: Vec<_> = activities
            .iter()
            .map(|a| open.register(a.clone()))
            .collect();
        assert!(!open.shed_one());
        assert_eq!(
            open.lock().cursor,
            SAMPLE,
            "the next sample starts further on"
        );
    }
}
