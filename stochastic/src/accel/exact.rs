//! Exact integer arithmetic of the model: an exact value rounded onto a grid at one rounding
//! point, in a given direction.
//!
//! A value is `(-1)^neg mag 2^exp` with an integer `mag` (`u128`): products of two input
//! significands, aligned block sums and accumulator values all are, so nothing here goes through
//! a float operation whose rounding could hide in the model. [`round`] rounds such a value to a
//! precision (and, given a [`Spec`], into its exponent range, with its subnormals or flushing
//! them, and with its overflow rule) by a [`Rounding`]; [`shift`] truncates an aligned term onto a
//! coarser grid by the same rules. The native model uses `TowardZero` and `NearestEven`, the DSA
//! model `Up` and `Down` drawn at random at the same points.

use crate::round::pow2;
use crate::formats::Spec;

/// How a rounding point of the unit rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// Truncation: toward zero (what the NVIDIA units do when aligning and normalising).
    TowardZero,
    /// To nearest, ties to even.
    NearestEven,
    /// Toward +infinity (the DSA model's upward samples).
    Up,
    /// Toward -infinity (the DSA model's downward samples).
    Down,
}

impl Rounding {
    /// Whether a magnitude `m` with a dropped remainder `rem` (nonzero) out of `half * 2` goes up
    /// one unit, for a value of sign `neg`.
    fn up(self, neg: bool, m: u128, rem: u128, half: u128) -> bool {
        match self {
            Rounding::TowardZero => false,
            Rounding::NearestEven => rem > half || (rem == half && m & 1 == 1),
            Rounding::Up => !neg,
            Rounding::Down => neg,
        }
    }

    /// Whether an overflow in this rounding for sign `neg` stops at the largest finite value
    /// (rounding toward zero in effect) rather than going to infinity.
    fn saturates(self, neg: bool) -> bool {
        match self {
            Rounding::TowardZero => true,
            Rounding::NearestEven => false,
            Rounding::Up => neg,
            Rounding::Down => !neg,
        }
    }
}

/// `mag 2^exp` brought onto the grid of quantum `2^q` (`q > exp` drops bits): the magnitude in
/// units of `2^q`, rounded by `r` for sign `neg`. `q <= exp` scales exactly (the caller bounds
/// `exp - q` so that nothing overflows).
pub(crate) fn shift(neg: bool, mag: u128, exp: i32, q: i32, r: Rounding) -> u128 {
    if q <= exp {
        return mag << (exp - q);
    }
    let s = (q - exp) as u32;
    if s >= 128 {
        // Everything is below the grid: a nonzero remainder under half a unit.
        return u128::from(mag != 0 && r.up(neg, 0, 1, 2));
    }
    let m = mag >> s;
    let rem = mag & ((1u128 << s) - 1);
    if rem == 0 {
        return m;
    }
    m + u128::from(r.up(neg, m, rem, 1u128 << (s - 1)))
}

/// The floor of `log2(mag 2^exp)` for a nonzero `mag`.
pub(crate) fn top(mag: u128, exp: i32) -> i32 {
    127 - mag.leading_zeros() as i32 + exp
}

/// `(-1)^neg mag 2^exp` rounded by `r` to `p` bits, the exponent unbounded: `(m, q)` with
/// `m < 2^p` (or `m = 2^p` after a carry) and the value `m 2^q`. Zero stays `(0, exp)`.
pub(crate) fn round_bits(neg: bool, mag: u128, exp: i32, p: u32, r: Rounding) -> (u128, i32) {
    if mag == 0 {
        return (0, exp);
    }
    let q = (top(mag, exp) - p as i32 + 1).max(exp);
    (shift(neg, mag, exp, q, r), q)
}

/// What a result does with subnormal values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Subnormals {
    /// Kept (gradual underflow).
    Keep,
    /// Flushed to zero of the same sign: an input below the smallest normal is read as zero, a
    /// result that rounds below it is written as zero.
    Flush,
}

