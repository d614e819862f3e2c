//! The tuner's elaborated code and the user's suffixed literals made ready for the rewrite and for
//! this build: suffixed literals written as casts, elaborated literals left untyped where their
//! place types them, elaborated closure parameters left to inference.

use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{parse_quote_spanned, Expr, Type, UnOp};

use super::literals::{elaborated_literal, receivers_literal, typed_literal};
use super::macro_args::{visit_macro_exprs, VecRepeat};

/// Writes a suffixed float literal (`0.5f64`, `0_f64`) as the cast `(0.5f64 as f64)`, as the
/// tuner's elaboration does: the user's code and the tuner's builds of it expand alike.
pub(super) struct SuffixedLiterals;

impl VisitMut for SuffixedLiterals {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Lit(l) = e {
            let suffix = match &l.lit {
                syn::Lit::Float(f) => f.suffix().to_string(),
                syn::Lit::Int(i) => i.suffix().to_string(),
                _ => String::new(),
            };
            if suffix == "f64" || suffix == "f32" {
                let span = l.span();
                let ty = syn::Ident::new(&suffix, span);
                let lit = l.clone();
                *e = parse_quote_spanned!(span=> (#lit as #ty));
            }
            return;
        }
        if matches!(e, Expr::Call(c) if elaborated_literal(c) || typed_literal(c) || receivers_literal(c)) {
            // The tuner's literal (`__rt::lit::<T>(0.5f64, 0.5f32)`, `__rt::typed_lit::<T>(..)`,
            // `__rt::lit_like(&(s), ..)`) carries the literal's two roundings, suffixed.
            return;
        }
        visit_mut::visit_expr_mut(self, e);
    }

    fn visit_pat_mut(&mut self, _: &mut syn::Pat) {}

