//! Unit tests of the generator: the Rust it writes for small FPCore expressions.

use super::*;
use crate::parse::parse_expr;
use crate::sexp::read_all;

/// The body generated for `fpcore` with float arguments `args` in context `ctx`.
fn generate_in(
    fpcore: &str,
    args: &[(&str, Ty)],
    ctx: &Context,
) -> Result<String, Unsupported> {
    let e = parse_expr(&read_all(fpcore).expect("readable")[0]).expect("an expression");
    let mut names = Names::new(&[]);
    let mut gen = Gen::new(&mut names);
    for (name, ty) in args {
        gen.bind(name, *ty);
    }
    let block = gen.function_body(&e, ctx)?;
    let mut lines = block.lines;
    lines.push(block.tail.text);
    Ok(lines.join("\n"))
}

fn generate(fpcore: &str, args: &[&str]) -> String {
    let args: Vec<(&str, Ty)> = args.iter().map(|a| (*a, Ty::F64)).collect();
    generate_in(fpcore, &args, &Context::binary64()).expect("supported")
}

fn binary32() -> Context {
    Context {
        ty: Ty::F32,
        substituted: None,
    }
}

#[test]
fn arithmetic_keeps_fpcore_order_with_the_fewest_parentheses() {
    assert_eq!(generate("(+ (+ a b) c)", &["a", "b", "c"]), "a + b + c");
    assert_eq!(generate("(+ a (+ b c))", &["a", "b", "c"]), "a + (b + c)");
    assert_eq!(generate("(- a (- b c))", &["a", "b", "c"]), "a - (b - c)");
    assert_eq!(generate("(* (+ a b) c)", &["a", "b", "c"]), "(a + b) * c");
    assert_eq!(
        generate("(/ (* a b) (* c a))", &["a", "b", "c"]),
        "a * b / (c * a)"
    );
    assert_eq!(generate("(* (- a) b)", &["a", "b"]), "-a * b");
    assert_eq!(generate("(- (* a b))", &["a", "b"]), "-(a * b)");
    assert_eq!(generate("(- a -1)", &["a"]), "a - (-1.0)");
}

#[test]
fn a_long_chain_breaks_before_its_operators() {
    let terms: Vec<String> = (0..9).map(|i| format!("(* x{i} y{i})")).collect();
    let sum = terms
        .iter()
        .skip(1)
        .fold(terms[0].clone(), |acc, t| format!("(+ {acc} {t})"));
    let args: Vec<String> = (0..9)
        .flat_map(|i| [format!("x{i}"), format!("y{i}")])
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let code = generate(&format!("(let ([s {sum}]) s)"), &args);
    let expected = "\
let s: f64 = x0 * y0
    + x1 * y1
    + x2 * y2
    + x3 * y3
    + x4 * y4
    + x5 * y5
    + x6 * y6
    + x7 * y7
    + x8 * y8;
s";
    assert_eq!(code, expected);
}

#[test]
fn math_functions_are_float_methods() {
    assert_eq!(generate("(sqrt (+ x 1))", &["x"]), "(x + 1.0).sqrt()");
    assert_eq!(generate("(log (exp x))", &["x"]), "x.exp().ln()");
    assert_eq!(generate("(pow x 3)", &["x"]), "x.powf(3.0)");
    assert_eq!(generate("(atan2 y x)", &["x", "y"]), "y.atan2(x)");
    assert_eq!(generate("(fma a b c)", &["a", "b", "c"]), "a.mul_add(b, c)");
    assert_eq!(generate("(fmax (fabs x) 0)", &["x"]), "x.abs().max(0.0)");
    assert_eq!(generate("(- (sqrt x))", &["x"]), "-x.sqrt()");
    assert_eq!(generate("(fmod x 2)", &["x"]), "x % 2.0");
}

