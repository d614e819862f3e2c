//! The abstract syntax of FPCore 2.0: benchmarks, expressions, operations and constants.

use std::collections::BTreeSet;

use crate::number::Number;
use crate::sexp::Sexp;

/// One `(FPCore ...)` definition.
#[derive(Clone, Debug, PartialEq)]
pub struct Benchmark {
    /// The optional identifier of FPCore 2.0 (`(FPCore name (args) ...)`).
    pub ident: Option<String>,
    /// The arguments, in order.
    pub args: Vec<Argument>,
    /// The properties (`:name`, `:pre`, `:precision`...), in order.
    pub props: Vec<Property>,
    /// The expression that computes the result.
    pub body: Expr,
    /// The definition's source text, as written.
    pub source: String,
}

impl Benchmark {
    /// The value of property `key` (written `:key`), if given.
    pub fn prop(&self, key: &str) -> Option<&Sexp> {
        find_prop(&self.props, key)
    }

    /// The `:name` property, if it is a string.
    pub fn name(&self) -> Option<&str> {
        match self.prop("name") {
            Some(Sexp::Str { text, .. }) => Some(text),
            _ => None,
        }
    }
}

/// The value of property `key` in `props`, if given.
pub fn find_prop<'a>(props: &'a [Property], key: &str) -> Option<&'a Sexp> {
    props.iter().find(|p| p.key == key).map(|p| &p.value)
}

/// A `:key value` property.
#[derive(Clone, Debug, PartialEq)]
pub struct Property {
    /// The key without its colon.
    pub key: String,
    /// The value, unparsed (it may be a string, a symbol, an expression, a list...).
    pub value: Sexp,
}

/// A benchmark argument.
#[derive(Clone, Debug, PartialEq)]
pub struct Argument {
    /// Its name.
    pub name: String,
    /// Properties from an `(! props... name)` annotation.
    pub props: Vec<Property>,
    /// Tensor dimensions, when it is written `(name dim...)`.
    pub dims: usize,
}

/// An FPCore expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A number literal.
    Num(Number),
    /// A named constant (`PI`, `TRUE`...).
    Const(Constant),
    /// A variable.
    Var(String),
    /// An operation applied to its operands.
    Op(Op, Vec<Expr>),
    /// `(if cond then else)`.
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `(let ...)` or, when `sequential`, `(let* ...)`.
    Let {
        /// Whether each binding sees the previous ones (`let*`).
        sequential: bool,
        /// Names and initial expressions.
        bindings: Vec<(String, Expr)>,
        /// The expression evaluated with the bindings.
        body: Box<Expr>,
    },
    /// `(while ...)` or, when `sequential`, `(while* ...)`.
    While {
        /// Whether initialisations and updates see the earlier ones of the same round (`while*`).
        sequential: bool,
        /// The loop condition.
        cond: Box<Expr>,
        /// The loop variables.
        vars: Vec<LoopVar>,
        /// The expression evaluated once the loop ends.
        body: Box<Expr>,
    },
    /// `(cast e)`: `e` rounded to the current precision.
    Cast(Box<Expr>),
    /// `(! props... e)`: `e` in a rounding context changed by `props`.
    Annotated {
        /// The context's properties.
        props: Vec<Property>,
        /// The annotated expression.
        body: Box<Expr>,
    },
    /// A tensor form (`array`, `tensor`, `for`, `ref`...), kept only by name.
    Tensor(String),
    /// A call of another FPCore by its identifier.
    Call(String, Vec<Expr>),
}

/// A variable of a `while` loop.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopVar {
    /// Its name.
    pub name: String,
    /// Its value before the first round.
    pub init: Expr,
    /// Its value after each round.
    pub update: Expr,
}

impl Expr {
    /// The variables `self` reads that it does not bind itself.
    pub fn free_vars(&self) -> BTreeSet<String> {
        let mut free = BTreeSet::new();
        self.collect_free(&mut Vec::new(), &mut free);
        free
    }

