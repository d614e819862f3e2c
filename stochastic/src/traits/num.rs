//! num-traits' numeric traits for stochastic values (feature `num-traits`): `Float` and what it
//! stands on (`Num`, `Zero`, `One`, `NumCast`, `ToPrimitive`, `FromPrimitive`), `FloatConst`,
//! `Signed`, `Bounded`, `ConstZero`/`ConstOne`, `Inv`, `MulAdd`, `Pow`. `Real` comes with
//! `Float` (num-traits implements it for every `Float`).
//!
//! - Arithmetic and mathematical functions are the stochastic ones of `ops.rs` and `math.rs`:
//!   each sample is randomly rounded and instabilities are counted.
//! - Constants (`max_value`, `epsilon`, `nan`, `PI`, ...) are exact values of the format: three
//!   equal samples, the format's own constant (binary32's `PI` is `f32::consts::PI`).
//! - Predicates follow CADNA: `is_zero` is the computed-zero test of `x == 0`; `is_positive`
//!   is `x > 0` (an unstable branching when `x` is noise).
//! - Conversions out (`ToPrimitive`) return the *mean*: the samples, and what they say of the
//!   accuracy, are lost there. A conversion to an integer whose samples truncate to different
//!   integers counts an unstable intrinsic, as `Stochastic::to_i64` does.
//! - Conversions in (`NumCast`, `FromPrimitive`) round to nearest into the format, once (an
//!   integer above `2^53` too), like a literal: exact values.

use std::num::FpCategory;

use num_traits::{
    Bounded, ConstOne, ConstZero, Float, FloatConst, FromPrimitive, Inv, MulAdd, MulAddAssign, Num, One,
    Pow, Signed, ToPrimitive, Zero,
};

use super::consts::{self, exact};
use crate::format::{Format, Repr};
use crate::stochastic::Instability;
use crate::value::{note, Sbf16, Sf16, Sf32, Sf64, Stochastic};

/// The integer `±magnitude` rounded to nearest into format `F` (once), as an exact value.
fn from_integer<F: Format>(negative: bool, magnitude: u128) -> Stochastic<F> {
    Stochastic::from_f64(consts::nearest_integer::<F>(negative, magnitude))
}

/// The mean of the samples as a primitive value leaves with it: `Stochastic::mean`, except that
/// three equal samples give that sample exactly (`mean` divides their rounded sum by 3, and
/// `0.1 + 0.1 + 0.1` over 3 is not `0.1`), so that a conversion in and out is the identity.
pub(crate) fn mean<F: Format>(x: &Stochastic<F>) -> f64 {
    let [a, b, c] = x.samples_f64();
    if a.to_bits() == b.to_bits() && b.to_bits() == c.to_bits() {
        a
    } else {
        x.mean()
    }
}

/// Counts an unstable intrinsic when the samples of `x` truncate to different integers (what
/// a conversion to an integer keeps of them).
fn check_integer<F: Format>(x: &Stochastic<F>) {
    let t = x.samples_f64().map(f64::trunc);
    if !(t[0] == t[1] && t[1] == t[2]) {
        note(Instability::UnstableIntrinsic);
    }
}

/// Each sample of `x` with the sign of the same sample of `sign` (exact). Counts an unstable
/// intrinsic when the samples of `sign` disagree in sign: the sign of the result is not known.
pub(crate) fn copysign<F: Format>(x: Stochastic<F>, sign: Stochastic<F>) -> Stochastic<F> {
    let (xs, ss) = (x.samples_f64(), sign.samples_f64());
    let negative = ss.map(f64::is_sign_negative);
    if !(negative[0] == negative[1] && negative[1] == negative[2]) {
        note(Instability::UnstableIntrinsic);
    }
    Stochastic::from_repr(std::array::from_fn(|i| F::exact(xs[i].copysign(ss[i]))))
}

