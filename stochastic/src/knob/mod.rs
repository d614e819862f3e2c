//! The single build: knobs whose format is chosen when the program starts.
//!
//! The tuner can build a crate once with every knob of unit `U` written as `Knob<F, U>` (`F` the
//! declared format) and then run that one program for every candidate configuration, naming each
//! unit's format in [`FORMATS_ENV`] (`FPTUNE_FORMATS=f32,f16,f64`, by unit number). A search then
//! costs runs, not builds (DESIGN.md, "single-build mode").
//!
//! The arithmetic is that of the stochastic build of the same configuration, operation for
//! operation: a knob holds a [`DynStochastic`], a stochastic value tagged with its format; two operands
//! meet in the wider format exactly as `Stochastic<A>` and `Stochastic<B>` do (the same casts,
//! in the same order, so the same random draws), a literal takes the other operand's format, and a
//! store rounds to the place's format. So a run of the single build gives, bit for bit, the
//! records of the configuration's own stochastic build with the same seed (the tuner checks this
//! on the reference and on a lowered configuration before it relies on it).
//!
//! The *native* single build writes its knobs `Knob<F, U, DynNative>` and is built without the
//! `stochastic` feature: a knob then holds one value computed in its format's own
//! round-to-nearest arithmetic ([`DynNative`]), so a run gives the records of the configuration's own
//! native build, and a candidate's native check is a run, not a build.
//!
//! A value computed from knobs has a [`DynFloat`] type ([`DynStochastic`] or [`DynNative`]): its format is known
//! only at run time. A place of that type (an unannotated `let`, a `Vec` collected from such
//! values) keeps the format its first value had, as the static type would: stores into it go
//! through [`Store::store_into`], which rounds to the place's current format.
//!
//! Every method here is `#[inline]`, never `#[inline(always)]`: each knob operation dispatches on
//! its run-time format (a `match` over five arms, each a stochastic operation), so forcing it into
//! every caller multiplies a large program's code by the operations it has. FPBench's n_body
//! single build took 75 s to compile that way, and about 1 s with the compiler left to choose;
//! the hot kernels of `benches/spmv` lose up to a factor of 1.5 on knobs (1.14 DSA, 1.52 native;
//! `docs/benchmarks-history.md`).

use std::cmp::Ordering;
use std::fmt::{Debug, Display, LowerExp};
use std::marker::PhantomData;
use std::ops::{Add, Div, Mul, Neg, Rem, Sub};

use half::{bf16, f16};

use crate::check::Checkable;
use crate::format::Format;
use crate::rt::{Arith, ArithRem, CastAs, CastOperand, Join, Lit, Scalar, Store};
use crate::startup::Plain;
use crate::value::Stochastic;

pub use crate::contract::FORMATS_ENV;

/// How many units the single build can give a format to; knobs of units beyond keep their
/// declared format (the tuner builds such crates per candidate instead).
pub const MAX_UNITS: usize = 4096;

/// The flag of a *constant unit* in a knob's unit number: `Knob<F, { U | CONSTANT }>` is a knob
/// of unit `U` that a `const` or `static` item can hold. Such a knob keeps its value widened to
/// `f64` ([`DynFloat::wide_word`]), so that a literal written at compile time, before any format is
/// known, is one ([`Knob::constant`]); reading it rounds to nearest into the unit's format, as the
/// compiler rounds the literal of a `const` of that format. The tuner gives every knob of a
/// unit that holds a `const` or `static` this flag, so that the unit's knobs keep one type.
pub const CONSTANT: u32 = 1 << 31;

/// `$e` with the type `$G` standing for the format `$f` names: one arm per format. (`$G` is an
/// item, which `macro_rules!` hygiene does not rename: the macros below name theirs so that a
/// caller's `G` stays its own.)
macro_rules! at_format {
    ($f:expr, $G:ident => $e:expr) => {
        match $f {
            FloatFormat::F64 => { type $G = f64; $e }
            FloatFormat::F32 => { type $G = f32; $e }
            FloatFormat::F16 => { type $G = f16; $e }
            FloatFormat::Bf16 => { type $G = bf16; $e }
        }
    };
}


mod float_format;
#[macro_use]
mod dynamic;
#[macro_use]
mod dyn_stochastic;
#[macro_use]
mod dyn_native;
#[macro_use]
mod dispatch;
mod meet;
mod dot;