    fn collect_free(&self, bound: &mut Vec<String>, free: &mut BTreeSet<String>) {
        match self {
            Expr::Num(_) | Expr::Const(_) | Expr::Tensor(_) => {}
            Expr::Var(name) => {
                if !bound.contains(name) {
                    free.insert(name.clone());
                }
            }
            Expr::Op(_, args) | Expr::Call(_, args) => {
                args.iter().for_each(|a| a.collect_free(bound, free))
            }
            Expr::If(c, t, e) => {
                c.collect_free(bound, free);
                t.collect_free(bound, free);
                e.collect_free(bound, free);
            }
            Expr::Cast(e) | Expr::Annotated { body: e, .. } => e.collect_free(bound, free),
            Expr::Let {
                sequential,
                bindings,
                body,
            } => {
                let depth = bound.len();
                for (name, init) in bindings {
                    init.collect_free(bound, free);
                    if *sequential {
                        bound.push(name.clone());
                    }
                }
                if !sequential {
                    bound.extend(bindings.iter().map(|(n, _)| n.clone()));
                }
                body.collect_free(bound, free);
                bound.truncate(depth);
            }
            Expr::While {
                sequential,
                cond,
                vars,
                body,
            } => {
                let depth = bound.len();
                for var in vars {
                    var.init.collect_free(bound, free);
                    if *sequential {
                        bound.push(var.name.clone());
                    }
                }
                if !sequential {
                    bound.extend(vars.iter().map(|v| v.name.clone()));
                }
                cond.collect_free(bound, free);
                vars.iter().for_each(|v| v.update.collect_free(bound, free));
                body.collect_free(bound, free);
                bound.truncate(depth);
            }
        }
    }

    /// `self` with its free occurrences of variable `from` renamed `to`.
    pub fn rename_free(&self, from: &str, to: &str) -> Expr {
        let go = |e: &Expr| e.rename_free(from, to);
        match self {
            Expr::Var(name) if name == from => Expr::Var(to.to_string()),
            Expr::Num(_) | Expr::Const(_) | Expr::Tensor(_) | Expr::Var(_) => self.clone(),
            Expr::Op(op, args) => Expr::Op(*op, args.iter().map(go).collect()),
            Expr::Call(name, args) => Expr::Call(name.clone(), args.iter().map(go).collect()),
            Expr::If(c, t, e) => Expr::If(Box::new(go(c)), Box::new(go(t)), Box::new(go(e))),
            Expr::Cast(e) => Expr::Cast(Box::new(go(e))),
            Expr::Annotated { props, body } => Expr::Annotated {
                props: props.clone(),
                body: Box::new(go(body)),
            },
            Expr::Let {
                sequential,
                bindings,
                body,
            } => {
                let mut shadowed = false;
                let mut renamed = Vec::new();
                for (name, init) in bindings {
                    renamed.push((name.clone(), if shadowed { init.clone() } else { go(init) }));
                    shadowed |= *sequential && name == from;
                }
                let shadowed = bindings.iter().any(|(n, _)| n == from);
                let body = if shadowed { (**body).clone() } else { go(body) };
                Expr::Let {
                    sequential: *sequential,
                    bindings: renamed,
                    body: Box::new(body),
                }
            }
            Expr::While {
                sequential,
                cond,
                vars,
                body,
            } => {
                let mut shadowed = false;
                let mut renamed = Vec::new();
                for var in vars {
                    let init = if shadowed {
                        var.init.clone()
                    } else {
                        go(&var.init)
                    };
                    shadowed |= *sequential && var.name == from;
                    renamed.push(LoopVar {
                        name: var.name.clone(),
                        init,
                        update: var.update.clone(),
                    });
                }
                if vars.iter().any(|v| v.name == from) {
                    return Expr::While {
                        sequential: *sequential,
                        cond: cond.clone(),
                        vars: renamed,
                        body: body.clone(),
                    };
                }
                for (var, original) in renamed.iter_mut().zip(vars) {
                    var.update = go(&original.update);
                }
                Expr::While {
                    sequential: *sequential,
                    cond: Box::new(go(cond)),
                    vars: renamed,
                    body: Box::new(go(body)),
                }
            }
        }
    }

