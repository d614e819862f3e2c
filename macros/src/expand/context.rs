//! What the rewrite needs to know about the item's own declarations: its float type aliases, the
//! float parameters of its functions and methods, and the float fields of its structs.

use std::collections::{BTreeSet, HashMap};

use fptune_syntax::{is_marker, is_storable_float};
use syn::visit::Visit;
use syn::{FnArg, Item, Type};

use super::STOCHASTIC;

/// What the rewriter needs to know about the item's own declarations.
#[derive(Default)]
pub(super) struct Context {
    /// Type aliases whose type is a float (tuned or not).
    pub(super) aliases: BTreeSet<String>,
    /// Free functions and associated functions: the type of each parameter taking a float by
    /// value.
    pub(super) fns: HashMap<String, Vec<Option<Type>>>,
    /// Methods (with a `self` receiver): the same for the parameters after `self`.
    pub(super) methods: HashMap<String, Vec<Option<Type>>>,
    /// Struct name -> fields holding a float by value, with their types.
    pub(super) structs: HashMap<String, HashMap<String, Type>>,
    /// Every field name holding a float (by value or in a buffer), any struct of the item.
    pub(super) float_fields: BTreeSet<String>,
}

impl Context {
    pub(super) fn of(item: &Item) -> Context {
        let mut c = Context::default();
        struct Aliases<'a>(&'a mut BTreeSet<String>);
        impl<'ast> Visit<'ast> for Aliases<'_> {
            fn visit_item_type(&mut self, t: &'ast syn::ItemType) {
                if !fptune_syntax::float_leaves(&t.ty, self.0).is_empty() {
                    self.0.insert(t.ident.to_string());
                }
            }
            fn visit_impl_item_type(&mut self, t: &'ast syn::ImplItemType) {
                if !fptune_syntax::float_leaves(&t.ty, self.0).is_empty() {
                    self.0.insert(t.ident.to_string());
                }
            }
        }
        Aliases(&mut c.aliases).visit_item(item);

        struct Decls<'a>(&'a mut Context);
        impl<'ast> Visit<'ast> for Decls<'_> {
            fn visit_signature(&mut self, sig: &'ast syn::Signature) {
                let has_self = matches!(sig.inputs.first(), Some(FnArg::Receiver(_)));
                let params: Vec<Option<Type>> = sig
                    .inputs
                    .iter()
                    .filter_map(|a| match a {
                        // A knob parameter taking a float by value converts on entry
                        // (`generalize_knob_params`): callers pass what they have.
                        FnArg::Typed(pt) => {
                            let knob = pt.attrs.iter().any(is_marker);
                            let alias = fptune_syntax::float_leaves(&pt.ty, &self.0.aliases)
                                .iter()
                                .any(|l| l.alias.is_some());
                            let storable = is_storable_float(&pt.ty, &self.0.aliases);
                            Some((storable && !knob && !alias && !STOCHASTIC).then(|| (*pt.ty).clone()))
                        }
                        FnArg::Receiver(_) => None,
                    })
                    .collect();
                let name = sig.ident.to_string();
                if has_self {
                    self.0.methods.insert(name, params);
                } else {
                    self.0.fns.insert(name, params);
                }
            }
            fn visit_item_struct(&mut self, s: &'ast syn::ItemStruct) {
                let mut storable = HashMap::new();
                for f in &s.fields {
                    let Some(id) = &f.ident else { continue };
                    if is_storable_float(&f.ty, &self.0.aliases) {
                        storable.insert(id.to_string(), f.ty.clone());
                    }
                    if !fptune_syntax::float_leaves(&f.ty, &self.0.aliases).is_empty() {
                        self.0.float_fields.insert(id.to_string());
                    }
                }
                self.0.structs.insert(s.ident.to_string(), storable);
            }
        }
        Decls(&mut c).visit_item(item);
        c
    }
}