impl<F: Format> Zero for Stochastic<F> {
    /// Exact zero.
    #[inline]
    fn zero() -> Self {
        exact(0.0)
    }
    /// Whether `self` is a computed zero (zero mean, or numerical noise): CADNA's `x == 0`,
    /// which counts nothing.
    #[inline]
    fn is_zero(&self) -> bool {
        self.is_computed_zero()
    }
}

impl<F: Format> One for Stochastic<F> {
    /// Exact one.
    #[inline]
    fn one() -> Self {
        exact(1.0)
    }
}

macro_rules! const_zero_one {
    ($($t:ty => $z:expr, $o:expr;)*) => {$(
        impl ConstZero for $t {
            /// Exact zero.
            const ZERO: Self = Stochastic::from_repr([$z; 3]);
        }
        impl ConstOne for $t {
            /// Exact one.
            const ONE: Self = Stochastic::from_repr([$o; 3]);
        }
    )*};
}
const_zero_one! {
    Sf64 => 0.0f64, 1.0f64;
    Sf32 => 0.0f32, 1.0f32;
    Sf16 => 0.0f32, 1.0f32;
    Sbf16 => 0.0f32, 1.0f32;
}

impl<F: Format> Num for Stochastic<F> {
    type FromStrRadixErr = num_traits::ParseFloatError;

    /// Parses as `f64` does (num-traits' `f64::from_str_radix`), then rounds to nearest into the
    /// format, as `FromStr` does: an exact value.
    fn from_str_radix(s: &str, radix: u32) -> Result<Self, Self::FromStrRadixErr> {
        <f64 as Num>::from_str_radix(s, radix).map(Self::from_f64)
    }
}

macro_rules! to_integer {
    ($($name:ident -> $t:ty),*) => {$(
        /// The mean converted as `f64`'s `ToPrimitive` does (truncated; `None` out of range);
        /// counts an unstable intrinsic when the samples truncate to different integers.
        #[inline]
        fn $name(&self) -> Option<$t> {
            check_integer(self);
            ToPrimitive::$name(&mean(self))
        }
    )*};
}

impl<F: Format> ToPrimitive for Stochastic<F> {
    to_integer!(to_isize -> isize, to_i8 -> i8, to_i16 -> i16, to_i32 -> i32, to_i64 -> i64, to_i128 -> i128,
        to_usize -> usize, to_u8 -> u8, to_u16 -> u16, to_u32 -> u32, to_u64 -> u64, to_u128 -> u128);

    /// The mean: the samples are lost.
    #[inline]
    fn to_f64(&self) -> Option<f64> {
        Some(mean(self))
    }

    /// The mean rounded to nearest `f32`: the samples are lost.
    #[inline]
    fn to_f32(&self) -> Option<f32> {
        Some(mean(self) as f32)
    }
}

impl<F: Format> FromPrimitive for Stochastic<F> {
    /// Rounded to nearest into the format (once): an exact value.
    #[inline]
    fn from_i64(n: i64) -> Option<Self> {
        Some(from_integer(n < 0, u128::from(n.unsigned_abs())))
    }
    /// Rounded to nearest into the format (once): an exact value.
    #[inline]
    fn from_u64(n: u64) -> Option<Self> {
        Some(from_integer(false, u128::from(n)))
    }
    /// Rounded to nearest into the format (once): an exact value.
    #[inline]
    fn from_i128(n: i128) -> Option<Self> {
        Some(from_integer(n < 0, n.unsigned_abs()))
    }
    /// Rounded to nearest into the format (once): an exact value.
    #[inline]
    fn from_u128(n: u128) -> Option<Self> {
        Some(from_integer(false, n))
    }
    /// Rounded to nearest into the format: an exact value.
    #[inline]
    fn from_f32(n: f32) -> Option<Self> {
        Some(Self::from_f64(f64::from(n)))
    }
    /// Rounded to nearest into the format: an exact value.
    #[inline]
    fn from_f64(n: f64) -> Option<Self> {
        Some(Stochastic::from_f64(n))
    }
}