    /// Every name the expression binds or reads, in order of appearance.
    pub fn symbols(&self, out: &mut Vec<String>) {
        fn push(out: &mut Vec<String>, name: &String) {
            if !out.contains(name) {
                out.push(name.clone());
            }
        }
        match self {
            Expr::Num(_) | Expr::Const(_) | Expr::Tensor(_) => {}
            Expr::Var(name) => push(out, name),
            Expr::Op(_, args) | Expr::Call(_, args) => args.iter().for_each(|a| a.symbols(out)),
            Expr::If(c, t, e) => {
                c.symbols(out);
                t.symbols(out);
                e.symbols(out);
            }
            Expr::Cast(e) | Expr::Annotated { body: e, .. } => e.symbols(out),
            Expr::Let { bindings, body, .. } => {
                for (name, init) in bindings {
                    push(out, name);
                    init.symbols(out);
                }
                body.symbols(out);
            }
            Expr::While {
                cond, vars, body, ..
            } => {
                for var in vars {
                    push(out, &var.name);
                }
                cond.symbols(out);
                for var in vars {
                    var.init.symbols(out);
                    var.update.symbols(out);
                }
                body.symbols(out);
            }
        }
    }
}

/// FPCore's named constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Constant {
    /// e.
    E,
    /// log2(e).
    Log2E,
    /// log10(e).
    Log10E,
    /// ln(2).
    Ln2,
    /// ln(10).
    Ln10,
    /// π.
    Pi,
    /// π/2.
    Pi2,
    /// π/4.
    Pi4,
    /// 1/π.
    OneOverPi,
    /// 2/π.
    TwoOverPi,
    /// 2/√π.
    TwoOverSqrtPi,
    /// √2.
    Sqrt2,
    /// 1/√2.
    Sqrt1Over2,
    /// +∞.
    Infinity,
    /// A quiet NaN.
    Nan,
    /// Boolean true.
    True,
    /// Boolean false.
    False,
}

impl Constant {
    /// The constant FPCore spells `name`.
    pub fn from_name(name: &str) -> Option<Constant> {
        Some(match name {
            "E" => Constant::E,
            "LOG2E" => Constant::Log2E,
            "LOG10E" => Constant::Log10E,
            "LN2" => Constant::Ln2,
            "LN10" => Constant::Ln10,
            "PI" => Constant::Pi,
            "PI_2" => Constant::Pi2,
            "PI_4" => Constant::Pi4,
            "M_1_PI" => Constant::OneOverPi,
            "M_2_PI" => Constant::TwoOverPi,
            "M_2_SQRTPI" => Constant::TwoOverSqrtPi,
            "SQRT2" => Constant::Sqrt2,
            "SQRT1_2" => Constant::Sqrt1Over2,
            "INFINITY" => Constant::Infinity,
            "NAN" => Constant::Nan,
            "TRUE" => Constant::True,
            "FALSE" => Constant::False,
            _ => return None,
        })
    }

    /// The name of the matching item of `std::f64::consts`, for the mathematical constants.
    pub fn std_name(self) -> Option<&'static str> {
        Some(match self {
            Constant::E => "E",
            Constant::Log2E => "LOG2_E",
            Constant::Log10E => "LOG10_E",
            Constant::Ln2 => "LN_2",
            Constant::Ln10 => "LN_10",
            Constant::Pi => "PI",
            Constant::Pi2 => "FRAC_PI_2",
            Constant::Pi4 => "FRAC_PI_4",
            Constant::OneOverPi => "FRAC_1_PI",
            Constant::TwoOverPi => "FRAC_2_PI",
            Constant::TwoOverSqrtPi => "FRAC_2_SQRT_PI",
            Constant::Sqrt2 => "SQRT_2",
            Constant::Sqrt1Over2 => "FRAC_1_SQRT_2",
            Constant::Infinity | Constant::Nan | Constant::True | Constant::False => return None,
        })
    }

    /// The constant's value in `f64` (1 and 0 for the booleans).
    pub fn to_f64(self) -> f64 {
        use std::f64::consts as c;
        match self {
            Constant::E => c::E,
            Constant::Log2E => c::LOG2_E,
            Constant::Log10E => c::LOG10_E,
            Constant::Ln2 => c::LN_2,
            Constant::Ln10 => c::LN_10,
            Constant::Pi => c::PI,
            Constant::Pi2 => c::FRAC_PI_2,
            Constant::Pi4 => c::FRAC_PI_4,
            Constant::OneOverPi => c::FRAC_1_PI,
            Constant::TwoOverPi => c::FRAC_2_PI,
            Constant::TwoOverSqrtPi => c::FRAC_2_SQRT_PI,
            Constant::Sqrt2 => c::SQRT_2,
            Constant::Sqrt1Over2 => c::FRAC_1_SQRT_2,
            Constant::Infinity => f64::INFINITY,
            Constant::Nan => f64::NAN,
            Constant::True => 1.0,
            Constant::False => 0.0,
        }
    }
}

