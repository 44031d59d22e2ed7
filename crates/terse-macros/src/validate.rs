//! Step 2: check the attributes, the template and the id against the fields.

use std::ops::Range;

use proc_macro2::Span;
use syn::{Ident, LitStr};
use terse_template::{Ast, DEFAULT_ID_KEY};

use crate::errors::Errors;
use crate::parse::{Field, Input};

/// Everything the expansion needs, checked.
pub struct Checked {
    pub ident: Ident,
    pub noun: String,
    pub plural: Option<String>,
    /// The key the list of an object body sits under, when set.
    pub list: Option<String>,
    /// The template as written.
    pub source: String,
    /// The parsed template, with every field path rewritten to JSON names.
    pub ast: Ast,
    pub id_key: String,
    /// The paths that go below one of the type's fields, for the generated
    /// code that names them (see `nested`).
    pub nested: Vec<NestedPath>,
}

/// A template path that goes below one of the type's fields (`{reporter.name}`).
pub struct NestedPath {
    /// The field, as Rust names it.
    pub field: Ident,
    /// Its type.
    pub ty: syn::Type,
    /// The segments below the field, each with where it is written in the
    /// template.
    pub segments: Vec<(String, Span)>,
}

pub fn validate(input: &Input, errors: &mut Errors) -> Option<Checked> {
    let seen = |key: &str| input.seen.iter().any(|k| k == key);
    let missing: Vec<&str> = [("noun", &input.noun), ("line", &input.line)]
        .into_iter()
        .filter(|(key, lit)| lit.is_none() && !seen(key))
        .map(|(key, _)| key)
        .collect();
    if !missing.is_empty() {
        let example: Vec<&str> = missing
            .iter()
            .map(|key| match *key {
                "noun" => "noun = \"event\"",
                _ => "line = \"{title}\"",
            })
            .collect();
        errors.at(
            input.anchor,
            format_args!(
                "missing {}: add `#[compact({})]` to the type",
                missing
                    .iter()
                    .map(|key| format!("`{key}`"))
                    .collect::<Vec<_>>()
                    .join(" and "),
                example.join(", ")
            ),
        );
    }
    let noun = input
        .noun
        .as_ref()
        .filter(|lit| non_empty(lit, "noun", errors));
    if let Some(plural) = &input.plural {
        non_empty(plural, "plural", errors);
    }
    if let Some(list) = &input.list {
        list_key(list, errors);
    }
    let line = input
        .line
        .as_ref()
        .filter(|lit| non_empty(lit, "line", errors));
    let id_key = id_key(input, errors);
    let mut nested = Vec::new();
    let ast = line.and_then(|lit| template(lit, input, &mut nested, errors));
    Some(Checked {
        ident: input.ident.clone(),
        noun: noun?.value(),
        plural: input.plural.as_ref().map(LitStr::value),
        list: input.list.as_ref().map(LitStr::value),
        source: line?.value(),
        ast: ast?,
        id_key: id_key?,
        nested,
    })
}

/// A list key is one JSON key: not empty, and not a dotted path (a list is
/// looked for at the top of the body only).
fn list_key(lit: &LitStr, errors: &mut Errors) {
    if !non_empty(lit, "list", errors) {
        return;
    }
    if lit.value().contains('.') {
        errors.at(
            lit.span(),
            "`list` is one key of the body's top object, as in `list = \"tickets\"`, not a path",
        );
    }
}

fn non_empty(lit: &LitStr, key: &str, errors: &mut Errors) -> bool {
    let empty = lit.value().trim().is_empty();
    if empty {
        errors.at(lit.span(), format_args!("`{key}` must not be empty"));
    }
    !empty
}

