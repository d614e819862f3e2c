// simba's scalar traits for stochastic values and the single build's knobs (features `simba-0.9`,
// `simba-0.10`: one instance per version, `self::simba` being it, `mod.rs`):
// what nalgebra asks of a scalar, so that `nalgebra::Matrix3<Sf64>` solves, factors and inverts
// under discrete stochastic arithmetic, and a nalgebra crate has a single build.
//
// - `ComplexField` and `RealField` (a stochastic value is a real: its real part is itself),
//   `Field`, `SimdValue` and `PrimitiveSimdValue` (one lane, as simba treats `f64`), and
//   `SubsetOf` between any two stochastic formats (`Stochastic::cast`) and between stochastic
//   values and `f32`, `f64` and the integer types (in: rounded to nearest, exact; out: the mean).
// - `AbsDiffEq`, `RelativeEq` and `UlpsEq`: approx's tests computed with stochastic operations
//   and decided by the stochastic comparisons, so two values whose difference is numerical noise
//   are equal, as CADNA's `==` says.
// - Decisions nalgebra takes on a value (`try_sqrt` of a negative number, `is_zero` of a
//   determinant, the sign in `argument`) are the stochastic comparisons too: on numerical noise
//   they count an unstable branching, or find a computed zero, as a CADNA program would.

use self::simba::scalar::{ComplexField, Field, RealField, SubsetOf};
use self::simba::simd::{PrimitiveSimdValue, SimdValue};
use num_traits::{Bounded, Float, FloatConst, FromPrimitive, NumCast, One, Signed, Zero};

use crate::traits::consts;
use crate::format::Format;
use crate::knob::{DynFloat, Knob, Tag};
use crate::rt::{Ids, Probe};
use crate::value::Stochastic;

/// Between two formats: `Stochastic::cast` both ways (widening exact, narrowing randomly
/// rounded); every value belongs, as simba counts `f64` in `f32`.
impl<F: Format, G: Format> SubsetOf<Stochastic<G>> for Stochastic<F> {
    #[inline]
    fn to_superset(&self) -> Stochastic<G> {
        self.cast()
    }
    #[inline]
    fn from_superset_unchecked(element: &Stochastic<G>) -> Self {
        element.cast()
    }
    #[inline]
    fn is_in_subset(_: &Stochastic<G>) -> bool {
        true
    }
}

/// In: rounded to nearest, an exact value; out: the mean (the samples are lost).
impl<F: Format> SubsetOf<Stochastic<F>> for f64 {
    #[inline]
    fn to_superset(&self) -> Stochastic<F> {
        Stochastic::from_f64(*self)
    }
    #[inline]
    fn from_superset_unchecked(element: &Stochastic<F>) -> f64 {
        super::num::mean(element)
    }
    #[inline]
    fn is_in_subset(_: &Stochastic<F>) -> bool {
        true
    }
}

/// In: rounded to nearest, an exact value; out: the mean rounded to `f32` (the samples are lost).
impl<F: Format> SubsetOf<Stochastic<F>> for f32 {
    #[inline]
    fn to_superset(&self) -> Stochastic<F> {
        Stochastic::from_f64(<f64 as From<f32>>::from(*self))
    }
    #[inline]
    fn from_superset_unchecked(element: &Stochastic<F>) -> f32 {
        super::num::mean(element) as f32
    }
    #[inline]
    fn is_in_subset(_: &Stochastic<F>) -> bool {
        true
    }
}

/// A stochastic value in a primitive superset (generic code written `T: SubsetOf<f64>`, which
/// reads constants of `f64` tables into `T`): out, the mean (the samples are lost there); in, the
/// primitive value exactly (rounded to nearest into a narrower format).
macro_rules! primitive_superset {
    ($($p:ty),*) => {$(
        impl<F: Format> SubsetOf<$p> for Stochastic<F> {
            #[inline]
            fn to_superset(&self) -> $p {
                super::num::mean(self) as $p
            }
            #[inline]
            fn from_superset_unchecked(element: &$p) -> Self {
                Stochastic::from_f64(<f64 as From<$p>>::from(*element))
            }
            #[inline]
            fn is_in_subset(_: &$p) -> bool {
                true
            }
        }
    )*};
}
primitive_superset!(f64, f32);

