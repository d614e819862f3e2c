//! Step 3 of the expansion: the item's code rewritten so that mixed precision type-checks
//! ([`Rewriter`]). Its walk is here, one method per kind of expression in the module named for
//! it: [`operators`] (arithmetic, comparisons, casts through the dispatch), [`stores`] (a value
//! put into a float place rounds to it), [`calls`] (calls, method calls, struct literals, macro
//! arguments); [`bindings`] says which names, places and values are floats.

use std::collections::HashMap;

use fptune_syntax::FloatFormat;
use proc_macro2::{Span, TokenStream};
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{parse_quote, parse_quote_spanned, Block, Expr, FnArg, Pat, ReturnType, Type};

use super::context::Context;
use super::literals::{elaborated_digits, elaborated_literal_with_turbofish, float_literal, is_literal_operand, literal_value};
use stores::{generic_result, stored_type, typed_by_annotation};

mod bindings;
mod calls;
mod operators;
mod stores;

/// A binding in scope.
#[derive(Clone, Copy, Default)]
struct Binding {
    /// Holds a float by value (scalar, `Vec`, array): assignments to it store.
    storable: bool,
    /// Holds floats somewhere (also `&mut [f64]`): assignments to its elements store.
    floaty: bool,
    /// Unannotated and initialised: its type is the initialiser's, which in the single build can
    /// be a value of run-time format (`__rt::DynStochastic`), so stores into it must see the place.
    inferred: bool,
    /// Its type may still be open where it is used: an untyped closure parameter, or an
    /// unannotated binding of a value whose type may be ([`Rewriter::settled_value`]). An
    /// operation on it skips the dispatch's first level, two operands of one native type
    /// (`__rt::SameMul`), which would take it for the other operand's type.
    open: bool,
    /// A callable (`impl Fn(f64) -> f64`, `&dyn Fn(..)`, `fn(..)`, a type parameter bounded by
    /// `Fn(..)`): the index in [`Rewriter::callables`] of its parameters' types, so that a call
    /// of it stores its arguments as a call of one of the item's functions does.
    callable: Option<usize>,
}

pub(super) struct Rewriter {
    cx: Context,
    stochastic: bool,
    scopes: Vec<HashMap<String, Binding>>,
    /// For each enclosing function (None for a closure): its return type when that is a
    /// storable float.
    returns: Vec<Option<Option<Type>>>,
    /// `#[fptune::tune(printed)]`: the arguments of printing macros are recorded.
    pub(super) printed: bool,
    /// The parameters of the callables bound in scope ([`Binding::callable`]): each float one
    /// taken by value, with its type.
    callables: Vec<Vec<Option<Type>>>,
    /// For each enclosing function: its type parameters bounded by a callable, with the
    /// bound's parameter types (`F: Fn(f64) -> f64`, also in a `where` clause).
    generic_callables: Vec<HashMap<String, Vec<Type>>>,
}

impl Rewriter {
    pub(super) fn new(cx: Context, stochastic: bool) -> Rewriter {
        Rewriter {
            cx,
            stochastic,
            scopes: vec![HashMap::new()],
            returns: Vec::new(),
            printed: false,
            callables: Vec::new(),
            generic_callables: Vec::new(),
        }
    }

    /// The tuner's elaborated literal where no operator takes it (an argument, a field, a tuple):
    /// in a native or probe build, the literal as the user wrote it, which takes the type its
    /// place has, as it does in the user's build of the tuned code. The stochastic build keeps its
    /// type, made stochastic, except where [`UntypedLiterals`](super::elaborated::UntypedLiterals)
    /// left it to rustc.
    fn rewrite_elaborated_literal(&self, c: &syn::ExprCall) -> Option<Expr> {
        if self.stochastic {
            return None;
        }
        let (digits, span) = elaborated_digits(c)?;
        // Too large for `f32` (`1e99`), it can only be an `f64` (rustc refuses the literal at
        // `f32`, a lint the probe build never reaches): said so, the probe holds the place at
        // `f64`.
        let digits = if fptune_syntax::too_large_for_f32(&digits) { format!("{digits}f64") } else { digits };
        Some(Expr::Lit(syn::ExprLit { attrs: Vec::new(), lit: syn::Lit::Float(syn::LitFloat::new(&digits, span)) }))
    }

