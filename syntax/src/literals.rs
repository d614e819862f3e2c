//! How an unsuffixed float literal's digits are written where a suffix or the runtime's literal
//! call needs them.

/// A float literal's digits, which a suffix may follow: `0.` is written `0.0` (`0.f64` would be a
/// field access).
pub fn suffixable_digits(lit: &syn::LitFloat) -> String {
    let digits = lit.base10_digits();
    if digits.ends_with('.') { format!("{digits}0") } else { digits.to_string() }
}

/// The arguments of the runtime's literal call for the digits of an unsuffixed float literal:
/// `{digits}f64, {digits}f32`, or `f32`'s infinity where the value is too large for `f32` (a
/// `1e99f32` the compiler refuses to write, where `1e99` given an `f32` place is that infinity).
pub fn literal_args(digits: &str) -> String {
    let single = if too_large_for_f32(digits) { "::fptune::__rt::primitive::f32::INFINITY".to_string() } else { format!("{digits}f32") };
    format!("{digits}f64, {single}")
}

/// Whether a float literal's digits name a value `f32` holds only as an infinity (`1e99`).
pub fn too_large_for_f32(digits: &str) -> bool {
    digits.parse::<f64>().is_ok_and(|v| (v as f32).is_infinite())
}
