//! Step 3: write the `CompactLine` impl.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{quote, quote_spanned};
use terse_template::{Filter, FilterKind, Placeholder, Segment};

use crate::validate::Checked;

/// `shape` is the twin type records are checked against, when there is one
/// (see `shape_check`); otherwise the type itself is.
pub fn expand(checked: &Checked, shape: Option<(Ident, TokenStream)>) -> TokenStream {
    let ident = &checked.ident;
    let compact = quote!(::tower_terse::compact);
    let private = quote!(#compact::__private);
    let noun = &checked.noun;
    let plural = checked
        .plural
        .as_ref()
        .map(|plural| quote!(.with_plural(#plural)));
    let id_key = &checked.id_key;
    let list_key = checked.list.as_ref().map(|key| {
        quote! {
            fn list_key() -> ::std::option::Option<&'static str> {
                ::std::option::Option::Some(#key)
            }
        }
    });
    let source = &checked.source;
    let segments = checked.ast.segments.iter().map(segment);
    // Spanned on the type's name so a missing `Serialize` is reported there.
    let (shape, shape_definition) = match shape {
        Some((twin, definition)) => (quote!(#twin), definition),
        None => (quote!(#ident), TokenStream::new()),
    };
    let to_value = quote_spanned!(ident.span()=> #private::serde_json::to_value::<&#ident>);
    let paths = crate::nested::checks(ident, &checked.nested);

    quote! {
        const _: () = {
            #shape_definition

            #paths

            // The template was parsed and checked at compile time; it is built
            // once, on first use, from the checked syntax tree.
            fn template() -> &'static #compact::Template {
                static TEMPLATE: ::std::sync::OnceLock<#compact::Template> =
                    ::std::sync::OnceLock::new();
                TEMPLATE.get_or_init(|| {
                    #compact::Template::__from_checked(
                        #source,
                        #private::template::Ast {
                            segments: ::std::vec![#(#segments),*],
                        },
                    )
                })
            }

            impl #compact::CompactLine for #ident {
                fn noun() -> #compact::Noun {
                    #compact::Noun::new(#noun) #plural
                }

                fn id_key() -> &'static str {
                    #id_key
                }

                #list_key

                fn template() -> ::std::option::Option<&'static #compact::Template> {
                    ::std::option::Option::Some(template())
                }

                fn line(&self, cx: &#compact::RenderContext) -> ::std::string::String {
                    match #to_value(self) {
                        ::std::result::Result::Ok(record) => template().render(&record, cx),
                        ::std::result::Result::Err(error) => {
                            ::std::format!("(cannot render: {})", error)
                        }
                    }
                }

                // Checks the record's shape, then renders the template from
                // the record itself rather than from the typed value.
                fn write_line(
                    record: #compact::Record<'_>,
                    cx: &#compact::RenderContext,
                    out: &mut ::std::string::String,
                ) -> ::std::result::Result<(), #compact::RecordError> {
                    record.deserialize::<#shape>()?;
                    template().write_record(record, cx, out);
                    ::std::result::Result::Ok(())
                }
            }
        };
    }
}

/// The tokens that build `segment`. Recursive per group, which is safe here:
/// the template parsed, so its groups nest at most
/// [`terse_template::MAX_NESTING`] deep.
fn segment(segment: &Segment) -> TokenStream {
    let t = quote!(::tower_terse::compact::__private::template);
    match segment {
        Segment::Text(text) => quote!(#t::Segment::Text(::std::string::String::from(#text))),
        Segment::Value(placeholder) => {
            let placeholder = self::placeholder(placeholder);
            quote!(#t::Segment::Value(#placeholder))
        }
        Segment::Optional(inner) => {
            let inner = inner.iter().map(self::segment);
            quote!(#t::Segment::Optional(::std::vec![#(#inner),*]))
        }
    }
}

fn placeholder(placeholder: &Placeholder) -> TokenStream {
    let t = quote!(::tower_terse::compact::__private::template);
    let path = &placeholder.path;
    let span = range(&placeholder.span);
    let filters = placeholder.filters.iter().map(filter);
    quote! {
        #t::Placeholder {
            path: ::std::vec![#(::std::string::String::from(#path)),*],
            span: #span,
            filters: ::std::vec![#(#filters),*],
        }
    }
}

fn filter(filter: &Filter) -> TokenStream {
    let t = quote!(::tower_terse::compact::__private::template);
    let text = |s: &String| quote!(::std::string::String::from(#s));
    let kind = match &filter.kind {
        FilterKind::Time => quote!(Time),
        FilterKind::Date => quote!(Date),
        FilterKind::Ago => quote!(Ago),
        FilterKind::Bytes => quote!(Bytes),
        FilterKind::Short => quote!(Short),
        FilterKind::Upper => quote!(Upper),
        FilterKind::Lower => quote!(Lower),
        FilterKind::Trunc(n) => {
            let n = Literal::usize_unsuffixed(*n);
            quote!(Trunc(#n))
        }
        FilterKind::Join(sep) => {
            let sep = text(sep);
            quote!(Join(#sep))
        }
        FilterKind::Default(value) => {
            let value = text(value);
            quote!(Default(#value))
        }
        FilterKind::Flag(value) => {
            let value = text(value);
            quote!(Flag(#value))
        }
    };
    let span = range(&filter.span);
    quote!(#t::Filter { kind: #t::FilterKind::#kind, span: #span })
}

fn range(range: &std::ops::Range<usize>) -> TokenStream {
    let start = Literal::usize_unsuffixed(range.start);
    let end = Literal::usize_unsuffixed(range.end);
    quote!(#start..#end)
}