// `NumCast` is not imported: its `from` would make `f64::from` ambiguous in this module.
impl<F: Format> num_traits::NumCast for Stochastic<F> {
    /// `n` rounded to nearest into the format, once: an exact value. A stochastic `n` passes
    /// through its mean (`ToPrimitive`), and loses its samples: use `Stochastic::cast` between
    /// formats.
    fn from<T: ToPrimitive>(n: T) -> Option<Self> {
        let x = n.to_f64()?;
        // An integer beyond 2^53 (an integer type's, or a float's, which is then an integer):
        // rounded once from its exact value, not through `f64`.
        if x.is_finite() && x.abs() >= 9_007_199_254_740_992.0 {
            if let Some(i) = n.to_i128() {
                return Some(from_integer(i < 0, i.unsigned_abs()));
            }
            if let Some(u) = n.to_u128() {
                return Some(from_integer(false, u));
            }
        }
        Some(Self::from_f64(x))
    }
}

impl<F: Format> Bounded for Stochastic<F> {
    /// The most negative finite value of the format, exact.
    #[inline]
    fn min_value() -> Self {
        exact(-consts::max_f64::<F>())
    }
    /// The largest finite value of the format, exact.
    #[inline]
    fn max_value() -> Self {
        exact(consts::max_f64::<F>())
    }
}

impl<F: Format> Signed for Stochastic<F> {
    /// `Stochastic::abs`: counts an unstable intrinsic when the samples disagree in sign.
    #[inline]
    fn abs(&self) -> Self {
        Stochastic::abs(*self)
    }
    /// The positive difference `max(self - other, 0)`, sample by sample (the difference randomly
    /// rounded, the maximum exact).
    #[inline]
    fn abs_sub(&self, other: &Self) -> Self {
        Stochastic::max(*self - *other, Self::zero())
    }
    /// `Stochastic::signum`: `1` or `-1` per sample; counts an unstable intrinsic when they differ.
    #[inline]
    fn signum(&self) -> Self {
        Stochastic::signum(*self)
    }
    /// `self > 0`, stochastically (an unstable branching when `self` is noise, which is then
    /// not positive).
    #[inline]
    fn is_positive(&self) -> bool {
        *self > Self::zero()
    }
    /// `self < 0`, stochastically (an unstable branching when `self` is noise, which is then
    /// not negative).
    #[inline]
    fn is_negative(&self) -> bool {
        *self < Self::zero()
    }
}

/// `Float`'s one-operand methods, which are those of the `f64` method set
/// ([`crate::methods::f64_methods!`]): each forwards to `Stochastic`'s own.
macro_rules! forward_unary {
    (unary: [$($name:ident),*], binary: $b:tt, queries: $q:tt) => {$(
        #[inline]
        fn $name(self) -> Self {
            Stochastic::$name(self)
        }
    )*};
}

