//! A [`BlockingLimit`] whose only slot is taken, for the tests of what the
//! layers do when the blocking pool is busy.

use std::sync::mpsc;

use tokio::task::JoinHandle;
use tower_terse::proxy::OffWorkers;
use tower_terse::settings::BlockingLimit;

/// The only slot of a [`BlockingLimit`], held by other blocking work until
/// [`release`](Self::release).
#[derive(Debug)]
pub struct HeldSlot {
    release: mpsc::Sender<()>,
    holder: JoinHandle<()>,
}

/// Takes the only slot of `limit` with blocking work that waits to be
/// released; returns once the slot is taken.
///
/// # Panics
///
/// In [`HeldSlot::release`], if the slot was not free to take.
pub async fn hold_slot(limit: &BlockingLimit) -> HeldSlot {
    let (release, released) = mpsc::channel::<()>();
    let holder = tokio::spawn({
        let limit = limit.clone();
        async move {
            let held = limit.off_the_workers(move || released.recv());
            assert!(matches!(held, OffWorkers::Done(Ok(()))), "{held:?}");
        }
    });
    while limit.available() > 0 {
        tokio::task::yield_now().await;
    }
    HeldSlot { release, holder }
}

impl HeldSlot {
    /// Ends the work holding the slot and waits until it has given the
    /// slot back.
    ///
    /// # Panics
    ///
    /// If the slot was not free when it was taken.
    pub async fn release(self) {
        self.release.send(()).expect("the holder waits");
        self.holder.await.expect("the holder took the slot");
    }
}
