//! The types of FPCore expressions and the conversions between them.
//!
//! The type an expression has without generating it, the casts and roundings that convert a
//! generated expression, and the type of a value that joins two paths.

use super::code::{level, Code};
use super::{Binding, Gen, Res};
use crate::ast::{Constant, Expr};
use crate::precision::{Context, Ty};
use crate::Unsupported;

impl Gen<'_> {
    /// The type `e` has in context `ctx`, without generating it.
    pub(super) fn ty_of(&mut self, e: &Expr, ctx: &Context) -> Res<Ty> {
        Ok(match e {
            Expr::Num(_) | Expr::Cast(_) => ctx.ty,
            Expr::Const(Constant::True | Constant::False) => Ty::Bool,
            Expr::Const(_) => ctx.ty,
            Expr::Var(symbol) => self.lookup(symbol)?.ty,
            Expr::Op(op, _) => {
                if op.is_boolean() {
                    Ty::Bool
                } else {
                    ctx.ty
                }
            }
            Expr::If(_, then, other) => {
                let a = self.ty_of(then, ctx)?;
                let b = self.ty_of(other, ctx)?;
                join(a, b, ctx)?
            }
            Expr::Let {
                sequential,
                bindings,
                body,
            } => {
                let depth = self.scope.len();
                let mut pending = Vec::new();
                for (name, init) in bindings {
                    let ty = self.ty_of(init, ctx);
                    let binding = Binding {
                        symbol: name.clone(),
                        rust: String::new(),
                        ty: ty.unwrap_or(Ty::F64),
                    };
                    if *sequential {
                        self.scope.push(binding);
                    } else {
                        pending.push(binding);
                    }
                }
                self.scope.extend(pending);
                let ty = self.ty_of(body, ctx);
                self.scope.truncate(depth);
                ty?
            }
            Expr::While {
                sequential,
                vars,
                body,
                ..
            } => {
                let depth = self.scope.len();
                let mut pending = Vec::new();
                for var in vars {
                    let ty = self.ty_of(&var.init, ctx);
                    let binding = Binding {
                        symbol: var.name.clone(),
                        rust: String::new(),
                        ty: ty.unwrap_or(Ty::F64),
                    };
                    if *sequential {
                        self.scope.push(binding);
                    } else {
                        pending.push(binding);
                    }
                }
                self.scope.extend(pending);
                let ty = self.ty_of(body, ctx);
                self.scope.truncate(depth);
                ty?
            }
            Expr::Annotated { props, body } => self.ty_of(body, &ctx.with_props(props)?)?,
            Expr::Tensor(form) => {
                return Err(Unsupported(format!("tensors (`{form}`) are not supported")))
            }
            Expr::Call(name, _) => {
                return Err(Unsupported(format!(
                    "calls of other FPCores (`{name}`) are not supported"
                )))
            }
        })
    }

    /// `code` (generated from `e` in `ctx`) converted to type `to`.
    pub(super) fn convert(&mut self, e: &Expr, ctx: &Context, code: Code, to: Ty) -> Res<Code> {
        if code.ty == to {
            return Ok(code);
        }
        if code.ty == Ty::Bool || to == Ty::Bool {
            return Err(Unsupported(format!(
                "a {} where FPCore expects a {}",
                code.ty.rust(),
                to.rust()
            )));
        }
        let code = self.typed(e, ctx, code)?;
        let text = if to == Ty::I64 {
            // Rounding to an integer, as FPCore's integer precision does.
            format!("{}.round_ties_even() as i64", code.at(level::ATOM))
        } else {
            format!("{} as {}", code.at(level::UNARY), to.rust())
        };
        Ok(Code::new(text, level::CAST, to, true))
    }

    /// `code` again with its type spelled out, when rustc could not infer it.
    fn typed(&mut self, e: &Expr, ctx: &Context, code: Code) -> Res<Code> {
        if code.typed {
            Ok(code)
        } else {
            self.expr(e, ctx, true)
        }
    }

    /// `e` generated in `ctx` and converted to `to`.
    pub(super) fn operand(&mut self, e: &Expr, ctx: &Context, to: Ty, suffix: bool) -> Res<Code> {
        let code = self.expr(e, ctx, suffix)?;
        if code.ty == Ty::F64 && to == Ty::F32 {
            self.note(
                "FPCore rounds the exact result to binary32 once; here the f64 operands are \
                 rounded to f32 first."
                    .to_string(),
            );
        }
        self.convert(e, ctx, code, to)
    }

    /// `e` as the receiver of a method call: converted to `to` and with a known type.
    pub(super) fn receiver(&mut self, e: &Expr, ctx: &Context, to: Ty) -> Res<String> {
        let code = self.operand(e, ctx, to, false)?;
        Ok(self.typed(e, ctx, code)?.at(level::ATOM))
    }
}

/// The type of a value that is `a` on one path and `b` on another.
pub(super) fn join(a: Ty, b: Ty, ctx: &Context) -> Res<Ty> {
    if a == b {
        Ok(a)
    } else if a.is_numeric() && b.is_numeric() {
        Ok(ctx.ty)
    } else {
        Err(Unsupported(
            "an `if` whose branches are a number and a boolean".into(),
        ))
    }
}
