//! The stochastic value: three randomly rounded samples of one format, and what they say about
//! its accuracy.

use std::fmt;
use std::marker::PhantomData;

use crate::format::{Format, Repr};
use crate::rng;
use crate::stochastic::{self, Instability};

/// Student's t for 2 degrees of freedom at 95% (CADNA's tau).
pub const TAU: f64 = 4.302_653;
/// `tau^2 / 6`: with relative deviations `r_i = x_i / mean - 1`, the digit estimate
/// `log10(sqrt(3)|m| / (tau s))` equals `-log10(C * sum r_i^2) / 2`.
pub(crate) const C: f64 = TAU * TAU / 6.0;
/// `sum r_i^2 > NOISE` exactly when the estimate is below half a digit.
const NOISE: f64 = 0.1 / C;

/// A value of format `F` under discrete stochastic arithmetic: three samples, each computed with
/// every operation rounded toward +inf or -inf at random.
///
/// See the crate documentation for the arithmetic and the accuracy estimate.
#[derive(Clone, Copy)]
#[repr(C)]
pub struct Stochastic<F: Format> {
    pub(crate) s: [F::Repr; 3],
    _align: <F::Repr as Repr>::Align,
    _format: PhantomData<F>,
}

/// Stochastic binary64.
pub type Sf64 = Stochastic<f64>;
/// Stochastic binary32.
pub type Sf32 = Stochastic<f32>;
/// Stochastic binary16 ([`half::f16`]).
pub type Sf16 = Stochastic<half::f16>;
/// Stochastic bfloat16 ([`half::bf16`]).
pub type Sbf16 = Stochastic<half::bf16>;

impl<F: Format> Default for Stochastic<F> {
    fn default() -> Self {
        Self::from_repr([F::Repr::default(); 3])
    }
}

impl<F: Format> Stochastic<F> {
    #[inline(always)]
    pub(crate) const fn from_repr(s: [F::Repr; 3]) -> Self {
        Stochastic { s, _align: <F::Repr as Repr>::ALIGN, _format: PhantomData }
    }

    /// An exactly known value: three equal samples.
    #[inline(always)]
    pub fn new(x: F) -> Self {
        let r = x.to_repr();
        Self::from_repr([r, r, r])
    }

    /// An `f64` input (a literal, a primitive operand) rounded to nearest into this format, as the
    /// compiler rounds a literal: three equal samples.
    /// Into a 16-bit format, a finite input that becomes infinite counts as an overflow and a
    /// nonzero one that becomes zero as an underflow, as for any operation.
    #[inline(always)]
    pub fn from_f64(x: f64) -> Self {
        let r = F::nearest(x);
        let out = Self::from_repr([r, r, r]);
        if F::LIMITED_RANGE {
            out.check_range_unary([x; 3]);
        }
        out
    }

    /// A value from three given samples (for tests and for reading back recorded values).
    pub fn from_samples(samples: [F; 3]) -> Self {
        Self::from_repr(samples.map(F::to_repr))
    }

    /// The three samples.
    pub fn samples(&self) -> [F; 3] {
        self.s.map(F::from_repr)
    }

    /// The three samples widened (exactly) to `f64`.
    #[inline(always)]
    pub fn samples_f64(&self) -> [f64; 3] {
        self.s.map(Repr::to_f64)
    }

    /// The mean of the samples, computed in `f64`: the value to report. Three equal samples are
    /// their own mean (the sum divided by 3 could be an ulp away).
    pub fn mean(&self) -> f64 {
        let [a, b, c] = self.samples_f64();
        if a == b && b == c {
            return a;
        }
        let sum = a + b + c;
        if sum.is_infinite() && a.is_finite() && b.is_finite() && c.is_finite() {
            a / 3.0 + b / 3.0 + c / 3.0
        } else {
            sum / 3.0
        }
    }

    /// The mean rounded to nearest into this format.
    pub fn value(&self) -> F {
        F::from_repr(F::nearest(self.mean()))
    }

