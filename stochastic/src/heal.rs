//! The conversions the tuner writes where rustc says that a value of the converted crate meets
//! another kind of float (not a public API).
//!
//! The stochastic build converts the whole crate: every float it declares or computes is
//! stochastic. Where one of its values meets code it does not convert (a function of another
//! crate that takes `f64`, a `const` kept primitive, an `if` whose other branch is a constant),
//! rustc reports a mismatch, and the tuner wraps the value at the place rustc names in one of
//! these, chosen by the direction rustc gives:
//!
//! - [`to_stochastic`]: a primitive value (or a `Vec`, array, `Option` or tuple of them) made
//!   stochastic, exactly (three equal samples);
//! - [`to_native`]: a stochastic value made primitive: its mean rounded to nearest. Its samples
//!   end there, and the tuner says where;
//! - `Stochastic::<F>::constant`: the first in a constant context.
//!
//! Each output type is a function of the input type alone, so the conversion never waits for
//! its context to choose a type.

use half::{bf16, f16};

use crate::format::Format;
use crate::knob::{Knob, DynNative, DynStochastic, Tag};
use crate::rt::Store;
use crate::value::Stochastic;

/// A value made stochastic, exactly: [`to_stochastic`].
pub trait ToStochastic {
    /// The stochastic type.
    type Out;
    /// The value, made stochastic.
    fn to_stochastic(self) -> Self::Out;
}

/// A value made primitive (the mean, rounded to nearest): [`to_native`].
pub trait ToNative {
    /// The primitive type.
    type Out;
    /// The value, made primitive.
    fn to_native(self) -> Self::Out;
}

/// `x` made stochastic, exactly.
#[inline(always)]
pub fn to_stochastic<T: ToStochastic>(x: T) -> T::Out {
    x.to_stochastic()
}

/// `x` made primitive: the mean of each stochastic value, rounded to nearest.
#[inline(always)]
pub fn to_native<T: ToNative>(x: T) -> T::Out {
    x.to_native()
}

macro_rules! primitive {
    ($($t:ty),*) => {$(
        impl ToStochastic for $t {
            type Out = Stochastic<$t>;
            #[inline(always)]
            fn to_stochastic(self) -> Stochastic<$t> {
                Stochastic::new(self)
            }
        }
        impl ToNative for $t {
            type Out = $t;
            #[inline(always)]
            fn to_native(self) -> $t {
                self
            }
        }
    )*};
}
primitive!(f64, f32, f16, bf16);

impl<const E: u32, const M: u32, const FLAGS: u32> ToStochastic for crate::Fx<E, M, FLAGS> {
    type Out = Stochastic<Self>;
    #[inline(always)]
    fn to_stochastic(self) -> Stochastic<Self> {
        Stochastic::new(self)
    }
}

impl<const E: u32, const M: u32, const FLAGS: u32> ToNative for crate::Fx<E, M, FLAGS> {
    type Out = Self;
    #[inline(always)]
    fn to_native(self) -> Self {
        self
    }
}

impl<F: Format> ToStochastic for Stochastic<F> {
    type Out = Self;
    #[inline(always)]
    fn to_stochastic(self) -> Self {
        self
    }
}

impl<F: Format> ToNative for Stochastic<F>
where
    Stochastic<F>: Store<F>,
{
    type Out = F;
    #[inline(always)]
    fn to_native(self) -> F {
        self.store()
    }
}

impl<T: ToStochastic + Copy> ToStochastic for &T {
    type Out = T::Out;
    #[inline(always)]
    fn to_stochastic(self) -> T::Out {
        (*self).to_stochastic()
    }
}

impl<T: ToNative + Copy> ToNative for &T {
    type Out = T::Out;
    #[inline(always)]
    fn to_native(self) -> T::Out {
        (*self).to_native()
    }
}

/// A borrowed buffer (`&[f64]`, or any `&(e)[..]`) lent where another kind of float is needed:
/// a converted copy, which a shared borrow cannot tell from the buffer.
impl<T: ToStochastic + Copy> ToStochastic for &[T] {
    type Out = Vec<T::Out>;
    fn to_stochastic(self) -> Vec<T::Out> {
        self.iter().map(|x| x.to_stochastic()).collect()
    }
}

impl<T: ToNative + Copy> ToNative for &[T] {
    type Out = Vec<T::Out>;
    fn to_native(self) -> Vec<T::Out> {
        self.iter().map(|x| x.to_native()).collect()
    }
}

/// The single build's values of run-time format: already the crate's own (stochastic in its DSA
/// build), and made primitive in their declared format (`Knob<F, ..>`), or in `f64`
/// (`DynStochastic`, `DynNative`, which carry no declared one).
macro_rules! dynamic {
    ($($V:ty),*) => {$(
        impl ToStochastic for $V {
            type Out = $V;
            #[inline(always)]
            fn to_stochastic(self) -> $V {
                self
            }
        }
        impl ToNative for $V {
            type Out = f64;
            #[inline(always)]
            fn to_native(self) -> f64 {
                self.store()
            }
        }
        impl<F: Tag, const K: u32> ToStochastic for Knob<F, K, $V> {
            type Out = Self;
            #[inline(always)]
            fn to_stochastic(self) -> Self {
                self
            }
        }
        impl<F: Tag, const K: u32> ToNative for Knob<F, K, $V> {
            type Out = F;
            #[inline(always)]
            fn to_native(self) -> F {
                self.store()
            }
        }
    )*};
}
dynamic!(DynStochastic, DynNative);

