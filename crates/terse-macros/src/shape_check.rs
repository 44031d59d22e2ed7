//! The type the derive checks a record's shape with.
//!
//! A record must deserialize into the resource type before its line is
//! rendered. Deserializing into the type itself allocates every `String`
//! field only to drop it. Where it is safe, the derive checks against a twin
//! instead: the same fields and `#[serde]` attributes, with `String` (also
//! inside `Option` and `Vec`) replaced by `CheckString`, which accepts and
//! rejects exactly what `String` does but keeps nothing. The twin carries the
//! type's name for serde's messages, so a log line reads the same.
//!
//! Only plain data attributes are copied. When the type or a field uses
//! anything else (a `with` function, a `default` path, `from`, `try_from`,
//! container `default`, ...), the twin could disagree with the type, so that
//! field keeps its own type, or (for the type) there is no twin and the type
//! itself is deserialized.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::parse::skip_value;
use syn::{Attribute, Data, DeriveInput, Fields, GenericArgument, PathArguments, Token, Type};

/// Container attributes the twin can carry unchanged.
const TYPE_KEYS: &[&str] = &["rename", "rename_all", "deny_unknown_fields", "expecting"];

/// Field attributes under which a `String` can be swapped for `CheckString`.
const FIELD_KEYS: &[&str] = &[
    "rename",
    "alias",
    "default",
    "skip_serializing",
    "skip_serializing_if",
    "serialize_with",
];

