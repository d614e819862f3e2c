//! Mathematical functions with the names and signatures of `f64`'s methods.
//!
//! - `sqrt`, `abs`, `recip`, `mul_add`, `powi`, `to_degrees`/`to_radians` are built from the
//!   exactly rounded operations, so each sample is the random directed rounding of each step.
//! - Transcendental functions compute each sample in `f64` (correct to about one ulp of `f64`),
//!   then round it in the sample's random direction: for binary32 and the 16-bit formats by the
//!   exact directed rounding of that `f64` value into the format, for binary64 by moving the
//!   result one ulp in that direction (a conservative model of a faithfully rounded libm: the
//!   exact result lies within one ulp, on the side we cannot know).
//! - floor/ceil/trunc/round, min/max, signum act on each sample exactly.
//!
//! An argument that is numerical noise counts an unstable mathematical function (unstable power
//! function for `powf`/`powi`); an intrinsic whose samples disagree counts an unstable intrinsic,
//! and so does `abs` of samples of different signs.

use crate::format::{Format, Repr};
use crate::rng;
use crate::stochastic::Instability;
use crate::value::{note, Stochastic};

/// The nearest `f64` in direction `dir` away from `y`, unless `y` is zero or not finite.
#[inline(always)]
fn nudge(y: f64, dir: f64) -> f64 {
    if y == 0.0 || !y.is_finite() {
        y
    } else if dir > 0.0 {
        y.next_up()
    } else {
        y.next_down()
    }
}

impl<F: Format> Stochastic<F> {
    /// Applies an `f64` function to each sample and rounds each result in a random direction.
    #[inline]
    fn map_rounded(self, f: impl Fn(f64) -> f64) -> Self {
        let d = rng::directions();
        let x = self.samples_f64();
        let out = Self::from_repr(std::array::from_fn(|i| {
            let y = f(x[i]);
            if F::PRECISION == 53 {
                F::exact(nudge(y, d[i]))
            } else {
                F::round(y, d[i])
            }
        }));
        if F::LIMITED_RANGE {
            out.check_range_unary(x);
        }
        out
    }

    fn math1(self, f: fn(f64) -> f64) -> Self {
        if self.is_noise() {
            note(Instability::UnstableMathFunction);
        }
        self.map_rounded(f)
    }

    fn math2(self, other: Self, kind: Instability, f: fn(f64, f64) -> f64) -> Self {
        if self.is_noise() || other.is_noise() {
            note(kind);
        }
        let d = rng::directions();
        let (x, y) = (self.samples_f64(), other.samples_f64());
        Self::from_repr(std::array::from_fn(|i| {
            let r = f(x[i], y[i]);
            if F::PRECISION == 53 {
                F::exact(nudge(r, d[i]))
            } else {
                F::round(r, d[i])
            }
        }))
    }

    /// A per-sample function of two values whose `f64` result is exact for binary64 samples (a
    /// remainder, an integral quotient): kept as it is there, rounded at random into a narrower
    /// format (where it is exact, that changes nothing).
    fn nearly_exact2(self, other: Self, f: fn(f64, f64) -> f64) -> Self {
        if self.is_noise() || other.is_noise() {
            note(Instability::UnstableMathFunction);
        }
        let d = rng::directions();
        let (x, y) = (self.samples_f64(), other.samples_f64());
        Self::from_repr(std::array::from_fn(|i| {
            let r = f(x[i], y[i]);
            if F::PRECISION == 53 {
                F::exact(r)
            } else {
                F::round(r, d[i])
            }
        }))
    }

    /// Applies an exact per-sample function whose result should not depend on rounding; counts
    /// an unstable intrinsic when the samples' results disagree.
    fn intrinsic(self, f: fn(f64) -> f64) -> Self {
        let y = self.samples_f64().map(f);
        if !(y[0] == y[1] && y[1] == y[2]) {
            note(Instability::UnstableIntrinsic);
        }
        Self::from_repr(y.map(F::exact))
    }

    /// Square root, exactly rounded per sample.
    pub fn sqrt(self) -> Self {
        if self.is_noise() {
            note(Instability::UnstableMathFunction);
        }
        let d = rng::directions();
        Self::from_repr(std::array::from_fn(|i| F::sqrt(self.s[i], d[i])))
    }

