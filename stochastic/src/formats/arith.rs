//! `+ - * /`, `sqrt` and conversions of values of any [`Spec`], rounded exactly onto its grid.
//!
//! The method is `round.rs`'s: compute the `f64` result nearest the exact one, get the exact
//! error's sign by an error-free transformation (TwoSum, an FMA residual), and round that pair
//! onto the format's grid (`round::grid_round`, `round::grid_nearest_even`). Since the grid is
//! a subset of binary64's, `f64`'s nearest value lies between the same two grid points as the
//! exact value, or on one of them, where the error's sign decides. Where a residual could
//! underflow or overflow (magnitudes beyond `round::in_fast_range`), the exact integer path of
//! `exact.rs` takes over. Infinities and NaN propagate as IEEE 754 says; in a format without
//! infinities a result that would be infinite is NaN (or the largest value, saturating).

use super::exact;
use super::Spec;
use crate::round::{self, grid_nearest_even, grid_round, SIGN64};

/// A rounding of exact results onto a format's grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// To nearest, ties to the even significand (IEEE 754's default; what native code does).
    NearestEven,
    /// Toward +infinity.
    Up,
    /// Toward -infinity.
    Down,
}

impl Rounding {
    /// The rounding toward +inf (`dir > 0`) or -inf, as the DSA kernels name directions.
    #[inline]
    pub fn directed(dir: f64) -> Rounding {
        if dir > 0.0 {
            Rounding::Up
        } else {
            Rounding::Down
        }
    }

    /// Whether a result of sign `neg` rounds away from zero (directed roundings only).
    #[inline]
    pub(crate) const fn away(self, neg: bool) -> bool {
        match self {
            Rounding::NearestEven => false,
            Rounding::Up => !neg,
            Rounding::Down => neg,
        }
    }
}

/// The exact value `x + err` (`x` the `f64` nearest it, `|err|` at most half its ulp, only its
/// sign used) rounded onto `spec`, subnormal results flushed where the format flushes.
#[inline(always)]
pub(crate) fn finish(spec: Spec, x: f64, err: f64, mode: Rounding) -> f64 {
    let g = super::grid(spec);
    let r = match mode {
        Rounding::NearestEven => grid_nearest_even(x, err, g),
        Rounding::Up => grid_round(x, err, 1.0, g),
        Rounding::Down => grid_round(x, err, -1.0, g),
    };
    spec.flush(r)
}

/// Whether every sum of two finite values of the format is exact in `f64`: its largest exponent
/// and its smallest quantum at most 53 bits apart.
#[inline(always)]
const fn exact_sums(spec: Spec) -> bool {
    spec.emax() + 1 - (spec.emin() - spec.man_bits as i32) <= 53
}

/// Whether every product of two values of the format is exact in `f64` (where it does not
/// underflow): at most 26 significant bits each.
#[inline(always)]
const fn exact_products(spec: Spec) -> bool {
    2 * spec.precision() <= 53
}

/// A finite exact result whose `f64` overflowed, of sign `neg`: beyond the format's range.
pub(crate) const fn overflowed(spec: Spec, neg: bool, mode: Rounding) -> f64 {
    let mag = match mode {
        Rounding::NearestEven => spec.beyond(),
        m if m.away(neg) => spec.beyond(),
        _ => spec.max(),
    };
    if neg {
        -mag
    } else {
        mag
    }
}

/// An infinite result of IEEE arithmetic on the operands as the format has it: itself, or in a
/// format without infinities NaN (the largest value, saturating).
#[inline]
fn special(spec: Spec, r: f64) -> f64 {
    if r.is_infinite() && !spec.has_infinity() {
        spec.beyond().copysign(r)
    } else {
        r
    }
}

/// Any `f64` rounded onto the format (a literal, an input, a narrowing conversion). Infinities
/// stay infinite where the format has them, and become NaN (or the largest value, saturating)
/// where it has not.
#[inline(always)]
pub fn round(spec: Spec, x: f64, mode: Rounding) -> f64 {
    if !x.is_finite() {
        return special(spec, x);
    }
    finish(spec, x, 0.0, mode)
}

