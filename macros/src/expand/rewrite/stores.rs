//! Stores: a value put into a float place (an annotated `let`, an assignment, a return, an
//! argument of the item's own functions, a field of its own structs) rounds to the place's type,
//! each branch of an `if`, `match` or block on its own.

use std::collections::BTreeSet;

use fptune_syntax::is_storable_float;
use quote::quote_spanned;
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{parse_quote, Block, Expr, Stmt, Type};

use crate::expand::literals::literal_as_lit;
use super::bindings::simple_place;
use super::{wrap_dispatch, Rewriter};

impl Rewriter {
    /// Applies a store to the value(s) a tail expression produces (through `if`, `match` and
    /// blocks, so that each branch converts on its own).
    pub(super) fn store_tail(&mut self, e: &mut Expr, ty: Option<&Type>) {
        match e {
            Expr::If(i) => {
                self.store_block(&mut i.then_branch, ty);
                if let Some((_, els)) = &mut i.else_branch {
                    self.store_tail(els, ty);
                }
            }
            Expr::Match(m) => {
                for arm in &mut m.arms {
                    self.store_tail(&mut arm.body, ty);
                }
            }
            Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => self.store_block(&mut b.block, ty),
            // A tail with attributes (`#[cfg(..)] { .. }`) may not be there once they apply.
            Expr::Block(_) => {}
            Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => {}
            Expr::Macro(m) if m.mac.path.is_ident("panic") || m.mac.path.is_ident("unreachable") => {}
            // `Some(x)` into `Option<f64>`, `Ok(x)` into `Result<f64, E>`: the payload is stored;
            // `None`, `Err(..)` and any other value (a call's result) have their type already.
            _ if let Some((payload, variant)) = ty.and_then(|t| float_payload(t, &self.cx.aliases)) => match e {
                Expr::Paren(p) => self.store_tail(&mut p.expr, ty),
                Expr::Call(c) if c.args.len() == 1 && matches!(&*c.func, Expr::Path(f) if f.path.is_ident(variant)) => {
                    let payload = payload.clone();
                    if let Some(x) = c.args.first_mut() {
                        self.store_tail(x, Some(&payload));
                    }
                }
                _ => {}
            },
            // `(rng.random(), y0)` into `(f64, f64)`: each element on its own, so that one whose
            // type its place gives (`random()`) takes it from the tuple's type.
            Expr::Tuple(t) if let Some(Type::Tuple(types)) = ty.map(super::bindings::strip_type_parens) && types.elems.len() == t.elems.len() => {
                for (e, ety) in t.elems.iter_mut().zip(types.elems.iter()) {
                    if stored_type(ety, &self.cx.aliases) {
                        self.store_tail(e, Some(ety));
                    }
                }
            }
            _ if let Some(types) = ty.and_then(|t| mixed_float_tuple(t, &self.cx.aliases)) => match e {
                Expr::Paren(p) => self.store_tail(&mut p.expr, ty),
                // `(1, 0.5)` into `(usize, f64)`: each float element on its own.
                Expr::Tuple(t) if types.elems.len() == t.elems.len() => {
                    for (e, ety) in t.elems.iter_mut().zip(types.elems.iter()) {
                        if stored_type(ety, &self.cx.aliases) {
                            self.store_tail(e, Some(ety));
                        }
                    }
                }
                // Any other value of a mixed tuple type (a call's result, say) has its type already.
                _ => {}
            },
            // `vec![]`, `Vec::new()`, `x.into()`, `s.parse()?`: the place's type is what types it.
            other if typed_by_annotation(other) || context_typed(other) => {}
            other => {
                let taken = std::mem::replace(other, parse_quote!(()));
                // A literal is rounded to nearest into the place, as the compiler rounds it.
                let taken = literal_as_lit(taken);
                *other = store_expr(taken, ty, &self.cx.aliases);
            }
        }
    }

    pub(super) fn store_block(&mut self, block: &mut Block, ty: Option<&Type>) {
        if let Some(Stmt::Expr(e, None)) = block.stmts.last_mut() {
            self.store_tail(e, ty);
        }
    }