    /// Estimated number of exact significant decimal digits of the mean (Student t at 95%, three
    /// samples): `log10(sqrt(3)|m| / (tau s))`, capped at the format's maximum
    /// ([`Format::MAX_DIGITS`], also reported when all samples are equal), and 0 for numerical
    /// noise.
    pub fn digits(&self) -> f64 {
        match spread(self.samples_f64()) {
            Spread::Exact => F::MAX_DIGITS,
            Spread::Noise => 0.0,
            Spread::Relative(v) => {
                if v > NOISE {
                    0.0
                } else {
                    (-0.5 * (C * v).log10()).min(F::MAX_DIGITS)
                }
            }
        }
    }

    /// Whether the value is numerical noise: no exact digit (an estimate below half a digit, or a
    /// zero mean with samples that differ). Also true for a value with a non-finite sample.
    #[inline(always)]
    pub fn is_noise(&self) -> bool {
        // Most values are decided on the samples' bits alone.
        !F::surely_not_noise(self.s) && is_noise_f64(self.samples_f64())
    }

    /// Whether CADNA would call this a computed zero: a zero mean, or numerical noise.
    #[inline(always)]
    pub fn is_computed_zero(&self) -> bool {
        let [a, b, c] = self.samples_f64();
        a + b + c == 0.0 || self.is_noise()
    }

    /// Converts to another format. Narrowing rounds each sample at random like any operation;
    /// widening is exact.
    #[inline(always)]
    pub fn cast<G: Format>(self) -> Stochastic<G> {
        if crate::format::holds::<F, G>() {
            return Stochastic::from_repr(self.s.map(|r| G::exact(r.to_f64())));
        }
        let bits = rng::direction_bits();
        let cpu = crate::stochastic::cpu_flags(crate::stochastic::detect_mask());
        let x = self.samples_f64();
        let out = Stochastic::<G>::from_repr(G::round3(x, bits, cpu));
        // Only a zero or infinite sample can count (the common case ends on one vector test).
        if G::LIMITED_RANGE && !G::all_nonzero_finite(out.s) {
            out.check_range_unary(x);
        }
        out
    }

    /// Counts overflow/underflow of a 16-bit result computed from `inputs` (samples of one
    /// operand): at most one of each per operation.
    #[inline(always)]
    pub(crate) fn check_range_unary(&self, inputs: [f64; 3]) {
        let (mut overflow, mut underflow) = (false, false);
        for (r, x) in self.s.iter().zip(inputs) {
            let r = r.to_f64();
            if r.is_infinite() && x.is_finite() {
                overflow = true;
            } else if r == 0.0 && x != 0.0 && x.is_finite() {
                underflow = true;
            }
        }
        if overflow {
            note(Instability::Overflow);
        }
        if underflow {
            note(Instability::Underflow);
        }
    }
}

/// Counts an instability if its kind is being detected.
#[inline(always)]
pub(crate) fn note(kind: Instability) {
    if stochastic::is_detected(kind) {
        stochastic::record(kind);
    }
}

/// How the three samples of a value spread.
pub(crate) enum Spread {
    /// All samples equal.
    Exact,
    /// Zero mean with differing samples, or a non-finite sample.
    Noise,
    /// Sum of squared relative deviations from the mean.
    Relative(f64),
}

#[inline(always)]
pub(crate) fn spread([a, b, c]: [f64; 3]) -> Spread {
    if a == b && b == c {
        return if a.is_finite() { Spread::Exact } else { Spread::Noise };
    }
    let sum = a + b + c;
    let inv = 3.0 / sum;
    // A zero sum makes `inv` infinite, and so does one below about 1.7e-308.
    if !sum.is_finite() || !inv.is_finite() {
        return spread_special([a, b, c], sum);
    }
    let (r0, r1, r2) = (a * inv - 1.0, b * inv - 1.0, c * inv - 1.0);
    Spread::Relative(r0 * r0 + r1 * r1 + r2 * r2)
}

