//! The macros whose arguments are expressions of the tuned code, which `#[fptune::tune]` rewrites
//! as it rewrites the code and the tuner elaborates as it elaborates the code: one list for both.

/// The macros whose arguments are expressions of the item, rewritten as its code is (the tuner's
/// elaboration writes literals' types there too): formatting, assertions, `check!`, `vec!`.
pub const EXPRESSION_MACROS: [&str; 29] = [
    "println", "print", "eprintln", "eprint", "format", "write", "writeln", "panic", "assert", "assert_eq",
    "assert_ne", "debug_assert", "debug_assert_eq", "debug_assert_ne", "check", "vec",
    // fptune's own: a value whose type its place gives (`stochastic/src/lib.rs`).
    "typed_by_place",
    // approx's comparisons: `APPROX_MACROS`.
    "relative_eq", "relative_ne", "abs_diff_eq", "abs_diff_ne", "ulps_eq", "ulps_ne", "assert_relative_eq",
    "assert_relative_ne", "assert_abs_diff_eq", "assert_abs_diff_ne", "assert_ulps_eq", "assert_ulps_ne",
];

/// approx's comparisons (stopping tests: `relative_eq!(a, b, epsilon = 1e-6)`), among
/// [`EXPRESSION_MACROS`]: their named arguments (`epsilon`, `max_relative`) are of the compared
/// values' type (its `Epsilon`), so the tuner leaves a literal there to take that type.
pub const APPROX_MACROS: [&str; 12] = [
    "relative_eq", "relative_ne", "abs_diff_eq", "abs_diff_ne", "ulps_eq", "ulps_ne", "assert_relative_eq",
    "assert_relative_ne", "assert_abs_diff_eq", "assert_abs_diff_ne", "assert_ulps_eq", "assert_ulps_ne",
];

/// The arguments of a call of one of [`EXPRESSION_MACROS`], parsed as expressions (`None` for any
/// other macro, or arguments that are not a comma-separated list: `vec![x; n]`). Their
/// declarations (a closure's parameters in `vec![Problem { f: Box::new(|x: f64| ..) }]`) are the
/// item's like any other's.
pub fn expression_args(mac: &syn::Macro) -> Option<syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>> {
    let name = mac.path.segments.last()?.ident.to_string();
    if !EXPRESSION_MACROS.contains(&name.as_str()) {
        return None;
    }
    let parser = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
    syn::parse::Parser::parse2(parser, mac.tokens.clone()).ok()
}