impl<F: Format> Float for Stochastic<F> {
    /// NaN in every sample.
    #[inline]
    fn nan() -> Self {
        exact(f64::NAN)
    }
    /// `+inf` in every sample.
    #[inline]
    fn infinity() -> Self {
        exact(f64::INFINITY)
    }
    /// `-inf` in every sample.
    #[inline]
    fn neg_infinity() -> Self {
        exact(f64::NEG_INFINITY)
    }
    /// `-0` in every sample.
    #[inline]
    fn neg_zero() -> Self {
        exact(-0.0)
    }
    /// The most negative finite value of the format, exact.
    #[inline]
    fn min_value() -> Self {
        <Self as Bounded>::min_value()
    }
    /// The smallest positive normal value of the format, exact.
    #[inline]
    fn min_positive_value() -> Self {
        exact(consts::min_positive_f64::<F>())
    }
    /// The format's machine epsilon (`f32::EPSILON` for binary32), exact.
    #[inline]
    fn epsilon() -> Self {
        exact(consts::epsilon_f64::<F>())
    }
    /// The largest finite value of the format, exact.
    #[inline]
    fn max_value() -> Self {
        <Self as Bounded>::max_value()
    }
    /// Whether a sample is NaN.
    #[inline]
    fn is_nan(self) -> bool {
        Stochastic::is_nan(&self)
    }
    /// Whether a sample is infinite.
    #[inline]
    fn is_infinite(self) -> bool {
        Stochastic::is_infinite(&self)
    }
    /// Whether every sample is finite.
    #[inline]
    fn is_finite(self) -> bool {
        Stochastic::is_finite(&self)
    }
    /// Whether [`Float::classify`] says normal.
    #[inline]
    fn is_normal(self) -> bool {
        self.classify() == FpCategory::Normal
    }
    /// `Nan` when a sample is NaN, `Infinite` when one is infinite, otherwise the category of
    /// the mean rounded to nearest into the format (subnormal by the format's own range).
    fn classify(self) -> FpCategory {
        if Stochastic::is_nan(&self) {
            return FpCategory::Nan;
        }
        if Stochastic::is_infinite(&self) {
            return FpCategory::Infinite;
        }
        let v = F::nearest(mean(&self)).to_f64().abs();
        if v == 0.0 {
            FpCategory::Zero
        } else if v.is_infinite() {
            FpCategory::Infinite
        } else if v < consts::min_positive_f64::<F>() {
            FpCategory::Subnormal
        } else {
            FpCategory::Normal
        }
    }

    crate::methods::f64_methods!(forward_unary);

    /// Whether the mean's sign bit is clear.
    #[inline]
    fn is_sign_positive(self) -> bool {
        Stochastic::is_sign_positive(&self)
    }
    /// Whether the mean's sign bit is set.
    #[inline]
    fn is_sign_negative(self) -> bool {
        Stochastic::is_sign_negative(&self)
    }
    /// A randomly rounded product, then a randomly rounded sum (`Stochastic::mul_add`).
    #[inline]
    fn mul_add(self, a: Self, b: Self) -> Self {
        Stochastic::mul_add(self, a, b)
    }
    #[inline]
    fn powi(self, n: i32) -> Self {
        Stochastic::powi(self, n)
    }
    #[inline]
    fn powf(self, n: Self) -> Self {
        Stochastic::powf(self, n)
    }
    #[inline]
    fn log(self, base: Self) -> Self {
        Stochastic::log(self, base)
    }
    /// Per-sample maximum.
    #[inline]
    fn max(self, other: Self) -> Self {
        Stochastic::max(self, other)
    }
    /// Per-sample minimum.
    #[inline]
    fn min(self, other: Self) -> Self {
        Stochastic::min(self, other)
    }
    /// Per-sample clamp.
    #[inline]
    fn clamp(self, min: Self, max: Self) -> Self {
        Stochastic::clamp(self, min, max)
    }
    /// `max(self - other, 0)` per sample, as [`Signed::abs_sub`].
    #[inline]
    fn abs_sub(self, other: Self) -> Self {
        Signed::abs_sub(&self, &other)
    }
    #[inline]
    fn hypot(self, other: Self) -> Self {
        Stochastic::hypot(self, other)
    }
    #[inline]
    fn atan2(self, other: Self) -> Self {
        Stochastic::atan2(self, other)
    }
    #[inline]
    fn sin_cos(self) -> (Self, Self) {
        (Stochastic::sin(self), Stochastic::cos(self))
    }
    /// Each sample with the sign of the same sample of `sign` (exact); counts an unstable
    /// intrinsic when the samples of `sign` disagree in sign.
    #[inline]
    fn copysign(self, sign: Self) -> Self {
        copysign(self, sign)
    }

