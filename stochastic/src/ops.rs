//! Arithmetic operators and comparisons.
//!
//! One canonical implementation per operation between two values of the same format
//! (`Stochastic::add_same` and friends); every other combination (two formats, a primitive on
//! either side, references, `*Assign`) is generated from it by macros. Between two formats the
//! operation is computed in the wider one ([`Promote`]); a primitive operand adapts to the
//! stochastic operand's format, rounded to nearest like a literal. Only `f64` primitives take
//! part (as float literals default to `f64`): with `f32` impls too, `2.0 * x` would not infer.

use std::cmp::Ordering;
use std::iter::{Product, Sum};
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use half::{bf16, f16};

use crate::format::{Format, Promote, Repr};
use crate::rng;
use crate::stochastic::{self, Instability};
use crate::value::{accuracy_scale, is_noise_f64, note, surely_below, Stochastic, SURELY_MIN};

/// `10^(-2 * MAX_DIGITS)`: the accuracy scale of an exact value of format `F`.
#[inline(always)]
pub(crate) fn exact_scale<F: Format>() -> f64 {
    match F::PRECISION {
        53 => 1.258_925_411_794_166_4e-32,
        24 => 3.630_780_547_701_013e-15,
        11 => 2.398_832_919_019_490_4e-7,
        8 => 1.513_561_248_436_208_3e-5,
        // Another format (`Fx`): the same definition, computed.
        _ => 10f64.powf(-2.0 * F::MAX_DIGITS),
    }
}

impl<F: Format> Stochastic<F> {
    #[inline(always)]
    fn apply2(a: Self, b: Self, k: impl Fn(F::Repr, F::Repr, f64) -> F::Repr) -> Self {
        let d = rng::directions();
        Self::from_repr([k(a.s[0], b.s[0], d[0]), k(a.s[1], b.s[1], d[1]), k(a.s[2], b.s[2], d[2])])
    }

    /// Counts an overflow when a sample became infinite from finite operands, and an underflow
    /// when one became zero from finite nonzero operands although `exact_nonzero` says the exact
    /// result was then not zero (products, quotients): at most one of each per operation, as
    /// CADNA counts operations (not samples).
    #[inline(always)]
    fn check_range(self, a: Self, b: Self, exact_nonzero: bool) {
        // Only a zero or infinite result can count (the common case ends here).
        if F::all_nonzero_finite(self.s) {
            return;
        }
        range_rest::<F>(self.s, a.s, b.s, exact_nonzero);
    }

    /// `a + b` in one format, with cancellation detection.
    #[inline(always)]
    pub(crate) fn add_same(self, rhs: Self) -> Self {
        let bits = rng::direction_bits();
        let mask = stochastic::detect_mask();
        let r = Self::from_repr(F::add3(self.s, rhs.s, bits, stochastic::cpu_flags(mask)));
        if stochastic::mask_has(mask, Instability::Cancellation) {
            r.check_cancellation(self, rhs);
        }
        if F::LIMITED_RANGE && stochastic::mask_has(mask, Instability::Overflow) {
            r.check_range(self, rhs, false);
        }
        r
    }

    /// A result lost at least the threshold of digits against the less accurate operand.
    #[inline(always)]
    fn check_cancellation(self, a: Self, b: Self) {
        // Equal samples lost nothing; the operands have at most MAX_DIGITS, so a result more
        // accurate than `floor * k` lost fewer digits than the threshold. Decided first without
        // a floating-point operation: binary64 and binary32 samples within a few hundred ulps of
        // each other are that accurate (`stochastic::cancel_ulps_for`).
        if F::sum_surely_accurate(self.s) {
            return;
        }
        // Nothing to check when no result can be that inaccurate (`lr` is at most 1): the
        // 16-bit formats' default threshold ends here.
        let (floor, k) = (exact_scale::<F>(), stochastic::cancel_scale());
        if floor * k > 1.0 {
            return;
        }
        let ([r0, r1, r2], [a0, a1, a2], [b0, b1, b2]) = (self.samples_f64(), a.samples_f64(), b.samples_f64());
        cancellation_rest(F::PRECISION, floor, k, r0, r1, r2, a0, a1, a2, b0, b1, b2);
    }