    fn visit_macro_mut(&mut self, _: &mut syn::Macro) {}
}

/// The stochastic build's elaborated literals that are arguments of a call (`Square(1.1)`,
/// `f(0.5)`, `Some(0.0)`) or values of a struct literal's fields: `lit(d, s)`, their type left to
/// rustc, which the place gives, so that they follow a lowered place in every configuration (a
/// `lit::<f64>` there fails to build where the field is lowered); so are a method's arguments,
/// and literals the place types as a whole (`&mut 1.0`, `[0.5, 1.5]`, `vec![0.0; n]`). Where
/// nothing gives one (a generic function's argument), the conversion writes `typed_lit::<T>`.
/// So are the literals of an array a `for` loop iterates, and a method's literal receiver.
/// The arguments of a method given a closure keep their type: a generic method
/// (`fold(0.0, |acc, x| ..)`) would leave its closure untyped.
pub(super) struct UntypedLiterals;

impl UntypedLiterals {
    fn untype(e: &mut Expr) {
        match e {
            Expr::Call(c) if elaborated_literal(c) => {
                if let Expr::Path(p) = &mut *c.func {
                    if let Some(last) = p.path.segments.last_mut() {
                        last.arguments = syn::PathArguments::None;
                    }
                }
            }
            Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => {
                Self::untype(&mut u.expr);
                // `-lit(d, s)` is `lit(-d, -s)`: an operator on a value rustc has not typed yet
                // would leave it untyped (E0282).
                let mut inner = &mut *u.expr;
                while let Expr::Paren(p) = inner {
                    inner = &mut *p.expr;
                }
                if let Expr::Call(c) = inner {
                    if elaborated_literal(c) {
                        let mut c = c.clone();
                        for a in c.args.iter_mut() {
                            *a = syn::parse_quote!(-#a);
                        }
                        *e = Expr::Call(c);
                    }
                }
            }
            Expr::Paren(p) => Self::untype(&mut p.expr),
            // What the place types as a whole: a temporary lent (`&mut 1.0`), the elements of an
            // array, a tuple or a `vec![..]`.
            Expr::Reference(r) => Self::untype(&mut r.expr),
            Expr::Array(a) => a.elems.iter_mut().for_each(Self::untype),
            Expr::Tuple(t) => t.elems.iter_mut().for_each(Self::untype),
            Expr::Repeat(r) => Self::untype(&mut r.expr),
            Expr::Macro(m) if m.mac.path.segments.last().is_some_and(|s| s.ident == "vec") => Self::untype_vec(&mut m.mac),
            _ => {}
        }
    }

    /// The elements of `vec![a, b]` or the value of `vec![v; n]`.
    fn untype_vec(mac: &mut syn::Macro) {
        use syn::parse::Parser;
        use syn::punctuated::Punctuated;
        if let Ok(VecRepeat { mut elem, len }) = syn::parse2::<VecRepeat>(mac.tokens.clone()) {
            Self::untype(&mut elem);
            mac.tokens = quote!(#elem; #len);
        } else if let Ok(mut elems) = Punctuated::<Expr, syn::Token![,]>::parse_terminated.parse2(mac.tokens.clone()) {
            elems.iter_mut().for_each(Self::untype);
            mac.tokens = elems.into_token_stream();
        }
    }
}

impl VisitMut for UntypedLiterals {
    // A literal in a method call inside `println!(..)` is typed by its place as anywhere else.
    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        visit_macro_exprs(mac, |e| self.visit_expr_mut(e));
    }

    fn visit_expr_call_mut(&mut self, c: &mut syn::ExprCall) {
        if !elaborated_literal(c) {
            c.args.iter_mut().for_each(Self::untype);
        }
        visit_mut::visit_expr_call_mut(self, c);
    }

    fn visit_expr_method_call_mut(&mut self, m: &mut syn::ExprMethodCall) {
        // Beside a closure the literal may be what types it (`fold(0.0, |acc, x| ..)`).
        if !m.args.iter().any(|a| matches!(a, Expr::Closure(_))) {
            m.args.iter_mut().for_each(Self::untype);
        }
        // A literal array or `vec![..]` as the receiver (`[-0.9, 0.2].iter().map(|&x|
        // horner(&c, x))`): its element type is the one the chain gives it, a knob's natively.
        let mut receiver = &mut *m.receiver;
        while let Expr::Paren(p) = receiver {
            receiver = &mut *p.expr;
        }
        let whole = matches!(receiver, Expr::Array(_) | Expr::Repeat(_))
            || matches!(receiver, Expr::Macro(mm) if mm.mac.path.segments.last().is_some_and(|s| s.ident == "vec"));
        if whole {
            Self::untype(receiver);
        }
        visit_mut::visit_expr_method_call_mut(self, m);
    }

    fn visit_expr_struct_mut(&mut self, s: &mut syn::ExprStruct) {
        s.fields.iter_mut().for_each(|f| Self::untype(&mut f.expr));
        visit_mut::visit_expr_struct_mut(self, s);
    }

    // A literal array iterated (`for z in [(0.3, 0.2), ..] { tan(z) }`): its elements' type is
    // the one the loop's body gives them, a knob's natively.
    fn visit_expr_for_loop_mut(&mut self, f: &mut syn::ExprForLoop) {
        let mut iterated = &mut *f.expr;
        while let Expr::Paren(p) = iterated {
            iterated = &mut *p.expr;
        }
        let whole = matches!(iterated, Expr::Array(_) | Expr::Repeat(_) | Expr::Reference(_))
            || matches!(iterated, Expr::Macro(mm) if mm.mac.path.segments.last().is_some_and(|s| s.ident == "vec"));
        if whole {
            Self::untype(iterated);
        }
        visit_mut::visit_expr_for_loop_mut(self, f);
    }
}

/// The parameter types the tuner wrote for closures given as arguments,
/// `|x: ::fptune::__rt::elaborated!(f64)|`, left to inference in every build, as the user wrote
/// them (the callee's bounds type such a closure before its body), so that a parameter follows a
/// lowered knob in every configuration.
pub(super) struct ElaboratedParams;

impl VisitMut for ElaboratedParams {
    fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
        for input in c.inputs.iter_mut() {
            let syn::Pat::Type(pt) = input else { continue };
            if matches!(&*pt.ty, Type::Macro(m) if m.mac.path.segments.last().is_some_and(|s| s.ident == "elaborated")) {
                *input = (*pt.pat).clone();
            }
        }
        visit_mut::visit_expr_closure_mut(self, c);
    }
}
