//! Collects every error so one build reports all of them.

use proc_macro2::Span;

#[derive(Default)]
pub struct Errors {
    errors: Vec<syn::Error>,
}

impl Errors {
    pub fn push(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    pub fn at(&mut self, span: Span, message: impl std::fmt::Display) {
        self.push(syn::Error::new(span, message));
    }

    pub fn into_error(self) -> Option<syn::Error> {
        self.errors.into_iter().reduce(|mut all, next| {
            all.combine(next);
            all
        })
    }
}
