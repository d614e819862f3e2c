//! The stochastic build's types (step 4): every float type written in the item becomes its
//! stochastic type, except in `static` and `const` items.

use std::collections::BTreeSet;

use fptune_syntax::FloatFormat;
use proc_macro2::{Span, TokenStream};
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{parse_quote, parse_quote_spanned, Expr, Type};

use super::macro_args::visit_macro_exprs;

/// Replaces every float type written in the item by its stochastic type, and `f64::sqrt(x)`-style
/// calls by the stochastic type's. `static` and `const` items keep their primitive types.
pub(super) struct StochasticTypes;

fn stochastic_path(format: FloatFormat, span: Span) -> syn::Path {
    let text: TokenStream = format.stochastic().parse().unwrap_or_default();
    let mut path: syn::Path = parse_quote!(#text);
    // Every token at the user's `f64`, so that rustc's errors point there.
    if let Some(colons) = &mut path.leading_colon {
        colons.spans = [span; 2];
    }
    for mut pair in path.segments.pairs_mut() {
        pair.value_mut().ident.set_span(span);
        if let Some(p) = pair.punct_mut() {
            p.spans = [span; 2];
        }
    }
    path
}

/// A bound of a conversion trait (`From<f64>`, `SubsetOf<f64>`, `AsPrimitive<f64>`): it relates a
/// generic type to a primitive one.
fn conversion_bound(bound: &syn::TypeParamBound) -> bool {
    const CONVERSIONS: [&str; 8] = ["From", "Into", "TryFrom", "TryInto", "SubsetOf", "SupersetOf", "AsPrimitive", "FromPrimitive"];
    matches!(bound, syn::TypeParamBound::Trait(t) if t.path.segments.last().is_some_and(|s| CONVERSIONS.iter().any(|c| s.ident == c)))
}

impl VisitMut for StochasticTypes {
    fn visit_item_const_mut(&mut self, _c: &mut syn::ItemConst) {}
    fn visit_item_static_mut(&mut self, _s: &mut syn::ItemStatic) {}
    fn visit_impl_item_const_mut(&mut self, _c: &mut syn::ImplItemConst) {}

    // A float in a conversion trait's bound (`T: SubsetOf<f64>`, `T: From<f64>`,
    // `where f64: From<T>`) names how a generic value meets the crate's constants, which stay
    // primitive; other bounds (`impl Biquad<f64>`, `F: Fn(f64) -> f64`) are about its values.
    fn visit_type_param_bound_mut(&mut self, bound: &mut syn::TypeParamBound) {
        if !conversion_bound(bound) {
            visit_mut::visit_type_param_bound_mut(self, bound);
        }
    }
    fn visit_where_predicate_mut(&mut self, p: &mut syn::WherePredicate) {
        if let syn::WherePredicate::Type(t) = p {
            if !t.bounds.iter().any(conversion_bound) {
                self.visit_type_mut(&mut t.bounded_ty);
            }
            for bound in t.bounds.iter_mut() {
                self.visit_type_param_bound_mut(bound);
            }
        }
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        visit_macro_exprs(mac, |e| self.visit_expr_mut(e));
    }

    fn visit_type_mut(&mut self, t: &mut Type) {
        if let Type::Path(p) = t {
            if p.qself.is_none() && fptune_syntax::custom_format(&p.path).is_some() {
                // `fptune::Fx<E, M, FLAGS>` (a knob the tuner gave a format beyond the four):
                // its stochastic values.
                let (span, native) = (p.span(), p.clone());
                *t = parse_quote_spanned!(span=> ::fptune::Stochastic<#native>);
                return;
            }
            if p.path.segments.last().is_some_and(|s| s.ident == "Knob") {
                // The single build's knob (`__rt::Knob<F, K>`) is stochastic already; `F` is the
                // declared format.
                return;
            }
            if p.qself.is_none() && !fptune_syntax::primitive_path(&p.path) {
                let leaves = fptune_syntax::float_leaves(&Type::Path(p.clone()), &BTreeSet::new());
                if leaves.len() == 1 && leaves[0].alias.is_none() {
                    if let (Some(format), Some(last)) = (leaves[0].format, p.path.segments.last()) {
                        if last.arguments.is_none() && FloatFormat::from_ident(&last.ident.to_string()).is_some() {
                            p.path = stochastic_path(format, p.span());
                            return;
                        }
                    }
                }
            }
        }
        visit_mut::visit_type_mut(self, t);
    }

    fn visit_expr_path_mut(&mut self, p: &mut syn::ExprPath) {
        // `f64::sqrt` -> `::fptune::Sf64::sqrt`; `std::f64::consts::PI` stays.
        let segs = &p.path.segments;
        if p.qself.is_none() && segs.len() == 2 && p.path.leading_colon.is_none() {
            if let Some(format) = FloatFormat::from_ident(&segs[0].ident.to_string()) {
                let member = segs[1].ident.to_string();
                if member.chars().next().is_some_and(|c| c.is_lowercase()) {
                    let mut path = stochastic_path(format, p.span());
                    path.segments.push(segs[1].clone());
                    p.path = path;
                    return;
                }
            }
        }
        visit_mut::visit_expr_path_mut(self, p);
    }

    // `f64::NEG_INFINITY`, `f64::EPSILON` (a float-valued associated constant of a float type) as a value:
    // the stochastic value, as the functions beside it are (`.fold(f64::NEG_INFINITY,
    // f64::max)`). Constants and patterns keep them (they are not visited).
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Path(p) = e {
            let segs = &p.path.segments;
            // The float-valued ones: `MAX_EXP`, `DIGITS`, `RADIX` and the like are integers.
            const FLOAT_VALUED: [&str; 7] = ["EPSILON", "MAX", "MIN", "MIN_POSITIVE", "INFINITY", "NEG_INFINITY", "NAN"];
            if p.qself.is_none() && segs.len() == 2 && p.path.leading_colon.is_none() && FLOAT_VALUED.contains(&segs[1].ident.to_string().as_str()) {
                if let Some(format @ (FloatFormat::F64 | FloatFormat::F32)) = FloatFormat::from_ident(&segs[0].ident.to_string()) {
                    let span = p.span();
                    let ty = stochastic_path(format, span);
                    *e = parse_quote_spanned!(span=> <#ty>::from(#p));
                    return;
                }
            }
        }
        visit_mut::visit_expr_mut(self, e);
    }

    fn visit_pat_mut(&mut self, p: &mut syn::Pat) {
        if !matches!(p, syn::Pat::Path(_) | syn::Pat::Range(_)) {
            visit_mut::visit_pat_mut(self, p);
        }
    }
}
