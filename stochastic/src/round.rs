//! Exact directed rounding of `+ - * /`, `sqrt` and conversions, for every format, without ever
//! touching the hardware rounding mode (Rust and LLVM assume round-to-nearest).
//!
//! Every kernel takes a direction `dir`: `+1.0` rounds toward +inf, `-1.0` toward -inf. The
//! direction is an `f64` rather than a `bool` so that kernels stay branch-free on the random bit.
//!
//! The method is the same everywhere: compute the round-to-nearest result `s`, obtain the exact
//! sign of the error `exact - s` with an error-free transformation (TwoSum, an FMA or Dekker
//! residual, or an exact wider computation), then move `s` one step in `dir` when the exact
//! value lies beyond it in that direction. Cases where the residual itself would underflow or
//! overflow take an exact integer slow path.
//!
//! A sum that is exactly zero gets the sign IEEE 754 gives it in the sample's direction
//! ([`zero_sum_sign`]): `x + (-x)` is `+0` rounding upward and `-0` rounding downward, as the
//! hardware's own directed rounding (and CADNA's) has it. The AVX-512 kernels then take the
//! hardware's result as it is, with no test on the path a running sum waits for.
//!
//! binary16 and bfloat16 samples are stored as `f32` values that lie on the 16-bit format's grid;
//! their operations are computed exactly (or with an exact residual) in `f64` and rounded onto the
//! grid by [`grid_round`].

use half::{bf16, f16};

pub(crate) const SIGN64: u64 = 1 << 63;
/// Whether the target has a hardware FMA (`-C target-cpu=native` on most machines); without one
/// `f64::mul_add` is a slow software routine, so residuals use Dekker's product instead.
const HAS_FMA: bool = cfg!(target_feature = "fma");
/// Below this magnitude an `f64` residual could underflow: take the exact slow path.
const TINY64: f64 = f64::from_bits(((-968i64 + 1023) as u64) << 52);
/// Above this magnitude Dekker's splitting could overflow: take the exact slow path.
const HUGE64: f64 = f64::from_bits(((995i64 + 1023) as u64) << 52);

pub(crate) use fptune_spec::pow2;

/// Moves `s` one ulp in direction `dir` when `err` (the sign of `exact - s`) points that way.
/// Branch-free. `s` is finite or infinite; when `s` is zero its sign is the sign of the exact
/// value (round-to-nearest preserves it), which makes the step from zero correct.
#[inline(always)]
fn step_f64(s: f64, err: f64, dir: f64) -> f64 {
    let cond = u64::from(err * dir > 0.0);
    let grows = ((s.to_bits() ^ dir.to_bits()) >> 63) == 0;
    let delta = if grows { 1u64 } else { u64::MAX };
    f64::from_bits(s.to_bits().wrapping_add(delta & 0u64.wrapping_sub(cond)))
}

#[inline(always)]
fn step_f32(s: f32, err: f64, dir: f64) -> f32 {
    let cond = u32::from(err * dir > 0.0);
    let grows = (s.is_sign_negative()) == (dir < 0.0);
    let delta = if grows { 1u32 } else { u32::MAX };
    f32::from_bits(s.to_bits().wrapping_add(delta & 0u32.wrapping_sub(cond)))
}

/// Result of an overflow of finite operands: infinity if rounding away from zero, else the
/// largest finite value of the same sign.
#[inline(never)]
fn overflow_f64(s: f64, dir: f64) -> f64 {
    if (s > 0.0) == (dir > 0.0) {
        s
    } else {
        f64::MAX.copysign(s)
    }
}

#[inline(never)]
fn overflow_f32(s: f32, dir: f64) -> f32 {
    if (s > 0.0) == (dir > 0.0) {
        s
    } else {
        f32::MAX.copysign(s)
    }
}

