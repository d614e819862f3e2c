//! `Fx<E, M, FLAGS>`: a native value of any format of E exponent and M significand bits, kept in
//! an `f64` and rounded to nearest even after every operation.
//!
//! Rust has no such primitive, so a tuned crate whose knob goes to a format beyond the four
//! (`e4m3`, `tf32`, a significand width of the `bits` ladder) gets this type: it builds, runs,
//! and shows the precision's effect on the results. `+ - * /`, `%` and `sqrt` are correctly
//! rounded (`arith`, from the exact result); the other methods of `f64`'s set compute in `f64`
//! and round once more (the second rounding of a function that `f64` already rounded, as `f16`'s
//! methods through `f32`). Its cost is `f64` arithmetic plus a rounding per operation: see
//! BENCHMARKS.md beside the primitive types.
//!
//! `FLAGS` ([`flags`]) chooses OCP E4M3's conventions, saturation and flushing; [`E4M3`],
//! [`E5M2`] and [`TF32`] name the common ones.

use std::cmp::Ordering;
use std::fmt;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub, SubAssign};

use super::arith::{self, overflowed, Rounding};
use super::{flags, spec_of, Spec};

/// OCP FP8 E4M3 (max 448, no infinities).
pub type E4M3 = Fx<4, 3, { flags::FINITE_NAN }>;
/// OCP FP8 E5M2 (IEEE conventions, max 57344).
pub type E5M2 = Fx<5, 2>;
/// NVIDIA TF32: binary32's range, 11 bits of precision.
pub type TF32 = Fx<8, 10>;

/// A value of the format of `E` exponent bits and `M` stored significand bits (see the module
/// documentation). Its `f64` always lies on the format's grid.
#[derive(Clone, Copy, Default, PartialEq, PartialOrd)]
#[repr(transparent)]
pub struct Fx<const E: u32, const M: u32, const FLAGS: u32 = 0>(f64);

impl<const E: u32, const M: u32, const FLAGS: u32> Fx<E, M, FLAGS> {
    /// The format.
    pub const SPEC: Spec = spec_of(E, M, FLAGS);
    /// Zero.
    pub const ZERO: Self = Fx(0.0);
    /// One.
    pub const ONE: Self = Fx(1.0);

    /// `x` rounded to nearest even into the format.
    #[inline]
    pub fn from_f64(x: f64) -> Self {
        Fx(arith::round(Self::SPEC, x, Rounding::NearestEven))
    }

    /// `x` rounded to nearest even into the format, in a const context (`const` and `static`
    /// items): the same value as [`Fx::from_f64`].
    pub const fn from_f64_const(x: f64) -> Self {
        Fx(nearest_const(Self::SPEC, x))
    }

    /// `x` rounded to nearest even into the format.
    #[inline]
    pub fn from_f32(x: f32) -> Self {
        Self::from_f64(f64::from(x))
    }

    /// The value, exactly.
    #[inline]
    pub const fn to_f64(self) -> f64 {
        self.0
    }

    /// The value rounded to nearest `f32` (exact when the format fits binary32).
    #[inline]
    pub fn to_f32(self) -> f32 {
        self.0 as f32
    }

    /// The value of a bit code ([`Spec::decode`]).
    pub fn from_bits(code: u64) -> Self {
        Fx(super::codes::decode(Self::SPEC, code))
    }

    /// The bit code ([`Spec::encode`]).
    pub fn to_bits(self) -> u64 {
        super::codes::encode(Self::SPEC, self.0)
    }

    /// The largest finite value.
    pub fn max_value() -> Self {
        Fx(Self::SPEC.max())
    }

    /// The smallest positive normal value.
    pub fn min_positive() -> Self {
        Fx(Self::SPEC.min_normal())
    }

    /// The distance from 1 to the next value, `2^-M`.
    pub fn epsilon() -> Self {
        Fx(crate::round::pow2(-(M as i32)))
    }

    /// A value already on the grid (the caller's promise), unrounded.
    #[inline]
    pub(crate) const fn on_grid(x: f64) -> Self {
        Fx(x)
    }

    /// Square root, correctly rounded.
    #[inline]
    pub fn sqrt(self) -> Self {
        Fx(arith::sqrt(Self::SPEC, self.0, Rounding::NearestEven))
    }

    /// `self * a + b`, computed by `f64::mul_add` and rounded into the format (a product and
    /// sum exact in `f64` when `2 M + 2 <= 53` and the exponents allow, so then rounded once).
    #[inline]
    pub fn mul_add(self, a: Self, b: Self) -> Self {
        Self::from_f64(self.0.mul_add(a.0, b.0))
    }

    /// `self^n`, computed in `f64` and rounded.
    #[inline]
    pub fn powi(self, n: i32) -> Self {
        Self::from_f64(self.0.powi(n))
    }

    /// Sine and cosine, each computed in `f64` and rounded.
    #[inline]
    pub fn sin_cos(self) -> (Self, Self) {
        let (s, c) = self.0.sin_cos();
        (Self::from_f64(s), Self::from_f64(c))
    }

