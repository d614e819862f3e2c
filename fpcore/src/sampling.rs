//! Choosing where to sample a benchmark: an interval per argument read off the precondition's
//! comparisons with constants, a default where it gives none, and the `:example` value for an
//! argument it leaves unbounded on both sides. The whole precondition is still checked on each
//! draw by the generated program; the intervals only make the draws likely to pass.

use std::collections::BTreeMap;

use crate::ast::{Constant, Expr, Op};
use crate::Unsupported;

/// Width of the range drawn from when the precondition bounds an argument on one side only,
/// and of `[-10, 10]`, drawn from when it bounds it on neither: wide enough to exercise the
/// expressions, narrow enough that `exp(a * x)` and powers of several arguments stay finite.
pub const DEFAULT_WIDTH: f64 = 20.0;

/// The bounds the precondition puts on one argument.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bounds {
    /// The greatest lower bound found, if any.
    pub lo: Option<f64>,
    /// The least upper bound found, if any.
    pub hi: Option<f64>,
}

impl Bounds {
    fn raise_lo(&mut self, v: f64) {
        self.lo = Some(self.lo.map_or(v, |lo| lo.max(v)));
    }

    fn lower_hi(&mut self, v: f64) {
        self.hi = Some(self.hi.map_or(v, |hi| hi.min(v)));
    }
}

/// How `main` gets one argument.
#[derive(Clone, Debug, PartialEq)]
pub enum Draw {
    /// Uniformly from `[lo, hi]` (integers from `lo..=hi` for an integer argument).
    Uniform {
        /// Lower end.
        lo: f64,
        /// Upper end.
        hi: f64,
        /// Where the range comes from, when not (only) from the precondition.
        default: Option<&'static str>,
    },
    /// Always the benchmark's `:example` value.
    Example(Expr),
}

/// The bounds `pre` puts on each of `args`: conjunctions (also under `let` and `!`) of chains
/// of `<`, `<=`, `>`, `>=`, `==` between an argument (or its `fabs`) and constant expressions.
pub fn bounds(pre: &Expr, args: &[String]) -> BTreeMap<String, Bounds> {
    let mut out: BTreeMap<String, Bounds> = args
        .iter()
        .map(|a| (a.clone(), Bounds::default()))
        .collect();
    collect(pre, &mut Vec::new(), &mut out);
    out
}

/// An environment of `let`-bound names and their constant values (`None`: not constant).
pub type Env = Vec<(String, Option<f64>)>;

fn collect(e: &Expr, env: &mut Env, out: &mut BTreeMap<String, Bounds>) {
    match e {
        Expr::Op(Op::And, conjuncts) => conjuncts.iter().for_each(|c| collect(c, env, out)),
        Expr::Annotated { body, .. } => collect(body, env, out),
        Expr::Let {
            sequential,
            bindings,
            body,
        } => {
            let depth = env.len();
            let mut pending = Vec::new();
            for (name, init) in bindings {
                let value = constant(init, env);
                if *sequential {
                    env.push((name.clone(), value));
                } else {
                    pending.push((name.clone(), value));
                }
            }
            env.extend(pending);
            collect(body, env, out);
            env.truncate(depth);
        }
        Expr::Op(op @ (Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::Eq), chain) => {
            for pair in chain.windows(2) {
                match op {
                    Op::Lt | Op::Le => below(&pair[0], &pair[1], env, out),
                    Op::Gt | Op::Ge => below(&pair[1], &pair[0], env, out),
                    _ => {
                        below(&pair[0], &pair[1], env, out);
                        below(&pair[1], &pair[0], env, out);
                    }
                }
            }
        }
        _ => {}
    }
}

/// Records what `small <= big` says about an argument.
fn below(small: &Expr, big: &Expr, env: &Env, out: &mut BTreeMap<String, Bounds>) {
    if let (Some(arg), Some(c)) = (argument(small, env, out), constant(big, env)) {
        if let Some(b) = out.get_mut(&arg) {
            b.lower_hi(c);
        }
    }
    if let (Some(c), Some(arg)) = (constant(small, env), argument(big, env, out)) {
        if let Some(b) = out.get_mut(&arg) {
            b.raise_lo(c);
        }
    }
    // |x| <= c
    if let (Expr::Op(Op::Fabs, inner), Some(c)) = (small, constant(big, env)) {
        if let Some(arg) = argument(&inner[0], env, out) {
            if let Some(b) = out.get_mut(&arg) {
                b.raise_lo(-c);
                b.lower_hi(c);
            }
        }
    }
}

/// The argument `e` names, if it is one (not hidden by a `let`).
fn argument(e: &Expr, env: &Env, out: &BTreeMap<String, Bounds>) -> Option<String> {
    match e {
        Expr::Var(name) if out.contains_key(name) && !env.iter().any(|(n, _)| n == name) => {
            Some(name.clone())
        }
        Expr::Annotated { body, .. } => argument(body, env, out),
        _ => None,
    }
}

