//! [`InPlace`]: a tower service served to hyper without a clone per request.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use pin_project_lite::pin_project;
use tower::Service;
use tower::util::Oneshot;

/// A tower service as hyper calls it, through `&self`.
///
/// hyper-util's `TowerToHyperService` clones the whole service for every
/// request and drives the clone to readiness: every layer's `Arc`s counted
/// up and down and the clone moved into the future, on the connection task
/// that runs the request. A connection calls its service from its own task,
/// one call at a time, so here the one service is asked whether it is ready
/// and, ready (the gateway's always is), called itself. A service not ready
/// at once is answered as the adapter does: the not-ready one is put aside
/// (dropping whatever wait it began, as a dropped clone would) for a fresh
/// clone, and a clone of that is driven to readiness in the future.
#[derive(Debug)]
pub(crate) struct InPlace<S> {
    /// The service called in place; borrowed only within [`InPlace::call`].
    service: RefCell<S>,
    /// An untouched clone, for a fresh start when `service` is not ready
    /// (or, never in practice, is already borrowed).
    spare: S,
}

impl<S: Clone> InPlace<S> {
    pub(crate) fn new(service: S) -> Self {
        InPlace {
            spare: service.clone(),
            service: RefCell::new(service),
        }
    }
}

impl<S, R> hyper::service::Service<R> for InPlace<S>
where
    S: Service<R> + Clone,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = InPlaceFuture<S::Future, Oneshot<S, R>>;

    fn call(&self, request: R) -> Self::Future {
        let Ok(mut service) = self.service.try_borrow_mut() else {
            return InPlaceFuture::Readying {
                oneshot: Oneshot::new(self.spare.clone(), request),
            };
        };
        // No one to wake: a service not ready now is not waited on here.
        let mut cx = Context::from_waker(Waker::noop());
        if let Poll::Ready(Ok(())) = service.poll_ready(&mut cx) {
            return InPlaceFuture::Called {
                future: service.call(request),
            };
        }
        *service = self.spare.clone();
        InPlaceFuture::Readying {
            oneshot: Oneshot::new(self.spare.clone(), request),
        }
    }
}

pin_project! {
    /// The response future of [`InPlace`]: the service's own, or a clone's
    /// driven to readiness first.
    #[project = InPlaceProj]
    pub(crate) enum InPlaceFuture<F, O> {
        Called { #[pin] future: F },
        Readying { #[pin] oneshot: O },
    }
}

impl<F, O> Future for InPlaceFuture<F, O>
where
    F: Future,
    O: Future<Output = F::Output>,
{
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project() {
            InPlaceProj::Called { future } => future.poll(cx),
            InPlaceProj::Readying { oneshot } => oneshot.poll(cx),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use hyper::service::Service as _;

    use super::*;

    /// Counts its clones; not ready for the first `pending` polls of
    /// readiness, across clones, and then waking the task.
    #[derive(Debug)]
    struct Counted {
        clones: Arc<AtomicUsize>,
        pending: Arc<AtomicUsize>,
        calls: usize,
    }

    impl Clone for Counted {
        fn clone(&self) -> Self {
            self.clones.fetch_add(1, Ordering::Relaxed);
            Counted {
                clones: self.clones.clone(),
                pending: self.pending.clone(),
                calls: 0,
            }
        }
    }

    impl Service<u32> for Counted {
        type Response = (u32, usize);
        type Error = std::convert::Infallible;
        type Future = std::future::Ready<Result<(u32, usize), Self::Error>>;

        fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
            let left = self.pending.load(Ordering::Relaxed);
            if left > 0 {
                self.pending.store(left - 1, Ordering::Relaxed);
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            Poll::Ready(Ok(()))
        }

        fn call(&mut self, request: u32) -> Self::Future {
            self.calls += 1;
            std::future::ready(Ok((request, self.calls)))
        }
    }

    fn counted(pending: usize) -> (Counted, Arc<AtomicUsize>) {
        let clones = Arc::new(AtomicUsize::new(0));
        let service = Counted {
            clones: clones.clone(),
            pending: Arc::new(AtomicUsize::new(pending)),
            calls: 0,
        };
        (service, clones)
    }

    #[tokio::test]
    async fn a_ready_service_is_called_itself_without_a_clone() {
        let (service, clones) = counted(0);
        let served = InPlace::new(service);
        let after_new = clones.load(Ordering::Relaxed);
        for n in 1..=3 {
            assert_eq!(served.call(n).await.unwrap(), (n, n as usize));
        }
        assert_eq!(clones.load(Ordering::Relaxed), after_new);
    }

    #[tokio::test]
    async fn a_service_not_ready_is_answered_by_a_fresh_clone_once_ready() {
        let (service, clones) = counted(2);
        let served = InPlace::new(service);
        let after_new = clones.load(Ordering::Relaxed);
        // Not ready in place: a clone is driven to readiness and called.
        assert_eq!(served.call(7).await.unwrap(), (7, 1));
        assert!(clones.load(Ordering::Relaxed) > after_new);
        // Ready now: the service in place (the fresh one) is called.
        let before = clones.load(Ordering::Relaxed);
        assert_eq!(served.call(8).await.unwrap(), (8, 1));
        assert_eq!(served.call(9).await.unwrap(), (9, 2));
        assert_eq!(clones.load(Ordering::Relaxed), before);
    }
}