/// The twin struct (named in the result) and its definition, or `None` when
/// the type must check itself.
pub fn twin(input: &DeriveInput) -> Option<(Ident, TokenStream)> {
    let Data::Struct(data) = &input.data else {
        return None;
    };
    let Fields::Named(named) = &data.fields else {
        return None;
    };
    let type_attrs = serde_attrs(&input.attrs);
    let mut has_rename = false;
    for attr in &type_attrs {
        for (key, _) in keys(attr)? {
            if !TYPE_KEYS.contains(&key.as_str()) {
                return None;
            }
            has_rename |= key == "rename";
        }
    }
    // serde names the type in messages ("expected struct Event").
    let name = input.ident.to_string();
    let rename = (!has_rename).then(|| quote!(#[serde(rename = #name)]));

    let mut swapped = false;
    let fields = named.named.iter().map(|field| {
        let attrs = serde_attrs(&field.attrs);
        let plain = attrs.iter().all(|attr| {
            keys(attr).is_some_and(|keys| {
                keys.iter().all(|(key, has_value)| {
                    FIELD_KEYS.contains(&key.as_str()) && !(key == "default" && *has_value)
                })
            })
        });
        let ty = match plain.then(|| swap_strings(&field.ty)).flatten() {
            Some(ty) => {
                swapped = true;
                ty
            }
            None => {
                let ty = &field.ty;
                quote!(#ty)
            }
        };
        let ident = &field.ident;
        quote!(#(#attrs)* #ident: #ty)
    });
    let fields: Vec<TokenStream> = fields.collect();
    if !swapped {
        // Nothing would be saved.
        return None;
    }
    let twin = format_ident!("__{}Shape", input.ident);
    let serde = "::tower_terse::compact::__private::serde";
    let definition = quote! {
        #[derive(::tower_terse::compact::__private::serde::Deserialize)]
        #[serde(crate = #serde)]
        #(#type_attrs)*
        #rename
        #[allow(dead_code, non_camel_case_types)]
        struct #twin {
            #(#fields),*
        }
    };
    Some((twin, definition))
}

fn serde_attrs(attrs: &[Attribute]) -> Vec<&Attribute> {
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident("serde"))
        .collect()
}

/// The keys of one `#[serde(...)]` attribute and whether each has a value
/// (`= ...` or `(...)`); `None` when it does not parse.
fn keys(attr: &Attribute) -> Option<Vec<(String, bool)>> {
    let mut keys = Vec::new();
    attr.parse_nested_meta(|meta| {
        let key = meta
            .path
            .get_ident()
            .map(Ident::to_string)
            .unwrap_or_default();
        let has_value = meta.input.peek(Token![=]) || meta.input.peek(syn::token::Paren);
        keys.push((key, has_value));
        skip_value(&meta)
    })
    .ok()?;
    Some(keys)
}

/// `ty` with `String` replaced by `CheckString`, for `String`,
/// `Option<String>`, `Vec<String>` and `Option<Vec<String>>`; `None` for any
/// other type.
fn swap_strings(ty: &Type) -> Option<TokenStream> {
    let check = quote!(::tower_terse::compact::__private::CheckString);
    if is_string(ty) {
        return Some(check);
    }
    let (wrapper, inner) = single_argument(ty)?;
    let inner = match wrapper {
        "Option" => swap_strings(inner)?,
        "Vec" if is_string(inner) => check,
        _ => return None,
    };
    let wrapper = match wrapper {
        "Option" => quote!(::std::option::Option),
        _ => quote!(::std::vec::Vec),
    };
    Some(quote!(#wrapper<#inner>))
}

/// `String`, `std::string::String` or `alloc::string::String`.
fn is_string(ty: &Type) -> bool {
    let Some((idents, arguments)) = path_of(ty) else {
        return false;
    };
    matches!(arguments, PathArguments::None)
        && matches!(
            idents.iter().map(String::as_str).collect::<Vec<_>>()[..],
            ["String"] | ["std" | "alloc", "string", "String"]
        )
}

/// `Option<T>` or `Vec<T>` (also as `std::option::Option<T>` and so on): the
/// wrapper's name and `T`.
fn single_argument(ty: &Type) -> Option<(&'static str, &Type)> {
    let (idents, arguments) = path_of(ty)?;
    let idents: Vec<&str> = idents.iter().map(String::as_str).collect();
    let wrapper = match idents[..] {
        ["Option"] | ["std" | "core", "option", "Option"] => "Option",
        ["Vec"] | ["std" | "alloc", "vec", "Vec"] => "Vec",
        _ => return None,
    };
    let PathArguments::AngleBracketed(args) = arguments else {
        return None;
    };
    match args.args.iter().collect::<Vec<_>>()[..] {
        [GenericArgument::Type(inner)] => Some((wrapper, inner)),
        _ => None,
    }
}

/// The segment names of a plain type path (no `<T as Trait>::`), and the
/// generic arguments of its last segment; the other segments must have none.
fn path_of(ty: &Type) -> Option<(Vec<String>, &PathArguments)> {
    let Type::Path(path) = ty else { return None };
    if path.qself.is_some() {
        return None;
    }
    let segments = &path.path.segments;
    let last = segments.last()?;
    let init_plain = segments
        .iter()
        .take(segments.len() - 1)
        .all(|s| matches!(s.arguments, PathArguments::None));
    if !init_plain {
        return None;
    }
    let idents = segments.iter().map(|s| s.ident.to_string()).collect();
    Some((idents, &last.arguments))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn swapped(ty: &str) -> Option<String> {
        let ty: Type = syn::parse_str(ty).unwrap();
        swap_strings(&ty).map(|tokens| tokens.to_string().replace(' ', ""))
    }

    #[test]
    fn strings_in_the_known_wrappers_are_swapped() {
        let check = "::tower_terse::compact::__private::CheckString";
        for ty in [
            "String",
            "std::string::String",
            "::std::string::String",
            "alloc::string::String",
        ] {
            assert_eq!(swapped(ty).as_deref(), Some(check), "{ty}");
        }
        for (ty, expected) in [
            ("Option<String>", format!("::std::option::Option<{check}>")),
            (
                "std::option::Option<String>",
                format!("::std::option::Option<{check}>"),
            ),
            ("Vec<String>", format!("::std::vec::Vec<{check}>")),
            (
                "Option<Vec<String>>",
                format!("::std::option::Option<::std::vec::Vec<{check}>>"),
            ),
        ] {
            assert_eq!(swapped(ty), Some(expected), "{ty}");
        }
    }

    #[test]
    fn other_types_keep_their_own_check() {
        for ty in [
            "u32",
            "Vec<u8>",
            "Box<String>",
            "Vec<Vec<String>>",
            "my::String",
            "String<u8>",
            "<T as Trait>::String",
            "&'static str",
            "HashMap<String, String>",
        ] {
            assert_eq!(swapped(ty), None, "{ty}");
        }
    }
}
