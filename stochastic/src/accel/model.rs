//! One evaluation of the model: the values entering the unit, the aligned blocks, the chain of
//! instructions through the accumulator, with each rounding point's rounding asked of a
//! [`Points`] source.
//!
//! The native evaluation asks [`Native`], which answers each point with the unit's own rounding;
//! the DSA evaluation (`dsa.rs`) answers with a direction drawn at random for each sample. The
//! number and order of the rounding points depend only on the unit and the lengths, never on the
//! values, so the three samples of a DSA evaluation meet the same points in the same order:
//! per input value one (its entry onto the input grid), one for `c`, and per block one for the
//! alignment, one for the normalisation when the unit has one, one for the rounding into the
//! accumulator, and with [`AccEntry::Added`] one for the addition; with [`Unit::promote`] one per
//! chain for its addition to the total.

use super::significand::{decompose, exponent};
use crate::formats::Spec;
use super::exact::{round, round_bits, shift, Rounding, Subnormals};
use super::unit::{AccEntry, Alignment, Unit};

/// Where a rounding point asks how to round.
pub(crate) trait Points {
    /// The rounding at the next point, whose native rounding is `native`.
    fn at(&mut self, native: Rounding) -> Rounding;
}

/// The native model: every point rounds as the unit does.
pub(crate) struct Native;

impl Points for Native {
    #[inline]
    fn at(&mut self, native: Rounding) -> Rounding {
        native
    }
}

/// `x` rounded by `r` onto grid `g` (subnormals as `sub` says): a value entering the unit.
/// Infinities stay (become NaN in a format without them), NaN stays NaN.
pub(crate) fn enter(x: f64, g: Spec, sub: Subnormals, r: Rounding) -> f64 {
    if !x.is_finite() {
        return if x.is_nan() || g.has_infinity() { x } else { f64::NAN };
    }
    if x == 0.0 {
        return x;
    }
    let bits = x.to_bits();
    let (mag, exp) = if (bits >> 52) & 0x7ff == 0 {
        (u128::from(bits & ((1 << 52) - 1)), -1074)
    } else {
        (u128::from((bits & ((1 << 52) - 1)) | (1 << 52)), exponent(x) - 52)
    };
    round(x < 0.0, mag, exp, g, sub, r)
}

/// One exact term of a block: `(-1)^neg mag 2^exp`, aligned by exponent `top`.
#[derive(Clone, Copy)]
struct Term {
    neg: bool,
    mag: u64,
    exp: i32,
    top: i32,
}

/// The exact product of two finite values of the input grid, `None` when it is zero.
#[inline]
fn product(unit: &Unit, a: f64, b: f64) -> Option<Term> {
    if a == 0.0 || b == 0.0 {
        return None;
    }
    let (ga, gb) = (unit.input.grid(), unit.b_format().grid());
    let (na, ma, ea) = decompose(a, ga);
    let (nb, mb, eb) = decompose(b, gb);
    let mag = ma * mb;
    let exp = ea + eb - (ga.precision() as i32 - 1) - (gb.precision() as i32 - 1);
    let top = match unit.alignment {
        Alignment::ExponentSum => ea + eb,
        Alignment::LeadingBit => super::exact::top(u128::from(mag), exp),
    };
    Some(Term { neg: na != nb, mag, exp, top })
}

/// A finite value of the accumulator's grid as a term, `None` when it is zero.
#[inline]
fn acc_term(unit: &Unit, c: f64) -> Option<Term> {
    if c == 0.0 {
        return None;
    }
    let g = unit.acc.grid();
    let (neg, mag, e) = decompose(c, g);
    Some(Term { neg, mag, exp: e - g.precision() as i32 + 1, top: e })
}

/// One block: products of `a[l] b[l]` (finite, on the input grid), with `c` fused when given,
/// aligned, summed and rounded into the accumulator's format.
fn block<P: Points>(unit: &Unit, a: &[f64], b: &[f64], c: Option<f64>, pts: &mut P) -> f64 {
    let align_r = pts.at(unit.align_rounding);
    let norm_r = unit.normalise_bits.map(|_| pts.at(Rounding::TowardZero));
    let acc_r = pts.at(unit.acc_rounding);
    let mut terms = [Term { neg: false, mag: 0, exp: 0, top: 0 }; 65];
    let mut n = 0;
    let mut all_negative_zero = true;
    for (&x, &y) in a.iter().zip(b) {
        match product(unit, x, y) {
            Some(t) => {
                terms[n] = t;
                n += 1;
            }
            None => all_negative_zero &= (x.is_sign_negative()) != (y.is_sign_negative()),
        }
    }
    if let Some(c) = c {
        match acc_term(unit, c) {
            Some(t) => {
                terms[n] = t;
                n += 1;
            }
            None => all_negative_zero &= c.is_sign_negative(),
        }
    }
    let terms = &terms[..n];
    if terms.is_empty() {
        // A sum of zeros: -0 only when every one is -0 (IEEE 754's rule).
        return if all_negative_zero { -0.0 } else { 0.0 };
    }
    let emax = terms.iter().map(|t| t.top).max().unwrap_or(0);
    let q = emax - unit.fraction_bits as i32;
    let mut sum: i128 = 0;
    for t in terms {
        let m = shift(t.neg, u128::from(t.mag), t.exp, q, align_r) as i128;
        sum += if t.neg { -m } else { m };
    }
    if sum == 0 {
        // An exact cancellation is +0, but toward -inf (IEEE 754).
        return if acc_r == Rounding::Down { -0.0 } else { 0.0 };
    }
    let (neg, mag) = (sum < 0, sum.unsigned_abs());
    let (mag, q) = match (unit.normalise_bits, norm_r) {
        (Some(bits), Some(r)) => round_bits(neg, mag, q, bits, r),
        _ => (mag, q),
    };
    round(neg, mag, q, unit.acc.grid(), unit.output_subnormals, acc_r)
}