/// [`spread`] of samples that differ with a zero, non-finite or tiny sum (kept out of line so
/// that `spread`, which it calls, can be inlined).
#[cold]
#[inline(never)]
fn spread_special([a, b, c]: [f64; 3], sum: f64) -> Spread {
    if sum != 0.0 && a.is_finite() && b.is_finite() && c.is_finite() {
        // The sum of huge finite samples overflowed, or `3 / sum` did for a tiny sum
        // (subnormal samples): redo it scaled, exactly, by a power of two. The relative
        // deviations do not change; a tiny value is not noise for being tiny. (A sample
        // scaled up past the overflow threshold has a sum whose mean is far below its
        // samples: noise, which the scaled call finds.)
        let k = if sum.is_infinite() { 2f64.powi(-600) } else { 2f64.powi(600) };
        return spread([a * k, b * k, c * k]);
    }
    Spread::Noise
}

/// A sufficient test, without division or data-dependent branch, that the accuracy scale of
/// samples `s` (`C` times their relative deviation `v` of [`spread`], as [`accuracy_scale`]
/// computes it before clamping) is below `t`, for `t >= 2^-90`: `C * sum (3 s_i - S)^2 < t/4 * S^2` with `S` their
/// sum in `[2^-400, 2^400]` in magnitude.
///
/// Why it suffices: each computed `(3 s_i - S) / S` and each deviation `s_i * (3/S) - 1` that
/// `spread` computes are within `2^-49` of the exact relative deviation when they are small
/// (a few roundings of quantities near `S` or 1), and both sides of the test are computed with
/// relative errors of a few `2^-53`. If the test holds, every computed deviation is below
/// `u = sqrt(t / 4C)`, which is at least `2^-47` (`t >= 2^-90`, `C < 3.1`), so `spread`'s sum is
/// below `3 (u + 2^-48)^2 < 3.2 u^2` and `C` times it below `0.8 t`. The range of `S` keeps the
/// squares away from overflow and underflow. Equal finite samples pass (all `3 s_i - S` are 0).
#[inline(always)]
pub(crate) fn surely_below(s: [f64; 3], t: f64) -> bool {
    let sum = s[0] + s[1] + s[2];
    let d = [3.0 * s[0] - sum, 3.0 * s[1] - sum, 3.0 * s[2] - sum];
    let dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    let m = sum.abs();
    (C * dd < 0.25 * t * sum * sum) & (3.872_591_914_849_318e-121..=2.582_249_878_086_908_6e120).contains(&m)
}

/// The smallest threshold [`surely_below`] accepts: `2^-90`.
pub(crate) const SURELY_MIN: f64 = 8.077_935_669_463_161e-28;

#[inline(always)]
pub(crate) fn is_noise_f64(s: [f64; 3]) -> bool {
    // Most values are far from noise: decided without a division.
    if surely_below(s, NOISE * C) {
        return false;
    }
    match spread(s) {
        Spread::Exact => false,
        Spread::Noise => true,
        Spread::Relative(v) => v > NOISE,
    }
}

/// `10^(-2 digits)` of a value, the quantity cancellation detection compares (no logarithm):
/// 1 for noise, `10^(-2 MAX_DIGITS)` for an exact value.
#[inline(always)]
pub(crate) fn accuracy_scale(s: [f64; 3], max_digits_scale: f64) -> f64 {
    match spread(s) {
        Spread::Exact => max_digits_scale,
        Spread::Noise => 1.0,
        Spread::Relative(v) => {
            let l = C * v;
            if l > NOISE * C {
                1.0
            } else {
                l.clamp(max_digits_scale, 1.0)
            }
        }
    }
}

impl<F: Format> fmt::Display for Stochastic<F> {
    /// Prints only the exact digits of the mean, in scientific notation (`8.33e-2`), or `@.0` for
    /// numerical noise, as CADNA does. Width and alignment flags apply to the whole text; a
    /// precision, if given, caps the digits shown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_noise() {
            return pad(f, "@.0");
        }
        let m = self.mean();
        if m == 0.0 {
            return pad(f, "0.0");
        }
        // CADNA rounds the estimate to the nearest integer (noise is below half a digit) and
        // shows at most the format's whole digits (15 for binary64, 7, 3, 2).
        let mut n = (self.digits().round() as usize).clamp(1, F::MAX_DIGITS.floor() as usize);
        if let Some(p) = f.precision() {
            n = n.min(p + 1);
        }
        pad(f, &format!("{:.*e}", n - 1, m))
    }
}