/// `a + b` of values of the format, rounded.
#[inline(always)]
pub fn add(spec: Spec, a: f64, b: f64, mode: Rounding) -> f64 {
    let (a, b) = (spec.flush(a), spec.flush(b));
    // A format spanning at most 53 bits from its top exponent to its smallest quantum (E4M3,
    // E5M2, binary16) has every sum of two finite values exact in `f64`: no residual.
    let (s, err) = if exact_sums(spec) && a.is_finite() && b.is_finite() { (a + b, 0.0) } else { round::two_sum_f64(a, b) };
    if err.is_nan() {
        if !(a.is_finite() && b.is_finite()) {
            return special(spec, a + b);
        }
        if s.is_infinite() {
            return overflowed(spec, s < 0.0, mode);
        }
        return exact::add(spec, a, b, mode);
    }
    let r = finish(spec, s, err, mode);
    if s == 0.0 {
        // An exact zero sum: +0, or -0 when both operands are -0 or rounding toward -inf.
        round::zero_sum_sign(r, a.to_bits() | b.to_bits(), if mode == Rounding::Down { -1.0 } else { 1.0 })
    } else {
        r
    }
}

/// `a - b` of values of the format, rounded.
#[inline(always)]
pub fn sub(spec: Spec, a: f64, b: f64, mode: Rounding) -> f64 {
    add(spec, a, -b, mode)
}

/// `a * b` of values of the format, rounded.
#[inline(always)]
pub fn mul(spec: Spec, a: f64, b: f64, mode: Rounding) -> f64 {
    let (a, b) = (spec.flush(a), spec.flush(b));
    let p = a * b;
    if !(a.is_finite() && b.is_finite()) || a == 0.0 || b == 0.0 {
        return special(spec, p);
    }
    // A product of two values of at most 26 significant bits is exact in `f64` where `f64` does
    // not underflow (E4M3, TF32, bfloat16, ...): no residual.
    if exact_products(spec) && round::in_fast_range(p) {
        return finish(spec, p, 0.0, mode);
    }
    // Dekker's product (no FMA) splits the operands: they must be in range too.
    if round::in_fast_range(p) && round::in_fast_range(a) && round::in_fast_range(b) {
        return finish(spec, p, round::product_residual(a, b, p), mode);
    }
    if p.is_infinite() {
        return overflowed(spec, p < 0.0, mode);
    }
    exact::mul(spec, a, b, mode)
}

/// `a / b` of values of the format, rounded.
#[inline(always)]
pub fn div(spec: Spec, a: f64, b: f64, mode: Rounding) -> f64 {
    let (a, b) = (spec.flush(a), spec.flush(b));
    let q = a / b;
    if !(a.is_finite() && b.is_finite()) || a == 0.0 || b == 0.0 {
        return special(spec, q);
    }
    if round::in_fast_range(q) && round::in_fast_range(a) && round::in_fast_range(b) {
        // a = q b + r exactly; the error of q is r / b, of the sign of r times b's.
        let r = round::remainder_residual(a, q, b);
        return finish(spec, q, f64::from_bits(r.to_bits() ^ (b.to_bits() & SIGN64)), mode);
    }
    if q.is_infinite() {
        return overflowed(spec, q < 0.0, mode);
    }
    exact::div(spec, a, b, mode)
}

/// `sqrt(a)` of a value of the format, rounded.
#[inline(always)]
pub fn sqrt(spec: Spec, a: f64, mode: Rounding) -> f64 {
    let a = spec.flush(a);
    let s = a.sqrt();
    if !(a.is_finite() && a > 0.0) {
        return s;
    }
    if round::in_fast_range(a) {
        return finish(spec, s, round::remainder_residual(a, s, s), mode);
    }
    exact::sqrt(spec, a, mode)
}
