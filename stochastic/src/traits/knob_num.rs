//! num-traits' numeric traits for the single build's knobs, `Knob<F, K, V>` (feature
//! `num-traits`): code generic over `num_traits::Float` (`fn horner<T: Float>(..)`,
//! `Complex<T>`) takes a knob, so a crate written that way has a single build too.
//!
//! Each method is the knob's own (`Knob::sqrt`, `+`, ...: its value's, in the format the run gives
//! its unit), so the single build computes what the configuration's stochastic or native build
//! computes with `Stochastic<F>`'s or `f64`'s traits ([`super::num`]):
//!
//! - constants (`max_value`, `epsilon`, `PI`, ...) are the unit's format's, exact;
//! - conversions in (`NumCast`, `FromPrimitive`, `from_str_radix`) round to nearest into the
//!   unit's format, like a literal;
//! - conversions out (`ToPrimitive`) give the value stored into an `f64` (under DSA its mean: the
//!   samples end there, as out of a stochastic value);
//! - `is_zero` and the sign tests are the value's comparisons (CADNA's under DSA).

use std::num::FpCategory;

use num_traits::{Bounded, Float, FloatConst, FromPrimitive, Num, NumCast, One, Signed, ToPrimitive, Zero};

use crate::knob::{DynFloat, Knob, Tag};

impl<F: Tag, const K: u32, V: DynFloat> Knob<F, K, V> {
    /// `x` rounded to nearest into the unit's format (an exact value).
    #[inline]
    fn nearest(x: f64) -> Self {
        Knob::from_dyn(V::from_f64(x, Self::unit_format()))
    }

    /// The value as an `f64` leaves with it (the mean under DSA).
    #[inline]
    fn to_f64_value(self) -> f64 {
        self.get().store_native::<f64>()
    }
}

impl<F: Tag, const K: u32, V: DynFloat> Zero for Knob<F, K, V> {
    #[inline]
    fn zero() -> Self {
        Self::default()
    }
    /// `self == 0` (under DSA, whether the value is a computed zero).
    #[inline]
    fn is_zero(&self) -> bool {
        *self == Self::default()
    }
}

impl<F: Tag, const K: u32, V: DynFloat> One for Knob<F, K, V> {
    #[inline]
    fn one() -> Self {
        Self::nearest(1.0)
    }
}

impl<F: Tag, const K: u32, V: DynFloat> Num for Knob<F, K, V> {
    type FromStrRadixErr = num_traits::ParseFloatError;

    /// Parsed as `f64` parses, then rounded to nearest into the unit's format.
    fn from_str_radix(s: &str, radix: u32) -> Result<Self, Self::FromStrRadixErr> {
        <f64 as Num>::from_str_radix(s, radix).map(Self::nearest)
    }
}

macro_rules! to_primitive {
    ($($name:ident -> $t:ty),*) => {$(
        #[inline]
        fn $name(&self) -> Option<$t> {
            self.to_f64_value().$name()
        }
    )*};
}

impl<F: Tag, const K: u32, V: DynFloat> ToPrimitive for Knob<F, K, V> {
    to_primitive!(to_i8 -> i8, to_i16 -> i16, to_i32 -> i32, to_i64 -> i64, to_i128 -> i128, to_isize -> isize,
        to_u8 -> u8, to_u16 -> u16, to_u32 -> u32, to_u64 -> u64, to_u128 -> u128, to_usize -> usize,
        to_f32 -> f32);
    #[inline]
    fn to_f64(&self) -> Option<f64> {
        Some(self.to_f64_value())
    }
}

impl<F: Tag, const K: u32, V: DynFloat> NumCast for Knob<F, K, V> {
    #[inline]
    fn from<T: ToPrimitive>(n: T) -> Option<Self> {
        n.to_f64().map(Self::nearest)
    }
}

impl<F: Tag, const K: u32, V: DynFloat> FromPrimitive for Knob<F, K, V> {
    #[inline]
    fn from_i64(n: i64) -> Option<Self> {
        Some(Self::nearest(n as f64))
    }
    #[inline]
    fn from_u64(n: u64) -> Option<Self> {
        Some(Self::nearest(n as f64))
    }
    #[inline]
    fn from_f64(n: f64) -> Option<Self> {
        Some(Self::nearest(n))
    }
}

impl<F: Tag, const K: u32, V: DynFloat> Bounded for Knob<F, K, V> {
    #[inline]
    fn min_value() -> Self {
        Self::nearest(-Self::unit_format().spec().max())
    }
    #[inline]
    fn max_value() -> Self {
        Self::nearest(Self::unit_format().spec().max())
    }
}

impl<F: Tag, const K: u32, V: DynFloat> Signed for Knob<F, K, V> {
    #[inline]
    fn abs(&self) -> Self {
        Knob::abs(*self)
    }
    #[inline]
    fn abs_sub(&self, other: &Self) -> Self {
        Knob::max(*self - *other, Self::zero())
    }
    #[inline]
    fn signum(&self) -> Self {
        Knob::signum(*self)
    }
    #[inline]
    fn is_positive(&self) -> bool {
        *self > Self::zero()
    }
    #[inline]
    fn is_negative(&self) -> bool {
        *self < Self::zero()
    }
}