/// `(-1)^neg mag 2^exp` rounded by `r` into grid `g` (subnormals as `sub` says), as an `f64`
/// (exact: every value of the grids here is one). Overflow gives infinity, the largest finite
/// value where `r` rounds toward zero in effect, or NaN in a format without infinities (E4M3). A
/// zero `mag` gives a zero of sign `neg`.
pub(crate) fn round(neg: bool, mag: u128, exp: i32, g: Spec, sub: Subnormals, r: Rounding) -> f64 {
    let sign = if neg { -1.0 } else { 1.0 };
    if mag == 0 {
        return sign * 0.0;
    }
    let e = top(mag, exp).max(g.emin());
    let q = e - g.precision() as i32 + 1;
    let m = shift(neg, mag, exp, q, r);
    // m 2^q: m < 2^(p+1); the exponent of the largest finite value bounds it.
    let max_q = g.emax() - g.precision() as i32 + 1;
    let (m, q) = if m >> g.precision() != 0 { (m >> 1, q + 1) } else { (m, q) };
    if q > max_q || (q == max_q && m > u128::from(g.max_significand())) {
        return if r.saturates(neg) { sign * g.max() } else if g.has_infinity() { sign * f64::INFINITY } else { f64::NAN };
    }
    if sub == Subnormals::Flush && m >> (g.precision() - 1) == 0 {
        return sign * 0.0;
    }
    sign * m as f64 * pow2(q)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shift_rounds_each_way() {
        // 0b1011 (11) onto quantum 4: 2.75 units.
        assert_eq!(shift(false, 11, 0, 2, Rounding::TowardZero), 2);
        assert_eq!(shift(false, 11, 0, 2, Rounding::NearestEven), 3);
        assert_eq!(shift(false, 11, 0, 2, Rounding::Up), 3);
        assert_eq!(shift(false, 11, 0, 2, Rounding::Down), 2);
        assert_eq!(shift(true, 11, 0, 2, Rounding::Up), 2);
        assert_eq!(shift(true, 11, 0, 2, Rounding::Down), 3);
        // Ties to even: 10 / 4 = 2.5 -> 2, 14 / 4 = 3.5 -> 4.
        assert_eq!(shift(false, 10, 0, 2, Rounding::NearestEven), 2);
        assert_eq!(shift(false, 14, 0, 2, Rounding::NearestEven), 4);
        // Far below the grid.
        assert_eq!(shift(false, 1, -300, 0, Rounding::Up), 1);
        assert_eq!(shift(false, 1, -300, 0, Rounding::NearestEven), 0);
        assert_eq!(shift(false, 3, 5, 2, Rounding::TowardZero), 24);
    }

    #[test]
    fn round_into_binary32_and_binary16() {
        let f32g = Spec::F32;
        let k = Subnormals::Keep;
        // 1 + 2^-23 + 2^-24 in units of 2^-24: 2^24 + 3.
        let x = (1u128 << 24) + 3;
        assert_eq!(round(false, x, -24, f32g, k, Rounding::TowardZero), 1.0 + pow2(-23));
        assert_eq!(round(false, x, -24, f32g, k, Rounding::NearestEven), 1.0 + pow2(-22));
        assert_eq!(round(true, x, -24, f32g, k, Rounding::Up), -1.0 - pow2(-23));
        // Overflow of binary16: RNE to infinity, RZ to 65504.
        assert_eq!(round(false, 65520, 0, Spec::F16, k, Rounding::NearestEven), f64::INFINITY);
        assert_eq!(round(false, 65520, 0, Spec::F16, k, Rounding::TowardZero), 65504.0);
        assert_eq!(round(false, 65519, 0, Spec::F16, k, Rounding::NearestEven), 65504.0);
        // E4M3: beyond 464 is NaN, 464 ties to 448.
        assert_eq!(round(false, 464, 0, Spec::E4M3, k, Rounding::NearestEven), 448.0);
        assert!(round(false, 465, 0, Spec::E4M3, k, Rounding::NearestEven).is_nan());
        // Subnormals of binary16: kept on 2^-24's grid, or flushed.
        assert_eq!(round(false, 3, -26, Spec::F16, k, Rounding::NearestEven), pow2(-24));
        assert_eq!(round(false, 3, -26, Spec::F16, Subnormals::Flush, Rounding::NearestEven), 0.0);
        assert_eq!(round(true, 0, 0, Spec::F16, k, Rounding::NearestEven).to_bits(), (-0.0f64).to_bits());
    }

    #[test]
    fn round_bits_keeps_a_precision() {
        assert_eq!(round_bits(false, 0b1_0111, 0, 3, Rounding::TowardZero), (0b101, 2));
        assert_eq!(round_bits(false, 0b1_0111, 0, 3, Rounding::NearestEven), (0b110, 2));
        assert_eq!(round_bits(false, 0b101, 0, 8, Rounding::TowardZero), (0b101, 0));
    }
}