#[test]
fn a_literal_receiving_a_method_call_gets_a_type_suffix() {
    assert_eq!(generate("(sqrt 2)", &[]), "2.0_f64.sqrt()");
    assert_eq!(generate("(acos -1.0)", &[]), "(-1.0_f64).acos()");
    assert_eq!(generate("(sqrt (+ 1 2))", &[]), "(1.0_f64 + 2.0).sqrt()");
    assert_eq!(
        generate("(pow (/ 1 3) x)", &["x"]),
        "(1.0_f64 / 3.0).powf(x)"
    );
}

#[test]
fn constants_come_from_std_consts() {
    assert_eq!(generate("(* 2 PI)", &[]), "2.0 * PI");
    let f32_pi = generate_in("(* 2 PI)", &[], &binary32()).expect("supported");
    assert_eq!(f32_pi, "2.0 * std::f32::consts::PI");
    assert_eq!(generate("(- INFINITY)", &[]), "-f64::INFINITY");
}

#[test]
fn lets_become_typed_rust_lets() {
    let code = generate("(let* ([a (* x x)] [b (+ a 1)]) (/ a b))", &["x"]);
    assert_eq!(code, "let a: f64 = x * x;\nlet b: f64 = a + 1.0;\na / b");
    let code = generate_in("(let ([t (* x 2)]) t)", &[("x", Ty::F32)], &binary32())
        .expect("supported");
    assert_eq!(code, "let t: f32 = x * 2.0;\nt");
}

#[test]
fn a_let_whose_bindings_read_outer_names_it_rebinds_binds_them_at_once() {
    let code = generate("(let ([x y] [y x]) (- x y))", &["x", "y"]);
    assert_eq!(code, "let (x, y): (f64, f64) = (y, x);\nx - y");
}

#[test]
fn a_let_in_an_operand_is_a_block_expression() {
    let code = generate("(+ 1 (let ([a (* x x)]) (sqrt a)))", &["x"]);
    assert_eq!(code, "1.0 + ({\n    let a: f64 = x * x;\n    a.sqrt()\n})");
}

#[test]
fn while_updates_are_simultaneous() {
    // Fibonacci-like: b's update must read the old a.
    let code = generate(
        "(while (< i 10) ([a 0 b] [b 1 (+ a b)] [i 0 (+ i 1)]) a)",
        &[],
    );
    let expected = "\
let mut a: f64 = 0.0;
let mut b: f64 = 1.0;
let mut i: f64 = 0.0;
while i < 10.0 {
    let a_next: f64 = b;
    b = a + b;
    i = i + 1.0;
    a = a_next;
}
a";
    assert_eq!(code, expected);
}

#[test]
fn while_star_updates_are_sequential() {
    let code = generate(
        "(while* (< i 10) ([a 0 b] [b 1 (+ a b)] [i 0 (+ i 1)]) a)",
        &[],
    );
    let expected = "\
let mut a: f64 = 0.0;
let mut b: f64 = 1.0;
let mut i: f64 = 0.0;
while i < 10.0 {
    a = b;
    b = a + b;
    i = i + 1.0;
}
a";
    assert_eq!(code, expected);
}

#[test]
fn while_initial_values_that_read_rebound_names_are_bound_at_once() {
    let code = generate("(while (< x y) ([x y (+ x 1)] [y x y]) x)", &["x", "y"]);
    assert!(
        code.starts_with("let (mut x, y): (f64, f64) = (y, x);\nwhile x < y {"),
        "{code}"
    );
}

#[test]
fn a_loop_that_never_ends_is_refused() {
    let err = generate_in("(while TRUE ([x 0 (+ x 1)]) x)", &[], &Context::binary64())
        .expect_err("refused");
    assert!(err.0.contains("never ends"), "{err}");
}

#[test]
fn integer_loop_counters_and_mixed_precision_follow_the_annotations() {
    let fpcore = "(while* (<= i n) ([s 0 (+ s (* i h))] [i (! :precision integer 1) (! :precision integer (+ i 1))]) s)";
    let code = generate_in(
        fpcore,
        &[("n", Ty::I64), ("h", Ty::F64)],
        &Context::binary64(),
    )
    .expect("supported");
    let expected = "\
let mut s: f64 = 0.0;
let mut i: i64 = 1;
while i <= n {
    s = s + (i as f64) * h;
    i = i + 1;
}
s";
    assert_eq!(code, expected);
}

