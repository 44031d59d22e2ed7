//! [`RouteResource`]: a route's compact resource as the layer keeps it and
//! a request's plan carries it. A leaf, so that the configuration that
//! holds the table and the plan that carries an entry both read it here.

use crate::compact::CompactResource;

/// A compact resource with the pattern it was registered under.
#[derive(Debug)]
pub(crate) struct RouteResource {
    /// The registered pattern: the label of the route's warnings and
    /// reports, never the raw path (which would give a label per id).
    pub(crate) pattern: String,
    pub(crate) resource: CompactResource,
}
