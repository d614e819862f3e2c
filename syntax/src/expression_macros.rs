//! The macros whose arguments are expressions of the tuned code, which `#[fptune::tune]` rewrites
//! as it rewrites the code and the tuner elaborates as it elaborates the code: one list for both.

/// The macros whose arguments are expressions of the item, rewritten as its code is (the tuner's
/// elaboration writes literals' types there too): formatting, assertions, `check!`, `vec!`.
pub const EXPRESSION_MACROS: [&str; 16] = [
    "println", "print", "eprintln", "eprint", "format", "write", "writeln", "panic", "assert", "assert_eq",
    "assert_ne", "debug_assert", "debug_assert_eq", "debug_assert_ne", "check", "vec",
];