/// TwoSum (Knuth): `a + b = s + err` exactly when `s` is finite.
#[inline(always)]
pub(crate) fn two_sum_f64(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

#[inline(always)]
fn two_sum_f32(a: f32, b: f32) -> (f32, f32) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// `a*b - p` exactly (for `p = RN(a*b)` in the fast range): an FMA where the target has one,
/// Dekker's product otherwise.
#[inline(always)]
pub(crate) fn product_residual(a: f64, b: f64, p: f64) -> f64 {
    if HAS_FMA {
        a.mul_add(b, -p)
    } else {
        let (ah, al) = split(a);
        let (bh, bl) = split(b);
        ((ah * bh - p) + ah * bl + al * bh) + al * bl
    }
}

/// `c - a*b` with the exact sign (for `a*b` close to `c`, in the fast range).
#[inline(always)]
pub(crate) fn remainder_residual(c: f64, a: f64, b: f64) -> f64 {
    if HAS_FMA {
        (-a).mul_add(b, c)
    } else {
        let p = a * b;
        let e = product_residual(a, b, p);
        (c - p) - e
    }
}

/// Veltkamp splitting into two 26-bit halves.
#[inline(always)]
fn split(a: f64) -> (f64, f64) {
    const C: f64 = 134_217_729.0; // 2^27 + 1
    let t = C * a;
    let hi = t - (t - a);
    (hi, a - hi)
}

#[inline(always)]
pub(crate) fn in_fast_range(x: f64) -> bool {
    let m = x.abs();
    (TINY64..=HUGE64).contains(&m)
}

// ----------------------------------------------------------------------------------------------
// binary64
// ----------------------------------------------------------------------------------------------

/// The sign IEEE 754 gives a sum that is exactly zero (§6.3), applied to the directed sum `r` of
/// operands whose bit patterns or'ed together are `ab`: rounding toward -inf, `-0` unless both
/// operands are `+0`; toward +inf, what round to nearest gives (`+0` unless both are `-0`), which
/// `r` already has. `r` is zero only for an exact zero sum: a nonzero exact sum of two floats is a
/// multiple of the smallest subnormal, so it never rounds to zero. Branch-free.
#[inline(always)]
pub(crate) fn zero_sum_sign(r: f64, ab: u64, dir: f64) -> f64 {
    let fix = u64::from(r == 0.0) & u64::from(dir < 0.0);
    f64::from_bits(r.to_bits() | (ab & SIGN64 & 0u64.wrapping_sub(fix)))
}

/// The residual of TwoSum is NaN exactly when an operand is infinite or NaN, when `a + b`
/// overflowed, or when TwoSum's intermediate `s - a` overflowed although `s` is finite: `|b|` is
/// `MAX`, `a` has the opposite sign, and `a + b` was a tie rounded away from zero (e.g.
/// `f32: 1.3797003e38 - MAX`). A single NaN test sends all three to the slow path.
#[inline(always)]
pub(crate) fn add_f64(a: f64, b: f64, dir: f64) -> f64 {
    let (s, err) = two_sum_f64(a, b);
    if err.is_nan() {
        return add_f64_slow(a, b, s, dir);
    }
    zero_sum_sign(step_f64(s, err, dir), a.to_bits() | b.to_bits(), dir)
}

#[inline(never)]
fn add_f64_slow(a: f64, b: f64, s: f64, dir: f64) -> f64 {
    if !(a.is_finite() && b.is_finite()) {
        return s;
    }
    if !s.is_finite() {
        return overflow_f64(s, dir);
    }
    // Spurious overflow inside TwoSum: the operands are huge, so halving them is exact, and
    // `RN(a/2 + b/2) = s/2` with the residual halved, of the same sign.
    let (_, err) = two_sum_f64(a * 0.5, b * 0.5);
    step_f64(s, err, dir)
}

#[inline(always)]
pub(crate) fn mul_f64(a: f64, b: f64, dir: f64) -> f64 {
    let p = a * b;
    // With an FMA the residual is exact whenever it cannot underflow; Dekker's product also
    // needs both factors away from the extremes of the exponent range.
    if in_fast_range(p) && (HAS_FMA || (in_fast_range(a) && in_fast_range(b))) {
        step_f64(p, product_residual(a, b, p), dir)
    } else {
        mul_f64_slow(a, b, p, dir)
    }
}

#[inline(always)]
pub(crate) fn div_f64(a: f64, b: f64, dir: f64) -> f64 {
    let q = a / b;
    if in_fast_range(q) && in_fast_range(a) && (HAS_FMA || in_fast_range(b)) {
        let r = remainder_residual(a, q, b);
        // exact - q = r / b: give the residual the sign of the quotient's error.
        let err = f64::from_bits(r.to_bits() ^ (b.to_bits() & SIGN64));
        step_f64(q, err, dir)
    } else {
        div_f64_slow(a, b, q, dir)
    }
}

#[inline(always)]
pub(crate) fn sqrt_f64(a: f64, dir: f64) -> f64 {
    if in_fast_range(a) {
        let s = a.sqrt();
        step_f64(s, remainder_residual(a, s, s), dir)
    } else {
        sqrt_f64_slow(a, dir)
    }
}

#[inline(never)]
fn sqrt_f64_slow(a: f64, dir: f64) -> f64 {
    if !(a > 0.0 && a.is_finite()) {
        return a.sqrt();
    }
    // Scaling by an even power of two maps the (normal) result grid onto itself.
    if a < TINY64 {
        sqrt_f64(a * pow2(400), dir) * pow2(-200)
    } else {
        sqrt_f64(a * pow2(-400), dir) * pow2(200)
    }
}

/// `|x| = m * 2^e` with an integer significand.
pub(crate) const fn decompose(x: f64) -> (u64, i32) {
    let bits = x.to_bits() & !SIGN64;
    let e = (bits >> 52) as i32;
    let m = bits & ((1u64 << 52) - 1);
    if e == 0 {
        (m, -1074)
    } else {
        (m | (1u64 << 52), e - 1075)
    }
}

/// Like [`decompose`] with the significand's top bit moved to bit 52 (subnormals normalised).
pub(crate) fn decompose_normalised(x: f64) -> (u64, i32) {
    let (m, e) = decompose(x);
    let shift = m.leading_zeros() as i32 - 11;
    (m << shift, e - shift)
}

/// Rounds `(-1)^neg * (mant + sticky) * 2^exp` to `f64` in direction `dir`, where `sticky` says
/// that the exact value is strictly above `mant * 2^exp` in magnitude (but below the next unit).
fn round_u128_f64(neg: bool, mant: u128, exp: i32, sticky: bool, dir: f64) -> f64 {
    debug_assert!(mant != 0);
    let away = (dir > 0.0) != neg;
    let msb = 127 - mant.leading_zeros() as i32;
    let top = msb + exp;
    let mag = if top > 1023 {
        if away {
            f64::INFINITY
        } else {
            f64::MAX
        }
    } else {
        let q = (top - 52).max(-1074);
        let shift = q - exp;
        let (mut t, inexact) = if shift <= 0 {
            (mant << (-shift), sticky)
        } else if shift >= 128 {
            (0, true)
        } else {
            (mant >> shift, (mant & ((1u128 << shift) - 1)) != 0 || sticky)
        };
        if inexact && away {
            t += 1;
        }
        // t <= 2^53 and q <= 971: the product is exact, or overflows exactly when it must.
        (t as f64) * pow2(q)
    };
    if neg {
        -mag
    } else {
        mag
    }
}

#[inline(never)]
fn mul_f64_slow(a: f64, b: f64, p: f64, dir: f64) -> f64 {
    if !(a.is_finite() && b.is_finite()) || a == 0.0 || b == 0.0 {
        return p;
    }
    let (ma, ea) = decompose(a);
    let (mb, eb) = decompose(b);
    let neg = a.is_sign_negative() != b.is_sign_negative();
    round_u128_f64(neg, u128::from(ma) * u128::from(mb), ea + eb, false, dir)
}

#[inline(never)]
fn div_f64_slow(a: f64, b: f64, q: f64, dir: f64) -> f64 {
    if !(a.is_finite() && b.is_finite()) || a == 0.0 || b == 0.0 {
        return q;
    }
    let (ma, ea) = decompose_normalised(a);
    let (mb, eb) = decompose_normalised(b);
    let neg = a.is_sign_negative() != b.is_sign_negative();
    let num = u128::from(ma) << 74;
    let quo = num / u128::from(mb);
    let rem = num % u128::from(mb);
    round_u128_f64(neg, quo, ea - eb - 74, rem != 0, dir)
}

// ----------------------------------------------------------------------------------------------
// binary32
// ----------------------------------------------------------------------------------------------

/// See [`add_f64`] for the NaN test.
#[inline(always)]
pub(crate) fn add_f32(a: f32, b: f32, dir: f64) -> f32 {
    let (s, err) = two_sum_f32(a, b);
    if err.is_nan() {
        return add_f32_slow(a, b, s, dir);
    }
    // Widening is exact and keeps a zero's sign, so the narrowing back is exact too.
    let ab = f64::from(a).to_bits() | f64::from(b).to_bits();
    zero_sum_sign(f64::from(step_f32(s, f64::from(err), dir)), ab, dir) as f32
}

#[inline(never)]
fn add_f32_slow(a: f32, b: f32, s: f32, dir: f64) -> f32 {
    if !(a.is_finite() && b.is_finite()) {
        return s;
    }
    if !s.is_finite() {
        return overflow_f32(s, dir);
    }
    // Spurious overflow inside TwoSum: the sum is exact in f64.
    step_f32(s, f64::from(a) + f64::from(b) - f64::from(s), dir)
}

/// Directed rounding of an `f64` to `f32`. The error `x - RN32(x)` is exact in `f64`; when the
/// rounding overflowed, the error is -inf times the sign, which steps back to `f32::MAX` exactly
/// when rounding toward zero.
#[inline(always)]
pub(crate) fn f64_to_f32(x: f64, dir: f64) -> f32 {
    let s = x as f32;
    step_f32(s, x - f64::from(s), dir)
}

#[inline(always)]
pub(crate) fn mul_f32(a: f32, b: f32, dir: f64) -> f32 {
    // 24 x 24 bits fit in 53, and f32 exponents cannot leave f64's range: exact.
    f64_to_f32(f64::from(a) * f64::from(b), dir)
}

#[inline(always)]
pub(crate) fn div_f32(a: f32, b: f32, dir: f64) -> f32 {
    let q = a / b;
    let (a64, b64) = (f64::from(a), f64::from(b));
    // q*b is exact in f64, so the subtraction has the exact sign.
    let r = a64 - f64::from(q) * b64;
    let err = f64::from_bits(r.to_bits() ^ (b64.to_bits() & SIGN64));
    step_f32(q, err, dir)
}

#[inline(always)]
pub(crate) fn sqrt_f32(a: f32, dir: f64) -> f32 {
    let s = a.sqrt();
    let s64 = f64::from(s);
    step_f32(s, f64::from(a) - s64 * s64, dir)
}

// ----------------------------------------------------------------------------------------------
// 16-bit formats, as grids inside f64
// ----------------------------------------------------------------------------------------------

/// A binary floating-point format inside `f64`: `p` significand bits (hidden bit included),
/// smallest normal exponent `emin`, largest finite value `max`, and `beyond`, what a rounding
/// past `max` gives (infinity, or NaN or `max` itself in formats without infinities: see
/// `formats::Spec::grid`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Grid {
    pub p: i32,
    pub emin: i32,
    pub max: f64,
    pub beyond: f64,
}

