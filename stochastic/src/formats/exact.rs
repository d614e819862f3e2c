//! The exact integer path of the format kernels: operands as integer significands and
//! exponents, the result's significand in a `u128` with a sticky bit, rounded onto the grid.
//!
//! Taken where an `f64` residual could underflow or overflow (`arith.rs`); unit-tested against
//! the fast path and, with every other kernel, against big-integer arithmetic in
//! `tests/formats_exact.rs`.

use super::arith::{overflowed, Rounding};
use super::Spec;
use crate::round::{decompose, decompose_normalised, pow2};

/// Rounds `(-1)^neg (mant + s) 2^exp` onto `spec`, where `s` (the sticky bit) says the exact
/// magnitude lies strictly between `mant 2^exp` and `(mant + 1) 2^exp`. With `sticky`, `mant`
/// must carry at least two bits below the grid's quantum (every caller gives it ten or more).
/// A `const fn`: `Fx::from_f64_const` rounds with it too.
pub(crate) const fn round_int(spec: Spec, neg: bool, mant: u128, exp: i32, sticky: bool, mode: Rounding) -> f64 {
    if mant == 0 {
        debug_assert!(!sticky);
        return if neg { -0.0 } else { 0.0 };
    }
    let top = 127 - mant.leading_zeros() as i32 + exp;
    if top > spec.emax() {
        return overflowed(spec, neg, mode);
    }
    let p = spec.precision() as i32;
    let qe = if top > spec.emin() { top } else { spec.emin() } - (p - 1);
    let shift = qe - exp;
    let (kept, rest, half) = if shift <= 0 {
        debug_assert!(!sticky, "a sticky value needs bits below the quantum");
        (mant << (-shift) as u32, 0u128, 1u128)
    } else if shift < 128 {
        (mant >> shift, mant & ((1u128 << shift) - 1), 1u128 << (shift - 1))
    } else if shift == 128 {
        (0, mant, 1u128 << 127)
    } else {
        // Below half the quantum: `half` stands for 2^(shift-1), beyond any u128.
        (0, mant, u128::MAX)
    };
    debug_assert!(!sticky || shift >= 2);
    let inexact = rest != 0 || sticky;
    let up = match mode {
        Rounding::NearestEven => rest > half || (rest == half && (sticky || kept & 1 == 1)),
        m => inexact && m.away(neg),
    };
    let kept = kept + up as u128;
    // `kept` has at most p + 1 <= 54 bits: exact in f64, and a grid value times 2^qe is too.
    let mag = kept as f64 * pow2(qe);
    if mag > spec.max() {
        return overflowed(spec, neg, mode);
    }
    spec.flush(if neg { -mag } else { mag })
}

/// `a * b` of nonzero finite values, exactly rounded.
pub(crate) fn mul(spec: Spec, a: f64, b: f64, mode: Rounding) -> f64 {
    let ((ma, ea), (mb, eb)) = (decompose(a), decompose(b));
    round_int(spec, (a < 0.0) != (b < 0.0), u128::from(ma) * u128::from(mb), ea + eb, false, mode)
}

/// `a / b` of nonzero finite values, exactly rounded: a quotient of 63 or more bits and a
/// sticky remainder.
pub(crate) fn div(spec: Spec, a: f64, b: f64, mode: Rounding) -> f64 {
    let ((ma, ea), (mb, eb)) = (decompose_normalised(a), decompose_normalised(b));
    let n = u128::from(ma) << 64;
    let (q, r) = (n / u128::from(mb), n % u128::from(mb));
    round_int(spec, (a < 0.0) != (b < 0.0), q, ea - eb - 64, r != 0, mode)
}

/// `sqrt(a)` of a positive finite value, exactly rounded.
pub(crate) fn sqrt(spec: Spec, a: f64, mode: Rounding) -> f64 {
    let (mut m, mut e) = decompose_normalised(a);
    if e % 2 != 0 {
        m <<= 1;
        e -= 1;
    }
    let n = u128::from(m) << 64;
    let s = n.isqrt();
    round_int(spec, false, s, (e - 64) / 2, s * s != n, mode)
}

/// `a + b` of finite values whose TwoSum could not be trusted (an intermediate overflowed),
/// exactly rounded.
pub(crate) fn add(spec: Spec, a: f64, b: f64, mode: Rounding) -> f64 {
    let ((ma, ea), (mb, eb)) = (decompose(a), decompose(b));
    let (big, small, (mbig, ebig), (msmall, esmall)) = if (ma != 0 && ea > eb) || mb == 0 { (a, b, (ma, ea), (mb, eb)) } else { (b, a, (mb, eb), (ma, ea)) };
    if msmall == 0 {
        return super::arith::round(spec, big, mode);
    }
    let same = (big < 0.0) == (small < 0.0);
    if ebig - esmall > 60 {
        // The smaller operand only decides which side of the larger the sum lies on.
        let m = u128::from(mbig) << 3;
        let m = if same { m } else { m - 1 };
        return round_int(spec, big < 0.0, m, ebig - 3, true, mode);
    }
    let shift = (ebig - esmall) as u32;
    let x = i128::from(mbig) << shift;
    let y = i128::from(msmall);
    let s = if same { x + y } else { x - y };
    if s == 0 {
        // An exact zero sum of operands of opposite signs: -0 only rounding toward -inf.
        return if mode == Rounding::Down { -0.0 } else { 0.0 };
    }
    round_int(spec, (big < 0.0) != (s < 0), s.unsigned_abs(), esmall, false, mode)
}
