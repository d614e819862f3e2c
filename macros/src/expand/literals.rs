//! Float literals: recognising them as the user writes them and as the tuner elaborates them
//! (`::fptune::__rt::lit::<T>(0.5f64, 0.5f32)`), and writing them as the runtime's `Lit`.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{parse_quote, parse_quote_spanned, Expr, UnOp};

use super::macro_args::VecRepeat;

/// An unsuffixed float literal, possibly negated or parenthesised: its digits with the sign.
/// The tuner's elaborated literal `::fptune::__rt::lit::<T>(0.5f64, 0.5f32)` (an unsuffixed
/// literal whose type rustc inferred as `T`) is one too.
pub(super) fn float_literal(e: &Expr) -> Option<(String, Span)> {
    match e {
        Expr::Lit(l) => match &l.lit {
            syn::Lit::Float(f) if f.suffix().is_empty() => Some((fptune_syntax::suffixable_digits(f), f.span())),
            _ => None,
        },
        Expr::Call(c) if elaborated_literal(c) => elaborated_digits(c),
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => {
            let (digits, span) = float_literal(&u.expr)?;
            Some((if let Some(d) = digits.strip_prefix('-') { d.to_string() } else { format!("-{digits}") }, span))
        }
        Expr::Paren(p) => float_literal(&p.expr),
        Expr::Group(g) => float_literal(&g.expr),
        _ => None,
    }
}

/// The digits of an elaborated literal's first argument (its `f64` rounding, which carries the
/// literal as written).
pub(super) fn elaborated_digits(c: &syn::ExprCall) -> Option<(String, Span)> {
    match c.args.first() {
        Some(Expr::Lit(syn::ExprLit { lit: syn::Lit::Float(f), .. })) => Some((fptune_syntax::suffixable_digits(f), c.span())),
        _ => None,
    }
}

/// An integer literal (`1`, `-2`, `3usize`; not `1f64`, an integer token with a float suffix).
pub(super) fn integer_literal(e: &Expr) -> bool {
    match e {
        Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => !matches!(i.suffix(), "f32" | "f64"),
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => integer_literal(&u.expr),
        Expr::Paren(p) => integer_literal(&p.expr),
        Expr::Group(g) => integer_literal(&g.expr),
        _ => false,
    }
}

/// `::fptune::__rt::lit::<T>(d, s)`, the tuner's elaborated literal.
pub(super) fn elaborated_literal(c: &syn::ExprCall) -> bool {
    runtime_literal(c, "lit")
}

/// An elaborated literal with its type written, `lit::<T>(..)` (a heal's `lit(..)` has no type
/// written and is left to infer it).
pub(super) fn elaborated_literal_with_turbofish(c: &syn::ExprCall) -> bool {
    let typed = matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| !s.arguments.is_empty()));
    elaborated_literal(c) && typed
}

/// `::fptune::__rt::typed_lit::<T>(d, s)`, an elaborated literal the conversion kept typed.
pub(super) fn typed_literal(c: &syn::ExprCall) -> bool {
    runtime_literal(c, "typed_lit")
}

/// `::fptune::__rt::lit_like(&(receiver), d, s)`, an elaborated literal of its receiver's type.
pub(super) fn receivers_literal(c: &syn::ExprCall) -> bool {
    let Expr::Path(p) = &*c.func else { return false };
    let n = p.path.segments.len();
    c.args.len() == 3 && n >= 2 && p.path.segments[n - 2].ident == "__rt" && p.path.segments[n - 1].ident == "lit_like"
}

/// A call of `__rt::{function}` with a literal's two roundings.
fn runtime_literal(c: &syn::ExprCall, function: &str) -> bool {
    let Expr::Path(p) = &*c.func else { return false };
    let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
    c.args.len() == 2 && segs.len() >= 2 && segs[segs.len() - 2] == "__rt" && segs[segs.len() - 1] == function
}

pub(super) fn is_literal_operand(e: &Expr) -> bool {
    float_literal(e).is_some()
}

/// A float literal, or an array or `vec!` of them: its type is the place's.
pub(super) fn literal_value(e: &Expr) -> bool {
    match e {
        Expr::Array(a) => !a.elems.is_empty() && a.elems.iter().all(literal_value),
        Expr::Repeat(r) => literal_value(&r.expr),
        Expr::Paren(p) => literal_value(&p.expr),
        Expr::Macro(m) if m.mac.path.is_ident("vec") => {
            let parser = syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated;
            match syn::parse::Parser::parse2(parser, m.mac.tokens.clone()) {
                Ok(items) => !items.is_empty() && items.iter().all(literal_value),
                Err(_) => syn::parse2::<VecRepeat>(m.mac.tokens.clone()).is_ok_and(|r| literal_value(&r.elem)),
            }
        }
        _ => is_literal_operand(e),
    }
}

/// `::fptune::__rt::Lit::new(0.1f64, 0.1f32)` for a literal's digits.
pub(super) fn lit_tokens(digits: &str, span: Span) -> TokenStream {
    let args: TokenStream = fptune_syntax::literal_args(digits).parse().unwrap_or_default();
    quote_spanned!(span=> ::fptune::__rt::Lit::new(#args))
}

/// A float literal (or an array or `vec!` of them) with every literal as a `Lit`, so a store
/// rounds it to nearest into the place's format (the compiler's rounding of a literal).
pub(super) fn literal_as_lit(e: Expr) -> Expr {
    if let Some((digits, span)) = float_literal(&e) {
        let lit = lit_tokens(&digits, span);
        return parse_quote_spanned!(span=> #lit);
    }
    match e {
        Expr::Array(mut a) if literal_value(&Expr::Array(a.clone())) => {
            for item in a.elems.iter_mut() {
                let taken = std::mem::replace(item, parse_quote!(()));
                *item = literal_as_lit(taken);
            }
            Expr::Array(a)
        }
        Expr::Repeat(mut r) if literal_value(&r.expr) => {
            let taken = std::mem::replace(&mut *r.expr, parse_quote!(()));
            *r.expr = literal_as_lit(taken);
            Expr::Repeat(r)
        }
        Expr::Macro(mut m) if m.mac.path.is_ident("vec") && literal_value(&Expr::Macro(m.clone())) => {
            if let Ok(r) = syn::parse2::<VecRepeat>(m.mac.tokens.clone()) {
                let (elem, len) = (literal_as_lit(r.elem), r.len);
                m.mac.tokens = quote!(#elem; #len);
            } else {
                let parser = syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated;
                if let Ok(items) = syn::parse::Parser::parse2(parser, m.mac.tokens.clone()) {
                    let items: Vec<Expr> = items.into_iter().map(literal_as_lit).collect();
                    m.mac.tokens = quote!(#(#items),*);
                }
            }
            Expr::Macro(m)
        }
        other => other,
    }
}
