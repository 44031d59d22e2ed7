//! [`Terse`], the service the layer produces.

use std::sync::Arc;
use std::task::{Context, Poll};

use http::{Request, Response};
use http_body::Body;
use tower_service::Service;

use super::headers::untag_if_none_match;
use super::plan::{Handling, Planned, plan};
use super::request_body::TerseRequestBody;
use super::toon_request::{PendingRequest, decodes, refusal_before_reading};
use super::{LayerConfig, ResponseFuture, TerseBody};
use crate::fields::Fields;

/// Middleware that negotiates a format and rewrites eligible JSON
/// responses, and decodes request bodies sent as TOON into JSON.
///
/// The service it wraps reads [`TerseRequestBody`] (the client's body as it
/// came, or the decoded JSON); axum's `Router` takes any body, so
/// `Router::layer` works as before. The service is cloned for a request
/// whose body is read before it is called, as tower services are.
///
/// Made by [`TerseLayer`](super::TerseLayer); [`Terse::new`] wraps a service
/// with the defaults.
#[derive(Debug, Clone)]
pub struct Terse<S> {
    inner: S,
    config: Arc<LayerConfig>,
}

impl<S> Terse<S> {
    /// Wraps `inner` with the default configuration.
    pub fn new(inner: S) -> Self {
        Self::from_parts(inner, Arc::new(LayerConfig::default().resolve()))
    }

    pub(crate) fn from_parts(inner: S, config: Arc<LayerConfig>) -> Self {
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
    S: Service<Request<TerseRequestBody<B>>, Response = Response<ResBody>> + Clone + Send + 'static,
    B: Body + Send + 'static,
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
            let future = self.inner.call(req.map(TerseRequestBody::new));
            return ResponseFuture::call(future, Handling::StepAside(config.clone()));
        }
        let handling = match plan(config, &req) {
            Planned::StepAside => Handling::StepAside(config.clone()),
            Planned::Refuse(refusal) => return ResponseFuture::refuse(refusal, config),
            Planned::Serve(plan) => Handling::Serve(plan),
        };
        let mut req = req;
        if let Handling::Serve(plan) = &handling {
            if plan.rewrites() {
                // The handler knows its own tags, not the ones the layer
                // made for this representation.
                let fields = plan.fields.as_ref().map(Fields::fingerprint);
                untag_if_none_match(req.headers_mut(), plan.format, fields);
            }
        }
        let config = handling.config();
        if decodes(config, &req) {
            if let Some(refusal) = refusal_before_reading(&req) {
                return ResponseFuture::refuse(refusal, config);
            }
            // The service polled ready goes with the request; this one
            // takes its place (tower's way for a call made later).
            let fresh = self.inner.clone();
            let ready = std::mem::replace(&mut self.inner, fresh);
            let pending = PendingRequest::new(ready, req, handling.shared_config());
            return ResponseFuture::decode(Box::new(pending), handling);
        }
        let future = self.inner.call(req.map(TerseRequestBody::new));
        ResponseFuture::call(future, handling)
    }
}
