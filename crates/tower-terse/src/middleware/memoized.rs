//! What the rewrite memo keys a finished rewrite on and keeps of it: the
//! same body bytes read the same way give the same answer, so a repeated
//! read of a list is answered at the cost of a lookup.
//!
//! The key is every input the rendering reads: the route's settings (each
//! resolved configuration has a scope of its own in its layer's table), the
//! plan (format, whether the client named it, the `fields` list, `since`,
//! the path and the router pattern that pick a compact resource), the
//! response's `Content-Type`, and the body bytes, compared in full on every
//! hit. `HEAD` and `GET` share an entry: the rendering is the same. It is
//! partitioned by credentials as a shared cache is (RFC 9111 §3.5): a keyed
//! hash of the request's `Authorization`, `Proxy-Authorization` and
//! `Cookie` is part of the key, so one client's hit never comes from
//! another client's rewrite, and how fast an answer comes tells no client
//! what another read.
//!
//! A plain JSON body read only to be counted is kept the same way: its
//! `X-Token-Count` is a function of its bytes, and estimating it costs
//! several times the lookup.
//!
//! What is kept is the rendering's result (the new body, shared, and its
//! [`Outcome`]); the headers are made from it per response as after any
//! rewrite, so `ETag`, `Content-Length` and the rest follow the response
//! at hand.

use std::hash::Hash;
use std::sync::Arc;

use bytes::Bytes;
use http::HeaderValue;

use super::LayerConfig;
use super::headers::count_value;
use super::memo::Memo;
use super::plan::{Plan, RequestRoute};
use crate::fields::Fields;
use crate::format::Format;
use crate::render::{Outcome, Rendered};

/// The layer's table of finished rewrites.
pub(crate) type RewriteMemo = Memo<Key, Memoized>;

/// What an entry is counted as beyond its body and output: the key and
/// the table's own bookkeeping, roughly.
const ENTRY_OVERHEAD: usize = 256;

/// The layer's memo as the configuration carries it.
#[derive(Debug, Clone, Default)]
pub(crate) struct MemoSlot {
    pub(crate) table: Option<Arc<RewriteMemo>>,
    /// Tells apart the resolved configurations (the layer's and each
    /// route's) that share one table.
    pub(crate) scope: u32,
}

/// A rendering's result, as kept and as sent.
#[derive(Debug, Clone)]
pub(crate) struct Memoized {
    /// The new body; `None` sends the handler's.
    pub(crate) body: Option<Bytes>,
    pub(crate) outcome: Outcome,
    /// The `X-Token-Count` of `outcome`'s tokens, written once: a hit
    /// shares it rather than writing (and allocating) it again.
    pub(crate) count: Option<HeaderValue>,
}

impl From<Rendered> for Memoized {
    fn from(rendered: Rendered) -> Self {
        let Rendered { body, outcome } = rendered;
        Memoized {
            count: outcome.tokens.map(count_value),
            body: body.map(|mut body| {
                // The output grew by doubling: what goes out is held until
                // the client has taken it, and is held at its length, so
                // the slack goes back now (realloc shrinks in place).
                body.shrink_to_fit();
                Bytes::from(body)
            }),
            outcome,
        }
    }
}

/// Every input of a rendering but the body.
#[derive(Debug)]
pub(crate) struct Key {
    partition: u64,
    scope: u32,
    format: Format,
    asked: bool,
    #[cfg(feature = "changes")]
    since: bool,
    fields: Option<Fields>,
    route: RequestRoute,
    content_type: Option<HeaderValue>,
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        self.matches(&other.view())
    }
}

impl Eq for Key {}

/// A [`Key`] borrowed from the response at hand: nothing is copied to look
/// one up.
pub(crate) struct KeyView<'a> {
    partition: u64,
    scope: u32,
    format: Format,
    asked: bool,
    #[cfg(feature = "changes")]
    since: bool,
    fields: Option<&'a Fields>,
    route: &'a RequestRoute,
    content_type: Option<&'a HeaderValue>,
}

impl KeyView<'_> {
    /// What the hash reads besides the body: the cheap parts of the key.
    fn hash_part(&self) -> impl Hash + '_ {
        (
            self.partition,
            self.scope,
            self.format,
            self.route.path(),
            self.fields.map(Fields::fingerprint),
        )
    }

    fn to_key(&self) -> Key {
        Key {
            partition: self.partition,
            scope: self.scope,
            format: self.format,
            asked: self.asked,
            #[cfg(feature = "changes")]
            since: self.since,
            fields: self.fields.cloned(),
            route: self.route.clone(),
            content_type: self.content_type.cloned(),
        }
    }
}

impl Key {
    fn view(&self) -> KeyView<'_> {
        KeyView {
            partition: self.partition,
            scope: self.scope,
            format: self.format,
            asked: self.asked,
            #[cfg(feature = "changes")]
            since: self.since,
            fields: self.fields.as_ref(),
            route: &self.route,
            content_type: self.content_type.as_ref(),
        }
    }

    fn matches(&self, view: &KeyView<'_>) -> bool {
        #[cfg(feature = "changes")]
        let since = self.since == view.since;
        #[cfg(not(feature = "changes"))]
        let since = true;
        self.partition == view.partition
            && self.scope == view.scope
            && self.format == view.format
            && self.asked == view.asked
            && since
            && self.fields.as_ref() == view.fields
            && self.route.path() == view.route.path()
            && self.route.matched() == view.route.matched()
            && self.content_type.as_ref() == view.content_type
    }
}

/// A lookup that missed: where to keep what the rewrite will give.
pub(crate) struct Miss {
    hash: u64,
    // Boxed: a miss waits in every read body's state, most of which never
    // get here.
    key: Box<Key>,
}

/// The rendering kept for `body` read for `plan` from a response with
/// `content_type` (its first), or the [`Miss`] to keep it under once it is done (`None` with
/// no memo). The memo is the one of the plan's route settings.
pub(crate) fn recall(
    plan: &Plan,
    content_type: Option<&HeaderValue>,
    body: &Bytes,
) -> Result<Memoized, Option<Miss>> {
    let config = &plan.config;
    // A plain body's count is kept too: it costs more than the lookup.
    let Some(table) = &config.memo.table else {
        return Err(None);
    };
    let view = KeyView {
        partition: plan.partition,
        scope: config.memo.scope,
        format: plan.format,
        asked: plan.asked,
        #[cfg(feature = "changes")]
        since: plan.since,
        fields: plan.fields.as_ref(),
        route: &plan.route,
        content_type,
    };
    let hash = table.hash(view.hash_part(), body);
    match table.get(hash, body, |key| key.matches(&view)) {
        Some(kept) => {
            #[cfg(feature = "metrics")]
            metrics::counter!("terse_rewrite_memo_hits_total").increment(1);
            Ok(kept)
        }
        None => {
            #[cfg(feature = "metrics")]
            metrics::counter!("terse_rewrite_memo_misses_total").increment(1);
            Err(Some(Miss {
                hash,
                key: Box::new(view.to_key()),
            }))
        }
    }
}

impl Miss {
    /// Keeps `rendered`, the rewrite of `body`, for the next equal read.
    pub(crate) fn keep(self, config: &LayerConfig, body: Bytes, rendered: &Memoized) {
        let Some(table) = &config.memo.table else {
            return;
        };
        let output = rendered.body.as_ref().map_or(0, Bytes::len);
        let size = body
            .len()
            .saturating_add(output)
            .saturating_add(ENTRY_OVERHEAD);
        table.insert(self.hash, *self.key, body, rendered.clone(), size);
    }
}