#[test]
fn casts_and_binary80_contexts_are_explicit() {
    let code = generate_in(
        "(cast (! :precision binary64 (/ t (! :precision binary32 (+ t 1)))))",
        &[("t", Ty::F32)],
        &binary32(),
    )
    .expect("supported");
    assert_eq!(code, "((t as f64) / ((t + 1.0) as f64)) as f32");
    let code = generate("(! :precision binary80 (+ a b))", &["a", "b"]);
    assert!(
        code.starts_with("// FPCore asks for binary80 here"),
        "{code}"
    );
    assert!(code.ends_with("\na + b"), "{code}");
}

#[test]
fn narrowing_an_operand_is_noted() {
    let code = generate("(! :precision binary32 (+ a b))", &["a", "b"]);
    assert_eq!(code, "// FPCore rounds the exact result to binary32 once; here the f64 operands are rounded to f32 first.\n(a as f32) + (b as f32)");
}

#[test]
fn conditionals_chain_with_else_if() {
    assert_eq!(
        generate("(if (< x 0) (- x) x)", &["x"]),
        "if x < 0.0 { -x } else { x }"
    );
    let code = generate("(if (< v -1) -1 (if (< 1 v) 1 v))", &["v"]);
    assert_eq!(
        code,
        "if v < -1.0 {\n    -1.0\n} else if 1.0 < v {\n    1.0\n} else {\n    v\n}"
    );
}

#[test]
fn comparison_chains_and_distinctness_expand_to_conjunctions() {
    assert_eq!(generate("(< 0 x 1)", &["x"]), "0.0 < x && x < 1.0");
    assert_eq!(
        generate("(!= x 0 1 -1)", &["x"]),
        "x != 0.0 && x != 1.0 && x != -1.0"
    );
    assert_eq!(
        generate("(or (> x 1) (and (< x 0) (!= x -1)))", &["x"]),
        "x > 1.0 || (x < 0.0 && x != -1.0)"
    );
    assert_eq!(generate("(not (isnan x))", &["x"]), "!x.is_nan()");
    let code =
        generate_in("(>= n 0)", &[("n", Ty::I64)], &Context::binary64()).expect("supported");
    assert_eq!(code, "n >= 0");
}

#[test]
fn functions_rust_lacks_are_reported() {
    let err = generate_in("(erf x)", &[("x", Ty::F64)], &Context::binary64())
        .expect_err("unsupported");
    assert!(err.0.contains("erf"), "{err}");
    let err = generate_in("(array x x)", &[("x", Ty::F64)], &Context::binary64())
        .expect_err("unsupported");
    assert!(err.0.contains("tensors"), "{err}");
}

fn has_unread(fpcore: &str) -> bool {
    let e = parse_expr(&read_all(fpcore).expect("readable")[0]).expect("an expression");
    let mut names = Names::new(&[]);
    let mut gen = Gen::new(&mut names);
    gen.function_body(&e, &Context::binary64())
        .expect("supported");
    gen.has_unread
}

#[test]
fn unread_bindings_and_overwritten_initial_values_are_noticed() {
    assert!(has_unread("(let ([a 1] [b 2]) a)"));
    assert!(!has_unread("(let* ([a 1] [b a]) b)"));
    // d's first value is overwritten before anything reads it.
    assert!(has_unread(
        "(while* (< i 3) ([d 0 (* i 2)] [s 0 (+ s d)] [i 0 (+ i 1)]) s)"
    ));
    // In a `while`, every update reads the previous round's values.
    assert!(!has_unread(
        "(while (< i 3) ([d 0 (* i 2)] [s 0 (+ s d)] [i 0 (+ i 1)]) s)"
    ));
    assert!(!has_unread(
        "(while* (< i 3) ([s 0 (+ s d)] [d 0 (* i 2)] [i 0 (+ i 1)]) s)"
    ));
}