    /// `a * b` in one format.
    #[inline(always)]
    pub(crate) fn mul_same(self, rhs: Self) -> Self {
        let mask = stochastic::detect_mask();
        let r = if F::exact_finite(self.s) & F::exact_finite(rhs.s) {
            // Two exactly known operands (inputs, constants): not noise, and one product serves
            // the three samples.
            let bits = rng::direction_bits();
            Self::from_repr(F::mul3_exact(self.s[0], rhs.s[0], bits, stochastic::cpu_flags(mask)))
        } else {
            if stochastic::mask_has(mask, Instability::UnstableMultiplication)
                && !F::surely_not_noise(self.s)
                && !F::surely_not_noise(rhs.s)
            {
                let ([a0, a1, a2], [b0, b1, b2]) = (self.samples_f64(), rhs.samples_f64());
                noisy_product(a0, a1, a2, b0, b1, b2);
            }
            let bits = rng::direction_bits();
            Self::from_repr(F::mul3(self.s, rhs.s, bits, stochastic::cpu_flags(mask)))
        };
        if F::LIMITED_RANGE && mask & stochastic::RANGE_BITS != 0 {
            r.check_range(self, rhs, true);
        }
        r
    }

    /// `a / b` in one format.
    #[inline(always)]
    pub(crate) fn div_same(self, rhs: Self) -> Self {
        let mask = stochastic::detect_mask();
        if stochastic::mask_has(mask, Instability::UnstableDivision) && !F::surely_not_noise(rhs.s) {
            let [b0, b1, b2] = rhs.samples_f64();
            noisy_divisor(b0, b1, b2);
        }
        let r = Self::apply2(self, rhs, F::div);
        if F::LIMITED_RANGE && mask & stochastic::RANGE_BITS != 0 {
            r.check_range(self, rhs, true);
        }
        r
    }

    /// The comparison of `self - rhs` against zero, as CADNA's relational operators: equal when
    /// the difference is a computed zero (zero mean, or numerical noise), otherwise ordered by
    /// the sign of the mean difference. `None` when a sample is NaN.
    ///
    /// A noisy difference counts an unstable branching when `branching` is set: for the order
    /// relations (`<`, `<=`, `>`, `>=`), whose answer is then the equality's, but not for `==` and
    /// `!=`, which CADNA defines as the computed-zero test itself and never reports (its
    /// `cadna_eq.h`/`cadna_ne.h`; examplesC/ex2 branches on `d == 0` with `d` noise and reports
    /// only the cancellation). Under [`stochastic::NOISE_ORDER_ENV`]`=mean` an order relation on
    /// noise follows the sign of the mean difference instead (counted all the same).
    #[inline(always)]
    pub(crate) fn compare_same(self, rhs: Self, branching: bool) -> Option<Ordering> {
        let d = self.add_same_quiet(-rhs);
        let s = d.samples_f64();
        if s.iter().any(|x| x.is_nan()) {
            return None;
        }
        let sum = s[0] + s[1] + s[2];
        if is_noise_f64(s) {
            if s.iter().any(|x| x.is_infinite()) {
                // An infinite difference is not noise to CADNA's comparisons (its
                // `numericalnoise` is false): order by its sign.
                return sum.partial_cmp(&0.0);
            }
            if branching {
                note(Instability::UnstableBranching);
                if stochastic::noise_order_by_mean() {
                    return sum.partial_cmp(&0.0);
                }
            }
            return Some(Ordering::Equal);
        }
        sum.partial_cmp(&0.0)
    }

    /// `a + b` without instability detection (for the difference inside a comparison).
    #[inline(always)]
    fn add_same_quiet(self, rhs: Self) -> Self {
        Self::apply2(self, rhs, F::add)
    }
}

/// The rest of [`Stochastic::check_range`], for a zero or infinite result: rare, so out of line.
#[cold]
#[inline(never)]
fn range_rest<F: Format>(r: [F::Repr; 3], a: [F::Repr; 3], b: [F::Repr; 3], exact_nonzero: bool) {
    let events = F::range_events(r, a, b, exact_nonzero);
    if events & crate::lanes::OVERFLOWED != 0 {
        note(Instability::Overflow);
    }
    if events & crate::lanes::UNDERFLOWED != 0 {
        note(Instability::Underflow);
    }
}

/// An unstable multiplication when both factors are noise (the test the samples' bits did not
/// decide; out of line, as [`cancellation_rest`]).
#[inline(never)]
fn noisy_product(a0: f64, a1: f64, a2: f64, b0: f64, b1: f64, b2: f64) {
    if is_noise_f64([a0, a1, a2]) && is_noise_f64([b0, b1, b2]) {
        stochastic::record(Instability::UnstableMultiplication);
    }
}