pub(crate) const GRID_F16: Grid = Grid { p: 11, emin: -14, max: 65504.0, beyond: f64::INFINITY };
pub(crate) const GRID_BF16: Grid = Grid { p: 8, emin: -126, max: 3.389_531_389_251_535_5e38, beyond: f64::INFINITY };

/// The grid below a nonnegative finite `f64` of bits `mag_bits`: the grid point at or below it
/// (`trunc`), the quantum there (`q`) and the `f64` exponent of the value (subnormal `f64`s count
/// as exponent -1022, as their encoding scales).
#[inline(always)]
fn grid_below(mag_bits: u64, g: Grid) -> (f64, f64, i32) {
    let e = ((mag_bits >> 52) as i32).max(1) - 1023;
    let qe = e.max(g.emin) - (g.p - 1);
    let q = pow2(qe);
    let drop = 52 - (e - qe);
    let trunc = if drop > 52 { 0.0 } else { f64::from_bits(mag_bits & !((1u64 << drop) - 1)) };
    (trunc, q, e)
}

/// `x + err` placed on grid `g` (see [`grid_round`] for the terms): the magnitude's bits and
/// value, the grid point at or below it, the quantum there, `x`'s exponent, and the error's sign
/// relative to the magnitude. `None` for an infinite or NaN `x`, which rounds to itself.
struct Placed {
    neg: bool,
    mag_bits: u64,
    ax: f64,
    trunc: f64,
    q: f64,
    e: i32,
    err_mag: f64,
}