/// Writes `text` with the formatter's width, fill and alignment (left by default, as for text).
/// Not `Formatter::pad`: it reads a precision as a maximum length and would cut the number.
fn pad(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    let len = text.chars().count();
    let Some(width) = f.width().filter(|&w| w > len) else { return f.write_str(text) };
    let (fill, room) = (f.fill(), width - len);
    let (before, after) = match f.align() {
        Some(fmt::Alignment::Right) => (room, 0),
        Some(fmt::Alignment::Center) => (room / 2, room - room / 2),
        _ => (0, room),
    };
    for _ in 0..before {
        f.write_fmt(format_args!("{fill}"))?;
    }
    f.write_str(text)?;
    for _ in 0..after {
        f.write_fmt(format_args!("{fill}"))?;
    }
    Ok(())
}

impl<F: Format> fmt::LowerExp for Stochastic<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// `Display`'s text with an upper-case exponent (`8.33E-2`).
impl<F: Format> fmt::UpperExp for Stochastic<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match f.precision() {
            Some(p) => format!("{:.*}", p, self),
            None => format!("{}", self),
        };
        let text = text.replace('e', "E");
        pad(f, &text)
    }
}

impl<F: Format> fmt::Debug for Stochastic<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c] = self.samples();
        write!(f, "{}[{a:?}, {b:?}, {c:?}]", F::RUST)
    }
}

impl<F: Format> From<F> for Stochastic<F> {
    fn from(x: F) -> Self {
        Self::new(x)
    }
}

macro_rules! from_primitive {
    ($($p:ty),*) => {$(
        impl From<$p> for Stochastic<half::f16> {
            fn from(x: $p) -> Self { Self::from_f64(f64::from(x)) }
        }
        impl From<$p> for Stochastic<half::bf16> {
            fn from(x: $p) -> Self { Self::from_f64(f64::from(x)) }
        }
    )*};
}
from_primitive!(f64, f32);

impl From<f32> for Sf64 {
    fn from(x: f32) -> Self {
        Self::new(f64::from(x))
    }
}

impl From<f64> for Sf32 {
    /// Rounds to nearest, as `x as f32` would.
    fn from(x: f64) -> Self {
        Self::from_f64(x)
    }
}

macro_rules! widen {
    ($($from:ty => $to:ty),*) => {$(
        impl From<Stochastic<$from>> for Stochastic<$to> {
            /// Exact widening.
            fn from(x: Stochastic<$from>) -> Self { x.cast() }
        }
    )*};
}
widen!(f32 => f64, half::f16 => f64, half::bf16 => f64, half::f16 => f32, half::bf16 => f32);

macro_rules! from_integer {
    ($($int:ty => $($f:ty),*);*) => {$($(
        impl From<$int> for Stochastic<$f> {
            /// Exact, as `<$f>::from` is: the integers every value of which the format holds.
            fn from(x: $int) -> Self { Self::new(<$f>::from(x)) }
        }
    )*)*};
}
// As the primitive formats: `f64::from(i32)`, `f32::from(i16)`, `f16::from(u8)`.
from_integer!(i8 => f64, f32, half::f16, half::bf16; u8 => f64, f32, half::f16, half::bf16;
    i16 => f64, f32; u16 => f64, f32; i32 => f64; u32 => f64);

/// SplitMix64 from `seed`: the random cases of the crate's unit tests.
#[cfg(test)]
pub(crate) fn splitmix(seed: u64) -> impl FnMut() -> u64 {
    let mut z = seed;
    move || {
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut x = z;
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^ (x >> 31)
    }
}