macro_rules! containers {
    ($Trait:ident, $method:ident) => {
        impl<T: $Trait> $Trait for Vec<T> {
            type Out = Vec<T::Out>;
            fn $method(self) -> Vec<T::Out> {
                self.into_iter().map($Trait::$method).collect()
            }
        }
        impl<T: $Trait, const N: usize> $Trait for [T; N] {
            type Out = [T::Out; N];
            fn $method(self) -> [T::Out; N] {
                self.map($Trait::$method)
            }
        }
        impl<T: $Trait> $Trait for Option<T> {
            type Out = Option<T::Out>;
            fn $method(self) -> Option<T::Out> {
                self.map($Trait::$method)
            }
        }
        impl<T: $Trait, E> $Trait for Result<T, E> {
            type Out = Result<T::Out, E>;
            fn $method(self) -> Result<T::Out, E> {
                self.map($Trait::$method)
            }
        }
        impl<A: $Trait, B: $Trait> $Trait for (A, B) {
            type Out = (A::Out, B::Out);
            fn $method(self) -> Self::Out {
                (self.0.$method(), self.1.$method())
            }
        }
        // A range of floats (`rng.gen_range(-5.0..=5.0)`, bounds that became knobs) given to code
        // that takes `f64`'s.
        impl<T: $Trait> $Trait for std::ops::Range<T> {
            type Out = std::ops::Range<T::Out>;
            fn $method(self) -> Self::Out {
                self.start.$method()..self.end.$method()
            }
        }
        impl<T: $Trait> $Trait for std::ops::RangeInclusive<T> {
            type Out = std::ops::RangeInclusive<T::Out>;
            fn $method(self) -> Self::Out {
                let (start, end) = self.into_inner();
                start.$method()..=end.$method()
            }
        }
        impl<A: $Trait, B: $Trait, C: $Trait> $Trait for (A, B, C) {
            type Out = (A::Out, B::Out, C::Out);
            fn $method(self) -> Self::Out {
                (self.0.$method(), self.1.$method(), self.2.$method())
            }
        }
    };
}
containers!(ToStochastic, to_stochastic);
containers!(ToNative, to_native);

/// `f64::from(x)` of a stochastic value: its mean (the samples end there), as generic code
/// written `where f64: From<T>` reads a value out (the ODE solver's error reports, say).
impl<F: Format> From<Stochastic<F>> for f64 {
    fn from(x: Stochastic<F>) -> f64 {
        x.mean()
    }
}

macro_rules! into_f32 {
    ($($f:ty),*) => {$(
        /// `f32::from(x)`: the mean rounded to nearest (the samples end there).
        impl From<Stochastic<$f>> for f32 {
            fn from(x: Stochastic<$f>) -> f32 {
                x.mean() as f32
            }
        }
    )*};
}
into_f32!(f32, f16, bf16);

impl Stochastic<f64> {
    /// An exact value in a constant context (`const`, `static`): three equal samples.
    pub const fn constant(x: f64) -> Self {
        Self::from_repr([x; 3])
    }
}

impl Stochastic<f32> {
    /// An exact value in a constant context (`const`, `static`): three equal samples.
    pub const fn constant(x: f32) -> Self {
        Self::from_repr([x; 3])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Sf32, Sf64};

    #[test]
    fn values_cross_between_the_two_kinds_of_float_by_their_own_types() {
        let s: Vec<Sf64> = to_stochastic(vec![0.1, 2.0]);
        assert_eq!(s[0].samples(), [0.1; 3]);
        let back: Vec<f64> = to_native(s);
        assert_eq!(back, [0.1, 2.0]);
        let t: (Sf32, Option<Sf64>) = to_stochastic((1.5f32, Some(0.25)));
        assert_eq!(to_native(t), (1.5f32, Some(0.25)));
        // Issue 44 item 8: `rng.gen_range(-5.0..=5.0)` whose bounds became stochastic.
        let r: std::ops::RangeInclusive<Sf64> = to_stochastic(-5.0..=5.0);
        assert_eq!(to_native(r), -5.0..=5.0);
        let h: std::ops::Range<f32> = to_native(to_stochastic(0.5f32..1.5));
        assert_eq!(h, 0.5..1.5);
        let r: Result<[Sf64; 2], ()> = to_stochastic(Ok([1.0, 3.0]));
        assert_eq!(to_native(r), Ok([1.0, 3.0]));
        const C: Sf64 = Sf64::constant(0.5);
        assert_eq!(to_native(&C), 0.5);
        assert_eq!(Sf32::constant(0.1).samples(), [0.1f32; 3]);
    }
}