macro_rules! integer_subset {
    ($($t:ty => |$x:ident| $sign_magnitude:expr),*) => {$(
        /// In: rounded to nearest, once; out: the mean converted with `as` (truncated,
        /// saturating), as simba converts `f64`.
        impl<F: Format> SubsetOf<Stochastic<F>> for $t {
            #[inline]
            fn to_superset(&self) -> Stochastic<F> {
                let $x = *self;
                let (negative, magnitude): (bool, u128) = $sign_magnitude;
                Stochastic::from_f64(consts::nearest_integer::<F>(negative, magnitude))
            }
            #[inline]
            fn from_superset_unchecked(element: &Stochastic<F>) -> $t {
                super::num::mean(element) as $t
            }
            #[inline]
            fn is_in_subset(_: &Stochastic<F>) -> bool {
                true
            }
        }
    )*};
}
integer_subset!(
    u8 => |x| (false, x as u128), u16 => |x| (false, x as u128), u32 => |x| (false, x as u128),
    u64 => |x| (false, x as u128), u128 => |x| (false, x), usize => |x| (false, x as u128),
    i8 => |x| (x < 0, (x as i128).unsigned_abs()), i16 => |x| (x < 0, (x as i128).unsigned_abs()),
    i32 => |x| (x < 0, (x as i128).unsigned_abs()), i64 => |x| (x < 0, (x as i128).unsigned_abs()),
    i128 => |x| (x < 0, x.unsigned_abs()), isize => |x| (x < 0, (x as i128).unsigned_abs())
);

