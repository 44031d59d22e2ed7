//! `#[derive(CompactLine)]` for the `tower-terse` crate. Use it through `tower-terse`,
//! which re-exports it; the attributes are documented in `tower_terse::compact`.
//!
//! The derive works in three steps, each in its own module: `parse` reads
//! the type and its `compact`/`serde` attributes, `validate` checks them and
//! the template against the fields, and `expand` writes the impl (with the
//! twin type from `shape_check` that records are checked against). Every
//! problem found is reported, not only the first.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod errors;
mod expand;
mod nested;
mod parse;
mod rename;
mod shape_check;
mod validate;

use proc_macro::TokenStream;
use quote::quote;
use syn::{DeriveInput, parse_macro_input};

/// Derives `tower_terse::compact::CompactLine` from a template; see `tower_terse::compact`.
#[proc_macro_derive(CompactLine, attributes(compact))]
pub fn derive_compact_line(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let mut errors = errors::Errors::default();
    let checked = parse::parse(&input, &mut errors)
        .and_then(|parsed| validate::validate(&parsed, &mut errors));
    match (errors.into_error(), checked) {
        (None, Some(checked)) => expand::expand(&checked, shape_check::twin(&input)).into(),
        (Some(error), _) => {
            let mut out = error.to_compile_error();
            out.extend(stub(&input));
            out.into()
        }
        // Unreachable in practice (every `None` records an error), but an
        // empty expansion is the safe answer.
        (None, None) => TokenStream::new(),
    }
}

/// An impl that satisfies the trait, emitted beside the derive's errors so
/// that a type used as a resource is not reported a second time, as not
/// implementing `CompactLine`, after its template's error. The build fails
/// on the errors anyway: nothing of it ever runs. Only structs with named
/// fields and no generics get one: for other types the error says the
/// derive cannot apply, and an impl would only add errors of its own.
fn stub(input: &DeriveInput) -> proc_macro2::TokenStream {
    let named = matches!(
        &input.data,
        syn::Data::Struct(data) if matches!(data.fields, syn::Fields::Named(_))
    );
    if !named || !input.generics.params.is_empty() {
        return proc_macro2::TokenStream::new();
    }
    let ident = &input.ident;
    let compact = quote!(::tower_terse::compact);
    quote! {
        impl #compact::CompactLine for #ident {
            fn noun() -> #compact::Noun {
                #compact::Noun::new("record")
            }

            fn line(&self, _: &#compact::RenderContext) -> ::std::string::String {
                ::std::string::String::new()
            }
        }
    }
}
