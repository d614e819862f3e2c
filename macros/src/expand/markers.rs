//! Removing the `#[tune]` markers from the item once discovery has read them.

use fptune_syntax::is_marker;
use syn::visit_mut::{self, VisitMut};
use syn::{FnArg, Item};

/// Removes `#[tune]` markers: with `sites_only`, only where a knob can be (the rest are then
/// reported as stray); otherwise everywhere.
pub(super) fn strip_markers(item: &mut Item, sites_only: bool) {
    struct Strip {
        sites_only: bool,
    }
    fn strip(attrs: &mut Vec<syn::Attribute>) {
        attrs.retain(|a| !is_marker(a));
    }
    impl VisitMut for Strip {
        fn visit_attributes_mut(&mut self, attrs: &mut Vec<syn::Attribute>) {
            if !self.sites_only {
                strip(attrs);
            }
        }
        fn visit_local_mut(&mut self, l: &mut syn::Local) {
            strip(&mut l.attrs);
            visit_mut::visit_local_mut(self, l);
        }
        fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
            for input in c.inputs.iter_mut() {
                if let syn::Pat::Type(pt) = input {
                    strip(&mut pt.attrs);
                }
            }
            visit_mut::visit_expr_closure_mut(self, c);
        }
        fn visit_fn_arg_mut(&mut self, a: &mut FnArg) {
            if let FnArg::Typed(pt) = a {
                strip(&mut pt.attrs);
            }
            visit_mut::visit_fn_arg_mut(self, a);
        }
        fn visit_field_mut(&mut self, f: &mut syn::Field) {
            strip(&mut f.attrs);
            visit_mut::visit_field_mut(self, f);
        }
        fn visit_item_fn_mut(&mut self, f: &mut syn::ItemFn) {
            strip(&mut f.attrs);
            visit_mut::visit_item_fn_mut(self, f);
        }
        fn visit_impl_item_fn_mut(&mut self, f: &mut syn::ImplItemFn) {
            strip(&mut f.attrs);
            visit_mut::visit_impl_item_fn_mut(self, f);
        }
        fn visit_item_static_mut(&mut self, s: &mut syn::ItemStatic) {
            strip(&mut s.attrs);
            visit_mut::visit_item_static_mut(self, s);
        }
        fn visit_item_const_mut(&mut self, c: &mut syn::ItemConst) {
            strip(&mut c.attrs);
            visit_mut::visit_item_const_mut(self, c);
        }
        fn visit_impl_item_const_mut(&mut self, c: &mut syn::ImplItemConst) {
            strip(&mut c.attrs);
            visit_mut::visit_impl_item_const_mut(self, c);
        }
        fn visit_item_type_mut(&mut self, t: &mut syn::ItemType) {
            strip(&mut t.attrs);
            visit_mut::visit_item_type_mut(self, t);
        }
        // Markers in an expression macro's arguments (`vec![P { f: Box::new(|#[tune] x: f64|
        // ..) }]`): knobs like any other.
        fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
            if let Some(mut args) = fptune_syntax::expression_args(m) {
                for arg in args.iter_mut() {
                    self.visit_expr_mut(arg);
                }
                m.tokens = quote::ToTokens::into_token_stream(args);
            }
        }
        fn visit_impl_item_type_mut(&mut self, t: &mut syn::ImplItemType) {
            strip(&mut t.attrs);
            visit_mut::visit_impl_item_type_mut(self, t);
        }
    }
    Strip { sites_only }.visit_item_mut(item);
}

/// `fptune::knob!(T)` written `T`: the knob a generic argument declares is found
/// ([`fptune_syntax::discover`]), and each build writes its type as it writes any float type.
/// With `casts: false`, a cast's target stays marked (`i as fptune::knob!(f64)`): the rewrite
/// tells such a cast, whose format the configuration gives, from one that adapts like a literal,
/// and the second pass (`casts: true`, after the rewrite) unwraps it.
pub(super) fn unwrap_knob_types(item: &mut Item, casts: bool) {
    struct Unwrap {
        casts: bool,
    }
    impl VisitMut for Unwrap {
        fn visit_type_mut(&mut self, t: &mut syn::Type) {
            if let Some(inner) = fptune_syntax::knob_type_marker(t) {
                *t = inner;
            }
            visit_mut::visit_type_mut(self, t);
        }
        fn visit_expr_cast_mut(&mut self, c: &mut syn::ExprCast) {
            if self.casts || fptune_syntax::knob_type_marker(&c.ty).is_none() {
                visit_mut::visit_expr_cast_mut(self, c);
            } else {
                self.visit_expr_mut(&mut c.expr);
            }
        }
    }
    Unwrap { casts }.visit_item_mut(item);
}