/// An unstable division when the divisor is noise (as [`noisy_product`]).
#[inline(never)]
fn noisy_divisor(b0: f64, b1: f64, b2: f64) {
    if is_noise_f64([b0, b1, b2]) {
        stochastic::record(Instability::UnstableDivision);
    }
}

/// The rest of [`Stochastic::check_cancellation`], for the sums its quick tests leave: out of
/// line, as it costs more than the quick tests and runs far less often, so that every sum the
/// user's code makes does not carry it (inlined into each, it made a 3,000-line DSA build spend
/// minutes in LLVM). Scalars, not arrays: an array argument of an outlined function is passed by
/// reference, which would keep the samples in memory on the fast path too.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn cancellation_rest(precision: u32, floor: f64, k: f64, r0: f64, r1: f64, r2: f64, a0: f64, a1: f64, a2: f64, b0: f64, b1: f64, b2: f64) {
    // A sum not much smaller than its operands cannot have lost the threshold's digits:
    // `|r_0| >= rho (|a_0| + |b_0|)` on the first samples, with `rho` about `22 / 10^digits`
    // for binary64 (`stochastic::cancel_ratio_for`).
    if surely_kept_digits([r0, a0, b0], stochastic::cancel_ratio(precision)) {
        return;
    }
    if cancellation_reported([r0, r1, r2], [a0, a1, a2], [b0, b1, b2], floor, k) {
        stochastic::record(Instability::Cancellation);
    }
}

/// The cancellation test on the samples of a result `rs` and of its operands `a_s`, `b_s`: the
/// result's accuracy scale is at least `worse * k` (it lost `digits` digits against the less
/// accurate operand, `k = 100^digits`), with `worse * k <= 1`. `floor` is the format's exact scale.
#[inline(always)]
pub(crate) fn cancellation_reported(rs: [f64; 3], a_s: [f64; 3], b_s: [f64; 3], floor: f64, k: f64) -> bool {
    // Without a division: `lr` is at most 1, and for a threshold in `[SURELY_MIN, 0.1]` (where
    // `lr` is not clamped to 1) `surely_below` implies `lr < floor * k`.
    let t = floor * k;
    if t > 1.0 || (k > 1.0 && (SURELY_MIN..=0.1).contains(&t) && surely_below(rs, t)) {
        return false;
    }
    if rs[0] == rs[1] && rs[1] == rs[2] {
        return false;
    }
    let lr = accuracy_scale(rs, floor);
    if lr < floor * k {
        return false;
    }
    let worse = accuracy_scale(a_s, floor).max(accuracy_scale(b_s, floor));
    worse * k <= 1.0 && lr >= worse * k
}

/// The ratio test of the cancellation check: whether a sum whose first samples are
/// `[r_0, a_0, b_0]` (result, operands) surely kept its digits, `|r_0| >= rho (|a_0| + |b_0|)` with
/// `|a_0| + |b_0|` in `[lo, hi]`, for `[rho, lo, hi]` of `stochastic::cancel_ratio_for` (which
/// says why that implies `!cancellation_reported`). Five floating-point operations, no branch.
#[inline(always)]
pub(crate) fn surely_kept_digits([r0, a0, b0]: [f64; 3], [rho, lo, hi]: [f64; 3]) -> bool {
    let s = a0.abs() + b0.abs();
    (r0.abs() >= rho * s) & (s >= lo) & (s <= hi)
}

impl<F: Format> Neg for Stochastic<F> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        Self::from_repr(self.s.map(Repr::neg))
    }
}

impl<F: Format> Neg for &Stochastic<F> {
    type Output = Stochastic<F>;
    #[inline(always)]
    fn neg(self) -> Stochastic<F> {
        -*self
    }
}

