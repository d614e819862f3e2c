//! Operators between floats of two formats: arithmetic, comparisons, compound assignments,
//! casts and the float methods of two operands go through `::fptune::__rt`'s dispatch, which
//! computes in the wider format (and leaves every other type to its own operator); a literal or
//! an integer cast operand adapts to the other operand's format.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{parse_quote_spanned, BinOp, Expr, Type, UnOp};

use crate::expand::literals::{float_literal, integer_literal, is_literal_operand, lit_tokens};
use super::{wrap_dispatch, Rewriter};

impl Rewriter {
    /// An operand of arithmetic or comparison: literals and integer casts adapt.
    pub(super) fn operand(&mut self, e: Expr) -> TokenStream {
        // Parentheses are not needed around a dispatch argument.
        let mut e = strip_parens(e);
        if let Some((digits, span)) = float_literal(&e) {
            return lit_tokens(&digits, span);
        }
        let cast_target = match &e {
            Expr::Paren(p) => match &*p.expr {
                Expr::Cast(c) => Some(c.clone()),
                _ => None,
            },
            Expr::Cast(c) => Some(c.clone()),
            _ => None,
        };
        if let Some(c) = cast_target {
            // An integer cast adapts like a literal; one to a knob (`i as fptune::knob!(f64)`)
            // is a value of the knob's type, which the configuration gives (`rewrite_cast`).
            if cast_float_target(&c.ty, &self.cx.aliases) && fptune_syntax::knob_type_marker(&c.ty).is_none() {
                let mut src = strip_parens((*c.expr).clone());
                let ty = (*c.ty).clone();
                self.visit_expr_mut(&mut src);
                let span = c.span();
                return quote_spanned!(span=> ::fptune::__rt::cast_operand::<#ty, _>(#src));
            }
        }
        if let Expr::Binary(b) = strip_parens(e.clone()) {
            if let Some(name) = arith_name(&b.op) {
                if literal_like(&Expr::Binary(b.clone()), &self.cx.aliases) {
                    // Inside a larger expression, literal-only arithmetic adapts too.
                    let span = b.span();
                    let left = self.operand(*b.left);
                    let right = self.operand(*b.right);
                    let method = syn::Ident::new(&format!("__fp_{name}"), b.op.span());
                    return wrap_dispatch(span, quote_spanned!(span=> (&&::fptune::__rt::pair(#left, #right)).#method()))
                        .into_token_stream();
                }
            }
        }
        self.visit_expr_mut(&mut e);
        e.into_token_stream()
    }

    /// `a + b`, `a < b`, `a += b`, ..: through the dispatch, unless an operand is an integer
    /// literal.
    pub(super) fn rewrite_binary(&mut self, b: &mut syn::ExprBinary) -> Option<Expr> {
        // An integer literal operand (`m + 1`, `i < 3`, `k += 1`): Rust has no float
        // operand beside one, so the native operator stays (a dispatched one would leave the
        // result's type open where the integer's is not known yet).
        if integer_literal(&b.left) || integer_literal(&b.right) {
            visit_mut::visit_expr_binary_mut(self, b);
            return None;
        }
        if let Some(name) = arith_name(&b.op) {
            self.rewrite_arithmetic(b, name)
        } else if let Some(name) = cmp_name(&b.op) {
            self.rewrite_comparison(b, name)
        } else if let Some(name) = assign_name(&b.op) {
            Some(self.rewrite_compound_assignment(b, name))
        } else {
            visit_mut::visit_expr_binary_mut(self, b);
            None
        }
    }

    /// `a + b`: computed in the operands' common format.
    fn rewrite_arithmetic(&mut self, b: &mut syn::ExprBinary, name: &str) -> Option<Expr> {
        let span = b.span();
        if literal_like(&b.left, &self.cx.aliases) && literal_like(&b.right, &self.cx.aliases) {
            // A value of literals and casts only: written types, native operator.
            visit_mut::visit_expr_binary_mut(self, b);
            return None;
        }
        // One level above the float operators: two operands of one native type meet through
        // rustc's own operator, which types a float not typed yet by the other as unmarked code
        // does (`fptune::__rt::SameMul`: markers never break a native build); a literal meeting a
        // container takes its element type (`fptune::__rt::ElemMulLit`).
        let literal = float_literal(&b.left).is_some() || float_literal(&b.right).is_some();
        let refs = if literal { quote!(&&&) } else { self.levels(&[&b.left, &b.right], quote!(&&&), quote!(&&)) };
        let left = self.operand((*b.left).clone());
        let right = self.operand((*b.right).clone());
        let method = syn::Ident::new(&format!("__fp_{name}"), b.op.span());
        Some(wrap_dispatch(span, quote_spanned!(span=> (#refs ::fptune::__rt::pair(#left, #right)).#method())))
    }

    /// `a < b`: compared in the operands' common format.
    fn rewrite_comparison(&mut self, b: &mut syn::ExprBinary, name: &str) -> Option<Expr> {
        let span = b.span();
        if is_literal_operand(&b.left) && is_literal_operand(&b.right) {
            return None;
        }
        let left = self.operand((*b.left).clone());
        let right = self.operand((*b.right).clone());
        let method = syn::Ident::new(&format!("__fp_{name}"), b.op.span());
        // One level above the float comparisons: one native type, rustc's own (`SameCmp`).
        let refs = self.levels(&[&b.left, &b.right], quote!(&&&), quote!(&&));
        Some(wrap_dispatch(span, quote_spanned!(span=> (#refs ::fptune::__rt::pair(&(#left), &(#right))).#method())))
    }

    /// `a += b`: computed in the operands' common format, stored into the place's.
    fn rewrite_compound_assignment(&mut self, b: &mut syn::ExprBinary, name: &str) -> Expr {
        let span = b.span();
        let refs = self.levels(&[&b.left, &b.right], quote!(&&&&), quote!(&&&));
        let mut place = (*b.left).clone();
        self.visit_expr_mut(&mut place);
        let right = self.operand((*b.right).clone());
        let method = syn::Ident::new(name, b.op.span());
        // The value first, then the place (`h[i] -= f * h[k]` borrows `h` twice),
        // evaluated once; the dispatch looks at the types only, a place and a value of one
        // native type first (`SameCompoundKind`: rustc's own operator, which types the place).
        wrap_dispatch(span, quote_spanned!(span=>
            let __fptune_rhs = #right;
            let __fptune_place = &mut #place;
            (#refs ::fptune::__rt::types(&*__fptune_place, &__fptune_rhs))
                .__fp_compound()
                .#method(__fptune_place, __fptune_rhs)
        ))
    }

    /// The receiver's references for an operation on `operands`: `same`, from the dispatch's
    /// level of one native type, where rustc's own operator types a float not typed yet by the
    /// other operand, as in unmarked code (markers never break a native build, issue 44); `float`,
    /// from the level below, where an operand's type may still be open there
    /// ([`Rewriter::settled`]: the first level would take it for the other operand's type).
    fn levels(&self, operands: &[&Expr], same: TokenStream, float: TokenStream) -> TokenStream {
        if operands.iter().all(|e| self.settled(e)) {
            same
        } else {
            float
        }
    }

    /// `x as T` with a float target (or a float cast to an integer): the dispatch's cast, which
    /// converts between any two formats.
    pub(super) fn rewrite_cast(&mut self, c: &mut syn::ExprCast) -> Option<Expr> {
        let span = c.span();
        if cast_float_target(&c.ty, &self.cx.aliases)
            || (int_target(&c.ty) && self.looks_float(&c.expr))
        {
            self.visit_expr_mut(&mut c.expr);
            let src = strip_parens((*c.expr).clone());
            let ty = &c.ty;
            Some(parse_quote_spanned!(span=> ::fptune::__rt::cast::<#ty, _>(#src)))
        } else {
            visit_mut::visit_expr_cast_mut(self, c);
            None
        }
    }

    /// Whether `m` is a float method of two operands (`x.powf(y)`) between floats, not literals
    /// alone.
    pub(super) fn two_operand_float_method(&self, m: &syn::ExprMethodCall) -> bool {
        m.args.len() == 1
            && m.turbofish.is_none()
            && TWO_OPERAND_METHODS.iter().any(|n| m.method == n)
            && self.looks_float(&m.receiver)
            && !(literal_like(&m.receiver, &self.cx.aliases) && literal_like(&m.args[0], &self.cx.aliases))
    }

    /// `x.powf(y)` between floats: computed in their common format, a literal argument
    /// adapting to the receiver, as `x + y` is.
    pub(super) fn rewrite_two_operand_method(&mut self, m: &mut syn::ExprMethodCall) -> Expr {
        let span = m.span();
        let method = syn::Ident::new(&format!("__fp_{}", m.method), m.method.span());
        let recv = self.operand((*m.receiver).clone());
        let arg = self.operand(m.args[0].clone());
        wrap_dispatch(span, quote_spanned!(span=> (&&::fptune::__rt::pair(#recv, #arg)).#method()))
    }
}

const ARITH: [&str; 5] = ["add", "sub", "mul", "div", "rem"];

pub(super) fn arith_name(op: &BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::Add(_) => ARITH[0],
        BinOp::Sub(_) => ARITH[1],
        BinOp::Mul(_) => ARITH[2],
        BinOp::Div(_) => ARITH[3],
        BinOp::Rem(_) => ARITH[4],
        _ => return None,
    })
}

fn assign_name(op: &BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::AddAssign(_) => "add_assign",
        BinOp::SubAssign(_) => "sub_assign",
        BinOp::MulAssign(_) => "mul_assign",
        BinOp::DivAssign(_) => "div_assign",
        BinOp::RemAssign(_) => "rem_assign",
        _ => return None,
    })
}

fn cmp_name(op: &BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::Eq(_) => "eq",
        BinOp::Ne(_) => "ne",
        BinOp::Lt(_) => "lt",
        BinOp::Le(_) => "le",
        BinOp::Gt(_) => "gt",
        BinOp::Ge(_) => "ge",
        _ => return None,
    })
}

/// A float literal, a cast (an integer cast adapts like a literal), or arithmetic of those: an
/// expression whose format only its context decides. A cast to a knob (`i as
/// fptune::knob!(f64)`) is a knob's value: its format is the configuration's.
pub(super) fn literal_like(e: &Expr, aliases: &BTreeSet<String>) -> bool {
    match e {
        Expr::Cast(c) => fptune_syntax::knob_type_marker(&c.ty).is_none() && cast_float_target(&c.ty, aliases),
        Expr::Paren(p) => literal_like(&p.expr, aliases),
        Expr::Group(g) => literal_like(&g.expr, aliases),
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => literal_like(&u.expr, aliases),
        Expr::Binary(b) if arith_name(&b.op).is_some() => {
            literal_like(&b.left, aliases) && literal_like(&b.right, aliases)
        }
        _ => is_literal_operand(e),
    }
}

/// A float type written in a cast target (`f64`, `fptune::f16`, a float alias).
pub(super) fn cast_float_target(ty: &Type, aliases: &BTreeSet<String>) -> bool {
    // A cast's target marked a knob (`n as fptune::knob!(f64)`) is the type it marks.
    if let Some(inner) = fptune_syntax::knob_type_marker(ty) {
        return cast_float_target(&inner, aliases);
    }
    let leaves = fptune_syntax::float_leaves(ty, aliases);
    leaves.len() == 1 && matches!(ty, Type::Path(_))
}

const INT_TYPES: [&str; 12] =
    ["i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize"];

fn int_target(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1
        && INT_TYPES.iter().any(|t| p.path.segments[0].ident == t))
}

/// Float methods of two operands that the dispatch computes in the operands' common format.
const TWO_OPERAND_METHODS: [&str; 8] = ["powf", "atan2", "hypot", "min", "max", "copysign", "rem_euclid", "div_euclid"];

pub(super) fn strip_parens(e: Expr) -> Expr {
    match e {
        Expr::Paren(p) => strip_parens(*p.expr),
        other => other,
    }
}