#[inline(always)]
fn place(x: f64, err: f64, g: Grid) -> Option<Placed> {
    let bits = x.to_bits();
    let mag_bits = bits & !SIGN64;
    if mag_bits >= f64::INFINITY.to_bits() {
        return None;
    }
    let neg = bits >> 63 != 0;
    let (trunc, q, e) = grid_below(mag_bits, g);
    Some(Placed { neg, mag_bits, ax: f64::from_bits(mag_bits), trunc, q, e, err_mag: if neg { -err } else { err } })
}

/// A rounded magnitude with its sign: past `g.max` it is `g.beyond` when the rounding went away
/// from zero (or to nearest), `g.max` when toward zero.
#[inline(always)]
fn signed_within(mag: f64, neg: bool, away: bool, g: Grid) -> f64 {
    let mag = if mag > g.max {
        if away {
            g.beyond
        } else {
            g.max
        }
    } else {
        mag
    };
    if neg {
        -mag
    } else {
        mag
    }
}

/// Directed rounding onto `g` of the exact value `x + err`, where `x` is a normal `f64` (or zero,
/// then `err` is zero) and `|err|` is at most half an ulp of `x` (zero when `x` is exact). `err`
/// only matters when `x` lies on the grid.
#[inline(always)]
pub(crate) fn grid_round(x: f64, err: f64, dir: f64, g: Grid) -> f64 {
    let Some(Placed { neg, mag_bits, ax, trunc, q, e, err_mag }) = place(x, err, g) else {
        return x;
    };
    let away = (dir > 0.0) != neg;
    let mag = if ax > trunc || err_mag > 0.0 {
        if away {
            trunc + q
        } else {
            trunc
        }
    } else if err_mag < 0.0 {
        if away {
            trunc
        } else {
            // The grid point below `trunc` (which is on the grid, so `e` is its exponent).
            let power_of_two = mag_bits & ((1u64 << 52) - 1) == 0;
            trunc - if power_of_two && e > g.emin { q * 0.5 } else { q }
        }
    } else {
        trunc
    };
    signed_within(mag, neg, away, g)
}

