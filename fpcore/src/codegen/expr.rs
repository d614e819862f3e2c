//! The translation of one FPCore expression: its leaves, and the dispatch of its other forms.

use super::code::{level, Code};
use super::{Gen, Res};
use crate::ast::{Constant, Expr};
use crate::number::Shape;
use crate::precision::{Context, Ty};
use crate::Unsupported;

impl Gen<'_> {
    /// The Rust expression of `e` in context `ctx`; `suffix` asks for literals with a type
    /// suffix (for places where rustc could not infer it).
    pub fn expr(&mut self, e: &Expr, ctx: &Context, suffix: bool) -> Res<Code> {
        match e {
            Expr::Num(n) => {
                if ctx.ty == Ty::I64 {
                    let v = n.as_integer().ok_or_else(|| {
                        Unsupported(format!("the non-integer {n} in an integer context"))
                    })?;
                    let text = if suffix {
                        format!("{v}_i64")
                    } else {
                        v.to_string()
                    };
                    let level = if v < 0 { level::UNARY } else { level::ATOM };
                    return Ok(Code::new(text, level, Ty::I64, suffix));
                }
                let float = ctx
                    .ty
                    .float()
                    .ok_or_else(|| Unsupported("a number where a boolean is expected".into()))?;
                let lit = n
                    .float_literal(float, suffix)
                    .map_err(|e| Unsupported(e.0))?;
                let level = match lit.shape {
                    Shape::Atom => level::ATOM,
                    Shape::Negated => level::UNARY,
                    Shape::Quotient => level::MUL,
                };
                Ok(Code::new(lit.text, level, ctx.ty, suffix))
            }
            Expr::Const(c) => self.constant(*c, ctx),
            Expr::Var(symbol) => {
                let b = self.lookup(symbol)?;
                Ok(Code::new(b.rust.clone(), level::ATOM, b.ty, true))
            }
            Expr::Op(op, args) => self.operation(*op, args, ctx, suffix),
            Expr::If(..) => self.if_expr(e, ctx, None, suffix),
            Expr::Let { .. } | Expr::While { .. } => {
                Ok(self.block(e, ctx, None, suffix)?.into_code())
            }
            Expr::Cast(inner) => {
                let code = self.expr(inner, ctx, false)?;
                self.convert(inner, ctx, code, ctx.ty)
            }
            Expr::Annotated { props, body } => {
                let inner = ctx.with_props(props)?;
                if let Some(note) = inner.note() {
                    self.note(note);
                }
                self.expr(body, &inner, suffix)
            }
            Expr::Tensor(form) => Err(Unsupported(format!("tensors (`{form}`) are not supported"))),
            Expr::Call(name, _) => Err(Unsupported(format!(
                "calls of other FPCores (`{name}`) are not supported"
            ))),
        }
    }

    fn constant(&mut self, c: Constant, ctx: &Context) -> Res<Code> {
        let text = match c {
            Constant::True => return Ok(Code::new("true".into(), level::ATOM, Ty::Bool, true)),
            Constant::False => return Ok(Code::new("false".into(), level::ATOM, Ty::Bool, true)),
            _ if ctx.ty == Ty::I64 => {
                return Err(Unsupported(format!(
                    "the constant {c:?} in an integer context"
                )))
            }
            Constant::Infinity => format!("{}::INFINITY", ctx.ty.rust()),
            Constant::Nan => format!("{}::NAN", ctx.ty.rust()),
            _ => {
                let name = c
                    .std_name()
                    .ok_or_else(|| Unsupported(format!("the constant {c:?}")))?;
                if ctx.ty == Ty::F64 {
                    self.consts.insert(name);
                    name.to_string()
                } else {
                    format!("std::f32::consts::{name}")
                }
            }
        };
        Ok(Code::new(text, level::ATOM, ctx.ty, true))
    }
}
