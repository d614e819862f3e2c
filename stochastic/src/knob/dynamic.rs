//! What the knob code needs of a value of run-time format (`DynFloat`, with the method set `DynMath`),
//! and what `DynStochastic` and `DynNative` have from it alike (`dyn_common!`).

use super::*;

/// The trait of the method set, so that a knob of either kind of value has it.
macro_rules! dyn_math_trait {
    (unary: [$($u:ident),*], binary: [$($b:ident),*], queries: [$($q:ident -> $r:ty),*]) => {
        /// The `f64` method set of a value of run-time format (each its inherent method).
        pub trait DynMath: Sized {
            $(
                #[doc = concat!("`", stringify!($u), "`, in the value's format.")]
                fn $u(self) -> Self;
            )*
            $(
                #[doc = concat!("`", stringify!($b), "`, in the common format.")]
                fn $b(self, o: Self) -> Self;
            )*
            $(
                #[doc = concat!("`", stringify!($q), "`.")]
                fn $q(&self) -> $r;
            )*
            /// `self^n`.
            fn powi(self, n: i32) -> Self;
            /// `self * a + b`, in the format of the three.
            fn mul_add(self, a: Self, b: Self) -> Self;
            /// `(sin(self), cos(self))`.
            fn sin_cos(self) -> (Self, Self);
            /// IEEE 754's total order.
            fn total_cmp(&self, o: &Self) -> Ordering;
        }
    };
}
crate::methods::f64_methods!(dyn_math_trait);

/// [`DynMath`] for a type with the method set as inherent methods.
macro_rules! dyn_math_inherent {
    ($t:ty; unary: [$($u:ident),*], binary: [$($b:ident),*], queries: [$($q:ident -> $r:ty),*]) => {
        impl DynMath for $t {
            $(
                #[inline]
                fn $u(self) -> Self { <$t>::$u(self) }
            )*
            $(
                #[inline]
                fn $b(self, o: Self) -> Self { <$t>::$b(self, o) }
            )*
            $(
                #[inline]
                fn $q(&self) -> $r { <$t>::$q(self) }
            )*
            #[inline]
            fn powi(self, n: i32) -> Self { <$t>::powi(self, n) }
            #[inline]
            fn mul_add(self, a: Self, b: Self) -> Self { <$t>::mul_add(self, a, b) }
            #[inline]
            fn sin_cos(self) -> (Self, Self) { (<$t>::sin(self), <$t>::cos(self)) }
            #[inline]
            fn total_cmp(&self, o: &Self) -> Ordering { <$t>::total_cmp(self, o) }
        }
    };
}

/// A value whose format is known only at run time: what arithmetic on the single build's knobs
/// gives. [`DynStochastic`] carries DSA samples (the DSA single build); [`DynNative`] one value computed in its
/// format's own round-to-nearest arithmetic (the native single build).
pub trait DynFloat:
    'static
    + Copy
    + Debug
    + Default
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Rem<Output = Self>
    + Neg<Output = Self>
    + PartialEq
    + PartialOrd
    + Display
    + LowerExp
    + Checkable
    + DynMath
{
    /// What a knob keeps of the value: the value without what the knob's unit gives (its
    /// format).
    type Word: Copy + Debug + Send + Sync + 'static;

    /// The value's format.
    fn format(self) -> FloatFormat;

    /// What a knob of the value's format keeps of it.
    fn word(self) -> Self::Word;

    /// The value a knob of format `f` keeps as `w`.
    fn from_word(w: Self::Word, f: FloatFormat) -> Self;

    /// What a knob of a constant unit ([`CONSTANT`]) keeps of the value: its word with the value
    /// widened exactly to `f64`, whatever its format.
    fn wide_word(self) -> Self::Word;

    /// The value a knob of a constant unit of format `f` keeps as `w`: rounded to nearest into
    /// `f` (exact for a value of that format; a literal's rounding, as the compiler's, for a
    /// constant's literal), counting nothing, as a primitive constant of format `f` would be.
    fn from_wide_word(w: Self::Word, f: FloatFormat) -> Self;

    /// The value converted to format `f`: exactly when `f` holds the value's format (a retag),
    /// else rounded (at random under DSA, [`Stochastic::cast`]; to nearest natively).
    fn to(self, f: FloatFormat) -> Self;

    /// Two values in their common format (the first converted first, as [`Join`] does).
    #[inline]
    fn meet(a: Self, b: Self) -> (Self, Self) {
        let f = a.format().promote(b.format());
        let a = a.to(f);
        (a, b.to(f))
    }

    /// A literal in format `f` ([`Lit`]: rounded to nearest).
    fn lit(l: Lit, f: FloatFormat) -> Self;

    /// A native value, exactly, in its own format.
    fn exact<A: Tag>(x: A) -> Self;

    /// An `f64` rounded to nearest into format `f`.
    fn from_f64(x: f64, f: FloatFormat) -> Self;

    /// Zero in format `f`.
    fn zero(f: FloatFormat) -> Self;

    /// The value stored into a native place of format `B`: rounded to nearest (under DSA, the
    /// mean: the samples are lost, as out of a stochastic value).
    fn store_native<B: Tag>(self) -> B;
}

/// What every value of run-time format has from [`DynFloat`]: the arithmetic and two-operand methods
/// of `rt`'s dispatch, sums and products (of the items' format, as those of their static type,
/// which start from its zero or one).
macro_rules! dyn_common {
    ($($V:ty),*) => {$(
        impl Arith for $V {
            #[inline]
            fn fp_add(a: Self, b: Self) -> Self {
                a + b
            }
            #[inline]
            fn fp_sub(a: Self, b: Self) -> Self {
                a - b
            }
            #[inline]
            fn fp_mul(a: Self, b: Self) -> Self {
                a * b
            }
            #[inline]
            fn fp_div(a: Self, b: Self) -> Self {
                a / b
            }
        }

        impl ArithRem for $V {
            #[inline]
            fn fp_rem(a: Self, b: Self) -> Self {
                a % b
            }
        }

        impl std::iter::Sum for $V {
            fn sum<I: Iterator<Item = $V>>(mut iter: I) -> $V {
                let Some(first) = iter.next() else { return <$V>::default() };
                iter.fold(<$V>::zero(first.format()) + first, |acc, x| acc + x)
            }
        }

        impl std::iter::Product for $V {
            fn product<I: Iterator<Item = $V>>(mut iter: I) -> $V {
                let Some(first) = iter.next() else { return <$V>::from_f64(1.0, FloatFormat::F64) };
                iter.fold(<$V>::from_f64(1.0, first.format()) * first, |acc, x| acc * x)
            }
        }
    )*};
}
dyn_common!(DynStochastic, DynNative);
