//! Step 1: read the type, its `#[compact]` attributes and the `#[serde]`
//! attributes that change field names. Problems go to `errors`; the result is
//! `None` only when the type cannot be described at all (not a struct with
//! named fields).

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Attribute, Data, DeriveInput, Fields, Ident, LitStr, Token};

use crate::errors::Errors;
use crate::rename;

/// The type as the derive sees it.
pub struct Input {
    pub ident: Ident,
    /// Where "missing attribute" errors point: the `#[compact]` attribute, or
    /// the type's name when there is none.
    pub anchor: Span,
    pub noun: Option<LitStr>,
    pub plural: Option<LitStr>,
    pub line: Option<LitStr>,
    /// `list = "tickets"`: the one key an object body's records sit under.
    pub list: Option<LitStr>,
    /// Type keys written, valid or not, so a bad value is not also reported
    /// as missing.
    pub seen: Vec<String>,
    pub fields: Vec<Field>,
}

/// One named field.
pub struct Field {
    pub rust_name: String,
    /// The key serde writes for it.
    pub json_name: String,
    pub span: Span,
    /// The span of `id` in `#[compact(id)]`, when present.
    pub id: Option<Span>,
    /// `#[serde(skip)]` or `#[serde(skip_serializing)]`: never in the JSON.
    pub skipped: bool,
    /// `#[serde(flatten)]`: its keys are the inner type's, unknown here.
    pub flatten: bool,
    /// The field as Rust names it (raw identifiers kept), for the generated
    /// code that checks nested template paths.
    pub ident: Ident,
    /// The field's type.
    pub ty: syn::Type,
    /// `#[serde(with, serialize_with, getter, ...)]`: serialized by code of
    /// its own, so its JSON need not have the type's fields.
    pub custom: bool,
    /// `#[compact(unchecked)]`: template paths into this field are not
    /// checked at compile time (a nested type that renames its fields, an
    /// enum serialized as an object); a missing key warns at run time.
    pub unchecked: bool,
}

const TYPE_KEYS: &[&str] = &["noun", "plural", "line", "list"];

pub fn parse(input: &DeriveInput, errors: &mut Errors) -> Option<Input> {
    let named = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(named) => Some(named),
            Fields::Unnamed(_) | Fields::Unit => {
                errors.at(
                    data.fields
                        .span()
                        .join(input.ident.span())
                        .unwrap_or(input.ident.span()),
                    "CompactLine can only be derived for structs with named fields; \
                     a record is a JSON object",
                );
                None
            }
        },
        Data::Enum(data) => {
            errors.at(
                data.enum_token.span,
                "CompactLine cannot be derived for enums; derive it on a struct \
                 with named fields, or implement the trait by hand",
            );
            None
        }
        Data::Union(data) => {
            errors.at(
                data.union_token.span,
                "CompactLine cannot be derived for unions; derive it on a struct with named fields",
            );
            None
        }
    };
    if !input.generics.params.is_empty() {
        errors.at(
            input.generics.span(),
            "CompactLine cannot be derived for generic types; derive it on the concrete \
             record type, or implement the trait by hand",
        );
    }

    let mut parsed = Input {
        ident: input.ident.clone(),
        anchor: input.ident.span(),
        noun: None,
        plural: None,
        line: None,
        list: None,
        seen: Vec::new(),
        fields: Vec::new(),
    };
    let mut rename_all = None;
    for attr in &input.attrs {
        if attr.path().is_ident("compact") {
            parsed.anchor = attr.path().span();
            type_attribute(attr, &mut parsed, errors);
        } else if attr.path().is_ident("serde") {
            serde_attribute(attr, &mut |key, value, _| {
                if key == "rename_all" {
                    rename_all = Some(value);
                }
            });
        }
    }

    for field in named?.named.iter() {
        let Some(ident) = &field.ident else { continue };
        let rust_name = ident.to_string().trim_start_matches("r#").to_owned();
        let mut out = Field {
            json_name: rust_name.clone(),
            rust_name,
            span: ident.span(),
            id: None,
            skipped: false,
            flatten: false,
            ident: ident.clone(),
            ty: field.ty.clone(),
            custom: false,
            unchecked: false,
        };
        if let Some(rule) = &rename_all {
            if let Some(name) = rename::apply(rule, &out.rust_name) {
                out.json_name = name;
            }
        }
        let mut renamed = None;
        for attr in &field.attrs {
            if attr.path().is_ident("compact") {
                field_attribute(attr, &mut out, errors);
            } else if attr.path().is_ident("serde") {
                serde_attribute(attr, &mut |key, value, _| match key {
                    "rename" => renamed = Some(value),
                    "skip" | "skip_serializing" => out.skipped = true,
                    "flatten" => out.flatten = true,
                    "with" | "serialize_with" | "getter" => out.custom = true,
                    _ => {}
                });
            }
        }
        if let Some(name) = renamed {
            out.json_name = name;
        }
        parsed.fields.push(out);
    }
    Some(parsed)
}