    /// The significand, exponent and sign of the mean rounded to nearest into the format, as
    /// num-traits decodes the primitive type (`mantissa * 2^exponent * sign`; binary16 and
    /// bfloat16 as `half` does).
    fn integer_decode(self) -> (u64, i16, i8) {
        // The format's own code (for `Fx`, whose value is kept in an `f64`, not its bits).
        let bits = crate::formats::codes::encode(F::SPEC, F::nearest(mean(&self)).to_f64());
        let (m, e) = consts::layout::<F>();
        let sign: i8 = if (bits >> (m + e)) & 1 == 0 { 1 } else { -1 };
        let biased = ((bits >> m) & ((1 << e) - 1)) as i16;
        let fraction = bits & ((1 << m) - 1);
        let mantissa = if biased == 0 { fraction << 1 } else { fraction | (1 << m) };
        let bias = (1i16 << (e - 1)) - 1;
        (mantissa, biased - bias - m as i16, sign)
    }
}

macro_rules! float_consts {
    ($($name:ident),*) => {$(
        #[inline]
        fn $name() -> Self {
            // The format's own constant: binary32's is `f32`'s (not `f64`'s rounded again).
            if F::PRECISION == 24 {
                exact(f64::from(std::f32::consts::$name))
            } else {
                exact(F::nearest(std::f64::consts::$name).to_f64())
            }
        }
    )*};
}

/// Each constant is exact: three equal samples, the nearest value of the format (for `TAU`,
/// `LOG10_2` and `LOG2_10` too, which num-traits would otherwise compute).
impl<F: Format> FloatConst for Stochastic<F> {
    float_consts!(
        E, FRAC_1_PI, FRAC_1_SQRT_2, FRAC_2_PI, FRAC_2_SQRT_PI, FRAC_PI_2, FRAC_PI_3, FRAC_PI_4, FRAC_PI_6,
        FRAC_PI_8, LN_10, LN_2, LOG10_E, LOG2_E, PI, SQRT_2, TAU, LOG10_2, LOG2_10
    );
}

impl<F: Format> Inv for Stochastic<F> {
    type Output = Self;
    /// `1 / self`, randomly rounded.
    #[inline]
    fn inv(self) -> Self {
        Stochastic::recip(self)
    }
}

impl<F: Format> Inv for &Stochastic<F> {
    type Output = Stochastic<F>;
    /// `1 / self`, randomly rounded.
    #[inline]
    fn inv(self) -> Stochastic<F> {
        Stochastic::recip(*self)
    }
}

impl<F: Format> MulAdd for Stochastic<F> {
    type Output = Self;
    /// `self * a + b`: a randomly rounded product, then a randomly rounded sum.
    #[inline]
    fn mul_add(self, a: Self, b: Self) -> Self {
        Stochastic::mul_add(self, a, b)
    }
}

impl<F: Format> MulAddAssign for Stochastic<F> {
    /// `*self = *self * a + b`, as [`MulAdd`].
    #[inline]
    fn mul_add_assign(&mut self, a: Self, b: Self) {
        *self = Stochastic::mul_add(*self, a, b);
    }
}

macro_rules! pow_integer {
    ($($t:ty),*) => {$(
        impl<F: Format> Pow<$t> for Stochastic<F> {
            type Output = Self;
            /// `Stochastic::powi`: repeated randomly rounded multiplication.
            #[inline]
            fn pow(self, n: $t) -> Self {
                Stochastic::powi(self, i32::from(n))
            }
        }
    )*};
}
pow_integer!(i8, u8, i16, u16, i32);

impl<F: Format> Pow<Stochastic<F>> for Stochastic<F> {
    type Output = Self;
    /// `Stochastic::powf`.
    #[inline]
    fn pow(self, n: Self) -> Self {
        Stochastic::powf(self, n)
    }
}

impl<F: Format> Pow<f64> for Stochastic<F> {
    type Output = Self;
    /// `Stochastic::powf`, the exponent rounded to nearest into the format.
    #[inline]
    fn pow(self, n: f64) -> Self {
        Stochastic::powf(self, Self::from_f64(n))
    }
}
