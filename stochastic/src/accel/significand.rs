//! A value of a matrix unit's format as the unit holds it: an integer significand and the
//! exponent it aligns by ([`decompose`]).
//!
//! A matrix unit reads binary16, bfloat16, TF32, OCP FP8 E4M3 or E5M2 and accumulates in binary32
//! or binary16; the formats are `crate::formats::Spec`s (precision, exponent range, largest
//! finite value, infinity or not). Values travel as `f64`, which holds every value of these
//! formats exactly.

use crate::round::pow2;
use crate::formats::Spec;

/// `floor(log2 |x|)` of a nonzero finite `f64` that is normal in binary64 (every value of the
/// formats here is).
pub(crate) fn exponent(x: f64) -> i32 {
    ((x.to_bits() >> 52) & 0x7ff) as i32 - 1023
}

/// A nonzero finite value `x` of grid `g` as `(negative, m, e)` with `|x| = m 2^(e - p + 1)`,
/// `m < 2^p` and `e = max(floor(log2 |x|), emin)`: the significand as the hardware holds it and the
/// exponent it aligns by. `x` must lie on the grid (checked in debug builds).
pub(crate) fn decompose(x: f64, g: Spec) -> (bool, u64, i32) {
    let e = exponent(x).max(g.emin());
    let q = e - g.precision() as i32 + 1;
    let scaled = x.abs() * pow2(-q);
    debug_assert!(scaled.fract() == 0.0 && scaled < pow2(g.precision() as i32), "{x} is not on the grid");
    (x < 0.0, scaled as u64, e)
}

#[cfg(test)]
mod tests {
    use crate::formats::Spec;
use super::*;

    #[test]
    fn grids_have_their_documented_largest_values() {
        assert_eq!(Spec::E4M3.max(), 448.0);
        assert_eq!(Spec::E5M2.max(), 57344.0);
        assert_eq!(Spec::F16.max(), 65504.0);
    }

    #[test]
    fn decompose_gives_the_aligned_significand() {
        assert_eq!(decompose(1.5, Spec::F16), (false, 0b110_0000_0000, 0));
        assert_eq!(decompose(-pow2(-24), Spec::F16), (true, 1, -14));
        assert_eq!(decompose(448.0, Spec::E4M3), (false, 14, 8));
    }
}