pub use float_format::*;
pub(crate) use float_format::read_formats;
pub use dynamic::*;
pub use dyn_stochastic::*;
pub use dyn_native::DynNative;

// ----------------------------------------------------------------------------------------------
// Knobs
// ----------------------------------------------------------------------------------------------

/// The single build's knob type: a knob of unit `K`, declared of format `F`, holding a value of
/// the format the run gives unit `K` ([`FORMATS_ENV`]; `F` when none): stochastic ([`DynStochastic`]) in
/// the DSA single build, native ([`DynNative`]) in the native one.
///
/// A knob keeps its value's [`DynFloat::Word`], without the format: that is the unit's, read from
/// the table when the value is. (A knob of the native single build is then 8 bytes, not 16
/// with a tag and padding, and one of the DSA single build its three samples, 24 bytes, not 32:
/// an array of knobs takes the memory of an array of `f64` or of `Sf64`.)
#[repr(transparent)]
pub struct Knob<F, const K: u32, V: DynFloat = DynStochastic>(V::Word, PhantomData<F>);

impl<F, const K: u32, V: DynFloat> Clone for Knob<F, K, V> {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}

impl<F, const K: u32, V: DynFloat> Copy for Knob<F, K, V> {}

impl<F: Tag, const K: u32, V: DynFloat> Debug for Knob<F, K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Knob").field(&self.get()).finish()
    }
}

impl<F: Tag, const K: u32, V: DynFloat> std::str::FromStr for Knob<F, K, V> {
    type Err = std::num::ParseFloatError;

    /// Parses a decimal number as the native program of the run's configuration does: into the
    /// unit's format, an exact value (a 16-bit unit through `f64`, rounded to nearest).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Knob::from_dyn(match Self::unit_format() {
            FloatFormat::F64 => V::exact(s.parse::<f64>()?),
            FloatFormat::F32 => V::exact(s.parse::<f32>()?),
            f => V::from_f64(s.parse::<f64>()?, f),
        }))
    }
}

impl<F: Tag, const K: u32, V: DynFloat> Knob<F, K, V> {
    /// The format of unit `K` in this run.
    #[inline]
    pub fn unit_format() -> FloatFormat {
        unit_format(K, F::FLOAT_FORMAT)
    }

    /// A value stored into the knob: rounded to its format.
    #[inline]
    pub fn from_dyn(x: V) -> Self {
        Knob::holding(x.to(Self::unit_format()))
    }

    /// The knob holding `x`, a value of the unit's format.
    #[inline]
    fn holding(x: V) -> Self {
        Knob(if K & CONSTANT == 0 { x.word() } else { x.wide_word() }, PhantomData)
    }

    /// The value.
    #[inline]
    pub fn get(self) -> V {
        if K & CONSTANT == 0 {
            V::from_word(self.0, Self::unit_format())
        } else {
            V::from_wide_word(self.0, Self::unit_format())
        }
    }
}

/// `constant` for each kind of value.
macro_rules! knob_constant {
    ($($V:ty => |$x:ident| $word:expr),*) => {$(
        impl<F, const K: u32> Knob<F, K, $V> {
            /// A knob of a constant unit ([`CONSTANT`]) holding `x`, a `const` or `static`
            /// item's literal: rounded to the unit's format when it is read.
            pub const fn constant($x: f64) -> Self {
                const { assert!(K & CONSTANT != 0, "a literal knob's unit must be a constant unit") };
                Knob($word, PhantomData)
            }
        }
    )*};
}
knob_constant!(DynStochastic => |x| [x; 3], DynNative => |x| x);

impl<F: Tag, const K: u32, V: DynFloat> Default for Knob<F, K, V> {
    #[inline]
    fn default() -> Self {
        Knob::holding(V::zero(Self::unit_format()))
    }
}

macro_rules! knob_ops {
    ($($Op:ident, $op:ident, $OpAssign:ident, $op_assign:ident);*) => {$(
        impl<F: Tag, const K: u32, V: DynFloat> $Op for Knob<F, K, V> {
            type Output = Self;
            #[inline]
            fn $op(self, rhs: Self) -> Self {
                Knob::holding($Op::$op(self.get(), rhs.get()))
            }
        }
        impl<F: Tag, const K: u32, V: DynFloat> std::ops::$OpAssign for Knob<F, K, V> {
            #[inline]
            fn $op_assign(&mut self, rhs: Self) {
                *self = Knob::holding($Op::$op(self.get(), rhs.get()));
            }
        }
    )*};
}
knob_ops!(Add, add, AddAssign, add_assign; Sub, sub, SubAssign, sub_assign;
    Mul, mul, MulAssign, mul_assign; Div, div, DivAssign, div_assign; Rem, rem, RemAssign, rem_assign);

