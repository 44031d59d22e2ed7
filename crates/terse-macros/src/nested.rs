//! Step 3b: the code that names every nested template path as Rust field
//! access, so that a segment the field's type does not have is rustc's own
//! error (`no field `nme` on type `Reporter``), pointing into the template.
//!
//! The derive sees the type's own fields only; below them it knows the
//! field's declared type and nothing more. So a path is checked through
//! the wrappers it can see (`Option`, `Box`, `Rc`, `Arc`, references, and
//! `Vec`, `VecDeque`, arrays and slices by index) down to the first struct
//! below the type, whose field it names; deeper segments, segments that
//! are not snake_case Rust names (a camelCase key is a serde rename the
//! derive cannot see), and paths into maps and `serde_json::Value` are left
//! to the run time, where a missing key warns once per path.

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;
use syn::{GenericArgument, PathArguments, Type};

use crate::validate::NestedPath;

/// A function, never called, whose body names every path of `paths` on a
/// `&ident`; empty when there are none.
pub fn checks(ident: &Ident, paths: &[NestedPath]) -> TokenStream {
    if paths.is_empty() {
        return TokenStream::new();
    }
    let bodies = paths.iter().map(|path| {
        let field = &path.field;
        walk(quote!(&record.#field), Some(&path.ty), &path.segments)
    });
    quote! {
        // Only compiled, never called: each nested template path as field
        // access, so a field the type lacks fails the build at the template.
        #[allow(unused_variables, dead_code, clippy::all)]
        fn __compact_template_paths(record: &#ident) {
            #({ #bodies })*
        }
    }
}

/// Names `segments` below `value` (an expression of type `&ty`); `ty` is
/// `None` where the derive cannot see the type.
fn walk(value: TokenStream, ty: Option<&Type>, segments: &[(String, Span)]) -> TokenStream {
    let (Some(ty), Some(((segment, span), rest))) = (ty, segments.split_first()) else {
        return quote!(let _ = #value;);
    };
    match shape(ty) {
        Shape::Option(inner) => {
            let body = walk(quote!(value), Some(inner), segments);
            quote!(if let ::std::option::Option::Some(value) = #value { #body })
        }
        Shape::Pointer(inner) => {
            let body = walk(quote!(value), Some(inner), segments);
            quote!({ let value = &**#value; #body })
        }
        Shape::Sequence(inner) => match segment.parse::<usize>() {
            Ok(index) => {
                let index = Literal::usize_unsuffixed(index);
                let body = walk(quote!(value), Some(inner), rest);
                quote!(if let ::std::option::Option::Some(value) = (#value).get(#index) { #body })
            }
            // A list is read by index only: a name renders nothing, ever.
            Err(_) => field(value, segment, *span, rest),
        },
        Shape::Opaque => quote!(let _ = #value;),
        Shape::Other => field(value, segment, *span, rest),
    }
}

/// `value.segment`, spanned at the segment in the template, then no deeper
/// (the field's type is not known here); nothing when `segment` is not a
/// snake_case Rust name.
fn field(value: TokenStream, segment: &str, span: Span, rest: &[(String, Span)]) -> TokenStream {
    let Some(name) = rust_name(segment, span) else {
        return quote!(let _ = #value;);
    };
    let body = walk(quote!(value), None, rest);
    // `(*value)`: rustc's message then names the type, not a reference to it.
    quote!({ let value = &(*(#value)).#name; #body })
}

/// `segment` as a field name, when it reads as one written in Rust's own
/// style: lowercase letters, digits and `_`, not starting with a digit (a
/// keyword as a raw identifier). Located at the template, but resolved at
/// the macro's own site: rustc then reports the missing field there
/// without offering to replace the whole template with a field name.
fn rust_name(segment: &str, span: Span) -> Option<Ident> {
    let span = Span::mixed_site().located_at(span);
    let mut chars = segment.chars();
    let first = chars.next()?;
    let snake = (first.is_ascii_lowercase() || first == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !snake || segment == "_" {
        return None;
    }
    match syn::parse_str::<Ident>(segment) {
        Ok(_) => Some(Ident::new(segment, span)),
        Err(_) if !matches!(segment, "self" | "super" | "crate") => {
            Some(Ident::new_raw(segment, span))
        }
        Err(_) => None,
    }
}

/// What a type is to a path walking into it.
enum Shape<'t> {
    /// `Option<T>`: `T` when present.
    Option(&'t Type),
    /// `Box<T>`, `Rc<T>`, `Arc<T>`, `&T`: serialized as `T`.
    Pointer(&'t Type),
    /// `Vec<T>`, `VecDeque<T>`, `[T; N]`, `[T]`: items by index.
    Sequence(&'t Type),
    /// Maps, `serde_json::Value`, tuples, anything whose keys the derive
    /// cannot know.
    Opaque,
    /// A struct (or a scalar) whose fields are Rust's to check.
    Other,
}

fn shape(ty: &Type) -> Shape<'_> {
    match ty {
        Type::Reference(reference) => Shape::Pointer(&reference.elem),
        Type::Paren(inner) => shape(&inner.elem),
        Type::Group(inner) => shape(&inner.elem),
        Type::Array(array) => Shape::Sequence(&array.elem),
        Type::Slice(slice) => Shape::Sequence(&slice.elem),
        Type::Path(path) if path.qself.is_none() => {
            let Some(last) = path.path.segments.last() else {
                return Shape::Opaque;
            };
            let name = last.ident.to_string();
            let argument = match &last.arguments {
                PathArguments::AngleBracketed(args) => {
                    let mut types = args.args.iter().filter_map(|arg| match arg {
                        GenericArgument::Type(ty) => Some(ty),
                        _ => None,
                    });
                    match (types.next(), types.next()) {
                        (Some(ty), None) => Some(ty),
                        _ => None,
                    }
                }
                _ => None,
            };
            match (name.as_str(), argument) {
                ("Option", Some(inner)) => Shape::Option(inner),
                ("Box" | "Rc" | "Arc", Some(inner)) => Shape::Pointer(inner),
                ("Vec" | "VecDeque", Some(inner)) => Shape::Sequence(inner),
                (
                    "Value" | "Map" | "HashMap" | "BTreeMap" | "IndexMap" | "RawValue" | "Cow"
                    | "HashSet" | "BTreeSet" | "IndexSet",
                    _,
                ) => Shape::Opaque,
                // Any other generic type (`Wrapper<T>`) may serialize as
                // anything its impl says.
                (_, _) if !matches!(last.arguments, PathArguments::None) => Shape::Opaque,
                _ => Shape::Other,
            }
        }
        _ => Shape::Opaque,
    }
}