/// Round-to-nearest-even onto `g` of the exact value `x + err`, under the same terms as
/// [`grid_round`] (`x` a finite `f64`, `|err|` at most half an ulp of it): a tie is a value
/// exactly halfway between grid points (`x` halfway and `err` zero), and goes to the point whose
/// last significand bit is even. Beyond `max`: `g.beyond`.
#[inline]
pub(crate) fn grid_nearest_even(x: f64, err: f64, g: Grid) -> f64 {
    let Some(Placed { neg, ax, trunc, q, err_mag, .. }) = place(x, err, g) else {
        return x;
    };
    // Exact: `trunc` is `ax` with low bits cleared. When `x` is on the grid (`rest` zero) the
    // exact value is within half an ulp of `x`, which is no more than the quantum: `x` is the
    // nearest. Otherwise the quantum is wider than `x`'s ulp, `rest` and `q / 2` are multiples of
    // that ulp, and `rest < q / 2` leaves `rest + err` below too.
    let rest = ax - trunc;
    let half = q * 0.5;
    let up = rest != 0.0 && (rest > half || (rest == half && (err_mag > 0.0 || (err_mag == 0.0 && ((trunc / q) as u64) & 1 == 1))));
    signed_within(if up { trunc + q } else { trunc }, neg, true, g)
}

/// Round-to-nearest-even onto a 16-bit grid (for literals and inputs, which round as the
/// compiler would).
///
/// `half`'s own `from_f64` is not correctly rounded: its software conversion ignores the low 32
/// bits of the `f64` significand, and with F16C it converts through `f32` (double rounding), so
/// values just off a midpoint round the wrong way. Rounding to odd into `f32` first keeps the
/// information that matters (24 bits >= 11 + 2), and `half`'s `f32` conversions are correct.
#[inline(always)]
pub(crate) fn grid_nearest(x: f64, g: Grid) -> f64 {
    let s = x as f32;
    // Exact: x - RN32(x) fits in an f64 (-inf when s overflowed, NaN when x is).
    let err = x - f64::from(s);
    let odd = if s.to_bits() & 1 == 0 && err.abs() > 0.0 {
        step_f32(s, err, if err > 0.0 { 1.0 } else { -1.0 })
    } else {
        s
    };
    use crate::cvt::Half32;
    if g.p == GRID_F16.p {
        f64::from(f16::narrow(odd).widen())
    } else {
        f64::from(bf16::narrow(odd).widen())
    }
}

