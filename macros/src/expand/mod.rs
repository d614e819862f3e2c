//! The expansion of `#[fptune::tune]`.
//!
//! 1. Find the knobs and check the markers (`fptune_syntax::discover`); errors are collected and
//!    emitted together, at the user's tokens, next to the item (so that one mistake does not hide
//!    the others or cascade into type errors).
//! 2. Remove the markers.
//! 3. Rewrite the code so that mixed precision type-checks ([`Rewriter`]):
//!    - `a + b`, `a < b`, `a += b`, ... go through `::fptune::__rt`'s dispatch, which computes
//!      floats of two formats in the wider one and leaves every other type to its own operator;
//!    - an unsuffixed float literal operand becomes `Lit` (it takes the other operand's format),
//!      and so does an integer cast to float used as an operand;
//!    - stores into float places (annotated `let`s, assignments to float bindings, elements and
//!      fields, returns, arguments of the item's own functions, fields of its own structs) round to
//!      the place's type;
//!    - `x as T` with a float target, `.sum()`, `.product()`, `.copy_from_slice()` and
//!      `std::mem::swap` get their mixed-precision versions.
//! 4. In the stochastic build (feature `stochastic`), every float type written in the item becomes
//!    its stochastic type (`f64` -> `::fptune::Sf64`), except in `static`/`const` items, which
//!    stay exact primitive constants.
//!
//! One concern a module: [`markers`] (removing the markers), [`knob_params`] (knob parameters
//! that take any float), [`const_fns`] (`const fn`s fptune's builds cannot keep), [`context`]
//! (what the item declares), [`literals`] (recognising float literals), [`elaborated`] (the
//! tuner's elaborated code made ready for this build), [`macro_args`] (the expressions inside
//! macros), [`rewrite`] (step 3) and [`stochastic`] (step 4).

use fptune_syntax::{discover, stray_markers, Marker, Top};
use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::Item;

use const_fns::{holds_knob_type, unconst_float_fns, unconst_fns_writing};
use context::Context;
use elaborated::{ElaboratedParams, SuffixedLiterals, UntypedLiterals};
use knob_params::generalize_knob_params;
use markers::{strip_markers, unwrap_knob_types};
use rewrite::Rewriter;
use stochastic::StochasticTypes;

mod const_fns;
mod context;
mod elaborated;
mod knob_params;
mod literals;
mod macro_args;
mod markers;
mod rewrite;
mod stochastic;

/// Whether this build is the tuner's stochastic build.
const STOCHASTIC: bool = cfg!(feature = "stochastic");

pub fn tune(args: TokenStream, item: TokenStream) -> TokenStream {
    expand(args, item, true)
}

/// `#[fptune::__convert]`: any item, as the tuner marks every item of a stochastic scratch copy.
pub fn convert(args: TokenStream, item: TokenStream) -> TokenStream {
    expand(args, item, false)
}

fn expand(args: TokenStream, item: TokenStream, user_facing: bool) -> TokenStream {
    let marker = match syn::parse2::<Marker>(args) {
        Ok(m) => m,
        Err(e) => return with_error(item, e),
    };
    let mut item: Item = match syn::parse2(item.clone()) {
        Ok(i) => i,
        Err(e) => return with_error(item, e),
    };
    if user_facing {
        if let Err(e) = check_item_kind(&item) {
            return with_error(item.into_token_stream(), e);
        }
    }
    let top = Top { marker };
    let discovery = discover(&item, &top);
    let mut errors = discovery.errors;
    unwrap_knob_types(&mut item, false);
    if STOCHASTIC {
        unconst_float_fns(&mut item);
    } else {
        // The native single build: a `const fn` holding its knob types computes with them as
        // any function does (a `Knob`'s operations are no `const` ones).
        unconst_fns_writing(&mut item, "Knob");
    }
    let context = Context::of(&item);
    generalize_knob_params(&mut item, &context.aliases);
    strip_markers(&mut item, true);
    errors.extend(stray_markers(&item));
    strip_markers(&mut item, false);

    let mut rewriter = Rewriter::new(context, STOCHASTIC);
    rewriter.printed = top.marker.printed;
    SuffixedLiterals.visit_item_mut(&mut item);
    if STOCHASTIC || holds_knob_type(&item) {
        UntypedLiterals.visit_item_mut(&mut item);
    }
    rewriter.visit_item_mut(&mut item);
    unwrap_knob_types(&mut item, true);
    ElaboratedParams.visit_item_mut(&mut item);
    if STOCHASTIC {
        StochasticTypes.visit_item_mut(&mut item);
    } else {
        // The probe build: a `const fn` is left as written, knob types and all, as the native
        // builds leave it (so rustc names where its knobs meet each other's type), but it can no
        // longer be `const`: a `Probe`'s operations are not.
        unconst_fns_writing(&mut item, "Probe");
    }

    let mut out = item.into_token_stream();
    for e in errors {
        out.extend(e.to_compile_error());
    }
    out
}

fn with_error(item: TokenStream, e: syn::Error) -> TokenStream {
    let mut out = item;
    out.extend(e.to_compile_error());
    out
}

fn check_item_kind(item: &Item) -> syn::Result<()> {
    match item {
        Item::Mod(m) if m.content.is_none() => Err(syn::Error::new(
            m.span(),
            "`#[fptune::tune]` needs the module's content here: use an inline `mod name { ... }`, \
             or put `#[fptune::tune]` on the items of the module's file",
        )),
        Item::Mod(_)
        | Item::Fn(_)
        | Item::Impl(_)
        | Item::Struct(_)
        | Item::Type(_)
        | Item::Static(_)
        | Item::Const(_) => Ok(()),
        other => Err(syn::Error::new(
            other.span(),
            "`#[fptune::tune]` goes on an inline `mod`, a `fn`, an `impl`, a `struct`, a `type` alias, \
             a `static` or a `const`",
        )),
    }
}
