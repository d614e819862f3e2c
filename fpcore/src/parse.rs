//! Reading FPCore benchmarks out of S-expressions, with an error naming the place and the
//! problem for each definition that is not well-formed FPCore.

use std::fmt;

use crate::ast::{Argument, Benchmark, Constant, Expr, LoopVar, Op, Property};
use crate::number::Number;
use crate::sexp::{self, Pos, ReadError, Sexp};

/// A definition that is not well-formed FPCore.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// Where the problem is.
    pub pos: Pos,
    /// What it is.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.pos, self.message)
    }
}

impl std::error::Error for ParseError {}

type Parsed<T> = Result<T, ParseError>;

fn error<T>(at: &Sexp, message: impl Into<String>) -> Parsed<T> {
    Err(ParseError {
        pos: at.pos(),
        message: message.into(),
    })
}

/// Reads every definition of an FPCore file: an error for the whole text when it is not a
/// sequence of S-expressions, else one result per top-level datum.
pub fn parse_file(text: &str) -> Result<Vec<Parsed<Benchmark>>, ReadError> {
    Ok(sexp::read_all(text)?
        .iter()
        .map(|datum| parse_benchmark(datum, text))
        .collect())
}

/// Reads one `(FPCore ...)` datum; `text` is the source it was read from.
pub fn parse_benchmark(datum: &Sexp, text: &str) -> Parsed<Benchmark> {
    let (items, span) = match datum {
        Sexp::List { items, span, .. } => (items, *span),
        _ => return error(datum, "expected an `(FPCore ...)` definition"),
    };
    if items.first().and_then(Sexp::atom) != Some("FPCore") {
        return error(datum, "expected an `(FPCore ...)` definition");
    }
    let mut rest = &items[1..];
    let mut ident = None;
    if let Some(Sexp::Atom { text, .. }) = rest.first() {
        ident = Some(text.clone());
        rest = &rest[1..];
    }
    let Some((args, rest)) = rest.split_first() else {
        return error(datum, "an FPCore without an argument list");
    };
    let Some(arg_items) = args.list() else {
        return error(args, "expected the argument list");
    };
    let args = arg_items
        .iter()
        .map(parse_argument)
        .collect::<Parsed<Vec<_>>>()?;
    let Some((body, prop_items)) = rest.split_last() else {
        return error(datum, "an FPCore without a body");
    };
    let props = parse_props(prop_items, datum)?;
    if let Some(key) = body.atom().filter(|a| a.starts_with(':')) {
        return error(body, format!("the property `{key}` has no value"));
    }
    let body = parse_expr(body)?;
    let source = text.get(span.0..span.1).unwrap_or_default().to_string();
    Ok(Benchmark {
        ident,
        args,
        props,
        body,
        source,
    })
}

fn parse_props(items: &[Sexp], at: &Sexp) -> Parsed<Vec<Property>> {
    let mut props = Vec::new();
    let mut iter = items.iter();
    while let Some(key) = iter.next() {
        let Some(name) = key.atom().and_then(|a| a.strip_prefix(':')) else {
            return error(
                key,
                format!("expected a `:property` (or the body to be last), found `{key}`"),
            );
        };
        let Some(value) = iter.next() else {
            return error(at, format!("the property `:{name}` has no value"));
        };
        props.push(Property {
            key: name.to_string(),
            value: value.clone(),
        });
    }
    Ok(props)
}

fn parse_symbol(datum: &Sexp) -> Parsed<String> {
    match datum.atom() {
        Some(text) if is_symbol(text) => Ok(text.to_string()),
        _ => error(datum, format!("expected a variable name, found `{datum}`")),
    }
}

/// Whether `text` is an FPCore symbol that may name a variable.
fn is_symbol(text: &str) -> bool {
    let mut chars = text.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    let allowed = |c: char| c.is_ascii_alphanumeric() || "~!@$%^&*_-+=<>.?/:".contains(c);
    !first.is_ascii_digit()
        && allowed(first)
        && chars.all(allowed)
        && Number::parse(text).is_none()
        && Constant::from_name(text).is_none()
}

fn parse_argument(datum: &Sexp) -> Parsed<Argument> {
    match datum {
        Sexp::Atom { .. } => Ok(Argument {
            name: parse_symbol(datum)?,
            props: Vec::new(),
            dims: 0,
        }),
        Sexp::List { items, .. } => {
            if items.first().and_then(Sexp::atom) == Some("!") {
                let Some((inner, props)) = items[1..].split_last() else {
                    return error(datum, "an empty `!` annotation");
                };
                let mut arg = parse_argument(inner)?;
                arg.props = parse_props(props, datum)?;
                Ok(arg)
            } else {
                let Some((name, dims)) = items.split_first() else {
                    return error(datum, "an empty argument");
                };
                Ok(Argument {
                    name: parse_symbol(name)?,
                    props: Vec::new(),
                    dims: dims.len(),
                })
            }
        }
        Sexp::Str { .. } => error(datum, "expected an argument name, found a string"),
    }
}

