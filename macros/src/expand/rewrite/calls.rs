//! Calls, method calls, struct literals and macro calls: arguments stored into the item's own
//! float parameters and fields, and the dispatch's versions of `sum`, `product`,
//! `copy_from_slice` and `std::mem::swap`.

use fptune_syntax::EXPRESSION_MACROS;
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{parse_quote_spanned, Expr, Type};

use crate::expand::literals::{elaborated_literal, is_literal_operand};
use crate::expand::macro_args::VecRepeat;
use super::{wrap_dispatch, Rewriter};

impl Rewriter {
    /// `f(args)`: the arguments stored into the function's float parameters when it is one of
    /// the item's; `std::mem::swap` as the dispatch's.
    pub(super) fn rewrite_call(&mut self, call: &mut syn::ExprCall) {
        let span = call.span();
        self.visit_expr_mut(&mut call.func);
        let name = match &*call.func {
            Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        let is_swap = matches!(&*call.func, Expr::Path(p) if {
            let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
            segs.len() >= 2 && segs[segs.len() - 2] == "mem" && segs[segs.len() - 1] == "swap"
        });
        if is_swap {
            *call.func = parse_quote_spanned!(span=> ::fptune::__rt::swap);
        }
        // A callable bound in scope (`f: impl Fn(f64) -> f64`, then `f(x)`) before the item's
        // function of the same name, which it shadows.
        let local = match &*call.func {
            Expr::Path(p) => p.path.get_ident().and_then(|id| self.callable(&id.to_string())),
            _ => None,
        };
        let params = local.or_else(|| name.and_then(|n| self.cx.fns.get(&n).cloned()));
        self.rewrite_call_args(params.as_ref(), &mut call.args);
    }

    /// `x.method(args)`: the arguments stored into the method's float parameters when it is one
    /// of the item's; an iterator's `sum`/`product` and `copy_from_slice` as the dispatch's.
    pub(super) fn rewrite_method_call(&mut self, m: &mut syn::ExprMethodCall) -> Option<Expr> {
        let span = m.span();
        // A method of an elaborated literal (`0.5.sqrt()`, rustc typed it) keeps the
        // literal's type: a bare literal's would be ambiguous.
        if !matches!(&*m.receiver, Expr::Call(c) if elaborated_literal(c)) {
            self.visit_expr_mut(&mut m.receiver);
        }
        let method = m.method.to_string();
        let params = self.cx.methods.get(&method).cloned();
        self.rewrite_call_args(params.as_ref(), &mut m.args);
        let recv = &m.receiver;
        match method.as_str() {
            // An iterator's `sum`/`product` ends a chain (`v.iter().map(..).sum()`); on a
            // path (`acc.sum()`) it is as likely a method of the program's own type,
            // which the fold's dispatch would not find.
            "sum" | "product" if m.args.is_empty() && chain_end(recv) => {
                let turbofish = m.turbofish.as_ref().map(|t| &t.args);
                let name = match turbofish {
                    Some(_) => format!("__fp_{method}_as"),
                    None => format!("__fp_{method}"),
                };
                let call = syn::Ident::new(&name, m.method.span());
                let body = match turbofish {
                    Some(args) => quote_spanned!(span=> (&&::fptune::__rt::fold(#recv)).#call::<#args>()),
                    None => quote_spanned!(span=> (&&::fptune::__rt::fold(#recv)).#call()),
                };
                Some(wrap_dispatch(span, body))
            }
            "copy_from_slice" if m.args.len() == 1 => {
                let src = &m.args[0];
                Some(wrap_dispatch(
                    span,
                    quote_spanned!(span=> (&&::fptune::__rt::pair(
                        // `[..]` reborrows a `&mut [T]` binding as the method call
                        // does (no `mut` needed), and borrows a `Vec` or an array.
                        &mut (#recv)[..],
                        ::fptune::__rt::AsRef::<[_]>::as_ref(#src),
                    )).__fp_copy_from_slice()),
                ))
            }
            _ => None,
        }
    }

    /// `S { field: value, .. }`: each value stored into its field's type when `S` is one of the
    /// item's structs (and, in the stochastic build, each literal value).
    pub(super) fn rewrite_struct(&mut self, s: &mut syn::ExprStruct) {
        let name = s.path.segments.last().map(|seg| seg.ident.to_string()).unwrap_or_default();
        let storable = self.cx.structs.get(&name).cloned();
        for field in s.fields.iter_mut() {
            let member = match &field.member {
                syn::Member::Named(id) => id.to_string(),
                syn::Member::Unnamed(i) => i.index.to_string(),
            };
            let literal = is_literal_operand(&field.expr);
            self.visit_expr_mut(&mut field.expr);
            let ty = storable.as_ref().and_then(|f| f.get(&member)).cloned();
            if ty.is_some() || (literal && self.stochastic) {
                // Field-init shorthand `S { a }` becomes `S { a: store(a) }`.
                field.colon_token.get_or_insert_with(Default::default);
                self.store_tail(&mut field.expr, ty.as_ref());
            }
        }
        if let Some(rest) = &mut s.rest {
            self.visit_expr_mut(rest);
        }
    }

    fn rewrite_call_args(&mut self, params: Option<&Vec<Option<Type>>>, args: &mut syn::punctuated::Punctuated<Expr, syn::Token![,]>) {
        for (i, arg) in args.iter_mut().enumerate() {
            self.visit_expr_mut(arg);
            let ty = params.and_then(|p| p.get(i)).cloned().flatten();
            if ty.is_some() {
                self.store_tail(arg, ty.as_ref());
            }
        }
    }

    /// Rewrites the arguments of a known formatting or collection macro; others are left alone.
    pub(super) fn visit_macro_args(&mut self, mac: &mut syn::Macro) {
        let name = mac.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        let format_like = name != "vec" && EXPRESSION_MACROS.contains(&name.as_str());
        if name == "vec" {
            if let Ok(mut arr) = syn::parse2::<VecRepeat>(mac.tokens.clone()) {
                self.visit_expr_mut(&mut arr.elem);
                self.visit_expr_mut(&mut arr.len);
                // (`vec![x; n]`'s length is an ordinary expression.)
                let (e, n) = (&arr.elem, &arr.len);
                mac.tokens = quote!(#e; #n);
                return;
            }
        }
        if format_like || name == "vec" {
            let parser = syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated;
            if let Ok(mut args) = syn::parse::Parser::parse2(parser, mac.tokens.clone()) {
                let written = args.clone();
                for arg in args.iter_mut() {
                    match arg {
                        // `name = value` in a format macro is a named argument, not a store.
                        Expr::Assign(a) if format_like => self.visit_expr_mut(&mut a.right),
                        _ => self.visit_expr_mut(arg),
                    }
                }
                if let Some((at, stdout)) = crate::printed::format_index(&name) {
                    if let Some(shown) = crate::printed::rewrite(&args, &written, at, stdout && self.printed) {
                        args = shown;
                    }
                }
                mac.tokens = args.into_token_stream();
            }
        }
    }
}

/// Whether `e` is a call or a method call (in parentheses or not): what an iterator chain's
/// `sum()` or `product()` is called on.
fn chain_end(e: &Expr) -> bool {
    match e {
        Expr::Paren(p) => chain_end(&p.expr),
        Expr::MethodCall(_) | Expr::Call(_) => true,
        _ => false,
    }
}