fn id_key(input: &Input, errors: &mut Errors) -> Option<String> {
    let marked: Vec<&Field> = input.fields.iter().filter(|f| f.id.is_some()).collect();
    let id = match marked.as_slice() {
        [one] => *one,
        [] => match input
            .fields
            .iter()
            .find(|f| f.json_name == DEFAULT_ID_KEY)
            .or_else(|| input.fields.iter().find(|f| f.rust_name == DEFAULT_ID_KEY))
        {
            Some(field) => field,
            None => {
                errors.at(
                    input.ident.span(),
                    format_args!(
                        "`{}` has no id field: mark the field that identifies a record \
                         with `#[compact(id)]`, or name it `id`",
                        input.ident
                    ),
                );
                return None;
            }
        },
        [_, extra @ ..] => {
            for field in extra {
                errors.at(
                    field.id.unwrap_or(field.span),
                    format_args!(
                        "more than one `#[compact(id)]` field (`{}` and `{}`); a record has one id",
                        marked[0].rust_name, field.rust_name
                    ),
                );
            }
            return None;
        }
    };
    if id.skipped {
        errors.at(
            id.id.unwrap_or(id.span),
            format_args!(
                "the id field `{}` is skipped by serde, so records never carry it",
                id.rust_name
            ),
        );
        return None;
    }
    Some(id.json_name.clone())
}

fn template(
    lit: &LitStr,
    input: &Input,
    nested: &mut Vec<NestedPath>,
    errors: &mut Errors,
) -> Option<Ast> {
    let source = lit.value();
    // Every syntax error of the template in one build, each pointing into
    // the string where the compiler allows.
    let mut ast = match terse_template::parse_all(&source) {
        Ok(ast) => ast,
        Err(found) => {
            for error in found {
                errors.at(
                    span_in(lit, error.span()),
                    format_args!(
                        "invalid template at column {}: {}",
                        error.column(),
                        error.message()
                    ),
                );
            }
            return None;
        }
    };
    let open = input.fields.iter().any(|f| f.flatten);
    let ok = resolve(&mut ast, &source, lit, input, open, nested, errors);
    ok.then_some(ast)
}

/// Rewrites the first segment of every path to the field's JSON name, and
/// reports names that are not fields; false when any was reported.
fn resolve(
    ast: &mut Ast,
    source: &str,
    lit: &LitStr,
    input: &Input,
    open: bool,
    nested: &mut Vec<NestedPath>,
    errors: &mut Errors,
) -> bool {
    let mut ok = true;
    for placeholder in ast.placeholders_mut() {
        let below = below_first(&placeholder.path, placeholder.span.start, source, lit);
        let Some(name) = placeholder.path.first_mut() else {
            continue;
        };
        let span = placeholder.span.start..placeholder.span.start + name.len();
        let column = source[..span.start].chars().count() + 1;
        let field = input
            .fields
            .iter()
            .find(|f| f.json_name == *name)
            .or_else(|| input.fields.iter().find(|f| f.rust_name == *name));
        match field {
            Some(field) if field.skipped => {
                ok = false;
                errors.at(
                    span_in(lit, span),
                    format_args!(
                        "field `{name}` (template column {column}) is skipped by serde, \
                         so records never carry it"
                    ),
                );
            }
            Some(field) => {
                *name = field.json_name.clone();
                // A field serialized by code of its own, flattened, or
                // marked `unchecked` has JSON the derive cannot foresee.
                if !below.is_empty() && !field.custom && !field.flatten && !field.unchecked {
                    nested.push(NestedPath {
                        field: field.ident.clone(),
                        ty: field.ty.clone(),
                        segments: below,
                    });
                }
            }
            None if open => {}
            None => {
                ok = false;
                errors.at(
                    span_in(lit, span),
                    format_args!(
                        "no field `{name}` in `{}` (template column {column}); {}",
                        input.ident,
                        suggestion(name, input)
                    ),
                );
            }
        }
    }
    ok
}

