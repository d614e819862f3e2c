//! Bad uses of the markers get compile errors at the user's tokens (never a panic), all at once.

#[test]
fn marker_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}

/// Marked code that compiles whenever the unmarked code does.
#[test]
fn marked_code_compiles() {
    let t = trybuild::TestCases::new();
    t.pass("tests/pass/*.rs");
}
