//! num-traits' traits for the probe build's knob type `Probe<F, K>` (feature `num-traits`), each
//! method the native format's: so that what generic code asks of a float (`Complex<T>`'s
//! `T: Num` for its operators, `T: Float` for `exp`, a function generic over `Float`) holds for a
//! probe as it does for the format it stands for, and the probe build's errors are only the
//! couplings it is there to find (`tuner/src/probe/mod.rs`). A probe is compiled, never run.

use std::num::FpCategory;
use std::ops::{Rem, RemAssign};

use num_traits::{Bounded, Float, FloatConst, FromPrimitive, Num, NumCast, One, Signed, ToPrimitive, Zero};

use crate::format::Format;
use crate::rt::Probe;

impl<F: Format + Rem<Output = F>, K: crate::rt::Ids> Rem for Probe<F, K> {
    type Output = Self;
    #[inline(always)]
    fn rem(self, rhs: Self) -> Self {
        Probe::new(self.0 % rhs.0)
    }
}

impl<F: Format + Rem<Output = F>, K: crate::rt::Ids> RemAssign for Probe<F, K> {
    #[inline(always)]
    fn rem_assign(&mut self, rhs: Self) {
        self.0 = self.0 % rhs.0;
    }
}

impl<F: Format + Float, K: crate::rt::Ids> Zero for Probe<F, K> {
    fn zero() -> Self {
        Probe::new(F::zero())
    }
    fn is_zero(&self) -> bool {
        self.0.is_zero()
    }
}

impl<F: Format + Float, K: crate::rt::Ids> One for Probe<F, K> {
    fn one() -> Self {
        Probe::new(F::one())
    }
}

impl<F: Format + Float, K: crate::rt::Ids> Num for Probe<F, K> {
    type FromStrRadixErr = F::FromStrRadixErr;
    fn from_str_radix(s: &str, radix: u32) -> Result<Self, Self::FromStrRadixErr> {
        F::from_str_radix(s, radix).map(Probe::new)
    }
}

impl<F: Format + Float, K: crate::rt::Ids> ToPrimitive for Probe<F, K> {
    fn to_i64(&self) -> Option<i64> {
        self.0.to_i64()
    }
    fn to_u64(&self) -> Option<u64> {
        self.0.to_u64()
    }
    fn to_f64(&self) -> Option<f64> {
        self.0.to_f64()
    }
    fn to_f32(&self) -> Option<f32> {
        self.0.to_f32()
    }
}

impl<F: Format + Float, K: crate::rt::Ids> NumCast for Probe<F, K> {
    fn from<T: ToPrimitive>(n: T) -> Option<Self> {
        <F as NumCast>::from(n).map(Probe::new)
    }
}

impl<F: Format + Float + FromPrimitive, K: crate::rt::Ids> FromPrimitive for Probe<F, K> {
    fn from_i64(n: i64) -> Option<Self> {
        F::from_i64(n).map(Probe::new)
    }
    fn from_u64(n: u64) -> Option<Self> {
        F::from_u64(n).map(Probe::new)
    }
    fn from_f64(n: f64) -> Option<Self> {
        F::from_f64(n).map(Probe::new)
    }
}

impl<F: Format + Float + Signed, K: crate::rt::Ids> Signed for Probe<F, K> {
    fn abs(&self) -> Self {
        Probe::new(Signed::abs(&self.0))
    }
    fn abs_sub(&self, other: &Self) -> Self {
        Probe::new(Signed::abs_sub(&self.0, &other.0))
    }
    fn signum(&self) -> Self {
        Probe::new(Signed::signum(&self.0))
    }
    fn is_positive(&self) -> bool {
        self.0.is_positive()
    }
    fn is_negative(&self) -> bool {
        self.0.is_negative()
    }
}

impl<F: Format + Bounded, K: crate::rt::Ids> Bounded for Probe<F, K> {
    fn min_value() -> Self {
        Probe::new(F::min_value())
    }
    fn max_value() -> Self {
        Probe::new(F::max_value())
    }
}

macro_rules! delegate {
    (consts $($c:ident)*) => {$(
        fn $c() -> Self { Probe::new(F::$c()) }
    )*};
    (predicates $($p:ident)*) => {$(
        fn $p(self) -> bool { self.0.$p() }
    )*};
    (unary $($u:ident)*) => {$(
        fn $u(self) -> Self { Probe::new(Float::$u(self.0)) }
    )*};
    (binary $($b:ident)*) => {$(
        fn $b(self, o: Self) -> Self { Probe::new(Float::$b(self.0, o.0)) }
    )*};
}

impl<F: Format + Float, K: crate::rt::Ids> Float for Probe<F, K> {
    delegate!(consts nan infinity neg_infinity neg_zero min_value min_positive_value epsilon max_value);
    delegate!(predicates is_nan is_infinite is_finite is_normal is_subnormal is_sign_positive is_sign_negative);
    delegate!(unary floor ceil round trunc fract abs signum recip sqrt exp exp2 ln log2 log10 to_degrees
        to_radians cbrt sin cos tan asin acos atan exp_m1 ln_1p sinh cosh tanh asinh acosh atanh);
    delegate!(binary powf log max min abs_sub hypot atan2 copysign);

    fn classify(self) -> FpCategory {
        self.0.classify()
    }
    fn mul_add(self, a: Self, b: Self) -> Self {
        Probe::new(self.0.mul_add(a.0, b.0))
    }
    fn powi(self, n: i32) -> Self {
        Probe::new(self.0.powi(n))
    }
    fn sin_cos(self) -> (Self, Self) {
        let (s, c) = self.0.sin_cos();
        (Probe::new(s), Probe::new(c))
    }
    fn integer_decode(self) -> (u64, i16, i8) {
        self.0.integer_decode()
    }
    fn clamp(self, min: Self, max: Self) -> Self {
        Probe::new(Float::clamp(self.0, min.0, max.0))
    }
}

impl<F: Format + Float + FloatConst, K: crate::rt::Ids> FloatConst for Probe<F, K> {
    delegate!(consts E FRAC_1_PI FRAC_1_SQRT_2 FRAC_2_PI FRAC_2_SQRT_PI FRAC_PI_2 FRAC_PI_3 FRAC_PI_4
        FRAC_PI_6 FRAC_PI_8 LN_10 LN_2 LOG10_E LOG2_E PI SQRT_2 TAU LOG10_2 LOG2_10);
}

#[cfg(test)]
mod tests {
    use num_traits::Float;

    use crate::rt::Probe;

    fn generic<T: Float>(x: T) -> T {
        (x * x + T::one()).sqrt().max(T::epsilon())
    }

    /// Generic code takes a probe as it takes the format it stands for.
    #[test]
    fn a_probe_is_a_float_of_its_format() {
        let p: Probe<f64, crate::rt::Id<3>> = Probe::new(3.0);
        assert_eq!(generic(p).0, generic(3.0f64));
        assert_eq!(<Probe<f64, crate::rt::Id<3>> as num_traits::FloatConst>::PI().0, std::f64::consts::PI);
    }
}
