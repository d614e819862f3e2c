//! The `f64` method set for the 16-bit formats (`HalfMath`): computed in `f32`, rounded to nearest.

use super::*;

/// The `f64` method set for `f16` and `bf16` (which `half` does not provide): computed in `f32`
/// and rounded to nearest into the format (correctly rounded for `sqrt`, whose double rounding
/// through `f32` is innocuous).
pub trait HalfMath: Sized {
    #[doc(hidden)]
    fn via(self, f: impl Fn(f32) -> f32) -> Self;
    #[doc(hidden)]
    fn via2(self, o: Self, f: impl Fn(f32, f32) -> f32) -> Self;
    /// Square root.
    #[inline(always)]
    fn sqrt(self) -> Self {
        self.via(f32::sqrt)
    }
    /// Cube root.
    #[inline(always)]
    fn cbrt(self) -> Self {
        self.via(f32::cbrt)
    }
    /// Absolute value.
    #[inline(always)]
    fn abs(self) -> Self {
        self.via(f32::abs)
    }
    /// `e^x`.
    #[inline(always)]
    fn exp(self) -> Self {
        self.via(f32::exp)
    }
    /// `2^x`.
    #[inline(always)]
    fn exp2(self) -> Self {
        self.via(f32::exp2)
    }
    /// Natural logarithm.
    #[inline(always)]
    fn ln(self) -> Self {
        self.via(f32::ln)
    }
    /// Base-10 logarithm.
    #[inline(always)]
    fn log10(self) -> Self {
        self.via(f32::log10)
    }
    /// Base-2 logarithm.
    #[inline(always)]
    fn log2(self) -> Self {
        self.via(f32::log2)
    }
    /// Integer power.
    #[inline(always)]
    fn powi(self, n: i32) -> Self {
        self.via(|x| x.powi(n))
    }
    /// Float power.
    #[inline(always)]
    fn powf(self, n: Self) -> Self {
        self.via2(n, f32::powf)
    }
    /// Sine.
    #[inline(always)]
    fn sin(self) -> Self {
        self.via(f32::sin)
    }
    /// Cosine.
    #[inline(always)]
    fn cos(self) -> Self {
        self.via(f32::cos)
    }
    /// Tangent.
    #[inline(always)]
    fn tan(self) -> Self {
        self.via(f32::tan)
    }
    /// Arcsine.
    #[inline(always)]
    fn asin(self) -> Self {
        self.via(f32::asin)
    }
    /// Arccosine.
    #[inline(always)]
    fn acos(self) -> Self {
        self.via(f32::acos)
    }
    /// Arctangent.
    #[inline(always)]
    fn atan(self) -> Self {
        self.via(f32::atan)
    }
    /// Four-quadrant arctangent.
    #[inline(always)]
    fn atan2(self, o: Self) -> Self {
        self.via2(o, f32::atan2)
    }
    /// The magnitude of `self` with the sign of `sign`.
    #[inline(always)]
    fn copysign(self, sign: Self) -> Self {
        self.via2(sign, f32::copysign)
    }
    /// The least non-negative remainder of `self / rhs`.
    #[inline(always)]
    fn rem_euclid(self, rhs: Self) -> Self {
        self.via2(rhs, f32::rem_euclid)
    }
    /// The quotient of Euclidean division.
    #[inline(always)]
    fn div_euclid(self, rhs: Self) -> Self {
        self.via2(rhs, f32::div_euclid)
    }
    /// `(sin(self), cos(self))`.
    #[inline(always)]
    fn sin_cos(self) -> (Self, Self)
    where
        Self: Copy,
    {
        (self.via(f32::sin), self.via(f32::cos))
    }
    /// Hyperbolic sine.
    #[inline(always)]
    fn sinh(self) -> Self {
        self.via(f32::sinh)
    }
    /// Hyperbolic cosine.
    #[inline(always)]
    fn cosh(self) -> Self {
        self.via(f32::cosh)
    }
    /// Hyperbolic tangent.
    #[inline(always)]
    fn tanh(self) -> Self {
        self.via(f32::tanh)
    }
    /// `e^x - 1`.
    #[inline(always)]
    fn exp_m1(self) -> Self {
        self.via(f32::exp_m1)
    }
    /// `ln(1 + x)`.
    #[inline(always)]
    fn ln_1p(self) -> Self {
        self.via(f32::ln_1p)
    }
    /// Inverse hyperbolic sine.
    #[inline(always)]
    fn asinh(self) -> Self {
        self.via(f32::asinh)
    }
    /// Inverse hyperbolic cosine.
    #[inline(always)]
    fn acosh(self) -> Self {
        self.via(f32::acosh)
    }
    /// Inverse hyperbolic tangent.
    #[inline(always)]
    fn atanh(self) -> Self {
        self.via(f32::atanh)
    }
    /// Fractional part, `x - trunc(x)` (exact).
    #[inline(always)]
    fn fract(self) -> Self {
        self.via(f32::fract)
    }
    /// `sqrt(x^2 + y^2)`.
    #[inline(always)]
    fn hypot(self, o: Self) -> Self {
        self.via2(o, f32::hypot)
    }
    /// Floor.
    #[inline(always)]
    fn floor(self) -> Self {
        self.via(f32::floor)
    }
    /// Ceiling.
    #[inline(always)]
    fn ceil(self) -> Self {
        self.via(f32::ceil)
    }
    /// Truncation.
    #[inline(always)]
    fn trunc(self) -> Self {
        self.via(f32::trunc)
    }
    /// Rounding, ties away from zero.
    #[inline(always)]
    fn round(self) -> Self {
        self.via(f32::round)
    }
    /// `1 / x`.
    #[inline(always)]
    fn recip(self) -> Self {
        self.via(f32::recip)
    }
    /// `x * a + b`, rounded once.
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// Radians to degrees.
    #[inline(always)]
    fn to_degrees(self) -> Self {
        self.via(f32::to_degrees)
    }
    /// Degrees to radians.
    #[inline(always)]
    fn to_radians(self) -> Self {
        self.via(f32::to_radians)
    }
}

macro_rules! half_math {
    ($($h:ty),*) => {$(
        impl HalfMath for $h {
            #[inline(always)]
            fn via(self, f: impl Fn(f32) -> f32) -> Self {
                <$h as Half32>::narrow(f(self.widen()))
            }
            #[inline(always)]
            fn via2(self, o: Self, f: impl Fn(f32, f32) -> f32) -> Self {
                <$h as Half32>::narrow(f(self.widen(), o.widen()))
            }
            #[inline(always)]
            fn mul_add(self, a: Self, b: Self) -> Self {
                // The product is exact in f64 and the sum of three 16-bit values too.
                <$h>::from_f64(self.to_f64() * a.to_f64() + b.to_f64())
            }
        }
    )*};
}
half_math!(f16, bf16);