#[inline(always)]
pub(crate) fn add_grid(a: f32, b: f32, dir: f64, g: Grid) -> f32 {
    let (a, b) = (f64::from(a), f64::from(b));
    let (s, err) = two_sum_f64(a, b);
    zero_sum_sign(grid_round(s, err, dir, g), a.to_bits() | b.to_bits(), dir) as f32
}

#[inline(always)]
pub(crate) fn mul_grid(a: f32, b: f32, dir: f64, g: Grid) -> f32 {
    // At most 11 x 11 bits, exponents far inside f64's range: exact.
    grid_round(f64::from(a) * f64::from(b), 0.0, dir, g) as f32
}

#[inline(always)]
pub(crate) fn div_grid(a: f32, b: f32, dir: f64, g: Grid) -> f32 {
    let (a64, b64) = (f64::from(a), f64::from(b));
    let q = a64 / b64;
    // Only used when q lies on the grid, and then q*b is exact.
    let r = a64 - q * b64;
    let err = f64::from_bits(r.to_bits() ^ (b64.to_bits() & SIGN64));
    grid_round(q, err, dir, g) as f32
}

#[inline(always)]
pub(crate) fn sqrt_grid(a: f32, dir: f64, g: Grid) -> f32 {
    let a64 = f64::from(a);
    let s = a64.sqrt();
    grid_round(s, a64 - s * s, dir, g) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_third_brackets_the_exact_value() {
        let up = div_f64(1.0, 3.0, 1.0);
        let down = div_f64(1.0, 3.0, -1.0);
        assert_eq!(up, down.next_up());
        assert!(down < 1.0 / 3.0 || up > 1.0 / 3.0);
    }

    #[test]
    fn exact_operations_do_not_move() {
        for dir in [1.0, -1.0] {
            assert_eq!(add_f64(0.5, 0.25, dir), 0.75);
            assert_eq!(mul_f64(3.0, 7.0, dir), 21.0);
            assert_eq!(div_f64(1.0, 4.0, dir), 0.25);
            assert_eq!(sqrt_f64(9.0, dir), 3.0);
            assert_eq!(add_f32(0.5, 0.25, dir), 0.75);
            assert_eq!(mul_grid(3.0, 7.0, dir, GRID_F16), 21.0);
        }
    }

    #[test]
    fn overflow_rounds_to_max_toward_zero() {
        assert_eq!(add_f64(f64::MAX, f64::MAX, -1.0), f64::MAX);
        assert_eq!(add_f64(f64::MAX, f64::MAX, 1.0), f64::INFINITY);
        assert_eq!(mul_f32(f32::MAX, 2.0, -1.0), f32::MAX);
        assert_eq!(mul_grid(65504.0, 2.0, -1.0, GRID_F16), 65504.0);
        assert_eq!(mul_grid(65504.0, 2.0, 1.0, GRID_F16), f32::INFINITY);
    }

    #[test]
    fn underflow_rounds_to_smallest_subnormal_away_from_zero() {
        let tiny = pow2(-1074);
        assert_eq!(mul_f64(tiny, 0.5, 1.0), tiny);
        assert_eq!(mul_f64(tiny, 0.5, -1.0), 0.0);
        assert_eq!(mul_f64(-tiny, 0.5, 1.0), -0.0);
        assert_eq!(mul_f64(-tiny, 0.5, -1.0), -tiny);
        let h = f64::from(f16::from_bits(1).to_f32());
        assert_eq!(f64::from(mul_grid(h as f32, 0.5, 1.0, GRID_F16)), h);
        assert_eq!(mul_grid(h as f32, 0.5, -1.0, GRID_F16), 0.0);
    }
}