    fn fn_body(&mut self, sig: &syn::Signature, block: &mut Block) {
        self.scopes.push(HashMap::new());
        let mut generic = self.generic_callables.last().cloned().unwrap_or_default();
        generic.extend(callable_type_parameters(&sig.generics));
        self.generic_callables.push(generic);
        for input in &sig.inputs {
            if let FnArg::Typed(pt) = input {
                let b = self.binding_of_type(&pt.ty);
                self.bind_pat(&pt.pat, b);
            }
        }
        let ret = match &sig.output {
            ReturnType::Type(_, ty) => stored_type(ty, &self.cx.aliases).then(|| (**ty).clone()),
            ReturnType::Default => None,
        };
        self.returns.push(Some(ret.clone()));
        self.visit_block_mut(block);
        if let Some(ty) = &ret {
            self.store_block(block, Some(ty));
        }
        self.returns.pop();
        self.generic_callables.pop();
        self.scopes.pop();
        // `half`'s 16-bit types lack most of `f64`'s method set (`sqrt`, `sin`, `abs`, ..):
        // `HalfMath` gives it to them (computed in `f32`, rounded to nearest), so a knob lowered
        // to 16 bits keeps compiling. Every other float has these methods of its own, which win.
        block.stmts.insert(0, parse_quote!(#[allow(unused_imports)] use ::fptune::__rt::HalfMath as _;));
    }
}

/// The type parameters of `generics` bounded by a callable, with the bound's parameter types.
fn callable_type_parameters(generics: &syn::Generics) -> HashMap<String, Vec<Type>> {
    fptune_syntax::callable_bounds(generics)
        .into_iter()
        .filter_map(|(name, bound)| match bound {
            syn::TypeParamBound::Trait(t) => fptune_syntax::fn_arguments(&t.path).map(|params| (name, params)),
            _ => None,
        })
        .collect()
}

pub(super) fn wrap_dispatch(span: Span, body: TokenStream) -> Expr {
    parse_quote_spanned!(span=> {
        #[allow(unused_imports)]
        use ::fptune::__rt::prelude::*;
        #body
    })
}

/// `static X: f16 = 1.5` -> `static X: f16 = <f16>::from_f64_const(1.5)` (also in arrays and
/// tuples). In the single build, a knob of a constant unit (`static X: Knob<f64, { 3 |
/// CONSTANT }> = 1.5`) holds its literal as `<Knob<..>>::constant(1.5f64)`, and any other value
/// is an error: it could only be computed in a format known when the program runs.
fn half_literal(ty: &Type, e: &mut Expr) {
    match (ty, &mut *e) {
        (Type::Array(a), Expr::Array(items)) => {
            for item in items.elems.iter_mut() {
                half_literal(&a.elem, item);
            }
        }
        (Type::Array(a), Expr::Repeat(r)) => half_literal(&a.elem, &mut r.expr),
        (Type::Tuple(t), Expr::Tuple(items)) => {
            for (ty, item) in t.elems.iter().zip(items.elems.iter_mut()) {
                half_literal(ty, item);
            }
        }
        (Type::Paren(p), _) => half_literal(&p.elem, e),
        (Type::Path(p), _) if p.path.segments.last().is_some_and(|l| l.ident == "Knob") => {
            *e = match float_literal(e) {
                Some((digits, span)) => {
                    let d: TokenStream = format!("{digits}f64").parse().unwrap_or_default();
                    parse_quote_spanned!(span=> <#ty>::constant(#d))
                }
                None => {
                    let span = e.span();
                    parse_quote_spanned!(span=> ::fptune::__rt::compile_error!(
                        "fptune's single build: a `const` or `static` knob's value must be float literals \
                         (or arrays or tuples of them), as its format is chosen when the program starts"
                    ))
                }
            };
        }
        (Type::Path(p), _) => {
            // `fptune::Fx<..>` (a format beyond the four) has a const conversion of its own.
            let format = fptune_syntax::custom_format(&p.path).or_else(|| p.path.segments.last().and_then(|l| FloatFormat::from_ident(&l.ident.to_string())));
            if !matches!(format, Some(FloatFormat::F16 | FloatFormat::BF16 | FloatFormat::Custom(_))) {
                return;
            }
            if let Some((digits, span)) = float_literal(e) {
                let d: TokenStream = format!("{digits}f64").parse().unwrap_or_default();
                *e = parse_quote_spanned!(span=> <#ty>::from_f64_const(#d));
            }
        }
        _ => {}
    }
}

impl VisitMut for Rewriter {
    fn visit_item_fn_mut(&mut self, f: &mut syn::ItemFn) {
        // A `const fn`'s body cannot call the dispatch: it stays as written (the stochastic build
        // made every `const fn` computing with floats an ordinary one, `unconst_float_fns`).
        if f.sig.constness.is_none() {
            let sig = f.sig.clone();
            self.fn_body(&sig, &mut f.block);
        }
    }

    fn visit_impl_item_fn_mut(&mut self, f: &mut syn::ImplItemFn) {
        if f.sig.constness.is_none() {
            let sig = f.sig.clone();
            self.fn_body(&sig, &mut f.block);
        }
    }

    fn visit_trait_item_fn_mut(&mut self, f: &mut syn::TraitItemFn) {
        if let Some(block) = &mut f.default {
            let sig = f.sig.clone();
            self.fn_body(&sig, block);
        }
    }

    // Constant contexts cannot call the dispatch: their expressions stay as written, but a
    // literal given to a 16-bit type (which no literal can be) goes through half's const
    // conversion.
    fn visit_item_const_mut(&mut self, c: &mut syn::ItemConst) {
        half_literal(&c.ty, &mut c.expr);
    }
    fn visit_item_static_mut(&mut self, s: &mut syn::ItemStatic) {
        half_literal(&s.ty, &mut s.expr);
    }
    fn visit_impl_item_const_mut(&mut self, c: &mut syn::ImplItemConst) {
        half_literal(&c.ty, &mut c.expr);
    }
    fn visit_expr_const_mut(&mut self, _c: &mut syn::ExprConst) {}
    fn visit_type_mut(&mut self, _t: &mut Type) {}

    fn visit_block_mut(&mut self, b: &mut Block) {
        self.scopes.push(HashMap::new());
        visit_mut::visit_block_mut(self, b);
        self.scopes.pop();
    }

    fn visit_local_mut(&mut self, l: &mut syn::Local) {
        let annotated = match &l.pat {
            Pat::Type(pt) => Some((*pt.ty).clone()),
            _ => None,
        };
        let literal_init = l.init.as_ref().is_some_and(|i| is_literal_operand(&i.expr));
        let open_init = l.init.as_ref().is_some_and(|i| !self.settled_value(&i.expr));
        let literal_init_value = l.init.as_ref().is_some_and(|i| literal_value(&i.expr));
        if let Some(init) = &mut l.init {
            self.visit_expr_mut(&mut init.expr);
            if let Some((_, diverge)) = &mut init.diverge {
                self.visit_expr_mut(diverge);
            }
            match &annotated {
                Some(_) if typed_by_annotation(&init.expr) || generic_result(&init.expr) => {}
                Some(ty) if stored_type(ty, &self.cx.aliases) && init.diverge.is_none() => {
                    self.store_tail(&mut init.expr, Some(ty));
                }
                // A literal value takes the annotated type, whatever float it names (an alias
                // declared elsewhere, `f16`, a stochastic type).
                Some(_) if literal_init_value && init.diverge.is_none() => {
                    self.store_tail(&mut init.expr, None);
                }
                None if literal_init && self.stochastic => {
                    // An unannotated float literal binding is an f64 (the dispatch's fallback);
                    // in the stochastic build, a stochastic one.
                    if let Some((digits, span)) = float_literal(&init.expr) {
                        let d: TokenStream = format!("{digits}f64").parse().unwrap_or_default();
                        *init.expr = parse_quote_spanned!(span=> ::fptune::Sf64::from_f64(#d));
                    }
                }
                _ => {}
            }
        }
        let b = match &annotated {
            Some(ty) => self.binding_of_type(ty),
            None => Binding {
                storable: literal_init,
                floaty: literal_init,
                inferred: l.init.is_some(),
                open: open_init,
                callable: None,
            },
        };
        self.bind_pat(&l.pat, b);
    }

    fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
        self.scopes.push(HashMap::new());
        for input in &c.inputs {
            match input {
                Pat::Type(_) => self.bind_pat(input, Binding::default()),
                // Typed by the closure's uses, which rustc may not have seen at its body.
                _ => self.bind_open(input),
            }
        }
        self.returns.push(None);
        self.visit_expr_mut(&mut c.body);
        self.returns.pop();
        self.scopes.pop();
    }

    /// Dispatches each kind of expression the rewrite changes to its method, which rewrites it in
    /// place or gives the expression that replaces it.
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        let replacement = match e {
            Expr::Call(c) if elaborated_literal_with_turbofish(c) => self.rewrite_elaborated_literal(c),
            Expr::Binary(b) => self.rewrite_binary(b),
            Expr::Assign(a) => self.rewrite_assign(a),
            Expr::Cast(c) => self.rewrite_cast(c),
            Expr::Return(r) => {
                self.rewrite_return(r);
                None
            }
            Expr::Call(call) => {
                self.rewrite_call(call);
                None
            }
            Expr::MethodCall(m) if self.two_operand_float_method(m) => Some(self.rewrite_two_operand_method(m)),
            Expr::MethodCall(m) => self.rewrite_method_call(m),
            Expr::Struct(s) => {
                self.rewrite_struct(s);
                None
            }
            Expr::Macro(m) => {
                self.visit_macro_args(&mut m.mac);
                None
            }
            // `[x; N]`: `N` is a constant, which no call of the dispatch may compute.
            Expr::Repeat(r) => {
                self.visit_expr_mut(&mut r.expr);
                None
            }
            _ => {
                visit_mut::visit_expr_mut(self, e);
                None
            }
        };
        if let Some(replacement) = replacement {
            *e = replacement;
        }
    }

    fn visit_stmt_macro_mut(&mut self, m: &mut syn::StmtMacro) {
        self.visit_macro_args(&mut m.mac);
    }
}