    /// IEEE 754's total order of the values (as `f64::total_cmp`).
    #[inline]
    pub fn total_cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Round-to-nearest-even of `x` onto `spec` in a const context: `exact::round_int` on its
/// integer significand, which gives what `arith::round` gives; NaN stays, infinity where the
/// format has one, else what an overflow gives.
const fn nearest_const(spec: Spec, x: f64) -> f64 {
    let neg = x.is_sign_negative();
    if !x.is_finite() {
        return if x.is_nan() || spec.has_infinity() { x } else { overflowed(spec, neg, Rounding::NearestEven) };
    }
    let (mant, exp) = crate::round::decompose(x);
    super::exact::round_int(spec, neg, mant as u128, exp, false, Rounding::NearestEven)
}

macro_rules! fx_methods {
    (unary: [$($u:ident),*], binary: [$($b:ident),*], queries: [$($q:ident -> $t:ty),*]) => {
        impl<const E: u32, const M: u32, const FLAGS: u32> Fx<E, M, FLAGS> {
            $(
                #[doc = concat!("`f64::", stringify!($u), "`, rounded into the format.")]
                #[inline]
                pub fn $u(self) -> Self {
                    Self::from_f64(self.0.$u())
                }
            )*
            $(
                #[doc = concat!("`f64::", stringify!($b), "`, rounded into the format.")]
                #[inline]
                pub fn $b(self, other: Self) -> Self {
                    Self::from_f64(self.0.$b(other.0))
                }
            )*
            $(
                #[doc = concat!("`f64::", stringify!($q), "`.")]
                #[inline]
                pub fn $q(self) -> $t {
                    self.0.$q()
                }
            )*
        }
    };
}

// `sqrt` has its own inherent definition; the list's other methods come from here.
macro_rules! fx_methods_but_sqrt {
    (unary: [sqrt, $($u:ident),*], binary: [$($b:ident),*], queries: [$($q:ident -> $t:ty),*]) => {
        fx_methods!(unary: [$($u),*], binary: [$($b),*], queries: [$($q -> $t),*]);
    };
}
crate::methods::f64_methods!(fx_methods_but_sqrt);

macro_rules! fx_ops {
    ($($Op:ident, $op:ident, $Assign:ident, $assign:ident, $kernel:path);*) => {$(
        impl<const E: u32, const M: u32, const FLAGS: u32> $Op for Fx<E, M, FLAGS> {
            type Output = Self;
            #[inline]
            fn $op(self, rhs: Self) -> Self {
                Fx($kernel(Self::SPEC, self.0, rhs.0, Rounding::NearestEven))
            }
        }
        impl<const E: u32, const M: u32, const FLAGS: u32> $Assign for Fx<E, M, FLAGS> {
            #[inline]
            fn $assign(&mut self, rhs: Self) {
                *self = $Op::$op(*self, rhs);
            }
        }
    )*};
}
fx_ops!(Add, add, AddAssign, add_assign, arith::add; Sub, sub, SubAssign, sub_assign, arith::sub; Mul, mul, MulAssign, mul_assign, arith::mul; Div, div, DivAssign, div_assign, arith::div);

impl<const E: u32, const M: u32, const FLAGS: u32> Rem for Fx<E, M, FLAGS> {
    type Output = Self;
    /// The remainder of `f64` (exact, so already on the grid, but for flushing).
    #[inline]
    fn rem(self, rhs: Self) -> Self {
        Self::from_f64(self.0 % rhs.0)
    }
}

impl<const E: u32, const M: u32, const FLAGS: u32> RemAssign for Fx<E, M, FLAGS> {
    #[inline]
    fn rem_assign(&mut self, rhs: Self) {
        *self = *self % rhs;
    }
}

impl<const E: u32, const M: u32, const FLAGS: u32> Neg for Fx<E, M, FLAGS> {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Fx(-self.0)
    }
}

impl<const E: u32, const M: u32, const FLAGS: u32> From<Fx<E, M, FLAGS>> for f64 {
    #[inline]
    fn from(x: Fx<E, M, FLAGS>) -> f64 {
        x.0
    }
}

impl<const E: u32, const M: u32, const FLAGS: u32> fmt::Debug for Fx<E, M, FLAGS> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl<const E: u32, const M: u32, const FLAGS: u32> fmt::Display for Fx<E, M, FLAGS> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl<const E: u32, const M: u32, const FLAGS: u32> fmt::LowerExp for Fx<E, M, FLAGS> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::LowerExp::fmt(&self.0, f)
    }
}

impl<const E: u32, const M: u32, const FLAGS: u32> std::iter::Sum for Fx<E, M, FLAGS> {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::ZERO, |a, b| a + b)
    }
}

impl<const E: u32, const M: u32, const FLAGS: u32> std::iter::Product for Fx<E, M, FLAGS> {
    fn product<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::ONE, |a, b| a * b)
    }
}
