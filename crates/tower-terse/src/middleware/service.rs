//! [`Terse`], the service the layer produces.

use std::sync::Arc;
use std::task::{Context, Poll};

use http::{Request, Response};
use http_body::Body;
use tower_service::Service;

use super::headers::untag_if_none_match;
use super::plan::{Planned, plan};
use super::{Config, ResponseFuture, TerseBody};
use crate::fields::Fields;

/// Middleware that negotiates a format and rewrites eligible JSON responses.
///
/// Made by [`TerseLayer`](super::TerseLayer); [`Terse::new`] wraps a service
/// with the defaults.
#[derive(Debug, Clone)]
pub struct Terse<S> {
    inner: S,
    config: Arc<Config>,
}

impl<S> Terse<S> {
    /// Wraps `inner` with the default configuration.
    pub fn new(inner: S) -> Self {
        Self::from_parts(inner, Arc::default())
    }

    pub(crate) fn from_parts(inner: S, config: Arc<Config>) -> Self {
        Terse { inner, config }
    }

    /// The wrapped service.
    pub fn get_ref(&self) -> &S {
        &self.inner
    }

    /// The wrapped service, mutably.
    pub fn get_mut(&mut self) -> &mut S {
        &mut self.inner
    }

    /// Unwraps the inner service.
    pub fn into_inner(self) -> S {
        self.inner
    }
}

impl<S, B, ResBody> Service<Request<B>> for Terse<S>
where
    S: Service<Request<B>, Response = Response<ResBody>>,
    ResBody: Body,
{
    type Response = Response<TerseBody<ResBody>>;
    type Error = S::Error;
    type Future = ResponseFuture<S::Future, ResBody>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        let config = self.config.for_request(&req);
        if !config.enabled {
            return ResponseFuture::step_aside(self.inner.call(req), config.clone());
        }
        match plan(config, &req) {
            Planned::StepAside => ResponseFuture::step_aside(self.inner.call(req), config.clone()),
            Planned::Refuse(refusal) => ResponseFuture::refuse(refusal, config),
            Planned::Serve(plan) => {
                let config = config.clone();
                let mut req = req;
                if plan.rewrites() {
                    // The handler knows its own tags, not the ones the layer
                    // made for this representation.
                    let fields = plan.fields.as_ref().map(Fields::fingerprint);
                    untag_if_none_match(req.headers_mut(), plan.format, fields);
                }
                ResponseFuture::serve(self.inner.call(req), plan, config)
            }
        }
    }
}