/// Reads an FPCore expression.
pub fn parse_expr(datum: &Sexp) -> Parsed<Expr> {
    match datum {
        Sexp::Str { .. } => error(datum, "a string where an expression was expected"),
        Sexp::Atom { text, .. } => {
            if let Some(n) = Number::parse(text) {
                Ok(Expr::Num(n))
            } else if let Some(c) = Constant::from_name(text) {
                Ok(Expr::Const(c))
            } else if is_symbol(text) && !text.starts_with(':') {
                Ok(Expr::Var(text.clone()))
            } else {
                error(
                    datum,
                    format!("`{text}` is neither a number nor a variable"),
                )
            }
        }
        Sexp::List { items, .. } => {
            let Some((head, args)) = items.split_first() else {
                return error(datum, "an empty expression `()`");
            };
            let Some(head_name) = head.atom() else {
                return error(head, "an expression must start with an operation's name");
            };
            parse_form(datum, head_name, args)
        }
    }
}

fn parse_form(datum: &Sexp, head: &str, args: &[Sexp]) -> Parsed<Expr> {
    let exactly = |n: usize| -> Parsed<()> {
        if args.len() == n {
            Ok(())
        } else {
            error(
                datum,
                format!("`{head}` takes {n} operands, given {}", args.len()),
            )
        }
    };
    let boxed = |d: &Sexp| parse_expr(d).map(Box::new);
    match head {
        "if" => {
            exactly(3)?;
            Ok(Expr::If(
                boxed(&args[0])?,
                boxed(&args[1])?,
                boxed(&args[2])?,
            ))
        }
        "let" | "let*" => {
            exactly(2)?;
            let bindings = bracketed(&args[0], 2, head)?
                .into_iter()
                .map(|parts| Ok((parse_symbol(&parts[0])?, parse_expr(&parts[1])?)))
                .collect::<Parsed<Vec<_>>>()?;
            Ok(Expr::Let {
                sequential: head == "let*",
                bindings,
                body: boxed(&args[1])?,
            })
        }
        "while" | "while*" => {
            exactly(3)?;
            let vars = bracketed(&args[1], 3, head)?
                .into_iter()
                .map(|parts| {
                    Ok(LoopVar {
                        name: parse_symbol(&parts[0])?,
                        init: parse_expr(&parts[1])?,
                        update: parse_expr(&parts[2])?,
                    })
                })
                .collect::<Parsed<Vec<_>>>()?;
            Ok(Expr::While {
                sequential: head == "while*",
                cond: boxed(&args[0])?,
                vars,
                body: boxed(&args[2])?,
            })
        }
        "cast" => {
            exactly(1)?;
            Ok(Expr::Cast(boxed(&args[0])?))
        }
        "!" => {
            let Some((body, props)) = args.split_last() else {
                return error(datum, "an empty `!` annotation");
            };
            Ok(Expr::Annotated {
                props: parse_props(props, datum)?,
                body: boxed(body)?,
            })
        }
        "digits" => {
            exactly(3)?;
            let int = |d: &Sexp| d.atom().and_then(|a| a.parse::<i128>().ok());
            match (int(&args[0]), int(&args[1]), int(&args[2])) {
                (Some(m), Some(e), Some(b)) => {
                    let number = i64::try_from(e)
                        .ok()
                        .zip(u32::try_from(b).ok())
                        .and_then(|(e, b)| Number::digits(m, e, b));
                    match number {
                        Some(n) => Ok(Expr::Num(n)),
                        None => error(
                            datum,
                            format!("`{datum}` is out of the range this translator reads"),
                        ),
                    }
                }
                _ => error(
                    datum,
                    "`digits` takes three integers: mantissa, exponent, base",
                ),
            }
        }
        "array" | "tensor" | "tensor*" | "for" | "for*" | "dim" | "size" | "ref" => {
            Ok(Expr::Tensor(head.to_string()))
        }
        _ => {
            let operands = args.iter().map(parse_expr).collect::<Parsed<Vec<_>>>()?;
            if let Some(op) = Op::from_name(head) {
                if !op.arity().admits(operands.len()) {
                    return error(
                        datum,
                        format!("`{head}` cannot take {} operands", operands.len()),
                    );
                }
                Ok(Expr::Op(op, operands))
            } else if is_symbol(head) {
                Ok(Expr::Call(head.to_string(), operands))
            } else {
                error(datum, format!("`{head}` is not an operation"))
            }
        }
    }
}