macro_rules! operations {
    ($($variant:ident = $name:literal, $arity:expr;)*) => {
        /// FPCore's operations.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Op {
            $(
                #[doc = concat!("`", $name, "`")]
                $variant,
            )*
        }

        impl Op {
            /// The operation FPCore spells `name`.
            pub fn from_name(name: &str) -> Option<Op> {
                match name {
                    $($name => Some(Op::$variant),)*
                    _ => None,
                }
            }

            /// FPCore's spelling.
            pub fn name(self) -> &'static str {
                match self {
                    $(Op::$variant => $name,)*
                }
            }

            /// How many operands it takes.
            pub fn arity(self) -> Arity {
                match self {
                    $(Op::$variant => $arity,)*
                }
            }
        }
    };
}

/// How many operands an operation takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    /// Exactly this many.
    Exactly(usize),
    /// One or two (`-`).
    OneOrTwo,
    /// Any number from this many on.
    AtLeast(usize),
}

impl Arity {
    /// Whether `n` operands fit.
    pub fn admits(self, n: usize) -> bool {
        match self {
            Arity::Exactly(k) => n == k,
            Arity::OneOrTwo => n == 1 || n == 2,
            Arity::AtLeast(k) => n >= k,
        }
    }
}

use Arity::{AtLeast, Exactly};

operations! {
    Add = "+", Exactly(2);
    Sub = "-", Arity::OneOrTwo;
    Mul = "*", Exactly(2);
    Div = "/", Exactly(2);
    Fabs = "fabs", Exactly(1);
    Fma = "fma", Exactly(3);
    Exp = "exp", Exactly(1);
    Exp2 = "exp2", Exactly(1);
    Expm1 = "expm1", Exactly(1);
    Log = "log", Exactly(1);
    Log10 = "log10", Exactly(1);
    Log2 = "log2", Exactly(1);
    Log1p = "log1p", Exactly(1);
    Pow = "pow", Exactly(2);
    Sqrt = "sqrt", Exactly(1);
    Cbrt = "cbrt", Exactly(1);
    Hypot = "hypot", Exactly(2);
    Sin = "sin", Exactly(1);
    Cos = "cos", Exactly(1);
    Tan = "tan", Exactly(1);
    Asin = "asin", Exactly(1);
    Acos = "acos", Exactly(1);
    Atan = "atan", Exactly(1);
    Atan2 = "atan2", Exactly(2);
    Sinh = "sinh", Exactly(1);
    Cosh = "cosh", Exactly(1);
    Tanh = "tanh", Exactly(1);
    Asinh = "asinh", Exactly(1);
    Acosh = "acosh", Exactly(1);
    Atanh = "atanh", Exactly(1);
    Erf = "erf", Exactly(1);
    Erfc = "erfc", Exactly(1);
    Tgamma = "tgamma", Exactly(1);
    Lgamma = "lgamma", Exactly(1);
    Ceil = "ceil", Exactly(1);
    Floor = "floor", Exactly(1);
    Fmod = "fmod", Exactly(2);
    Remainder = "remainder", Exactly(2);
    Fmax = "fmax", Exactly(2);
    Fmin = "fmin", Exactly(2);
    Fdim = "fdim", Exactly(2);
    Copysign = "copysign", Exactly(2);
    Trunc = "trunc", Exactly(1);
    Round = "round", Exactly(1);
    Nearbyint = "nearbyint", Exactly(1);
    Lt = "<", AtLeast(2);
    Gt = ">", AtLeast(2);
    Le = "<=", AtLeast(2);
    Ge = ">=", AtLeast(2);
    Eq = "==", AtLeast(2);
    Ne = "!=", AtLeast(2);
    And = "and", AtLeast(0);
    Or = "or", AtLeast(0);
    Not = "not", Exactly(1);
    Isfinite = "isfinite", Exactly(1);
    Isinf = "isinf", Exactly(1);
    Isnan = "isnan", Exactly(1);
    Isnormal = "isnormal", Exactly(1);
    Signbit = "signbit", Exactly(1);
}