fn type_attribute(attr: &Attribute, parsed: &mut Input, errors: &mut Errors) {
    let result = attr.parse_nested_meta(|meta| {
        let key = meta
            .path
            .get_ident()
            .map(Ident::to_string)
            .unwrap_or_default();
        let slot = match key.as_str() {
            "noun" => &mut parsed.noun,
            "plural" => &mut parsed.plural,
            "line" => &mut parsed.line,
            "list" => &mut parsed.list,
            _ => {
                let hint = if key == "id" {
                    "`#[compact(id)]` goes on the id field".to_owned()
                } else {
                    did_you_mean(&key, TYPE_KEYS)
                        .unwrap_or_else(|| "expected `noun`, `plural`, `line` or `list`".to_owned())
                };
                errors.at(
                    meta.path.span(),
                    format_args!("unknown `compact` attribute `{}`; {hint}", path_text(&meta)),
                );
                return skip_value(&meta);
            }
        };
        parsed.seen.push(key.clone());
        let value = string_value(&meta, &key, errors)?;
        if slot.is_some() {
            errors.at(
                meta.path.span(),
                format_args!("duplicate `{key}` attribute"),
            );
        } else {
            *slot = value;
        }
        Ok(())
    });
    if let Err(error) = result {
        errors.push(error);
    }
}

fn field_attribute(attr: &Attribute, field: &mut Field, errors: &mut Errors) {
    let result = attr.parse_nested_meta(|meta| {
        if meta.path.is_ident("id") {
            if !meta.input.is_empty() && !meta.input.peek(Token![,]) {
                errors.at(
                    meta.path.span(),
                    "`id` takes no value: write `#[compact(id)]`",
                );
                return skip_value(&meta);
            }
            if field.id.is_some() {
                errors.at(meta.path.span(), "duplicate `id` attribute");
            }
            field.id = Some(meta.path.span());
            return Ok(());
        }
        if meta.path.is_ident("unchecked") {
            if !meta.input.is_empty() && !meta.input.peek(Token![,]) {
                errors.at(
                    meta.path.span(),
                    "`unchecked` takes no value: write `#[compact(unchecked)]`",
                );
                return skip_value(&meta);
            }
            field.unchecked = true;
            return Ok(());
        }
        let key = path_text(&meta);
        let hint = if TYPE_KEYS.contains(&key.as_str()) {
            "`noun`, `plural`, `line` and `list` go on the type".to_owned()
        } else {
            did_you_mean(&key, &["id", "unchecked"])
                .unwrap_or_else(|| "expected `id` or `unchecked`".to_owned())
        };
        errors.at(
            meta.path.span(),
            format_args!("unknown `compact` field attribute `{key}`; {hint}"),
        );
        skip_value(&meta)
    });
    if let Err(error) = result {
        errors.push(error);
    }
}

/// Reads `key = "text"`; a missing or non-string value is reported and read
/// as absent.
fn string_value(
    meta: &ParseNestedMeta,
    key: &str,
    errors: &mut Errors,
) -> syn::Result<Option<LitStr>> {
    if !meta.input.peek(Token![=]) {
        errors.at(
            meta.path.span(),
            format_args!("`{key}` needs a value: `{key} = \"...\"`"),
        );
        skip_value(meta)?;
        return Ok(None);
    }
    let expr: syn::Expr = meta.value()?.parse()?;
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(lit),
            ..
        }) => Ok(Some(lit)),
        other => {
            errors.at(
                other.span(),
                format_args!("`{key}` expects a string literal, as in `{key} = \"...\"`"),
            );
            Ok(None)
        }
    }
}

/// Reads one `#[serde(...)]` attribute leniently, calling `found` with each
/// `key = "value"`, `key(serialize = "value")` or bare `key` (value empty).
/// serde reports malformed attributes itself, so errors are ignored here.
fn serde_attribute(attr: &Attribute, found: &mut dyn FnMut(&str, String, Span)) {
    let _ = attr.parse_nested_meta(|meta| {
        let key = path_text(&meta);
        if meta.input.peek(Token![=]) {
            let expr: syn::Expr = meta.value()?.parse()?;
            if let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(lit),
                ..
            }) = expr
            {
                found(&key, lit.value(), lit.span());
            }
        } else if meta.input.peek(syn::token::Paren) {
            // `rename(serialize = "a", deserialize = "b")`: the JSON a
            // service sends is what serialization writes.
            meta.parse_nested_meta(|inner| {
                if inner.path.is_ident("serialize") {
                    let lit: LitStr = inner.value()?.parse()?;
                    found(&key, lit.value(), lit.span());
                    Ok(())
                } else {
                    skip_value(&inner)
                }
            })?;
        } else {
            found(&key, String::new(), meta.path.span());
        }
        Ok(())
    });
}

/// Consumes whatever follows a key: `= expr` or `(...)`.
pub fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        let _: syn::Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in meta.input);
        let _: TokenStream = content.parse()?;
    }
    Ok(())
}

fn path_text(meta: &ParseNestedMeta) -> String {
    let segments: Vec<String> = meta
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    segments.join("::")
}

fn did_you_mean(key: &str, known: &[&str]) -> Option<String> {
    terse_template::closest(key, known.iter().copied())
        .map(|near| format!("did you mean `{near}`?"))
}