macro_rules! binary_op {
    ($Op:ident, $op:ident, $OpAssign:ident, $op_assign:ident, |$a:ident, $b:ident| $body:expr) => {
        impl<F: Format> $Op for Stochastic<F> {
            type Output = Self;
            #[inline(always)]
            fn $op(self, rhs: Self) -> Self {
                let ($a, $b) = (self, rhs);
                $body
            }
        }
        impl<'r, F: Format> $Op<&'r Stochastic<F>> for Stochastic<F> {
            type Output = Self;
            #[inline(always)]
            fn $op(self, rhs: &'r Self) -> Self {
                $Op::$op(self, *rhs)
            }
        }
        impl<'l, F: Format> $Op<Stochastic<F>> for &'l Stochastic<F> {
            type Output = Stochastic<F>;
            #[inline(always)]
            fn $op(self, rhs: Stochastic<F>) -> Stochastic<F> {
                $Op::$op(*self, rhs)
            }
        }
        impl<'l, 'r, F: Format> $Op<&'r Stochastic<F>> for &'l Stochastic<F> {
            type Output = Stochastic<F>;
            #[inline(always)]
            fn $op(self, rhs: &'r Stochastic<F>) -> Stochastic<F> {
                $Op::$op(*self, *rhs)
            }
        }
        impl<F: Format> $OpAssign for Stochastic<F> {
            #[inline(always)]
            fn $op_assign(&mut self, rhs: Self) {
                *self = $Op::$op(*self, rhs);
            }
        }
        impl<'r, F: Format> $OpAssign<&'r Stochastic<F>> for Stochastic<F> {
            #[inline(always)]
            fn $op_assign(&mut self, rhs: &'r Self) {
                *self = $Op::$op(*self, *rhs);
            }
        }
        binary_op!(@prim $Op, $op, $OpAssign, $op_assign, f64, |$a, $b| $body);
        binary_op!(@cross $Op, $op, $OpAssign, $op_assign:
            f64, f32; f64, f16; f64, bf16; f32, f64; f32, f16; f32, bf16;
            f16, f64; f16, f32; f16, bf16; bf16, f64; bf16, f32; bf16, f16);
    };
    (@cross $Op:ident, $op:ident, $OpAssign:ident, $op_assign:ident: $($A:ty, $B:ty);*) => {$(
        /// Computed in the wider format ([`Promote`]).
        impl $Op<Stochastic<$B>> for Stochastic<$A> {
            type Output = Stochastic<<$A as Promote<$B>>::Output>;
            #[inline(always)]
            fn $op(self, rhs: Stochastic<$B>) -> Self::Output {
                let a: Self::Output = self.cast();
                let b: Self::Output = rhs.cast();
                $Op::$op(a, b)
            }
        }
        impl $Op<&Stochastic<$B>> for Stochastic<$A> {
            type Output = Stochastic<<$A as Promote<$B>>::Output>;
            #[inline(always)]
            fn $op(self, rhs: &Stochastic<$B>) -> Self::Output {
                $Op::$op(self, *rhs)
            }
        }
        impl $Op<Stochastic<$B>> for &Stochastic<$A> {
            type Output = Stochastic<<$A as Promote<$B>>::Output>;
            #[inline(always)]
            fn $op(self, rhs: Stochastic<$B>) -> Self::Output {
                $Op::$op(*self, rhs)
            }
        }
        /// Stores into the left operand's format (rounding at random when the result is wider).
        impl $OpAssign<Stochastic<$B>> for Stochastic<$A> {
            #[inline(always)]
            fn $op_assign(&mut self, rhs: Stochastic<$B>) {
                *self = $Op::$op(*self, rhs).cast::<$A>();
            }
        }
    )*};
    (@prim $Op:ident, $op:ident, $OpAssign:ident, $op_assign:ident, $p:ty, |$a:ident, $b:ident| $body:expr) => {
        /// The primitive adapts to the stochastic operand's format.
        impl<F: Format> $Op<$p> for Stochastic<F> {
            type Output = Stochastic<F>;
            #[inline(always)]
            fn $op(self, rhs: $p) -> Stochastic<F> {
                let ($a, $b) = (self, Stochastic::<F>::from_f64(f64::from(rhs)));
                $body
            }
        }
        impl<F: Format> $Op<$p> for &Stochastic<F> {
            type Output = Stochastic<F>;
            #[inline(always)]
            fn $op(self, rhs: $p) -> Stochastic<F> {
                $Op::$op(*self, rhs)
            }
        }
        impl<F: Format> $Op<Stochastic<F>> for $p {
            type Output = Stochastic<F>;
            #[inline(always)]
            fn $op(self, rhs: Stochastic<F>) -> Stochastic<F> {
                let ($a, $b) = (Stochastic::<F>::from_f64(f64::from(self)), rhs);
                $body
            }
        }
        impl<F: Format> $Op<&Stochastic<F>> for $p {
            type Output = Stochastic<F>;
            #[inline(always)]
            fn $op(self, rhs: &Stochastic<F>) -> Stochastic<F> {
                $Op::$op(self, *rhs)
            }
        }
        impl<F: Format> $OpAssign<$p> for Stochastic<F> {
            #[inline(always)]
            fn $op_assign(&mut self, rhs: $p) {
                *self = $Op::$op(*self, rhs);
            }
        }
    };
}