/// The segments of `path` after the first, each with its span in the
/// template: `path` is written from byte `start` of `source`, segments
/// joined by `.`; the whole literal where it is written otherwise.
fn below_first(path: &[String], start: usize, source: &str, lit: &LitStr) -> Vec<(String, Span)> {
    let written = source
        .get(start..)
        .is_some_and(|rest| rest.starts_with(&path.join(".")));
    let mut at = start;
    let mut out = Vec::new();
    for (i, segment) in path.iter().enumerate() {
        if i > 0 {
            let span = if written {
                span_in(lit, at..at + segment.len())
            } else {
                lit.span()
            };
            out.push((segment.clone(), span));
        }
        at += segment.len() + 1;
    }
    out
}

fn suggestion(name: &str, input: &Input) -> String {
    let visible: Vec<&Field> = input.fields.iter().filter(|f| !f.skipped).collect();
    let candidates = visible
        .iter()
        .flat_map(|f| [f.json_name.as_str(), f.rust_name.as_str()]);
    if let Some(near) = terse_template::closest(name, candidates) {
        // Suggest the JSON name, the one the template is meant to use.
        let field = visible
            .iter()
            .find(|f| f.json_name == near || f.rust_name == near);
        let near = field.map_or(near, |f| f.json_name.as_str());
        return format!("did you mean `{near}`?");
    }
    let names: Vec<String> = visible
        .iter()
        .map(|f| format!("`{}`", f.json_name))
        .collect();
    if names.is_empty() {
        "the type has no serialized fields".to_owned()
    } else {
        format!("the fields are {}", names.join(", "))
    }
}

/// The span of `range` (bytes of the template's value) inside the string
/// literal, where the compiler can point into literals; the whole literal
/// otherwise (stable Rust cannot yet, which is why messages carry the column).
fn span_in(lit: &LitStr, range: Range<usize>) -> Span {
    let token = lit.token();
    let repr = token.to_string();
    // Only literals without escapes map value bytes 1:1 onto source bytes.
    let prefix = if repr.starts_with('"') && !repr.contains('\\') {
        Some(1)
    } else if repr.starts_with('r') {
        repr.find('"').map(|quote| quote + 1)
    } else {
        None
    };
    prefix
        .and_then(|p| token.subspan(p + range.start..p + range.end.max(range.start + 1)))
        .unwrap_or_else(|| lit.span())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The derive's first two steps on a type whose template is `line`;
    /// the error messages, or none.
    fn check(line: &str) -> Vec<String> {
        let source = format!(
            "#[compact(noun = \"note\", line = {line:?})] struct Note {{ id: u32, title: String }}"
        );
        let input: syn::DeriveInput = syn::parse_str(&source).unwrap();
        let mut errors = Errors::default();
        let parsed = crate::parse::parse(&input, &mut errors).unwrap();
        let checked = validate(&parsed, &mut errors);
        match errors.into_error() {
            Some(error) => error.into_iter().map(|e| e.to_string()).collect(),
            None => {
                assert!(checked.is_some());
                Vec::new()
            }
        }
    }

    #[test]
    fn every_syntax_error_of_a_template_is_reported_at_once() {
        assert_eq!(
            check("{title|uper} } {} {id"),
            [
                "invalid template at column 8: unknown filter `uper`; did you mean `upper`?",
                "invalid template at column 14: unmatched `}`; write `}}` for a literal brace",
                "invalid template at column 16: empty placeholder; name a field, as in `{id}`, or write `{{` for a literal brace",
                "invalid template at column 19: placeholder `{` is never closed",
            ]
        );
    }

    #[test]
    fn templates_past_the_bounds_are_compile_errors_and_overflow_nothing() {
        let nested = |depth: usize| "{?".repeat(depth) + "{title}" + &" }".repeat(depth);
        assert_eq!(
            check(&nested(terse_template::MAX_NESTING)),
            Vec::<String>::new()
        );
        assert_eq!(
            check(&nested(terse_template::MAX_NESTING + 1)),
            [
                "invalid template at column 65: optional groups nested more than 32 deep; flatten the template"
            ]
        );
        let errors = check(&nested(10_000));
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0]
                .starts_with("invalid template at column 4097: the template is 40007 bytes long"),
            "{errors:?}"
        );
    }
}
