//! Two-operand math methods (`Math2`: `powf`, `atan2`, `min`, ...) between floats of any kinds, in
//! their common format.

use super::*;

/// The two-operand methods of `f64`'s set, on the types two float operands meet in: `x.powf(y)`
/// with `x` and `y` of different formats is computed in the common one, like `x + y`, and a
/// literal (or `1.0 / (n as f64)`) argument adapts to the receiver, so lowering a receiver does
/// not pin it to its argument's format.
pub trait Math2: Sized {
    #[doc(hidden)]
    fn m_powf(a: Self, b: Self) -> Self;
    #[doc(hidden)]
    fn m_atan2(a: Self, b: Self) -> Self;
    #[doc(hidden)]
    fn m_hypot(a: Self, b: Self) -> Self;
    #[doc(hidden)]
    fn m_min(a: Self, b: Self) -> Self;
    #[doc(hidden)]
    fn m_max(a: Self, b: Self) -> Self;
    #[doc(hidden)]
    fn m_copysign(a: Self, b: Self) -> Self;
    #[doc(hidden)]
    fn m_rem_euclid(a: Self, b: Self) -> Self;
    #[doc(hidden)]
    fn m_div_euclid(a: Self, b: Self) -> Self;
}

macro_rules! math2_by_methods {
    ($([$($g:tt)*] $t:ty),* $(,)?) => {$(
        impl<$($g)*> Math2 for $t {
            #[inline(always)]
            fn m_powf(a: Self, b: Self) -> Self { a.powf(b) }
            #[inline(always)]
            fn m_atan2(a: Self, b: Self) -> Self { a.atan2(b) }
            #[inline(always)]
            fn m_hypot(a: Self, b: Self) -> Self { a.hypot(b) }
            #[inline(always)]
            fn m_min(a: Self, b: Self) -> Self { a.min(b) }
            #[inline(always)]
            fn m_max(a: Self, b: Self) -> Self { a.max(b) }
            #[inline(always)]
            fn m_copysign(a: Self, b: Self) -> Self { a.copysign(b) }
            #[inline(always)]
            fn m_rem_euclid(a: Self, b: Self) -> Self { a.rem_euclid(b) }
            #[inline(always)]
            fn m_div_euclid(a: Self, b: Self) -> Self { a.div_euclid(b) }
        }
    )*};
}

math2_by_methods!(
    [] f64,
    [] f32,
    [F: Format] Stochastic<F>,
    [F: Format, const K: u32] Probe<F, K>,
    // The single build's values of run-time format.
    [] crate::knob::Sdyn,
    [] crate::knob::Ndyn,
);

macro_rules! math2_half {
    ($($h:ty),*) => {$(
        impl Math2 for $h {
            #[inline(always)]
            fn m_powf(a: Self, b: Self) -> Self { HalfMath::powf(a, b) }
            #[inline(always)]
            fn m_atan2(a: Self, b: Self) -> Self { HalfMath::atan2(a, b) }
            #[inline(always)]
            fn m_hypot(a: Self, b: Self) -> Self { HalfMath::hypot(a, b) }
            #[inline(always)]
            fn m_min(a: Self, b: Self) -> Self { <$h>::min(a, b) }
            #[inline(always)]
            fn m_max(a: Self, b: Self) -> Self { <$h>::max(a, b) }
            #[inline(always)]
            fn m_copysign(a: Self, b: Self) -> Self { HalfMath::copysign(a, b) }
            #[inline(always)]
            fn m_rem_euclid(a: Self, b: Self) -> Self { HalfMath::rem_euclid(a, b) }
            #[inline(always)]
            fn m_div_euclid(a: Self, b: Self) -> Self { HalfMath::div_euclid(a, b) }
        }
    )*};
}

math2_half!(f16, bf16);

float_pair!(FloatPowf, __fp_powf, Math2, m_powf);
float_pair!(FloatAtan2, __fp_atan2, Math2, m_atan2);
float_pair!(FloatHypot, __fp_hypot, Math2, m_hypot);
float_pair!(FloatMin, __fp_min, Math2, m_min);
float_pair!(FloatMax, __fp_max, Math2, m_max);
float_pair!(FloatCopysign, __fp_copysign, Math2, m_copysign);
float_pair!(FloatRemEuclid, __fp_rem_euclid, Math2, m_rem_euclid);
float_pair!(FloatDivEuclid, __fp_div_euclid, Math2, m_div_euclid);

macro_rules! ord_method {
    ($Std:ident, $m:ident, $ord:ident) => {
        /// `min`/`max` of any other operands (integers, say): [`Ord`]'s.
        pub trait $Std {
            /// Result type.
            type Out;
            /// The method.
            fn $m(&self) -> Self::Out;
        }
        impl<A: Ord> $Std for Pair<A, A> {
            type Out = A;
            #[inline(always)]
            fn $m(&self) -> A {
                let (a, b) = self.take();
                Ord::$ord(a, b)
            }
        }
    };
}

ord_method!(StdMin, __fp_min, min);
ord_method!(StdMax, __fp_max, max);