impl<F: Tag, const K: u32, V: DynFloat> Neg for Knob<F, K, V> {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Knob::holding(-self.get())
    }
}

impl<F: Tag, const K: u32, V: DynFloat> PartialEq for Knob<F, K, V> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl<F: Tag, const K: u32, V: DynFloat> PartialOrd for Knob<F, K, V> {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.get().partial_cmp(&other.get())
    }
}

impl<F: Tag, const K: u32, V: DynFloat> std::fmt::Display for Knob<F, K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.get(), f)
    }
}

impl<F: Tag, const K: u32, V: DynFloat> std::fmt::LowerExp for Knob<F, K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::LowerExp::fmt(&self.get(), f)
    }
}

impl<F: Tag, const K: u32, V: DynFloat + std::fmt::UpperExp> std::fmt::UpperExp for Knob<F, K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::UpperExp::fmt(&self.get(), f)
    }
}

impl<F: Tag, const K: u32, V: DynFloat> Checkable for Knob<F, K, V> {
    fn visit(&self, f: &mut dyn FnMut(crate::check::Record)) {
        self.get().visit(f);
    }
}

impl<F: Tag, const K: u32, V: DynFloat> std::iter::Sum for Knob<F, K, V> {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::default(), |acc, x| acc + x)
    }
}

impl<'a, F: Tag, const K: u32, V: DynFloat> std::iter::Sum<&'a Knob<F, K, V>> for Knob<F, K, V> {
    fn sum<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
        iter.fold(Self::default(), |acc, x| acc + *x)
    }
}

impl<F: Tag, const K: u32, V: DynFloat> std::iter::Product for Knob<F, K, V> {
    fn product<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Knob::holding(V::from_f64(1.0, Self::unit_format())), |acc, x| acc * x)
    }
}

impl<'a, F: Tag, const K: u32, V: DynFloat> std::iter::Product<&'a Knob<F, K, V>> for Knob<F, K, V> {
    fn product<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
        iter.fold(Knob::holding(V::from_f64(1.0, Self::unit_format())), |acc, x| acc * *x)
    }
}

/// The method set of a knob: its value's, in the knob's format.
macro_rules! knob_methods {
    (unary: [$($u:ident),*], binary: [$($b:ident),*], queries: [$($q:ident -> $r:ty),*]) => {
        impl<F: Tag, const K: u32, V: DynFloat> Knob<F, K, V> {
            $(
                #[doc = concat!("`", stringify!($u), "`, in the knob's format.")]
                #[inline]
                pub fn $u(self) -> Self {
                    Knob::holding(DynMath::$u(self.get()))
                }
            )*
            $(
                #[doc = concat!("`", stringify!($b), "`, in the knob's format.")]
                #[inline]
                pub fn $b(self, o: Self) -> Self {
                    Knob::holding(DynMath::$b(self.get(), o.get()))
                }
            )*
            $(
                #[doc = concat!("`", stringify!($q), "`.")]
                #[inline]
                pub fn $q(&self) -> $r {
                    DynMath::$q(&self.get())
                }
            )*
            /// `self^n`.
            #[inline]
            pub fn powi(self, n: i32) -> Self {
                Knob::holding(DynMath::powi(self.get(), n))
            }
            /// `self * a + b`.
            #[inline]
            pub fn mul_add(self, a: Self, b: Self) -> Self {
                Knob::holding(DynMath::mul_add(self.get(), a.get(), b.get()))
            }
            /// `(sin(self), cos(self))`.
            #[inline]
            pub fn sin_cos(self) -> (Self, Self) {
                let (s, c) = DynMath::sin_cos(self.get());
                (Knob::holding(s), Knob::holding(c))
            }
            /// IEEE 754's total order.
            #[inline]
            pub fn total_cmp(&self, o: &Self) -> Ordering {
                DynMath::total_cmp(&self.get(), &o.get())
            }
        }
    };
}
crate::methods::f64_methods!(knob_methods);

#[cfg(test)]
mod tests;
