//! Where operands of two formats meet: the wider when one holds the other, else the narrowest
//! primitive format that holds both (as binary16 with bfloat16 meet in binary32); and which
//! formats besides the four the runtime lets meet others (`fptune::formats::mixing`).

use crate::Spec;

/// The formats besides the four that can meet any other of them and the four: the FP8 formats,
/// TF32, the significand widths of the `bits` ladder in binary32's and binary64's ranges, and
/// the flushing variants of the common formats (the `ftz` target).
pub const MIXABLE: [&str; 18] = [
    "e4m3", "e5m2", "e4m3-sat", "e5m2-sat", "tf32", "e8m16", "e8m3", "e11m40", "e11m30", "e11m23", "e11m16", "e11m10", "e11m7", "e11m3", "f64-ftz", "f32-ftz", "f16-ftz",
    "bf16-ftz",
];

/// Whether a format can meet others: a primitive one, or one of [`MIXABLE`].
pub fn mixable(spec: Spec) -> bool {
    spec.is_primitive() || MIXABLE.iter().any(|n| Spec::parse(n).is_ok_and(|m| m == spec))
}

/// The format `a` and `b` meet in.
pub fn meet(a: Spec, b: Spec) -> Spec {
    if a.holds(b) {
        a
    } else if b.holds(a) {
        b
    } else {
        [Spec::F16, Spec::BF16, Spec::F32, Spec::F64].into_iter().find(|p| p.holds(a) && p.holds(b)).unwrap_or(Spec::F64)
    }
}