    /// `place = value`: a store where the place or the value is a float.
    pub(super) fn rewrite_assign(&mut self, a: &mut syn::ExprAssign) -> Option<Expr> {
        // `_ = e`: nothing is stored.
        if matches!(*a.left, Expr::Infer(_)) {
            self.visit_expr_mut(&mut a.right);
            return None;
        }
        let span = a.span();
        let store = self.float_place(&a.left) || self.float_valued(&a.right);
        self.visit_expr_mut(&mut a.left);
        self.visit_expr_mut(&mut a.right);
        if store && target_typed(&a.right) {
            // `v = it.collect()`: the place's type is the value's, as rustc inferred it in the
            // original; a store in between would leave it nothing to infer from (E0283).
            return None;
        }
        if store && self.inferred_root(&a.left) && simple_place(&a.left) && !branches(&a.right) {
            // The value first, then the place, as `=` evaluates them; the store sees
            // the place (one of run-time format keeps its format, see `Store::store_into`).
            let left = &a.left;
            let right = literal_as_lit((*a.right).clone());
            return Some(wrap_dispatch(span, quote_spanned!(span=>
                let __fptune_value = #right;
                let __fptune_place = &mut #left;
                (&&::fptune::__rt::src(__fptune_value)).__fp_store_into(__fptune_place)
            )));
        }
        if store {
            self.store_tail(&mut a.right, None);
        }
        None
    }

    /// `return value`: stored into the function's return type.
    pub(super) fn rewrite_return(&mut self, r: &mut syn::ExprReturn) {
        if let Some(value) = &mut r.expr {
            self.visit_expr_mut(value);
            if let Some(Some(Some(ty))) = self.returns.last().cloned() {
                self.store_tail(value, Some(&ty));
            }
        }
    }
}

/// A constructor whose type only the annotation gives (`Vec::new()`, `Default::default()`,
/// `vec![]`): stored as it is, the annotation types it.
pub(super) fn typed_by_annotation(e: &Expr) -> bool {
    match e {
        Expr::Call(c) if c.args.is_empty() || matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "with_capacity")) => {
            matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| {
                s.ident == "new" || s.ident == "default" || s.ident == "with_capacity"
            }))
        }
        Expr::Macro(m) => m.mac.path.is_ident("vec") && m.mac.tokens.is_empty(),
        Expr::Array(a) => a.elems.is_empty(),
        _ => false,
    }
}

/// A method whose result type the context chooses (`s.parse().unwrap()`, `x.into()`): the
/// annotation must type it, so no store is put in between.
pub(super) fn generic_result(e: &Expr) -> bool {
    const GENERIC: [&str; 9] =
        ["parse", "unwrap", "expect", "unwrap_or", "unwrap_or_default", "unwrap_or_else", "into", "try_into", "default"];
    match e {
        Expr::MethodCall(m) => GENERIC.iter().any(|g| m.method == g),
        Expr::Try(t) => generic_result(&t.expr),
        Expr::Paren(p) => generic_result(&p.expr),
        _ => false,
    }
}

/// A value whose type its context chooses (`x.into()`, `s.parse()?`, `rng.gen()`, `From::from(x)`, and
/// `unwrap`-like calls on those): a store put around it would leave rustc nothing to choose the
/// type from. (`collect()` is stored with the place's shape, `Vec<_>`, which types it.)
fn context_typed(e: &Expr) -> bool {
    // rand's `gen()` (`random()` from rand 0.9) and `sample(..)` too: their type is the place's.
    const CHOSEN: [&str; 7] = ["into", "try_into", "parse", "default", "gen", "random", "sample"];
    const THROUGH: [&str; 5] = ["unwrap", "expect", "unwrap_or", "unwrap_or_default", "unwrap_or_else"];
    match e {
        Expr::MethodCall(m) if m.turbofish.is_none() && CHOSEN.iter().any(|g| m.method == g) => true,
        Expr::MethodCall(m) if THROUGH.iter().any(|g| m.method == g) => context_typed(&m.receiver),
        Expr::Call(c) => matches!(&*c.func, Expr::Path(p) if {
            let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
            matches!(segs.as_slice(), [.., t, m] if (t == "From" && m == "from") || (t == "Into" && m == "into"))
        }),
        Expr::Try(t) => context_typed(&t.expr),
        Expr::Paren(p) => context_typed(&p.expr),
        // Any other such value, said by `fptune::typed_by_place!(..)`.
        Expr::Macro(m) => m.mac.path.segments.last().is_some_and(|s| s.ident == "typed_by_place"),
        _ => false,
    }
}