/// simba's scalar traits for a real type `$t` with num-traits' `Float` (a stochastic value, a
/// single-build knob): one lane (`SimdValue`, as simba's `f64`), a `Field`, and `ComplexField` and
/// `RealField` whose every method is the type's own `Float` one (for `Stochastic`, its stochastic
/// operation). Decisions (`try_sqrt` of a negative number, the sign in `argument` and `to_exp`)
/// are the type's comparisons: on numerical noise under DSA they count an unstable branching.
macro_rules! real_scalar {
    ([$($g:tt)*] $t:ty) => {
        impl<$($g)*> SimdValue for $t {
            /// A scalar: one lane, as simba's `f64`.
            const LANES: usize = 1;
            type Element = Self;
            type SimdBool = bool;

            #[inline(always)]
            fn splat(val: Self) -> Self {
                val
            }
            #[inline(always)]
            fn extract(&self, _: usize) -> Self {
                *self
            }
            #[inline(always)]
            unsafe fn extract_unchecked(&self, _: usize) -> Self {
                *self
            }
            #[inline(always)]
            fn replace(&mut self, _: usize, val: Self) {
                *self = val;
            }
            #[inline(always)]
            unsafe fn replace_unchecked(&mut self, _: usize, val: Self) {
                *self = val;
            }
            #[inline(always)]
            fn select(self, cond: bool, other: Self) -> Self {
                if cond {
                    self
                } else {
                    other
                }
            }
        }

        impl<$($g)*> PrimitiveSimdValue for $t {}

        impl<$($g)*> Field for $t {}

        impl<$($g)*> ComplexField for $t {
            type RealField = Self;

            #[inline]
            fn from_real(re: Self) -> Self {
                re
            }
            #[inline]
            fn real(self) -> Self {
                self
            }
            /// Exact zero.
            #[inline]
            fn imaginary(self) -> Self {
                <Self as Zero>::zero()
            }
            /// `|self|`.
            #[inline]
            fn modulus(self) -> Self {
                Float::abs(self)
            }
            #[inline]
            fn modulus_squared(self) -> Self {
                self * self
            }
            /// `0` when `self >= 0`, `PI` otherwise.
            #[inline]
            fn argument(self) -> Self {
                if self >= <Self as Zero>::zero() {
                    <Self as Zero>::zero()
                } else {
                    <Self as FloatConst>::PI()
                }
            }
            /// `|self|`.
            #[inline]
            fn norm1(self) -> Self {
                Float::abs(self)
            }
            #[inline]
            fn scale(self, factor: Self) -> Self {
                self * factor
            }
            #[inline]
            fn unscale(self, factor: Self) -> Self {
                self / factor
            }
            /// `(|self|, ±1)` by the sign of `self`, as simba's `f64`.
            #[inline]
            fn to_exp(self) -> (Self, Self) {
                if self >= <Self as Zero>::zero() {
                    (self, <Self as One>::one())
                } else {
                    (-self, -<Self as One>::one())
                }
            }
            #[inline]
            fn signum(self) -> Self {
                Float::signum(self)
            }

            real_scalar!(@forward
                floor, ceil, round, trunc, fract, abs, recip, sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, asinh,
                acosh, atanh, log2, log10, ln, ln_1p, sqrt, exp, exp2, exp_m1, cbrt
            );

            /// A real's conjugate is itself.
            #[inline]
            fn conjugate(self) -> Self {
                self
            }
            #[inline]
            fn mul_add(self, a: Self, b: Self) -> Self {
                Float::mul_add(self, a, b)
            }
            #[inline]
            fn hypot(self, other: Self) -> Self {
                Float::hypot(self, other)
            }
            #[inline]
            fn sin_cos(self) -> (Self, Self) {
                (Float::sin(self), Float::cos(self))
            }
            #[inline]
            fn log(self, base: Self) -> Self {
                Float::log(self, base)
            }
            #[inline]
            fn powi(self, n: i32) -> Self {
                Float::powi(self, n)
            }
            #[inline]
            fn powf(self, n: Self) -> Self {
                Float::powf(self, n)
            }
            /// `powf`, as for simba's `f64`.
            #[inline]
            fn powc(self, n: Self) -> Self {
                Float::powf(self, n)
            }
            #[inline]
            fn is_finite(&self) -> bool {
                Float::is_finite(*self)
            }
            /// `Some(sqrt)` when `self >= 0` (under DSA numerical noise is a computed zero: it
            /// passes, counting an unstable branching, and its square root an unstable function).
            #[inline]
            fn try_sqrt(self) -> Option<Self> {
                if self >= <Self as Zero>::zero() {
                    Some(Float::sqrt(self))
                } else {
                    None
                }
            }
        }

        impl<$($g)*> RealField for $t {
            #[inline]
            fn is_sign_positive(&self) -> bool {
                Float::is_sign_positive(*self)
            }
            #[inline]
            fn is_sign_negative(&self) -> bool {
                Float::is_sign_negative(*self)
            }
            #[inline]
            fn copysign(self, sign: Self) -> Self {
                Float::copysign(self, sign)
            }
            #[inline]
            fn max(self, other: Self) -> Self {
                Float::max(self, other)
            }
            #[inline]
            fn min(self, other: Self) -> Self {
                Float::min(self, other)
            }
            #[inline]
            fn clamp(self, min: Self, max: Self) -> Self {
                Float::clamp(self, min, max)
            }
            #[inline]
            fn atan2(self, other: Self) -> Self {
                Float::atan2(self, other)
            }
            /// The most negative finite value of the format (simba's `f64::MIN`), exact.
            #[inline]
            fn min_value() -> Option<Self> {
                Some(<Self as Bounded>::min_value())
            }
            /// The largest finite value of the format, exact.
            #[inline]
            fn max_value() -> Option<Self> {
                Some(<Self as Bounded>::max_value())
            }

            real_scalar!(@consts
                pi => PI, two_pi => TAU, frac_pi_2 => FRAC_PI_2, frac_pi_3 => FRAC_PI_3, frac_pi_4 => FRAC_PI_4,
                frac_pi_6 => FRAC_PI_6, frac_pi_8 => FRAC_PI_8, frac_1_pi => FRAC_1_PI, frac_2_pi => FRAC_2_PI,
                frac_2_sqrt_pi => FRAC_2_SQRT_PI, e => E, log2_e => LOG2_E, log10_e => LOG10_E, ln_2 => LN_2,
                ln_10 => LN_10
            );
        }
    };
    (@forward $($name:ident),*) => {$(
        #[inline]
        fn $name(self) -> Self {
            Float::$name(self)
        }
    )*};
    (@consts $($name:ident => $konst:ident),*) => {$(
        /// Exact: the format's nearest value.
        #[inline]
        fn $name() -> Self {
            <Self as FloatConst>::$konst()
        }
    )*};
}

