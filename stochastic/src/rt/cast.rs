//! Casts: `x as T` between every numeric primitive and float kind (`CastAs`), and a cast used as an
//! operand (`CastOperand`).

use super::*;

/// `x as T` for every numeric primitive and float kind, with `as` semantics between primitives.
pub trait CastAs<T> {
    /// The converted value.
    fn cast_as(self) -> T;
}

/// `x as T` written by the user.
#[inline(always)]
pub fn cast<T, S: CastAs<T>>(x: S) -> T {
    x.cast_as()
}

macro_rules! cast_primitives {
    ($($s:ty),*) => {
        cast_primitives!(@each [$($s),*] [$($s),*]);
    };
    (@each [$($s:ty),*] $targets:tt) => {
        $( cast_primitives!(@one $s, $targets); )*
    };
    (@one $s:ty, [$($t:ty),*]) => {
        $(
            impl CastAs<$t> for $s {
                #[inline(always)]
                #[allow(clippy::unnecessary_cast, clippy::cast_lossless)]
                fn cast_as(self) -> $t {
                    self as $t
                }
            }
        )*
    };
}

cast_primitives!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64);

macro_rules! cast_bool_char {
    ($($t:ty),*) => {$(
        impl CastAs<$t> for bool {
            #[inline(always)]
            fn cast_as(self) -> $t { self as $t }
        }
    )*};
}
cast_bool_char!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

macro_rules! cast_half {
    ($h:ty; $($t:ty),*) => {
        $(
            impl CastAs<$t> for $h {
                #[inline(always)]
                fn cast_as(self) -> $t { self.to_f64() as $t }
            }
            impl CastAs<$h> for $t {
                #[inline(always)]
                fn cast_as(self) -> $h { <$h>::from_f64(self as f64) }
            }
        )*
        impl CastAs<$h> for $h {
            #[inline(always)]
            fn cast_as(self) -> $h { self }
        }
    };
}
cast_half!(f16; i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64);
cast_half!(bf16; i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64);
impl CastAs<bf16> for f16 {
    #[inline(always)]
    fn cast_as(self) -> bf16 {
        bf16::from_f32(self.to_f32())
    }
}
impl CastAs<f16> for bf16 {
    #[inline(always)]
    fn cast_as(self) -> f16 {
        f16::from_f32(self.to_f32())
    }
}

macro_rules! cast_stochastic {
    ($($t:ty),*) => {$(
        impl<A: Format> CastAs<$t> for Stochastic<A> {
            /// The mean's conversion; counts an unstable intrinsic when the samples convert to
            /// different values.
            #[inline(always)]
            fn cast_as(self) -> $t {
                let s = self.samples_f64().map(|x| x as $t);
                if !(s[0] == s[1] && s[1] == s[2]) {
                    crate::value::note(crate::stochastic::Instability::UnstableIntrinsic);
                }
                self.mean() as $t
            }
        }
        impl<B: Format> CastAs<Stochastic<B>> for $t {
            #[inline(always)]
            fn cast_as(self) -> Stochastic<B> {
                Stochastic::from_f64(self as f64)
            }
        }
    )*};
}
cast_stochastic!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

impl<A: Format, B: Format> CastAs<Stochastic<B>> for Stochastic<A> {
    /// A float-to-float cast the user wrote: that format (random rounding when narrowing).
    #[inline(always)]
    fn cast_as(self) -> Stochastic<B> {
        self.cast()
    }
}

macro_rules! cast_float_stochastic {
    ($($t:ty),*) => {$(
        impl<A: Format> CastAs<$t> for Stochastic<A> {
            #[inline(always)]
            fn cast_as(self) -> $t {
                <$t as Format>::from_repr(<$t as Format>::nearest(self.mean()))
            }
        }
        impl<B: Format> CastAs<Stochastic<B>> for $t {
            #[inline(always)]
            fn cast_as(self) -> Stochastic<B> {
                Stochastic::<$t>::new(self).cast()
            }
        }
    )*};
}
cast_float_stochastic!(f64, f32, f16, bf16);

/// A cast used as an operand of arithmetic: from an integer it adapts like a literal (DESIGN.md
/// semantics 3); from a float it is the format written.
pub trait CastOperand<T> {
    /// The operand.
    type Out;
    /// The converted operand.
    fn cast_operand(self) -> Self::Out;
}

/// `(x as T)` as an operand of arithmetic.
#[inline(always)]
pub fn cast_operand<T, S: CastOperand<T>>(x: S) -> S::Out {
    x.cast_operand()
}