    /// Cube root.
    pub fn cbrt(self) -> Self {
        self.math1(f64::cbrt)
    }
    /// Absolute value (exact). Counts an unstable intrinsic when the samples disagree in sign
    /// (the sign of the value is not known), as CADNA's `fabs`.
    pub fn abs(self) -> Self {
        let [a, b, c] = self.samples_f64();
        if (a < 0.0) != (b < 0.0) || (a < 0.0) != (c < 0.0) {
            note(Instability::UnstableIntrinsic);
        }
        Self::from_repr(self.s.map(|r| if r.to_f64() < 0.0 { r.neg() } else { r }))
    }
    /// `e^x`.
    pub fn exp(self) -> Self {
        self.math1(f64::exp)
    }
    /// `2^x`.
    pub fn exp2(self) -> Self {
        self.math1(f64::exp2)
    }
    /// `e^x - 1`.
    pub fn exp_m1(self) -> Self {
        self.math1(f64::exp_m1)
    }
    /// Natural logarithm.
    pub fn ln(self) -> Self {
        self.math1(f64::ln)
    }
    /// `ln(1 + x)`.
    pub fn ln_1p(self) -> Self {
        self.math1(f64::ln_1p)
    }
    /// Base-10 logarithm.
    pub fn log10(self) -> Self {
        self.math1(f64::log10)
    }
    /// Base-2 logarithm.
    pub fn log2(self) -> Self {
        self.math1(f64::log2)
    }
    /// Logarithm in base `base`.
    pub fn log(self, base: Self) -> Self {
        self.math2(base, Instability::UnstableMathFunction, f64::log)
    }
    /// Sine.
    pub fn sin(self) -> Self {
        self.math1(f64::sin)
    }
    /// Cosine.
    pub fn cos(self) -> Self {
        self.math1(f64::cos)
    }
    /// Tangent.
    pub fn tan(self) -> Self {
        self.math1(f64::tan)
    }
    /// Arcsine.
    pub fn asin(self) -> Self {
        self.math1(f64::asin)
    }
    /// Arccosine.
    pub fn acos(self) -> Self {
        self.math1(f64::acos)
    }
    /// Arctangent.
    pub fn atan(self) -> Self {
        self.math1(f64::atan)
    }
    /// Four-quadrant arctangent of `self / other`.
    pub fn atan2(self, other: impl Into<Self>) -> Self {
        self.math2(other.into(), Instability::UnstableMathFunction, f64::atan2)
    }
    /// Hyperbolic sine.
    pub fn sinh(self) -> Self {
        self.math1(f64::sinh)
    }
    /// Hyperbolic cosine.
    pub fn cosh(self) -> Self {
        self.math1(f64::cosh)
    }
    /// Hyperbolic tangent.
    pub fn tanh(self) -> Self {
        self.math1(f64::tanh)
    }
    /// Inverse hyperbolic sine.
    pub fn asinh(self) -> Self {
        self.math1(f64::asinh)
    }
    /// Inverse hyperbolic cosine.
    pub fn acosh(self) -> Self {
        self.math1(f64::acosh)
    }
    /// Inverse hyperbolic tangent.
    pub fn atanh(self) -> Self {
        self.math1(f64::atanh)
    }
    /// The magnitude of `self` with the sign of `sign`, sample by sample (exact).
    pub fn copysign(self, sign: impl Into<Self>) -> Self {
        let (x, y) = (self.samples_f64(), sign.into().samples_f64());
        Self::from_repr(std::array::from_fn(|i| F::exact(x[i].copysign(y[i]))))
    }
    /// The least non-negative remainder of `self / rhs` (exact, but for the `+ |rhs|` a negative
    /// remainder takes, rounded at random in a narrower format).
    pub fn rem_euclid(self, rhs: impl Into<Self>) -> Self {
        self.nearly_exact2(rhs.into(), f64::rem_euclid)
    }
    /// The quotient of Euclidean division (an integral value).
    pub fn div_euclid(self, rhs: impl Into<Self>) -> Self {
        self.nearly_exact2(rhs.into(), f64::div_euclid)
    }
    /// `(sin(self), cos(self))`.
    pub fn sin_cos(self) -> (Self, Self) {
        (self.sin(), self.cos())
    }
    /// The total order of IEEE 754 on the values' means (`f64::total_cmp`): sorting by it is
    /// sorting by what the program computed, as comparisons are.
    pub fn total_cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.mean().total_cmp(&other.mean())
    }
    /// `sqrt(self^2 + other^2)` without undue overflow.
    pub fn hypot(self, other: impl Into<Self>) -> Self {
        self.math2(other.into(), Instability::UnstableMathFunction, f64::hypot)
    }
    /// `self^n`.
    pub fn powf(self, n: impl Into<Self>) -> Self {
        self.math2(n.into(), Instability::UnstablePower, f64::powf)
    }
    /// `self^n` by repeated stochastic multiplication (each product rounded at random).
    pub fn powi(self, n: i32) -> Self {
        if self.is_noise() {
            note(Instability::UnstablePower);
        }
        let mut base = self;
        let mut e = n.unsigned_abs();
        let mut acc = Self::from_f64(1.0);
        let mut first = true;
        while e > 0 {
            if e & 1 == 1 {
                acc = if first { base } else { acc.mul_same(base) };
                first = false;
            }
            e >>= 1;
            if e > 0 {
                base = base.mul_same(base);
            }
        }
        if n < 0 {
            Self::from_f64(1.0).div_same(acc)
        } else {
            acc
        }
    }
    /// Largest integer not above each sample.
    pub fn floor(self) -> Self {
        self.intrinsic(f64::floor)
    }
    /// Smallest integer not below each sample.
    pub fn ceil(self) -> Self {
        self.intrinsic(f64::ceil)
    }
    /// Integer part of each sample.
    pub fn trunc(self) -> Self {
        self.intrinsic(f64::trunc)
    }
    /// Nearest integer of each sample, ties away from zero.
    pub fn round(self) -> Self {
        self.intrinsic(f64::round)
    }
    /// Fractional part, `self.add_same(-self.trunc())`.
    pub fn fract(self) -> Self {
        self.add_same(-self.trunc())
    }
    /// Sign of each sample (`1.0` or `-1.0`).
    pub fn signum(self) -> Self {
        self.intrinsic(f64::signum)
    }
    /// Per-sample minimum.
    pub fn min(self, other: impl Into<Self>) -> Self {
        let other = other.into();
        Self::from_repr(std::array::from_fn(|i| {
            F::exact(self.s[i].to_f64().min(other.s[i].to_f64()))
        }))
    }
    /// Per-sample maximum.
    pub fn max(self, other: impl Into<Self>) -> Self {
        let other = other.into();
        Self::from_repr(std::array::from_fn(|i| {
            F::exact(self.s[i].to_f64().max(other.s[i].to_f64()))
        }))
    }
    /// `self` clamped to `[lo, hi]`, per sample.
    pub fn clamp(self, lo: impl Into<Self>, hi: impl Into<Self>) -> Self {
        self.max(lo).min(hi)
    }
    /// `self * a + b`, as a randomly rounded product followed by a randomly rounded sum (two
    /// roundings: the samples model an unfused evaluation).
    pub fn mul_add(self, a: impl Into<Self>, b: impl Into<Self>) -> Self {
        self.mul_same(a.into()).add_same(b.into())
    }
    /// `1 / self`.
    pub fn recip(self) -> Self {
        Self::from_f64(1.0).div_same(self)
    }
    /// Radians to degrees.
    pub fn to_degrees(self) -> Self {
        self.mul_same(Self::from_f64(180.0f64 / std::f64::consts::PI))
    }
    /// Degrees to radians.
    pub fn to_radians(self) -> Self {
        self.mul_same(Self::from_f64(std::f64::consts::PI / 180.0))
    }
    /// Whether the mean is NaN (any sample NaN).
    pub fn is_nan(&self) -> bool {
        self.samples_f64().iter().any(|x| x.is_nan())
    }
    /// Whether every sample is finite.
    pub fn is_finite(&self) -> bool {
        self.samples_f64().iter().all(|x| x.is_finite())
    }
    /// Whether a sample is infinite.
    pub fn is_infinite(&self) -> bool {
        self.samples_f64().iter().any(|x| x.is_infinite())
    }
    /// Whether the mean is negative.
    pub fn is_sign_negative(&self) -> bool {
        self.mean().is_sign_negative()
    }
    /// Whether the mean is positive.
    pub fn is_sign_positive(&self) -> bool {
        self.mean().is_sign_positive()
    }

    /// Float-to-integer conversion (`as i64`) of the mean's truncation; counts an unstable
    /// intrinsic when the samples truncate to different integers.
    pub fn to_i64(self) -> i64 {
        let t = self.samples_f64().map(|x| x as i64);
        if !(t[0] == t[1] && t[1] == t[2]) {
            note(Instability::UnstableIntrinsic);
        }
        self.mean() as i64
    }

    /// Float-to-integer conversion (`as usize`), like [`Stochastic::to_i64`].
    pub fn to_usize(self) -> usize {
        let t = self.samples_f64().map(|x| x as usize);
        if !(t[0] == t[1] && t[1] == t[2]) {
            note(Instability::UnstableIntrinsic);
        }
        self.mean() as usize
    }

    /// The mean as an `f64`.
    pub fn to_f64(self) -> f64 {
        self.mean()
    }

    /// The mean rounded to nearest `f32`.
    pub fn to_f32(self) -> f32 {
        self.mean() as f32
    }
}
