//! The constants of each format (largest value, smallest normal, machine epsilon, bit layout) as
//! exact stochastic values, for the traits' `max_value`, `epsilon` and the like.

use crate::format::Format;
use crate::round::pow2;
use crate::value::Stochastic;

/// The bit layout of format `F`: `(significand bits stored, exponent bits)`, from its
/// [`Format::SPEC`].
pub(crate) fn layout<F: Format>() -> (u32, u32) {
    (F::SPEC.man_bits, F::SPEC.exp_bits)
}

/// An exactly known value of format `F`: `x`, which the format holds (or an infinity, a NaN),
/// in all three samples.
pub(crate) fn exact<F: Format>(x: f64) -> Stochastic<F> {
    Stochastic::from_repr([F::nearest(x); 3])
}

/// The largest finite value of format `F`, as an `f64` (E4M3's 448 too).
pub(crate) fn max_f64<F: Format>() -> f64 {
    F::SPEC.max()
}

/// The smallest positive normal value of format `F`, as an `f64`.
pub(crate) fn min_positive_f64<F: Format>() -> f64 {
    F::SPEC.min_normal()
}

/// The machine epsilon of format `F` (the distance from 1 to the next value), as an `f64`.
pub(crate) fn epsilon_f64<F: Format>() -> f64 {
    pow2(-(F::SPEC.man_bits as i32))
}

/// The nearest integer value of format `F` to `i` (ties to even), as an `f64` that holds it
/// exactly: rounded once, in integer arithmetic, not through `f64` first (which would round
/// twice an integer above `2^53`). Above the format's range it is beyond [`max_f64`], and
/// [`Format::nearest`] makes it infinite.
pub(crate) fn nearest_integer<F: Format>(negative: bool, magnitude: u128) -> f64 {
    let width = 128 - magnitude.leading_zeros();
    let value = if width <= F::PRECISION {
        magnitude as f64
    } else {
        let shift = width - F::PRECISION;
        let kept = magnitude >> shift;
        let rest = magnitude & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        let kept = if rest > half || (rest == half && kept & 1 == 1) { kept + 1 } else { kept };
        // `kept` has at most PRECISION + 1 <= 54 bits, and a power of two times it is exact.
        (kept as f64) * pow2(shift as i32)
    };
    if negative {
        -value
    } else {
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::{bf16, f16};

    #[test]
    fn constants_are_the_formats_own() {
        assert_eq!(max_f64::<f64>(), f64::MAX);
        assert_eq!(max_f64::<f32>(), f64::from(f32::MAX));
        assert_eq!(max_f64::<f16>(), f64::from(f16::MAX));
        assert_eq!(max_f64::<bf16>(), f64::from(bf16::MAX));
        assert_eq!(min_positive_f64::<f64>(), f64::MIN_POSITIVE);
        assert_eq!(min_positive_f64::<f32>(), f64::from(f32::MIN_POSITIVE));
        assert_eq!(min_positive_f64::<f16>(), f64::from(f16::MIN_POSITIVE));
        assert_eq!(min_positive_f64::<bf16>(), f64::from(bf16::MIN_POSITIVE));
        assert_eq!(epsilon_f64::<f64>(), f64::EPSILON);
        assert_eq!(epsilon_f64::<f32>(), f64::from(f32::EPSILON));
        assert_eq!(epsilon_f64::<f16>(), f64::from(f16::EPSILON));
        assert_eq!(epsilon_f64::<bf16>(), f64::from(bf16::EPSILON));
        // Formats beyond the four, from their Spec: E4M3's largest value is 448, not (2 - 2^-3) 2^7.
        assert_eq!(max_f64::<crate::E4M3>(), 448.0);
        assert_eq!(min_positive_f64::<crate::E4M3>(), 2f64.powi(-6));
        assert_eq!(epsilon_f64::<crate::Fx<11, 40>>(), 2f64.powi(-40));
        assert_eq!(max_f64::<crate::Fx<11, 40>>(), (2.0 - 2f64.powi(-40)) * 2f64.powi(1023));
    }

    #[test]
    fn integers_round_once() {
        // 2^60 + 2^36 + 1: to nearest f64 first gives the tie 2^60 + 2^36, which f32 rounds to
        // even (2^60); rounded once it is above the tie (2^60 + 2^37).
        let i: u128 = (1 << 60) + (1 << 36) + 1;
        assert_eq!(nearest_integer::<f32>(false, i), 2f64.powi(60) + 2f64.powi(37));
        assert_eq!((i as f32) as f64, 2f64.powi(60) + 2f64.powi(37));
        for i in [0u128, 1, 3, 255, 257, 2049, 65519, 65520, 1 << 53, (1 << 53) + 1, u64::MAX as u128, u128::MAX] {
            assert_eq!(nearest_integer::<f64>(false, i), i as f64, "{i}");
            assert_eq!(nearest_integer::<f32>(true, i) as f32, -(i as f32), "{i}");
            let h = f16::from_f32(i as f32);
            if i < 1 << 24 {
                assert_eq!(f64::from(f16::from_f64(nearest_integer::<f16>(false, i))), f64::from(h), "{i}");
            }
        }
    }
}
