//! What the layer will do with a response, decided from the request alone.

use std::sync::Arc;

use http::header::{ACCEPT, HeaderMap, HeaderName};
use http::{Method, Request, StatusCode};
use http_body::SizeHint;

use super::LayerConfig;
use super::memo::CREDENTIALS;
use super::route_resource::RouteResource;
use crate::error_envelope::ErrorEnvelope;
use crate::fields::{Fields, FieldsError};
use crate::format::Format;
use crate::negotiate::{Negotiated, negotiate};
use crate::query::query_param;

/// The largest plain JSON body read only to be counted (1 MiB); see
/// [`TerseLayer::count_plain_responses`](crate::TerseLayer::count_plain_responses).
pub(crate) const MAX_COUNTED_PLAIN_BYTES: usize = 1 << 20;

/// The request's wishes, carried to the response, with what they were
/// resolved against: the route's settings and its compact resource.
/// Resolved once per request ([`plan`]); what comes later reads it and
/// never looks either up again.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// The settings of the route the request matched (the layer's when it
    /// has none of its own).
    pub(crate) config: Arc<LayerConfig>,
    /// The compact resource registered for the route, if any; looked up
    /// only where something reads it (see [`plan`]).
    pub(crate) resource: Option<Arc<RouteResource>>,
    pub(crate) format: Format,
    /// The client named a format (query, header or a TOON type in `Accept`).
    pub(crate) asked: bool,
    pub(crate) fields: Option<Fields>,
    /// A `HEAD` request: headers as for `GET`, no body.
    pub(crate) head: bool,
    #[cfg(feature = "changes")]
    /// The query has a `since` parameter: a diff-aware list request, whose
    /// body is read as a change set for compact lines. Without it, a list
    /// whose `data` holds `created`, `updated` and `deleted` is just a list.
    pub(crate) since: bool,
    /// Where the request went: to find its compact resource, and to label
    /// what the layer reports about the response.
    pub(crate) route: RequestRoute,
    /// The request's credentials' partition of the rewrite memo
    /// ([`Memo::partition`](super::memo::Memo::partition)); 0 when there
    /// is no memo.
    pub(crate) partition: u64,
}

/// The request's path and, under axum, the router pattern it matched.
///
/// Both are kept by handle (a `Uri` shares its bytes, axum's `MatchedPath`
/// is reference counted), so recording them copies no text.
#[derive(Debug, Clone)]
pub(crate) struct RequestRoute {
    uri: http::Uri,
    #[cfg(feature = "axum")]
    matched: Option<axum::extract::MatchedPath>,
}

/// The router pattern a request matched, under axum.
pub(crate) fn matched_path<B>(req: &Request<B>) -> Option<&str> {
    #[cfg(feature = "axum")]
    return req
        .extensions()
        .get::<axum::extract::MatchedPath>()
        .map(|matched| matched.as_str());
    #[cfg(not(feature = "axum"))]
    return {
        let _ = req;
        None
    };
}

impl RequestRoute {
    fn of<B>(req: &Request<B>) -> Self {
        RequestRoute {
            uri: req.uri().clone(),
            #[cfg(feature = "axum")]
            matched: req
                .extensions()
                .get::<axum::extract::MatchedPath>()
                .cloned(),
        }
    }

    /// The request path.
    pub(crate) fn path(&self) -> &str {
        self.uri.path()
    }

    /// The router pattern the request matched, under axum.
    pub(crate) fn matched(&self) -> Option<&str> {
        #[cfg(feature = "axum")]
        return self.matched.as_ref().map(|matched| matched.as_str());
        #[cfg(not(feature = "axum"))]
        return None;
    }
}

impl Plan {
    /// Whether the body has to be read: to rewrite it, or to count its
    /// tokens. Plain JSON nobody asked to rewrite is read to be counted only
    /// when counting is on (or the client named JSON) and the body is known
    /// to be complete and small: an exact size (a declared length) of at
    /// most [`MAX_COUNTED_PLAIN_BYTES`] and `max_body_bytes`. Any other
    /// plain body may be a stream (NDJSON, a long poll) and is sent on as
    /// it comes, without a count.
    pub(crate) fn reads_body(&self, hint: &SizeHint) -> bool {
        let config = &self.config;
        let small = config.max_body_bytes.min(MAX_COUNTED_PLAIN_BYTES) as u64;
        self.rewrites()
            || (config.count_plain || self.asked) && hint.exact().is_some_and(|len| len <= small)
    }

    /// Whether the body is to be served other than as the handler made it:
    /// in another format, or with some fields only.
    pub(crate) fn rewrites(&self) -> bool {
        self.fields.is_some() || self.format != Format::Json
    }

    /// The route to report the response under: the router's pattern, or the
    /// registered resource pattern the path matches; never the raw path,
    /// which would give metrics a label per id.
    pub(crate) fn route_label(&self) -> &str {
        if let Some(matched) = self.route.matched() {
            return matched;
        }
        match &self.resource {
            Some(resource) => resource.pattern.as_str(),
            // Not looked up for the rendering (see `plan`).
            None => self
                .config
                .resources
                .lookup_route(None, self.route.path())
                .map_or("other", |(_, resource)| resource.pattern.as_str()),
        }
    }
}

