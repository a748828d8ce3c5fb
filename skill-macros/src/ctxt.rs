//! Collects every problem of one item so they are all reported together.

use std::fmt::Display;

use proc_macro2::TokenStream;
use quote::ToTokens;

/// Error collector: push problems while parsing and checking, then emit them all at once.
#[derive(Default)]
pub struct Ctxt {
    errors: Vec<syn::Error>,
}

impl Ctxt {
    /// Records a problem at the span of `tokens`.
    pub fn error_spanned_by<T: ToTokens, M: Display>(&mut self, tokens: T, message: M) {
        self.errors
            .push(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Records an already built error.
    pub fn syn_error(&mut self, err: syn::Error) {
        self.errors.push(err);
    }

    /// Takes over every problem `other` collected.
    pub fn append(&mut self, other: Ctxt) {
        self.errors.extend(other.errors);
    }

    /// Whether anything went wrong.
    pub fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// All problems as `compile_error!` invocations.
    pub fn into_compile_errors(self) -> TokenStream {
        self.errors
            .into_iter()
            .map(|e| e.to_compile_error())
            .collect()
    }
}