binary_op!(Add, add, AddAssign, add_assign, |a, b| a.add_same(b));
binary_op!(Sub, sub, SubAssign, sub_assign, |a, b| a.add_same(-b));
binary_op!(Mul, mul, MulAssign, mul_assign, |a, b| a.mul_same(b));
binary_op!(Div, div, DivAssign, div_assign, |a, b| a.div_same(b));

impl<F: Format> PartialEq for Stochastic<F> {
    /// Stochastic equality: the difference is a computed zero (see [`PartialOrd`]). Unlike the
    /// order relations, never counts an unstable branching (as CADNA's `==`).
    #[inline(always)]
    fn eq(&self, other: &Self) -> bool {
        self.compare_same(*other, false) == Some(Ordering::Equal)
    }
}

impl<F: Format> PartialOrd for Stochastic<F> {
    /// Stochastic order (CADNA's relational operators): equal when the difference is a computed
    /// zero, which counts an unstable branching when it is numerical noise.
    #[inline(always)]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.compare_same(*other, true)
    }
}

macro_rules! compare_cross {
    ($($A:ty, $B:ty);*) => {$(
        impl PartialEq<Stochastic<$B>> for Stochastic<$A> {
            #[inline(always)]
            fn eq(&self, other: &Stochastic<$B>) -> bool {
                let a = self.cast::<<$A as Promote<$B>>::Output>();
                a.compare_same(other.cast(), false) == Some(Ordering::Equal)
            }
        }
        impl PartialOrd<Stochastic<$B>> for Stochastic<$A> {
            #[inline(always)]
            fn partial_cmp(&self, other: &Stochastic<$B>) -> Option<Ordering> {
                let a = self.cast::<<$A as Promote<$B>>::Output>();
                a.compare_same(other.cast(), true)
            }
        }
    )*};
}
compare_cross!(f64, f32; f64, f16; f64, bf16; f32, f64; f32, f16; f32, bf16;
    f16, f64; f16, f32; f16, bf16; bf16, f64; bf16, f32; bf16, f16);

macro_rules! compare_primitive {
    ($($p:ty),*) => {$(
        impl<F: Format> PartialEq<$p> for Stochastic<F> {
            #[inline(always)]
            fn eq(&self, other: &$p) -> bool {
                self.compare_same(Stochastic::<F>::from_f64(f64::from(*other)), false)
                    == Some(Ordering::Equal)
            }
        }
        impl<F: Format> PartialOrd<$p> for Stochastic<F> {
            #[inline(always)]
            fn partial_cmp(&self, other: &$p) -> Option<Ordering> {
                self.compare_same(Stochastic::<F>::from_f64(f64::from(*other)), true)
            }
        }
        impl<F: Format> PartialEq<Stochastic<F>> for $p {
            #[inline(always)]
            fn eq(&self, other: &Stochastic<F>) -> bool {
                other == self
            }
        }
        impl<F: Format> PartialOrd<Stochastic<F>> for $p {
            #[inline(always)]
            fn partial_cmp(&self, other: &Stochastic<F>) -> Option<Ordering> {
                Stochastic::<F>::from_f64(f64::from(*self)).compare_same(*other, true)
            }
        }
    )*};
}
compare_primitive!(f64);

impl<F: Format> Sum for Stochastic<F> {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::default(), |acc, x| acc.add_same(x))
    }
}

impl<'a, F: Format> Sum<&'a Stochastic<F>> for Stochastic<F> {
    fn sum<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
        iter.fold(Self::default(), |acc, x| acc.add_same(*x))
    }
}

impl<F: Format> Product for Stochastic<F> {
    fn product<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::from_f64(1.0), |acc, x| acc.mul_same(x))
    }
}

impl<'a, F: Format> Product<&'a Stochastic<F>> for Stochastic<F> {
    fn product<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
        iter.fold(Self::from_f64(1.0), |acc, x| acc.mul_same(*x))
    }
}

#[cfg(test)]
mod ratio_tests {
    use super::*;
    use crate::stochastic::cancel_ratio_for;

    use crate::value::{splitmix, unit};