/// A random draw as a number in `[0, 1)` (its top 53 bits).
#[cfg(test)]
pub(crate) fn unit(r: u64) -> f64 {
    (r >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod surely_below_tests {
    use super::*;

    /// `surely_below(s, t)` must imply that the exact test `accuracy_scale(s) < t` passes, near
    /// the threshold too, for every threshold the operators use.
    #[test]
    fn surely_below_implies_the_exact_test() {
        let mut next = splitmix(7);
        let (mut passed, mut checked) = (0, 0);
        for _ in 0..2_000_000 {
            let t = [SURELY_MIN, 1.26e-24, 3.6e-7, 1e-3, NOISE * C, 0.1][(next() % 6) as usize];
            // Relative deviations around sqrt(t / C), or a few ulps, or anything.
            let scale = match next() % 4 {
                0 => 2f64.powi(-52) * (1 + next() % 64) as f64,
                3 => unit(next()),
                _ => (t / C).sqrt() * 2.0 * unit(next()),
            };
            let x = (unit(next()) + 0.5) * 2f64.powi((next() % 800) as i32 - 400);
            let x = if next().is_multiple_of(2) { x } else { -x };
            let s: [f64; 3] = std::array::from_fn(|_| {
                let d = scale * (2.0 * unit(next()) - 1.0);
                if next().is_multiple_of(5) { x } else { x * (1.0 + d) }
            });
            checked += 1;
            if surely_below(s, t) {
                passed += 1;
                let exact = accuracy_scale(s, 1e-300);
                assert!(exact < t, "{s:?}: scale {exact:e} for threshold {t:e}");
            }
        }
        assert!(passed > checked / 4, "{passed} of {checked}");
    }
}

#[cfg(test)]
mod within_ulps_tests {
    use super::*;
    use crate::stochastic::cancel_ulps_for;

    /// `within_ulps` with the cancellation check's bound must imply that the exact test
    /// (`accuracy_scale < floor * k`) passes, for binary64 and binary32 samples near the bound
    /// and for every threshold that leaves a nonzero bound.
    #[test]
    fn within_ulps_implies_the_exact_test() {
        let mut next = splitmix(11);
        let (mut passed, mut checked) = (0, 0);
        for _ in 0..2_000_000 {
            let single = next().is_multiple_of(2);
            let digits = (next() % 12) as i32;
            let k = 100f64.powi(digits);
            let (p, floor) = if single {
                (24, crate::ops::exact_scale::<f32>())
            } else {
                (53, crate::ops::exact_scale::<f64>())
            };
            let d = cancel_ulps_for(k, p);
            if d == 0 {
                continue;
            }
            // The middle sample anywhere in the range (extremes included), the others up to
            // 1.2 D ulps away in either direction, or exactly D.
            let x1 = if single {
                let e = 1 + next() % 254;
                f64::from(f32::from_bits(((e as u32) << 23) | (next() as u32 & 0x7f_ffff) | ((next() as u32) << 31)))
            } else {
                let e = 1 + next() % 2046;
                f64::from_bits((e << 52) | (next() & 0xf_ffff_ffff_ffff) | ((next() % 2) << 63))
            };
            let mut off = || -> i64 {
                let r = next();
                let m = if r.is_multiple_of(4) { d as i64 } else { ((r >> 8) % (d * 12 / 10 + 1)) as i64 };
                if (r >> 3) & 1 == 0 { m } else { -m }
            };
            let step = |x: f64, n: i64| -> f64 {
                if single {
                    f64::from(f32::from_bits(((x as f32).to_bits() as i64 + n) as u32))
                } else {
                    f64::from_bits((x.to_bits() as i64 + n) as u64)
                }
            };
            let s = [step(x1, off()), x1, step(x1, off())];
            if s.iter().any(|x| !x.is_finite()) {
                continue;
            }
            let close = if single {
                let [x0, x1, x2] = s.map(|x| u64::from((x as f32).to_bits()));
                crate::format::within_ulps(x0, x1, x2, d, 23, 0xff, 2, 0xfd)
            } else {
                let [x0, x1, x2] = s.map(f64::to_bits);
                crate::format::within_ulps(x0, x1, x2, d, 52, 0x7ff, 2, 0x7fd)
            };
            checked += 1;
            if close {
                passed += 1;
                let exact = accuracy_scale(s, floor);
                assert!(exact < floor * k, "{s:?}: scale {exact:e} for {digits} digits (D = {d})");
            }
        }
        assert!(passed > checked / 3, "{passed} of {checked}");
    }
}

impl<F: Format> std::str::FromStr for Stochastic<F> {
    type Err = std::num::ParseFloatError;

    /// Parses a decimal number, rounded to nearest into the format (an exact input value).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Self::from_f64(s.parse::<f64>()?))
    }
}

#[cfg(test)]
mod display_tests {
    use crate::Sf64;

    #[test]
    fn a_precision_caps_the_digits_and_width_pads_without_cutting_the_number() {
        let third = Sf64::from(100.0) / Sf64::from(3.0);
        assert_eq!(format!("{:.5}", third), "3.33333e1");
        assert_eq!(format!("{:.2e}", third), "3.33e1");
        assert_eq!(format!("{:>10.2}", third), "    3.33e1");
        assert_eq!(format!("{:*^10.2}", third), "**3.33e1**");
        assert_eq!(format!("{:<8}|", Sf64::from(0.0)), "0.0     |");
        let big = Sf64::from(1e17);
        let noise = (big + third) - big - third;
        assert_eq!(format!("{:.1}", noise), "@.0");
    }
}

#[cfg(test)]
mod layout_tests {
    use super::{Sbf16, Sf16, Sf32, Sf64};
    use std::mem::{align_of, size_of};

    #[test]
    fn three_binary32_samples_fill_sixteen_aligned_bytes_and_binary64_ones_twenty_four() {
        for (size, align) in [
            (size_of::<Sf32>(), align_of::<Sf32>()),
            (size_of::<Sf16>(), align_of::<Sf16>()),
            (size_of::<Sbf16>(), align_of::<Sbf16>()),
        ] {
            assert_eq!((size, align), (16, 16));
        }
        assert_eq!((size_of::<Sf64>(), align_of::<Sf64>()), (24, 8));
        // An array of them starts on a 16-byte boundary, so each value lies within one 64-byte
        // line.
        let v = vec![Sf32::default(); 64];
        assert_eq!(v.as_ptr() as usize % 16, 0);
    }
}

#[cfg(test)]
mod tiny_tests {
    use super::*;

    /// Samples summing below about 1.7e-308 (whose `3 / sum` overflows) spread as the same
    /// samples scaled by a power of two do: a subnormal value is not noise for being tiny.
    #[test]
    fn tiny_values_spread_as_scaled_ones() {
        let spread_of = |s: [f64; 3]| match spread(s) {
            Spread::Relative(v) => Some(v),
            Spread::Exact => Some(0.0),
            Spread::Noise => None,
        };
        let k = 2f64.powi(-1060);
        for s in [[1.0, 1.000_000_1, 1.0], [3.0, 3.5, 2.75], [1.0, -1.0, 1e-3], [5.0, 5.0, 5.000_000_000_001]] {
            let tiny = s.map(|x| x * k);
            // Scaling by 2^-1060 rounds onto the subnormal grid: compare with the rounded samples
            // scaled back up (exactly).
            let back = tiny.map(|x| x / k);
            assert_eq!(spread_of(tiny), spread_of(back), "{s:?}");
            assert!(spread_of(tiny).is_some(), "{s:?}");
        }
        // Seven agreeing digits, subnormal: about seven digits, not noise.
        let x = crate::Sf64::from_samples([1e-310, 1.000_000_1e-310, 1e-310]);
        assert!(!x.is_noise());
        assert!((x.digits() - crate::Sf64::from_samples([1e-300, 1.000_000_1e-300, 1e-300]).digits()).abs() < 0.3);
        // A zero sum of differing samples is still noise; so are non-finite samples.
        assert!(spread_of([5e-324, -5e-324, 0.0]).is_none());
        assert!(spread_of([f64::INFINITY, 1.0, 1.0]).is_none());
        // Huge samples around a tiny mean: noise, whichever way the scaling goes.
        assert!(spread_of([1e300, -1e300, 1e-310]).is_none());
    }
}
