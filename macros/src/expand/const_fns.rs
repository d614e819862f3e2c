//! The `const fn`s fptune's builds cannot keep `const` (they compute with stochastic floats, or
//! write one of the runtime's types, `__rt::Knob` or `__rt::Probe`) become ordinary functions; and
//! whether the item writes the single build's `__rt::Knob` at all.

use syn::visit::Visit;
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Item, Type};

/// In the stochastic build, a `const fn` that computes with floats is an ordinary `fn`: its floats
/// are stochastic values, whose operations draw random roundings when the program runs.
pub(super) fn unconst_float_fns(item: &mut Item) {
    fn floats(sig: &syn::Signature, block: &Block) -> bool {
        struct Finds(bool);
        impl<'ast> Visit<'ast> for Finds {
            fn visit_type(&mut self, t: &'ast Type) {
                self.0 |= fptune_syntax::float_type(t).is_some();
                syn::visit::visit_type(self, t);
            }
            fn visit_lit_float(&mut self, _: &'ast syn::LitFloat) {
                self.0 = true;
            }
        }
        let mut f = Finds(false);
        f.visit_signature(sig);
        f.visit_block(block);
        f.0
    }
    unconst_fns(item, floats);
}

/// Makes each `const fn` of the item (free or in an `impl`) for which `unmake(signature, body)`
/// holds an ordinary `fn`.
fn unconst_fns(item: &mut Item, unmake: impl Fn(&syn::Signature, &Block) -> bool) {
    struct Unconst<P>(P);
    impl<P: Fn(&syn::Signature, &Block) -> bool> VisitMut for Unconst<P> {
        fn visit_item_fn_mut(&mut self, f: &mut syn::ItemFn) {
            if f.sig.constness.is_some() && (self.0)(&f.sig, &f.block) {
                f.sig.constness = None;
            }
            visit_mut::visit_item_fn_mut(self, f);
        }
        fn visit_impl_item_fn_mut(&mut self, f: &mut syn::ImplItemFn) {
            if f.sig.constness.is_some() && (self.0)(&f.sig, &f.block) {
                f.sig.constness = None;
            }
            visit_mut::visit_impl_item_fn_mut(self, f);
        }
    }
    Unconst(unmake).visit_item_mut(item);
}

/// Makes each `const fn` of the item that writes `::fptune::__rt::<name>` (`Knob`, `Probe`: a type
/// of fptune's builds, whose operations are no `const` ones) an ordinary `fn`. A `const fn` of
/// the user's types (the native builds, the applied code) stays `const`, its body as written.
pub(super) fn unconst_fns_writing(item: &mut Item, name: &'static str) {
    unconst_fns(item, |sig, block| {
        writes_rt(name, |find| {
            find.visit_signature(sig);
            find.visit_block(block);
        })
    });
}

/// Finds a path `..::__rt::<name>` (a type of fptune's runtime written into the code).
struct RtPath {
    name: &'static str,
    found: bool,
}

impl<'ast> Visit<'ast> for RtPath {
    fn visit_path(&mut self, p: &'ast syn::Path) {
        let n = p.segments.len();
        self.found |= n >= 2 && p.segments[n - 2].ident == "__rt" && p.segments[n - 1].ident == self.name;
        syn::visit::visit_path(self, p);
    }
}

/// Whether what `visit` walks writes `..::__rt::<name>`.
fn writes_rt(name: &'static str, visit: impl FnOnce(&mut RtPath)) -> bool {
    let mut find = RtPath { name, found: false };
    visit(&mut find);
    find.found
}

/// Whether the item writes a single build's knob type (`::fptune::__rt::Knob<F, U, ..>`): the
/// native single build, whose literals follow their places as the stochastic build's do (a
/// literal is no `Knob`, an elaborated one may become one).
pub(super) fn holds_knob_type(item: &Item) -> bool {
    writes_rt("Knob", |find| find.visit_item(item))
}