    /// Samples of one operand of format `F` around `m`: exact, a few ulps apart, relative
    /// deviations log-uniform from far below the exact scale to noise, or (binary64) tiny
    /// samples with a zero.
    fn operand<F: Format>(next: &mut impl FnMut() -> u64, m: f64) -> [f64; 3] {
        let round = |x: f64| F::nearest(x).to_f64();
        let kind = next() % 16;
        if kind == 0 {
            return [round(m); 3];
        }
        if kind == 1 && F::PRECISION == 53 {
            let t = 2f64.powi(-1000) * unit(next());
            return [t, -t * unit(next()), 0.0];
        }
        if kind == 2 {
            return [0.0; 3];
        }
        let spread = if kind < 6 {
            2f64.powi(1 - F::PRECISION as i32) * (1 + next() % 8) as f64
        } else {
            // 1e-17 to 1
            10f64.powf(-17.0 * unit(next()))
        };
        std::array::from_fn(|_| round(m * (1.0 + spread * (2.0 * unit(next()) - 1.0))))
    }

    /// A magnitude anywhere in the format's range, more often near the test's bounds.
    fn magnitude(next: &mut impl FnMut() -> u64, lo: f64, hi: f64, e_min: i32, e_max: i32) -> f64 {
        let x = 1.0 + unit(next());
        match next() % 4 {
            0 => lo * x * 2f64.powi((next() % 5) as i32 - 2),
            1 => hi * x * 2f64.powi((next() % 5) as i32 - 3),
            _ => x * 2f64.powi(e_min + (next() % (e_max - e_min) as u64) as i32),
        }
    }

    /// One case: returns (ratio test passed, reported).
    fn case<F: Format>(next: &mut impl FnMut() -> u64, k: f64, e_min: i32, e_max: i32) -> (bool, bool) {
        let params = cancel_ratio_for(k, F::PRECISION);
        let [rho, lo, hi] = params;
        let sign = |r: u64| if r.is_multiple_of(2) { 1.0 } else { -1.0 };
        let ma = magnitude(next, lo, hi, e_min, e_max) * sign(next());
        // b: independent, or cancelling a to a relative residue from rho / 1000 to 10 rho.
        let mb = match next() % 3 {
            0 => magnitude(next, lo, hi, e_min, e_max) * sign(next()),
            _ => -ma * (1.0 - rho * 10f64.powf(4.0 * unit(next()) - 3.0) * sign(next())),
        };
        let a_s = operand::<F>(next, ma);
        let b_s = operand::<F>(next, mb);
        let to = |s: [f64; 3]| s.map(F::nearest);
        let (a, b) = (to(a_s), to(b_s));
        let bits = next();
        let dir = |i: usize| if (bits >> i) & 1 == 0 { 1.0 } else { -1.0 };
        let r = [F::add(a[0], b[0], dir(0)), F::add(a[1], b[1], dir(1)), F::add(a[2], b[2], -dir(1))];
        let rs = r.map(Repr::to_f64);
        let passed = surely_kept_digits([rs[0], a_s[0], b_s[0]], params);
        let reported = cancellation_reported(rs, a_s, b_s, exact_scale::<F>(), k);
        assert!(
            !(passed && reported),
            "{}: a {a_s:?} b {b_s:?} r {rs:?}, k {k:e}, params {params:?}",
            F::NAME
        );
        (passed, reported)
    }

    /// The ratio test must imply that the cancellation test does not report, for every format
    /// and every threshold that enables it, near its bounds too (with `rho / 10` it fails).
    #[test]
    fn ratio_test_implies_no_cancellation() {
        let mut next = splitmix(23);
        let mut stats = [[0u64; 3]; 4];
        for _ in 0..4_000_000 {
            let format = next() % 4;
            // A threshold that enables the test for the format.
            let top = [15, 7, 3, 2][format as usize];
            let k = 100f64.powi(2 + (next() % (top - 1)) as i32);
            let (format, (passed, reported)) = match format {
                0 => (0, case::<f64>(&mut next, k, -1022, 1023)),
                1 => (1, case::<f32>(&mut next, k, -126, 127)),
                2 => (2, case::<half::f16>(&mut next, k, -14, 15)),
                _ => (3, case::<half::bf16>(&mut next, k, -126, 127)),
            };
            stats[format][0] += 1;
            stats[format][1] += u64::from(passed);
            stats[format][2] += u64::from(reported);
        }
        // Each format with an enabled threshold passes often and reports often.
        for (i, [n, passed, reported]) in stats.into_iter().enumerate() {
            println!("format {i}: {passed} passed, {reported} reported of {n}");
            assert!(passed > n / 20 && reported > n / 100, "format {i}: {passed} passed, {reported} reported of {n}");
        }
    }
}
