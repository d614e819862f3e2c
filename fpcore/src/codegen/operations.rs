//! FPCore's operations as Rust operators and `f32`/`f64`/`i64` methods.
//!
//! Arithmetic keeps FPCore's evaluation order with the fewest parentheses; comparisons of more
//! than two operands and distinctness become `&&` chains.

use super::code::{level, Code};
use super::{Gen, Res};
use crate::ast::{Expr, Op};
use crate::precision::{Context, Ty};
use crate::Unsupported;

impl Gen<'_> {
    pub(super) fn operation(&mut self, op: Op, args: &[Expr], ctx: &Context, suffix: bool) -> Res<Code> {
        if op.is_comparison() {
            return self.comparison(op, args, ctx);
        }
        match op {
            Op::And | Op::Or => {
                let mut parts = Vec::new();
                for arg in args {
                    let code = self.expr(arg, ctx, false)?;
                    if code.ty != Ty::Bool {
                        return Err(Unsupported(format!(
                            "a number as an operand of `{}`",
                            op.name()
                        )));
                    }
                    parts.push(code);
                }
                let (empty, joiner, level, min) = if op == Op::And {
                    ("true", "&&", level::AND, level::AND)
                } else {
                    ("false", "||", level::OR, level::CMP)
                };
                Ok(match parts.len() {
                    0 => Code::new(empty.into(), level::ATOM, Ty::Bool, true),
                    1 => parts.remove(0),
                    _ => {
                        let mut pieces = parts[0].leading_pieces(min);
                        for part in &parts[1..] {
                            let mut more = part.leading_pieces(min).into_iter();
                            pieces.push(format!("{joiner} {}", more.next().unwrap_or_default()));
                            pieces.extend(more);
                        }
                        Code::chain(pieces, level, Ty::Bool, true)
                    }
                })
            }
            Op::Not => {
                let code = self.expr(&args[0], ctx, false)?;
                if code.ty != Ty::Bool {
                    return Err(Unsupported("a number as the operand of `not`".into()));
                }
                Ok(Code::new(
                    format!("!{}", code.at(level::UNARY)),
                    level::UNARY,
                    Ty::Bool,
                    true,
                ))
            }
            Op::Isfinite | Op::Isinf | Op::Isnan | Op::Isnormal | Op::Signbit => {
                let ty = match self.ty_of(&args[0], ctx)? {
                    Ty::F32 => Ty::F32,
                    _ => Ty::F64,
                };
                let receiver = self.receiver(&args[0], ctx, ty)?;
                let method = match op {
                    Op::Isfinite => "is_finite",
                    Op::Isinf => "is_infinite",
                    Op::Isnan => "is_nan",
                    Op::Isnormal => "is_normal",
                    _ => "is_sign_negative",
                };
                Ok(Code::new(
                    format!("{receiver}.{method}()"),
                    level::ATOM,
                    Ty::Bool,
                    true,
                ))
            }
            _ if ctx.ty == Ty::I64 => self.integer_operation(op, args, ctx, suffix),
            _ => self.float_operation(op, args, ctx, suffix),
        }
    }

    fn arithmetic(
        &mut self,
        symbol: &str,
        level: u8,
        args: &[Expr],
        ctx: &Context,
        suffix: bool,
    ) -> Res<Code> {
        let left = self.operand(&args[0], ctx, ctx.ty, suffix)?;
        let right = self.operand(&args[1], ctx, ctx.ty, false)?;
        let mut right_text = right.operand(level + 1);
        if level == level::ADD && right.level == level::UNARY {
            // `a - (-b)` rather than `a - -b`.
            right_text = format!("({right_text})");
        }
        let mut pieces = left.leading_pieces(level);
        pieces.push(format!("{symbol} {right_text}"));
        Ok(Code::chain(
            pieces,
            level,
            ctx.ty,
            left.typed || right.typed,
        ))
    }

    fn negation(&mut self, arg: &Expr, ctx: &Context, suffix: bool) -> Res<Code> {
        let code = self.operand(arg, ctx, ctx.ty, suffix)?;
        Ok(Code::new(
            format!("-{}", code.at(level::ATOM)),
            level::UNARY,
            ctx.ty,
            code.typed,
        ))
    }

    fn method(&mut self, name: &str, args: &[Expr], ctx: &Context) -> Res<Code> {
        let receiver = self.receiver(&args[0], ctx, ctx.ty)?;
        let mut rest = Vec::new();
        for arg in &args[1..] {
            rest.push(self.operand(arg, ctx, ctx.ty, false)?.text);
        }
        Ok(Code::new(
            format!("{receiver}.{name}({})", rest.join(", ")),
            level::ATOM,
            ctx.ty,
            true,
        ))
    }

    fn integer_operation(
        &mut self,
        op: Op,
        args: &[Expr],
        ctx: &Context,
        suffix: bool,
    ) -> Res<Code> {
        for arg in args {
            if self.ty_of(arg, ctx)?.float().is_some() {
                return Err(Unsupported(format!(
                    "a floating-point operand of `{}` in an integer context",
                    op.name()
                )));
            }
        }
        match op {
            Op::Sub if args.len() == 1 => self.negation(&args[0], ctx, suffix),
            Op::Add => self.arithmetic("+", level::ADD, args, ctx, suffix),
            Op::Sub => self.arithmetic("-", level::ADD, args, ctx, suffix),
            Op::Mul => self.arithmetic("*", level::MUL, args, ctx, suffix),
            Op::Fabs => self.method("abs", args, ctx),
            Op::Fmax => self.method("max", args, ctx),
            Op::Fmin => self.method("min", args, ctx),
            _ => Err(Unsupported(format!(
                "`{}` in an integer context",
                op.name()
            ))),
        }
    }

    fn float_operation(&mut self, op: Op, args: &[Expr], ctx: &Context, suffix: bool) -> Res<Code> {
        let method = match op {
            Op::Sub if args.len() == 1 => return self.negation(&args[0], ctx, suffix),
            Op::Add => return self.arithmetic("+", level::ADD, args, ctx, suffix),
            Op::Sub => return self.arithmetic("-", level::ADD, args, ctx, suffix),
            Op::Mul => return self.arithmetic("*", level::MUL, args, ctx, suffix),
            Op::Div => return self.arithmetic("/", level::MUL, args, ctx, suffix),
            // Rust's `%` on floats is C's fmod.
            Op::Fmod => return self.arithmetic("%", level::MUL, args, ctx, suffix),
            Op::Erf | Op::Erfc | Op::Tgamma | Op::Lgamma => {
                return Err(Unsupported(format!(
                    "`{}`, which Rust's std lacks",
                    op.name()
                )))
            }
            Op::Remainder => {
                return Err(Unsupported(
                    "`remainder` (IEEE remainder), which Rust's std lacks".into(),
                ))
            }
            Op::Fdim => return Err(Unsupported("`fdim`, which Rust's std lacks".into())),
            Op::Fabs => "abs",
            Op::Fma => "mul_add",
            Op::Exp => "exp",
            Op::Exp2 => "exp2",
            Op::Expm1 => "exp_m1",
            Op::Log => "ln",
            Op::Log10 => "log10",
            Op::Log2 => "log2",
            Op::Log1p => "ln_1p",
            Op::Pow => "powf",
            Op::Sqrt => "sqrt",
            Op::Cbrt => "cbrt",
            Op::Hypot => "hypot",
            Op::Sin => "sin",
            Op::Cos => "cos",
            Op::Tan => "tan",
            Op::Asin => "asin",
            Op::Acos => "acos",
            Op::Atan => "atan",
            Op::Atan2 => "atan2",
            Op::Sinh => "sinh",
            Op::Cosh => "cosh",
            Op::Tanh => "tanh",
            Op::Asinh => "asinh",
            Op::Acosh => "acosh",
            Op::Atanh => "atanh",
            Op::Ceil => "ceil",
            Op::Floor => "floor",
            Op::Fmax => "max",
            Op::Fmin => "min",
            Op::Copysign => "copysign",
            Op::Trunc => "trunc",
            // C's round: halfway cases away from zero, like Rust's.
            Op::Round => "round",
            // nearbyint in the default rounding mode: ties to even.
            Op::Nearbyint => "round_ties_even",
            _ => return Err(Unsupported(format!("the operation `{}`", op.name()))),
        };
        self.method(method, args, ctx)
    }

    fn comparison(&mut self, op: Op, args: &[Expr], ctx: &Context) -> Res<Code> {
        let mut tys = Vec::new();
        for arg in args {
            tys.push(self.ty_of(arg, ctx)?);
        }
        let literal = |e: &Expr| matches!(e, Expr::Num(_));
        let integral = |e: &Expr| matches!(e, Expr::Num(n) if n.as_integer().is_some());
        let others: Vec<Ty> = args
            .iter()
            .zip(&tys)
            .filter(|(a, _)| !literal(a))
            .map(|(_, t)| *t)
            .collect();
        let common = if tys.iter().all(|t| *t == Ty::Bool) && matches!(op, Op::Eq | Op::Ne) {
            Ty::Bool
        } else if tys.contains(&Ty::Bool) {
            return Err(Unsupported(format!(
                "a boolean compared with `{}`",
                op.name()
            )));
        } else if !others.is_empty()
            && others.iter().all(|t| *t == Ty::I64)
            && args.iter().all(|a| !literal(a) || integral(a))
        {
            // `n >= 0` for an integer n, not `(n as f64) >= 0.0`.
            Ty::I64
        } else if tys.iter().any(|t| matches!(t, Ty::F64 | Ty::I64)) {
            Ty::F64
        } else {
            Ty::F32
        };
        let integer = Context {
            ty: Ty::I64,
            substituted: None,
        };
        let mut codes = Vec::new();
        for (i, arg) in args.iter().enumerate() {
            let suffix = i == 0 && args.iter().all(literal);
            let code = if common == Ty::I64 && literal(arg) {
                self.expr(arg, &integer, suffix)?
            } else {
                self.operand(arg, ctx, common, suffix)?
            };
            codes.push(code);
        }
        let symbol = match op {
            Op::Lt => "<",
            Op::Gt => ">",
            Op::Le => "<=",
            Op::Ge => ">=",
            Op::Eq => "==",
            _ => "!=",
        };
        let pairs: Vec<(usize, usize)> = if op == Op::Ne {
            // Pairwise distinct; pairs of two literals are decided here.
            let mut pairs = Vec::new();
            for i in 0..args.len() {
                for j in i + 1..args.len() {
                    if let (Expr::Num(a), Expr::Num(b)) = (&args[i], &args[j]) {
                        if a.to_f64() != b.to_f64() {
                            continue;
                        }
                    }
                    pairs.push((i, j));
                }
            }
            pairs
        } else {
            (1..args.len()).map(|i| (i - 1, i)).collect()
        };
        let parts: Vec<String> = pairs
            .iter()
            .map(|&(i, j)| {
                format!(
                    "{} {symbol} {}",
                    codes[i].operand(level::ADD),
                    codes[j].operand(level::ADD)
                )
            })
            .collect();
        Ok(match parts.len() {
            0 => Code::new("true".into(), level::ATOM, Ty::Bool, true),
            1 => Code::new(parts[0].clone(), level::CMP, Ty::Bool, true),
            // One piece: a broken line keeps `0.0 <= x && x <= 1.0` together.
            _ => Code::new(parts.join(" && "), level::AND, Ty::Bool, true),
        })
    }
}