real_scalar!([F: Format] Stochastic<F>);
real_scalar!([F: Tag, const K: u32, V: DynFloat] Knob<F, K, V>);
// The probe build's type (compiled, never run): so that rustc reaches what a nalgebra
// decomposition's types require of the knobs (`a.lu()` has `a`'s element type).
real_scalar!([F: Format + Float + FloatConst + Signed + Bounded + FromPrimitive, K: Ids] Probe<F, K>);

/// Between two probes, and with primitives: as the native values convert (the probe build is
/// compiled, never run).
impl<F: Format + Float, K: Ids, G: Format + Float, L: Ids> SubsetOf<Probe<G, L>> for Probe<F, K> {
    #[inline]
    fn to_superset(&self) -> Probe<G, L> {
        Probe::new(G::from(self.0).unwrap_or_else(G::nan))
    }
    #[inline]
    fn from_superset_unchecked(element: &Probe<G, L>) -> Self {
        Probe::new(F::from(element.0).unwrap_or_else(F::nan))
    }
    #[inline]
    fn is_in_subset(_: &Probe<G, L>) -> bool {
        true
    }
}

macro_rules! probe_subset {
    ($($t:ty),*) => {$(
        impl<F: Format + Float, K: Ids> SubsetOf<Probe<F, K>> for $t {
            #[inline]
            fn to_superset(&self) -> Probe<F, K> {
                Probe::new(F::from(*self).unwrap_or_else(F::nan))
            }
            #[inline]
            fn from_superset_unchecked(element: &Probe<F, K>) -> $t {
                element.0.to_f64().unwrap_or(f64::NAN) as $t
            }
            #[inline]
            fn is_in_subset(_: &Probe<F, K>) -> bool {
                true
            }
        }
    )*};
}
probe_subset!(f64, f32, u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

// The single build's knobs: between two knobs, the value stored into the other's unit (rounded,
// as a store); with primitives and integers as a stochastic value's (in: rounded to nearest, an
// exact value; out: the value stored into the primitive, under DSA the mean).

impl<F: Tag, const K: u32, G: Tag, const L: u32, V: DynFloat> SubsetOf<Knob<G, L, V>> for Knob<F, K, V> {
    #[inline]
    fn to_superset(&self) -> Knob<G, L, V> {
        Knob::from_dyn(self.get())
    }
    #[inline]
    fn from_superset_unchecked(element: &Knob<G, L, V>) -> Self {
        Knob::from_dyn(element.get())
    }
    #[inline]
    fn is_in_subset(_: &Knob<G, L, V>) -> bool {
        true
    }
}

macro_rules! knob_subset {
    ($($t:ty),*) => {$(
        impl<F: Tag, const K: u32, V: DynFloat> SubsetOf<Knob<F, K, V>> for $t {
            #[inline]
            fn to_superset(&self) -> Knob<F, K, V> {
                <Knob<F, K, V> as NumCast>::from(*self).unwrap_or_else(<Knob<F, K, V> as Float>::nan)
            }
            #[inline]
            fn from_superset_unchecked(element: &Knob<F, K, V>) -> $t {
                element.get().store_native::<f64>() as $t
            }
            #[inline]
            fn is_in_subset(_: &Knob<F, K, V>) -> bool {
                true
            }
        }
    )*};
}
knob_subset!(f64, f32, u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

macro_rules! knob_primitive_superset {
    ($($p:ty),*) => {$(
        impl<F: Tag, const K: u32, V: DynFloat> SubsetOf<$p> for Knob<F, K, V> {
            #[inline]
            fn to_superset(&self) -> $p {
                self.get().store_native::<f64>() as $p
            }
            #[inline]
            fn from_superset_unchecked(element: &$p) -> Self {
                <Self as NumCast>::from(*element).unwrap_or_else(<Self as Float>::nan)
            }
            #[inline]
            fn is_in_subset(_: &$p) -> bool {
                true
            }
        }
    )*};
}
knob_primitive_superset!(f64, f32);