/// `Float`'s methods of the `f64` method set ([`crate::methods::f64_methods!`]): the knob's own
/// (the two-operand ones `Float` has, which are not all the set's).
macro_rules! forward_float {
    (unary: [$($u:ident),*], binary: $ignored:tt, queries: [$($q:ident -> $r:ty),*]) => {
        $(
            #[inline]
            fn $u(self) -> Self {
                Knob::$u(self)
            }
        )*
        forward_float!(@binary powf, atan2, hypot, min, max, copysign);
        $(
            #[inline]
            fn $q(self) -> $r {
                Knob::$q(&self)
            }
        )*
    };
    (@binary $($b:ident),*) => {$(
        #[inline]
        fn $b(self, o: Self) -> Self {
            Knob::$b(self, o)
        }
    )*};
}

impl<F: Tag, const K: u32, V: DynFloat> Float for Knob<F, K, V> {
    #[inline]
    fn nan() -> Self {
        Self::nearest(f64::NAN)
    }
    #[inline]
    fn infinity() -> Self {
        Self::nearest(f64::INFINITY)
    }
    #[inline]
    fn neg_infinity() -> Self {
        Self::nearest(f64::NEG_INFINITY)
    }
    #[inline]
    fn neg_zero() -> Self {
        Self::nearest(-0.0)
    }
    #[inline]
    fn min_value() -> Self {
        <Self as Bounded>::min_value()
    }
    #[inline]
    fn min_positive_value() -> Self {
        Self::nearest(Self::unit_format().spec().min_normal())
    }
    #[inline]
    fn epsilon() -> Self {
        Self::nearest(crate::round::pow2(-(Self::unit_format().spec().man_bits as i32)))
    }
    #[inline]
    fn max_value() -> Self {
        <Self as Bounded>::max_value()
    }
    #[inline]
    fn is_normal(self) -> bool {
        self.classify() == FpCategory::Normal
    }
    /// The category of the value stored into the unit's format (subnormal by its own range).
    fn classify(self) -> FpCategory {
        let v = self.to_f64_value();
        if v.is_nan() {
            return FpCategory::Nan;
        }
        let a = v.abs();
        if a.is_infinite() {
            FpCategory::Infinite
        } else if a == 0.0 {
            FpCategory::Zero
        } else if a < Self::unit_format().spec().min_normal() {
            FpCategory::Subnormal
        } else {
            FpCategory::Normal
        }
    }
    #[inline]
    fn mul_add(self, a: Self, b: Self) -> Self {
        Knob::mul_add(self, a, b)
    }
    #[inline]
    fn powi(self, n: i32) -> Self {
        Knob::powi(self, n)
    }
    #[inline]
    fn log(self, base: Self) -> Self {
        Knob::ln(self) / Knob::ln(base)
    }
    #[inline]
    fn abs_sub(self, other: Self) -> Self {
        Knob::max(self - other, Self::zero())
    }
    #[inline]
    fn sin_cos(self) -> (Self, Self) {
        Knob::sin_cos(self)
    }
    /// `f64`'s decoding of the value as an `f64` (under DSA, its mean).
    #[inline]
    fn integer_decode(self) -> (u64, i16, i8) {
        Float::integer_decode(self.to_f64_value())
    }
    crate::methods::f64_methods!(forward_float);
}

macro_rules! knob_consts {
    ($($name:ident),*) => {
        impl<F: Tag, const K: u32, V: DynFloat> FloatConst for Knob<F, K, V> {
            $(
                #[doc = concat!("`", stringify!($name), "` rounded to nearest into the unit's format.")]
                #[inline]
                fn $name() -> Self {
                    Self::nearest(<f64 as FloatConst>::$name())
                }
            )*
        }
    };
}
knob_consts!(E, FRAC_1_PI, FRAC_1_SQRT_2, FRAC_2_PI, FRAC_2_SQRT_PI, FRAC_PI_2, FRAC_PI_3, FRAC_PI_4, FRAC_PI_6,
    FRAC_PI_8, LN_10, LN_2, LOG10_E, LOG2_E, PI, SQRT_2, TAU, LOG10_2, LOG2_10);

#[cfg(test)]
mod tests {
    use num_traits::{Float, FloatConst, NumCast, ToPrimitive};

    use crate::knob::{DynNative, DynStochastic, Knob};

    /// The generic code of a crate written over `Float`.
    fn horner<T: Float>(c: &[T], x: T) -> T {
        c.iter().rev().fold(T::zero(), |acc, &ci| acc * x + ci)
    }

    #[test]
    fn a_knob_is_a_float_of_its_units_format() {
        // Unit 4093 is given no format in the test run: its declared one.
        type N = Knob<f32, 4093, DynNative>;
        let c: Vec<N> = [0.25, 5.0, 0.0, -20.0, 0.0, 16.0].iter().map(|&v| <N as NumCast>::from(v).expect("in")).collect();
        let x = <N as NumCast>::from(0.2).expect("in");
        let native = horner(&[0.25f32, 5.0, 0.0, -20.0, 0.0, 16.0], 0.2f32);
        assert_eq!(horner(&c, x).to_f64().expect("out"), native as f64);
        assert_eq!(<N as Float>::epsilon().to_f64().expect("out"), f32::EPSILON as f64);
        assert_eq!(<N as Float>::max_value().to_f64().expect("out"), f32::MAX as f64);
        assert_eq!(<N as FloatConst>::PI().to_f64().expect("out"), std::f32::consts::PI as f64);
        let s = <Knob<f64, 4094, DynStochastic> as NumCast>::from(2.0).expect("in");
        assert_eq!(Float::sqrt(s).to_f64().expect("out"), 2f64.sqrt());
    }
}