/// The value of a constant expression, approximately (in `f64`); `None` when it reads an
/// argument, is not finite, or uses an operation this does not evaluate.
pub fn constant(e: &Expr, env: &Env) -> Option<f64> {
    let v = match e {
        Expr::Num(n) => n.to_f64(),
        Expr::Const(Constant::True | Constant::False) => return None,
        Expr::Const(c) => c.to_f64(),
        Expr::Var(name) => env.iter().rev().find(|(n, _)| n == name)?.1?,
        Expr::Annotated { body, .. } | Expr::Cast(body) => constant(body, env)?,
        Expr::Op(op, args) => {
            let vals: Vec<f64> = args
                .iter()
                .map(|a| constant(a, env))
                .collect::<Option<_>>()?;
            match (op, vals.as_slice()) {
                (Op::Add, [a, b]) => a + b,
                (Op::Sub, [a]) => -a,
                (Op::Sub, [a, b]) => a - b,
                (Op::Mul, [a, b]) => a * b,
                (Op::Div, [a, b]) => a / b,
                (Op::Fabs, [a]) => a.abs(),
                (Op::Sqrt, [a]) => a.sqrt(),
                (Op::Pow, [a, b]) => a.powf(*b),
                (Op::Exp, [a]) => a.exp(),
                (Op::Log, [a]) => a.ln(),
                (Op::Fmin, [a, b]) => a.min(*b),
                (Op::Fmax, [a, b]) => a.max(*b),
                _ => return None,
            }
        }
        _ => return None,
    };
    v.is_finite().then_some(v)
}

/// The truth of boolean expression `e` with the values of `env`, evaluated approximately (in
/// `f64`); `None` when something in it is not a known constant.
pub fn holds(e: &Expr, env: &Env) -> Option<bool> {
    match e {
        Expr::Const(Constant::True) => Some(true),
        Expr::Const(Constant::False) => Some(false),
        Expr::Annotated { body, .. } => holds(body, env),
        Expr::Let {
            sequential,
            bindings,
            body,
        } => {
            let mut inner = env.clone();
            let mut pending = Vec::new();
            for (name, init) in bindings {
                let value = constant(init, &inner);
                if *sequential {
                    inner.push((name.clone(), value));
                } else {
                    pending.push((name.clone(), value));
                }
            }
            inner.extend(pending);
            holds(body, &inner)
        }
        Expr::If(c, t, f) => {
            if holds(c, env)? {
                holds(t, env)
            } else {
                holds(f, env)
            }
        }
        Expr::Op(Op::And, xs) => xs
            .iter()
            .try_fold(true, |all, x| Some(all & holds(x, env)?)),
        Expr::Op(Op::Or, xs) => xs
            .iter()
            .try_fold(false, |any, x| Some(any | holds(x, env)?)),
        Expr::Op(Op::Not, xs) => holds(&xs[0], env).map(|b| !b),
        Expr::Op(op @ (Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::Eq | Op::Ne), xs) => {
            let vals: Vec<f64> = xs.iter().map(|x| constant(x, env)).collect::<Option<_>>()?;
            let pairs: Vec<(f64, f64)> = if *op == Op::Ne {
                let mut pairs = Vec::new();
                for (i, a) in vals.iter().enumerate() {
                    pairs.extend(vals[i + 1..].iter().map(|b| (*a, *b)));
                }
                pairs
            } else {
                vals.windows(2).map(|w| (w[0], w[1])).collect()
            };
            Some(pairs.iter().all(|&(a, b)| match op {
                Op::Lt => a < b,
                Op::Le => a <= b,
                Op::Gt => a > b,
                Op::Ge => a >= b,
                Op::Eq => a == b,
                _ => a != b,
            }))
        }
        _ => None,
    }
}

