//! One primitive (null, boolean, number, string) as TOON text: what both
//! the emitter and a table's cells write. It sits below both, so that
//! neither depends on the other for it.

use super::out::{Out, Sink};
use super::tree::{Kind, Tree};
use crate::document::Scalar;
use crate::quoting::{write_string, write_string_bytes};

/// Writes a primitive (callers pass only primitives). Always inlined: an
/// object's fields write one each, and the call cost more than the copy;
/// [`write_cell`] is the same as a call, for a table's rows.
#[inline(always)]
pub(super) fn write_primitive<'t, T: Tree<'t>>(
    out: &mut Out,
    value: T,
    kind: Kind<'t>,
    delimiter: u8,
) {
    match kind {
        Kind::Null => out.push_str("null"),
        Kind::Bool(true) => out.push_str("true"),
        Kind::Bool(false) => out.push_str("false"),
        Kind::Number(Some(text)) => out.push_str(text),
        Kind::Number(None) => value.write_number(out),
        Kind::String(s) => write_string(out, s, delimiter),
        Kind::Array(_) | Kind::Object(_) => debug_assert!(false, "not a primitive"),
    }
}

/// [`write_primitive`] as a function of its own: inlined into the row walk,
/// which is generic over what it does with each cell, it made that loop
/// slower.
#[inline(never)]
pub(super) fn write_cell<'t, T: Tree<'t>>(out: &mut Out, value: T, kind: Kind<'t>, delimiter: u8) {
    write_primitive(out, value, kind, delimiter);
}

/// Writes a primitive `value` (callers pass only primitives) from its
/// [`Scalar`] when the tree has one (a document's, whose text is then read
/// as bytes, without the checks of a `&str`), else from its kind.
#[inline(always)]
pub(super) fn write_value<'t, T: Tree<'t>>(out: &mut Out, value: T, delimiter: u8) {
    match value.scalar() {
        Some(scalar) => write_scalar(out, scalar, delimiter),
        None => write_primitive(out, value, value.kind(), delimiter),
    }
}

/// Writes a [`Scalar`] (callers pass no container), its text as bytes.
#[inline(always)]
pub(super) fn write_scalar(out: &mut Out, scalar: Scalar<'_>, delimiter: u8) {
    match scalar {
        Scalar::Null => out.push_str("null"),
        Scalar::Bool(true) => out.push_str("true"),
        Scalar::Bool(false) => out.push_str("false"),
        Scalar::ShortNumber(word, n) => out.push_small(word, n),
        Scalar::Number(text) => out.push_bytes(text),
        Scalar::String(text) => write_string_bytes(out, text, delimiter),
        Scalar::Container => debug_assert!(false, "not a primitive"),
    }
}