/// The integer primitives, whose cast to a float operand is a [`Lit`].
pub trait Integer: Copy {
    /// The value as the two literals it stands for.
    fn lit(self) -> Lit;
}

macro_rules! integer {
    ($($s:ty),*) => {$(
        impl Integer for $s {
            #[inline(always)]
            fn lit(self) -> Lit {
                Lit::new(self as f64, self as f32)
            }
        }
    )*};
}
integer!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

/// One impl for every integer, not one per type: an integer rustc has not typed yet
/// (`(0..n).map(|i| (i + 1) as f64 / 65.0)`, `n` untyped) is then a `Lit` operand all the same,
/// and the arithmetic around it compiles as the unmarked code does (markers never break a
/// native build, issue 44).
impl<T, I: Integer> CastOperand<T> for I {
    type Out = Lit;
    #[inline(always)]
    fn cast_operand(self) -> Lit {
        self.lit()
    }
}

macro_rules! cast_operand_float {
    ($($s:ty),*) => {$(
        impl<T> CastOperand<T> for $s where $s: CastAs<T> {
            type Out = T;
            #[inline(always)]
            fn cast_operand(self) -> T {
                self.cast_as()
            }
        }
    )*};
}
cast_operand_float!(f64, f32, f16, bf16);

impl<T, A: Format> CastOperand<T> for Stochastic<A>
where
    Stochastic<A>: CastAs<T>,
{
    type Out = T;
    #[inline(always)]
    fn cast_operand(self) -> T {
        self.cast_as()
    }
}

/// `Fx` casts: to and from every numeric primitive (through `f64`, as `f16`'s), the 16-bit
/// formats (rounded to nearest from the exact value), another `Fx`, and stochastic values.
mod fx {
    use super::*;
    use crate::Fx;

    macro_rules! cast_fx {
        ($($t:ty),*) => {$(
            impl<const E: u32, const M: u32, const FLAGS: u32> CastAs<$t> for Fx<E, M, FLAGS> {
                #[inline(always)]
                #[allow(clippy::unnecessary_cast)]
                fn cast_as(self) -> $t { self.to_f64() as $t }
            }
            impl<const E: u32, const M: u32, const FLAGS: u32> CastAs<Fx<E, M, FLAGS>> for $t {
                #[inline(always)]
                #[allow(clippy::unnecessary_cast)]
                fn cast_as(self) -> Fx<E, M, FLAGS> { Fx::from_f64(self as f64) }
            }
        )*};
    }
    cast_fx!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64);

    macro_rules! cast_fx_half {
        ($($h:ty),*) => {$(
            impl<const E: u32, const M: u32, const FLAGS: u32> CastAs<$h> for Fx<E, M, FLAGS> {
                #[inline(always)]
                fn cast_as(self) -> $h { <$h as Format>::from_repr(<$h as Format>::nearest(self.to_f64())) }
            }
            impl<const E: u32, const M: u32, const FLAGS: u32> CastAs<Fx<E, M, FLAGS>> for $h {
                #[inline(always)]
                fn cast_as(self) -> Fx<E, M, FLAGS> { Fx::from_f64(self.to_f64()) }
            }
        )*};
    }
    cast_fx_half!(f16, bf16);

    impl<const E: u32, const M: u32, const F: u32, const E2: u32, const M2: u32, const F2: u32> CastAs<Fx<E2, M2, F2>> for Fx<E, M, F> {
        #[inline(always)]
        fn cast_as(self) -> Fx<E2, M2, F2> {
            Fx::from_f64(self.to_f64())
        }
    }

    impl<const E: u32, const M: u32, const FLAGS: u32, A: Format> CastAs<Fx<E, M, FLAGS>> for Stochastic<A> {
        #[inline(always)]
        fn cast_as(self) -> Fx<E, M, FLAGS> {
            Fx::from_f64(self.mean())
        }
    }

    impl<const E: u32, const M: u32, const FLAGS: u32, B: Format> CastAs<Stochastic<B>> for Fx<E, M, FLAGS> {
        #[inline(always)]
        fn cast_as(self) -> Stochastic<B> {
            Stochastic::<Fx<E, M, FLAGS>>::new(self).cast()
        }
    }

    impl<T, const E: u32, const M: u32, const FLAGS: u32> CastOperand<T> for Fx<E, M, FLAGS>
    where
        Fx<E, M, FLAGS>: CastAs<T>,
    {
        type Out = T;
        #[inline(always)]
        fn cast_operand(self) -> T {
            self.cast_as()
        }
    }
}