/// What the layer does with the response to come.
pub(crate) enum Handling {
    /// Steps aside, under the route's settings: the handler owns the format.
    StepAside(Arc<LayerConfig>),
    /// Serves it as the plan (which carries the route's settings) says.
    Serve(Plan),
}

impl Handling {
    /// The settings of the request's route.
    pub(crate) fn config(&self) -> &LayerConfig {
        match self {
            Handling::StepAside(config) => config,
            Handling::Serve(plan) => &plan.config,
        }
    }

    /// The settings of the request's route, shared.
    pub(crate) fn shared_config(&self) -> Arc<LayerConfig> {
        match self {
            Handling::StepAside(config) => config.clone(),
            Handling::Serve(plan) => plan.config.clone(),
        }
    }
}

pub(crate) enum Planned {
    /// An unknown format: leave request and response alone.
    StepAside,
    /// Answer with the error envelope; the handler is not called.
    Refuse(ErrorEnvelope),
    Serve(Plan),
}

/// The plan for `req` under `config`, the settings of its route.
pub(crate) fn plan<B>(config: &Arc<LayerConfig>, req: &Request<B>) -> Planned {
    let query = req.uri().query();
    let names = HeaderNames::of(req.headers(), &config.prefer_header);
    // A request with no query and neither the preference header nor
    // `Accept` (a plain proxied GET, most often) gets the default, unasked:
    // what negotiating would give, without looking either up again.
    let (format, asked) = if query.is_none() && !names.negotiates {
        (config.default_format, false)
    } else {
        match negotiate(
            query,
            req.headers(),
            &config.format_param,
            &config.prefer_header,
            config.default_format,
        ) {
            Negotiated::StepAside => return Planned::StepAside,
            Negotiated::Use { format, asked } => (format, asked),
        }
    };
    let spec = query
        .filter(|_| config.fields_enabled)
        .and_then(|q| query_param(q, &config.fields_param));
    let fields = match spec {
        None => None,
        Some(spec) => match Fields::parse(&spec, config.fields_limits) {
            Ok(fields) => fields,
            Err(err) => return Planned::Refuse(fields_refusal(config, &err)),
        },
    };
    let route = RequestRoute::of(req);
    // Where compact lines apply they choose the fields themselves; elsewhere
    // compact is JSON, and the fields apply to it.
    // The resource is looked up here, once, where the rendering reads it:
    // compact lines and a projection render with it. A request for plain
    // JSON needs none, and pays for no scan of the table; the label of its
    // report (without a router pattern) looks it up when there is a report
    // (`Plan::route_label`).
    let needs_resource = format == Format::Compact || fields.is_some();
    let resource = needs_resource
        .then(|| config.resources.lookup_route(route.matched(), route.path()))
        .flatten()
        .map(|(_, resource)| resource.clone());
    if fields.is_some() && format == Format::Compact && resource.is_some() {
        return Planned::Refuse(
            ErrorEnvelope::new(
                StatusCode::BAD_REQUEST,
                "fields_with_compact",
                format!(
                    "`{}` cannot be combined with {}=compact: compact lines already choose what each record shows",
                    config.fields_param, config.format_param
                ),
            )
            .with_hint(format!(
                "Drop `{}` to get compact lines, or ask for {}=json or {}=toon to keep `{}`",
                config.fields_param, config.format_param, config.format_param, config.fields_param
            )),
        );
    }
    let partition = config
        .memo
        .table
        .as_ref()
        .map_or(0, |table| table.partition(req.headers(), names.credentials));
    Planned::Serve(Plan {
        config: config.clone(),
        resource,
        format,
        asked,
        partition,
        fields,
        head: req.method() == Method::HEAD,
        #[cfg(feature = "changes")]
        since: query.is_some_and(|q| {
            crate::query::pairs(q).any(|(key, _)| key == crate::changes::SINCE_PARAM)
        }),
        route,
    })
}

/// What one pass over a request's header names (a few) finds, for the
/// plan: whether negotiating has a header to read, and whether the memo's
/// partition has credentials to hash.
struct HeaderNames {
    /// The preference header or `Accept` is there.
    negotiates: bool,
    /// `Authorization`, `Proxy-Authorization` or `Cookie` is there
    /// ([`Memo::partition`](super::memo::Memo::partition)).
    credentials: bool,
}

impl HeaderNames {
    fn of(headers: &HeaderMap, prefer_header: &HeaderName) -> Self {
        let mut names = HeaderNames {
            negotiates: false,
            credentials: false,
        };
        for name in headers.keys() {
            names.negotiates |= name == ACCEPT || name == prefer_header;
            names.credentials |= CREDENTIALS.contains(name);
        }
        names
    }
}

/// The 400 for a `fields` list that is wrong or too large.
fn fields_refusal(config: &LayerConfig, err: &FieldsError) -> ErrorEnvelope {
    let param = &config.fields_param;
    let limits = config.fields_limits;
    let hint = match err {
        FieldsError::EmptySegment { .. } => format!(
            "List keys separated by commas, with dots for nested keys: {param}=name,owner.email"
        ),
        _ => format!(
            "Ask for at most {} paths of at most {} segments, {} bytes in all, or drop `{param}` to get every field",
            limits.max_paths, limits.max_depth, limits.max_length
        ),
    };
    ErrorEnvelope::new(
        StatusCode::BAD_REQUEST,
        err.code(),
        format!("`{param}`: {err}"),
    )
    .with_hint(hint)
}