impl Op {
    /// Whether the operation compares numbers (`<`, `==`...).
    pub fn is_comparison(self) -> bool {
        matches!(self, Op::Lt | Op::Gt | Op::Le | Op::Ge | Op::Eq | Op::Ne)
    }

    /// Whether the operation yields a boolean.
    pub fn is_boolean(self) -> bool {
        self.is_comparison()
            || matches!(
                self,
                Op::And
                    | Op::Or
                    | Op::Not
                    | Op::Isfinite
                    | Op::Isinf
                    | Op::Isnan
                    | Op::Isnormal
                    | Op::Signbit
            )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(name: &str) -> Expr {
        Expr::Var(name.to_string())
    }

    #[test]
    fn operations_and_constants_are_known_by_their_fpcore_names() {
        assert_eq!(Op::from_name("fma"), Some(Op::Fma));
        assert_eq!(Op::Fma.arity(), Arity::Exactly(3));
        assert_eq!(Op::from_name("!="), Some(Op::Ne));
        assert_eq!(Op::from_name("frobnicate"), None);
        assert_eq!(
            Constant::from_name("PI_2").and_then(Constant::std_name),
            Some("FRAC_PI_2")
        );
        assert_eq!(
            Constant::from_name("TRUE").and_then(Constant::std_name),
            None
        );
    }

    #[test]
    fn free_variables_respect_the_scopes_of_let_and_let_star() {
        // (let ([x y] [y x]) (+ x y)): both inits read the outer names.
        let parallel = Expr::Let {
            sequential: false,
            bindings: vec![("x".into(), var("y")), ("y".into(), var("x"))],
            body: Box::new(Expr::Op(Op::Add, vec![var("x"), var("y")])),
        };
        assert_eq!(parallel.free_vars(), ["x", "y"].map(String::from).into());
        // (let* ([x 1] [y x]) y): the second init reads the first binding.
        let sequential = Expr::Let {
            sequential: true,
            bindings: vec![
                ("x".into(), Expr::Const(Constant::Pi)),
                ("y".into(), var("x")),
            ],
            body: Box::new(var("y")),
        };
        assert!(sequential.free_vars().is_empty());
    }

    #[test]
    fn renaming_touches_only_free_occurrences() {
        // (+ x (let ([x 2]) x)) with x renamed n: (+ n (let ([x 2]) x))
        let e = Expr::Op(
            Op::Add,
            vec![
                var("x"),
                Expr::Let {
                    sequential: false,
                    bindings: vec![("x".into(), var("x"))],
                    body: Box::new(var("x")),
                },
            ],
        );
        let expected = Expr::Op(
            Op::Add,
            vec![
                var("n"),
                Expr::Let {
                    sequential: false,
                    bindings: vec![("x".into(), var("n"))],
                    body: Box::new(var("x")),
                },
            ],
        );
        assert_eq!(e.rename_free("x", "n"), expected);
    }

    #[test]
    fn free_variables_of_a_loop_exclude_its_own_variables() {
        let lp = Expr::While {
            sequential: false,
            cond: Box::new(Expr::Op(Op::Lt, vec![var("i"), var("n")])),
            vars: vec![LoopVar {
                name: "i".into(),
                init: var("i0"),
                update: Expr::Op(Op::Add, vec![var("i"), var("step")]),
            }],
            body: Box::new(var("i")),
        };
        assert_eq!(lp.free_vars(), ["i0", "n", "step"].map(String::from).into());
    }
}