/// A value whose type only the place it goes to gives: [`context_typed`], and iterators'
/// `collect()`, `sum()`, `product()` without a turbofish.
fn target_typed(e: &Expr) -> bool {
    const COLLECTED: [&str; 3] = ["collect", "sum", "product"];
    match e {
        Expr::MethodCall(m) if m.turbofish.is_none() && COLLECTED.iter().any(|g| m.method == g) => true,
        Expr::Paren(p) => target_typed(&p.expr),
        _ => context_typed(e),
    }
}

/// A value chosen by branches (`if`, `match`, a block): each tail is stored on its own.
fn branches(e: &Expr) -> bool {
    matches!(e, Expr::If(_) | Expr::Match(_) | Expr::Block(_))
}

/// `ty` with every float written in it replaced by `_`: the shape of the value before the store,
/// which lets `collect()` and friends infer their containers as they did without the store.
fn shape(ty: &Type, aliases: &BTreeSet<String>) -> Type {
    struct Shape<'a>(&'a BTreeSet<String>);
    impl VisitMut for Shape<'_> {
        fn visit_type_mut(&mut self, t: &mut Type) {
            let alias = matches!(t, Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1
                && p.path.segments[0].arguments.is_none()
                && self.0.contains(&p.path.segments[0].ident.to_string()));
            if alias || fptune_syntax::float_type(t).is_some() {
                *t = parse_quote!(_);
                return;
            }
            visit_mut::visit_type_mut(self, t);
        }
    }
    let mut out = ty.clone();
    Shape(aliases).visit_type_mut(&mut out);
    out
}

/// A tuple type some of whose elements are storable floats (or such tuples) and some not, like
/// `(usize, f64)`: no `Store` converts it whole, so a tuple expression stored into it is stored
/// element by element.
/// Returns the tuple type, through parentheses.
fn mixed_float_tuple<'t>(ty: &'t Type, aliases: &BTreeSet<String>) -> Option<&'t syn::TypeTuple> {
    match ty {
        Type::Paren(p) => mixed_float_tuple(&p.elem, aliases),
        Type::Group(g) => mixed_float_tuple(&g.elem, aliases),
        Type::Tuple(t) => (!is_storable_float(ty, aliases) && t.elems.iter().any(|e| stored_type(e, aliases))).then_some(t),
        _ => None,
    }
}

/// `Option<T>` or `Result<T, E>` with `T` a stored type: the payload's type, and the variant
/// that carries it (`Some`, `Ok`).
fn float_payload<'t>(ty: &'t Type, aliases: &BTreeSet<String>) -> Option<(&'t Type, &'static str)> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    let variant = match last.ident.to_string().as_str() {
        "Option" => "Some",
        "Result" => "Ok",
        _ => return None,
    };
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    let Some(syn::GenericArgument::Type(t)) = args.args.first() else { return None };
    stored_type(t, aliases).then_some((t, variant))
}

/// Whether a value of type `ty` goes through a store: a storable float type, a mixed tuple, or
/// an `Option` or `Result` of one (its payload does).
pub(super) fn stored_type(ty: &Type, aliases: &BTreeSet<String>) -> bool {
    is_storable_float(ty, aliases) || mixed_float_tuple(ty, aliases).is_some() || float_payload(ty, aliases).is_some()
}

fn store_expr(e: Expr, ty: Option<&Type>, aliases: &BTreeSet<String>) -> Expr {
    let span = e.span();
    match ty.map(|t| shape(t, aliases)) {
        Some(shape) if !matches!(shape, Type::Infer(_)) => wrap_dispatch(
            span,
            quote_spanned!(span=>
                let __fptune_value: #shape = #e;
                (&&::fptune::__rt::src(__fptune_value)).__fp_store()
            ),
        ),
        _ => wrap_dispatch(span, quote_spanned!(span=> (&&::fptune::__rt::src(#e)).__fp_store())),
    }
}