/// How to draw an argument with precondition `bounds`, `integer` or not, with `example` as
/// its `:example` value if the benchmark gives one.
pub fn plan(
    name: &str,
    bounds: Bounds,
    integer: bool,
    example: Option<&Expr>,
) -> Result<Draw, Unsupported> {
    let half = DEFAULT_WIDTH / 2.0;
    let (lo, hi, default) = match (bounds.lo, bounds.hi) {
        (Some(lo), Some(hi)) => (lo, hi, None),
        (Some(lo), None) => (
            lo,
            lo + DEFAULT_WIDTH,
            Some("no upper bound in the precondition"),
        ),
        (None, Some(hi)) => (
            hi - DEFAULT_WIDTH,
            hi,
            Some("no lower bound in the precondition"),
        ),
        (None, None) => {
            if let Some(example) = example {
                return Ok(Draw::Example(example.clone()));
            }
            (-half, half, Some("unbounded in the precondition"))
        }
    };
    let (lo, hi) = if integer {
        (lo.ceil(), hi.floor())
    } else {
        (lo, hi)
    };
    if lo > hi {
        let kind = if integer { "no integer" } else { "no value" };
        return Err(Unsupported(format!(
            "the precondition leaves {kind} for `{name}` (between {lo} and {hi})"
        )));
    }
    Ok(Draw::Uniform { lo, hi, default })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_expr;
    use crate::sexp::read_all;

    fn pre(text: &str, args: &[&str]) -> BTreeMap<String, Bounds> {
        let e = parse_expr(&read_all(text).expect("readable")[0]).expect("an expression");
        bounds(&e, &args.iter().map(|a| a.to_string()).collect::<Vec<_>>())
    }

    fn both(lo: f64, hi: f64) -> Bounds {
        Bounds {
            lo: Some(lo),
            hi: Some(hi),
        }
    }

    #[test]
    fn chains_of_comparisons_with_constants_bound_arguments() {
        let b = pre(
            "(and (<= -100 u 100) (< 0.05 sl* (* 2 PI)) (>= x 0))",
            &["u", "sl*", "x"],
        );
        assert_eq!(b["u"], both(-100.0, 100.0));
        assert_eq!(b["sl*"], both(0.05, 2.0 * std::f64::consts::PI));
        assert_eq!(
            b["x"],
            Bounds {
                lo: Some(0.0),
                hi: None
            }
        );
    }

    #[test]
    fn greater_than_chains_read_right_to_left() {
        let b = pre("(> 10 x 3/2)", &["x"]);
        assert_eq!(b["x"], both(1.5, 10.0));
    }

    #[test]
    fn bounds_intersect_and_other_conjuncts_are_left_to_the_runtime_check() {
        let b = pre(
            "(and (<= 1 a 9) (> (+ a b) 2) (< a 5) (!= a 3))",
            &["a", "b"],
        );
        assert_eq!(b["a"], both(1.0, 5.0));
        assert_eq!(b["b"], Bounds::default());
    }

    #[test]
    fn let_bound_constants_and_absolute_values_are_understood() {
        let b = pre(
            "(let ([a 3] [b 3.5]) (and (<= (- a 5) c b) (< (fabs d) a)))",
            &["c", "d"],
        );
        assert_eq!(b["c"], both(-2.0, 3.5));
        assert_eq!(b["d"], both(-3.0, 3.0));
        // An argument hidden by a `let` is not the argument.
        let b = pre("(let ([x 1]) (< x 5))", &["x"]);
        assert_eq!(b["x"], Bounds::default());
    }

    #[test]
    fn preconditions_can_be_decided_for_constant_inputs() {
        let e = parse_expr(
            &read_all("(let ([a 3]) (and (< 0 x a) (!= x 1) (or (> y 0) (not (== y 0)))))")
                .expect("readable")[0],
        )
        .expect("an expression");
        let env = |x: f64, y: f64| vec![("x".to_string(), Some(x)), ("y".to_string(), Some(y))];
        assert_eq!(holds(&e, &env(2.0, 1.0)), Some(true));
        assert_eq!(holds(&e, &env(1.0, 1.0)), Some(false));
        assert_eq!(holds(&e, &env(4.0, 1.0)), Some(false));
        assert_eq!(holds(&e, &env(2.0, 0.0)), Some(false));
        assert_eq!(holds(&e, &vec![("x".to_string(), Some(2.0))]), None);
    }

    #[test]
    fn disjunctions_give_no_bounds() {
        let b = pre("(or (< x 0) (> x 1))", &["x"]);
        assert_eq!(b["x"], Bounds::default());
    }

    #[test]
    fn missing_bounds_get_defaults_or_the_example() {
        let ok = |d: Result<Draw, Unsupported>| d.expect("a plan");
        assert_eq!(
            ok(plan("x", both(1.0, 2.0), false, None)),
            Draw::Uniform {
                lo: 1.0,
                hi: 2.0,
                default: None
            }
        );
        let Draw::Uniform { lo, hi, default } = ok(plan(
            "x",
            Bounds {
                lo: Some(0.0),
                hi: None,
            },
            false,
            None,
        )) else {
            panic!("a range")
        };
        assert_eq!((lo, hi), (0.0, DEFAULT_WIDTH));
        assert!(default.is_some());
        let Draw::Uniform { lo, hi, .. } = ok(plan("x", Bounds::default(), false, None)) else {
            panic!("a range")
        };
        assert_eq!((lo, hi), (-10.0, 10.0));
        let example = Expr::Var("seven".into());
        assert_eq!(
            ok(plan("x", Bounds::default(), false, Some(&example))),
            Draw::Example(example.clone())
        );
        // A bound on one side is kept even with an example.
        assert!(matches!(
            ok(plan(
                "x",
                Bounds {
                    lo: Some(1.0),
                    hi: None
                },
                false,
                Some(&example)
            )),
            Draw::Uniform { .. }
        ));
    }

    #[test]
    fn integer_arguments_get_integer_ranges_and_empty_ranges_are_refused() {
        assert_eq!(
            plan("n", both(0.5, 10.5), true, None).expect("a plan"),
            Draw::Uniform {
                lo: 1.0,
                hi: 10.0,
                default: None
            }
        );
        assert!(plan("n", both(0.2, 0.8), true, None).is_err());
        assert!(plan("x", both(2.0, 1.0), false, None).is_err());
    }
}