/// The elements of a binding list `([a b...] ...)`, each with exactly `width` parts.
fn bracketed<'a>(datum: &'a Sexp, width: usize, form: &str) -> Parsed<Vec<&'a [Sexp]>> {
    let Some(items) = datum.list() else {
        return error(datum, format!("`{form}` expects a list of bindings"));
    };
    items
        .iter()
        .map(|item| match item.list() {
            Some(parts) if parts.len() == width => Ok(parts),
            _ => error(
                item,
                format!("a `{form}` binding has {width} parts: `{item}`"),
            ),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Benchmark {
        let mut all = parse_file(text).expect("readable");
        assert_eq!(all.len(), 1);
        all.remove(0).expect("well-formed FPCore")
    }

    fn expr(text: &str) -> Expr {
        parse_expr(&sexp::read_all(text).expect("readable")[0]).expect("an expression")
    }

    fn failure(text: &str) -> String {
        let mut all = parse_file(text).expect("readable");
        all.remove(0).expect_err("not well-formed").message
    }

    #[test]
    fn a_benchmark_has_arguments_properties_and_a_body() {
        let b = one("(FPCore (x (! :precision integer n)) :name \"demo\" :pre (< 0 x 1) (+ x n))");
        assert_eq!(b.name(), Some("demo"));
        assert_eq!(b.args.len(), 2);
        assert_eq!(b.args[1].name, "n");
        assert_eq!(b.args[1].props[0].key, "precision");
        assert_eq!(
            b.prop("pre").map(ToString::to_string).as_deref(),
            Some("(< 0 x 1)")
        );
        assert_eq!(
            b.body,
            Expr::Op(Op::Add, vec![Expr::Var("x".into()), Expr::Var("n".into())])
        );
        assert!(b.source.starts_with("(FPCore (x") && b.source.ends_with("(+ x n))"));
    }

    #[test]
    fn an_fpcore_2_identifier_may_precede_the_arguments() {
        let b = one("(FPCore f (x) x)");
        assert_eq!(b.ident.as_deref(), Some("f"));
        assert_eq!(b.args[0].name, "x");
    }

    #[test]
    fn numbers_constants_and_variables_are_told_apart() {
        assert!(matches!(expr("-.5"), Expr::Num(_)));
        assert!(matches!(expr("3/8"), Expr::Num(_)));
        assert_eq!(expr("PI"), Expr::Const(Constant::Pi));
        assert_eq!(expr("sl*"), Expr::Var("sl*".into()));
        assert!(matches!(
            expr("(digits 3 -1 2)"),
            Expr::Num(Number::Binary { .. })
        ));
    }

    #[test]
    fn loops_and_lets_keep_their_flavour() {
        let Expr::While {
            sequential, vars, ..
        } = expr("(while* (< i 10) ([i 0 (+ i 1)] [x 1 (* x 2)]) x)")
        else {
            panic!("a loop")
        };
        assert!(sequential);
        assert_eq!(
            vars.iter().map(|v| v.name.as_str()).collect::<Vec<_>>(),
            ["i", "x"]
        );
        let Expr::Let {
            sequential,
            bindings,
            ..
        } = expr("(let ([a 1] [b 2]) (+ a b))")
        else {
            panic!("a let")
        };
        assert!(!sequential);
        assert_eq!(bindings.len(), 2);
    }

    #[test]
    fn annotations_casts_tensors_and_calls_are_recognised() {
        let Expr::Annotated { props, body } = expr("(! :precision binary32 (cast x))") else {
            panic!("`!`")
        };
        assert_eq!(props[0].value.to_string(), "binary32");
        assert_eq!(*body, Expr::Cast(Box::new(Expr::Var("x".into()))));
        assert_eq!(expr("(array x y)"), Expr::Tensor("array".into()));
        assert!(matches!(expr("(helper x)"), Expr::Call(name, _) if name == "helper"));
    }

    #[test]
    fn malformed_definitions_are_errors_that_say_what_is_wrong() {
        assert!(
            failure("(FPCore (x) :name)").contains("no value"),
            "property without value"
        );
        assert!(failure("(FPCore (x) (if x))").contains("takes 3 operands"));
        assert!(failure("(FPCore (x) (let ([a]) a))").contains("binding has 2 parts"));
        assert!(failure("(FPCore (x) (fabs x x))").contains("cannot take 2 operands"));
        assert!(failure("(FPCore (x) ())").contains("empty expression"));
        assert!(failure("(FPCore (1) 1)").contains("variable name"));
        assert!(failure("(foo)").contains("FPCore"));
    }
}