/// `x + y` for two finite values of the accumulator's grid, exactly, rounded by `r`.
fn add(unit: &Unit, x: f64, y: f64, r: Rounding) -> f64 {
    let g = unit.acc.grid();
    let (tx, ty) = match (acc_term(unit, x), acc_term(unit, y)) {
        // A zero operand: the other is the exact sum (on the grid already), but for two zeros,
        // whose sum is -0 when both are, or when they differ and `r` rounds down (IEEE 754).
        (None, None) => return if (x.is_sign_negative() && y.is_sign_negative()) || (r == Rounding::Down && x.is_sign_negative() != y.is_sign_negative()) { -0.0 } else { 0.0 },
        (None, Some(_)) => return y,
        (Some(_), None) => return x,
        (Some(tx), Some(ty)) => (tx, ty),
    };
    let (big, small) = if tx.exp >= ty.exp { (tx, ty) } else { (ty, tx) };
    // Far below the larger one the smaller term is a sticky bit: the same rounding either way.
    let (small_mag, small_exp) = if big.exp - small.exp > 60 { (1u128, big.exp - 60) } else { (u128::from(small.mag), small.exp) };
    let base = small_exp;
    let b = (u128::from(big.mag) << (big.exp - base)) as i128;
    let s = small_mag as i128;
    let sum = (if big.neg { -b } else { b }) + if small.neg { -s } else { s };
    if sum == 0 {
        return if r == Rounding::Down { -0.0 } else { 0.0 };
    }
    round(sum < 0, sum.unsigned_abs(), base, g, unit.output_subnormals, r)
}

/// One instruction: `k` (or fewer) products and the accumulator `c`, all finite and on their
/// grids, block after block.
pub(crate) fn instruction<P: Points>(unit: &Unit, a: &[f64], b: &[f64], mut c: f64, pts: &mut P) -> f64 {
    let mut start = 0;
    loop {
        let end = (start + unit.block).min(a.len());
        c = match unit.acc_entry {
            AccEntry::Fused => block(unit, &a[start..end], &b[start..end], Some(c), pts),
            AccEntry::Added => {
                let s = block(unit, &a[start..end], &b[start..end], None, pts);
                let r = pts.at(unit.add_rounding);
                add(unit, c, s, r)
            }
        };
        start = end;
        if start >= a.len() {
            return c;
        }
    }
}

/// The dot product `sum a[l] b[l] + c` through `unit`, inputs already on their grids (entered):
/// `ceil(n / k)` instructions chained through the accumulator, or with [`Unit::promote`] chains
/// of `N` products from zero added to a total that `c` starts. A non-finite input makes the
/// result the `f64` evaluation of the same sum (an infinity or NaN, as the hardware propagates
/// them; not modelled further).
pub(crate) fn chain<P: Points>(unit: &Unit, a: &[f64], b: &[f64], c: f64, pts: &mut P) -> f64 {
    assert_eq!(a.len(), b.len(), "dot product of slices of different lengths");
    assert!((1..=64).contains(&unit.block) && unit.k >= 1 && unit.fraction_bits <= 64, "{}: the model takes blocks of 1 to 64 products, k >= 1 and at most 64 fraction bits", unit.name);
    if !c.is_finite() || a.iter().chain(b).any(|x| !x.is_finite()) {
        let s = a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>() + c;
        return if s.is_nan() || unit.acc.grid().has_infinity() { s } else { f64::NAN };
    }
    match unit.promote {
        None => instructions(unit, a, b, c, pts),
        Some(n) => {
            let n = n.max(1);
            let mut total = c;
            for (ca, cb) in a.chunks(n).zip(b.chunks(n)) {
                let partial = instructions(unit, ca, cb, 0.0, pts);
                let r = pts.at(unit.add_rounding);
                total = if total.is_finite() && partial.is_finite() { add(unit, total, partial, r) } else { total + partial };
            }
            total
        }
    }
}

/// `ceil(n / k)` instructions chained through the accumulator from `c`.
fn instructions<P: Points>(unit: &Unit, a: &[f64], b: &[f64], c: f64, pts: &mut P) -> f64 {
    let mut acc = c;
    let n = unit.instructions(a.len());
    for i in 0..n {
        let lo = (i * unit.k).min(a.len());
        let hi = ((i + 1) * unit.k).min(a.len());
        // An overflow to infinity stays: finite products cannot bring it back.
        if acc.is_finite() {
            acc = instruction(unit, &a[lo..hi], &b[lo..hi], acc, pts);
        } else {
            instruction(unit, &[], &[], 0.0, pts);
        }
    }
    acc
}

/// Rounds `x` onto the grid of the `a` inputs (`r` natively to nearest even).
pub(crate) fn enter_a(unit: &Unit, x: f64, r: Rounding) -> f64 {
    enter(x, unit.input.grid(), unit.input_subnormals, r)
}

/// Rounds `x` onto the grid of the `b` inputs.
pub(crate) fn enter_b(unit: &Unit, x: f64, r: Rounding) -> f64 {
    enter(x, unit.b_format().grid(), unit.input_subnormals, r)
}

/// Rounds `x` onto the accumulator's grid.
pub(crate) fn enter_acc(unit: &Unit, x: f64, r: Rounding) -> f64 {
    enter(x, unit.acc.grid(), unit.output_subnormals, r)
}
