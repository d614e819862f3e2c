//! Knob parameters that take a float of any format, converted on entry, so that their callers
//! keep compiling whatever format the knob is given.

use std::collections::BTreeSet;

use fptune_syntax::{is_marker, is_storable_float};
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{parse_quote_spanned, Block, FnArg, Item, Pat, Stmt};

use super::STOCHASTIC;

/// A knob parameter taking a float by value (`#[tune] x: f64`, `#[tune] v: Vec<f64>`), or one whose
/// type is a float alias of the item, accepts any float of any format, converted on entry, so
/// that callers, also outside tuned code and with literals, keep compiling when the knob is
/// lowered (even to `f16`, which no literal can be): `fn f(#[tune] x: f32)` becomes
/// `fn f(x: impl Store<f32>) { let x: f32 = Store::store(x); .. }`. In the stochastic build every
/// float parameter taken by value does. Trait implementations keep their signatures.
pub(super) fn generalize_knob_params(item: &mut Item, aliases: &BTreeSet<String>) {
    struct Generalize<'a> {
        aliases: &'a BTreeSet<String>,
        in_trait_impl: bool,
        /// Every float parameter (the stochastic build, whose callers are converted too).
        all: bool,
    }
    impl Generalize<'_> {
        fn apply(&self, sig: &mut syn::Signature, block: &mut Block) {
            // A `const fn` (native builds) keeps its parameters: a conversion is no `const`
            // operation, and its callers give it its own types, as the user's code does.
            if sig.constness.is_some() {
                return;
            }
            let mut entry: Vec<Stmt> = Vec::new();
            for input in sig.inputs.iter_mut() {
                let FnArg::Typed(pt) = input else { continue };
                let knob = pt.attrs.iter().any(is_marker);
                let alias = fptune_syntax::float_leaves(&pt.ty, self.aliases).iter().any(|l| l.alias.is_some());
                if !(knob || alias || self.all) || !is_storable_float(&pt.ty, self.aliases) {
                    continue;
                }
                let Pat::Ident(pi) = &mut *pt.pat else { continue };
                let ty = (*pt.ty).clone();
                let name = pi.ident.clone();
                let mutability = pi.mutability.take();
                let span = pt.ty.span();
                *pt.ty = parse_quote_spanned!(span=> impl ::fptune::__rt::Store<#ty>);
                entry.push(parse_quote_spanned!(span=>
                    let #mutability #name: #ty = ::fptune::__rt::Store::store(#name);
                ));
            }
            if !entry.is_empty() {
                entry.append(&mut block.stmts);
                block.stmts = entry;
            }
        }
    }
    impl VisitMut for Generalize<'_> {
        fn visit_item_fn_mut(&mut self, f: &mut syn::ItemFn) {
            self.apply(&mut f.sig, &mut f.block);
            visit_mut::visit_item_fn_mut(self, f);
        }
        fn visit_item_impl_mut(&mut self, i: &mut syn::ItemImpl) {
            let outer = self.in_trait_impl;
            self.in_trait_impl = i.trait_.is_some();
            visit_mut::visit_item_impl_mut(self, i);
            self.in_trait_impl = outer;
        }
        fn visit_impl_item_fn_mut(&mut self, f: &mut syn::ImplItemFn) {
            if !self.in_trait_impl {
                self.apply(&mut f.sig, &mut f.block);
            }
            visit_mut::visit_impl_item_fn_mut(self, f);
        }
    }
    Generalize { aliases, in_trait_impl: false, all: STOCHASTIC }.visit_item_mut(item);
}
