//! Stores: a value converted into a place of another float type, rounded to the place's format
//! (`Store`, and `src` for the dispatch).

use super::*;

/// Converting a value into a place of another float type: rounds to the place's format
/// (DESIGN.md semantics 4 and 6). Implemented for scalars and, element by element, for `Vec`s
/// and arrays of them.
pub trait Store<T> {
    /// The value in the place's type.
    fn store(self) -> T;

    /// Stores the value into `place`: [`Store::store`], except into a place whose format is
    /// known only at run time ([`crate::knob::DynStochastic`]), which keeps its format.
    #[inline(always)]
    fn store_into(self, place: &mut T)
    where
        Self: Sized,
    {
        *place = self.store();
    }
}

macro_rules! store_native {
    ($($a:ty),*) => {$(
        impl<B: Format> Store<B> for $a {
            /// Round-to-nearest from the exact value (one rounding, no double rounding).
            #[inline(always)]
            fn store(self) -> B {
                nearest(self)
            }
        }
    )*};
}

store_native!(f64, f32, f16, bf16);

impl<B: Format> Store<B> for Lit {
    #[inline(always)]
    fn store(self) -> B {
        self.to()
    }
}

impl<A: Format, B: Format> Store<Stochastic<B>> for Stochastic<A> {
    /// Random rounding when narrowing, exact when widening.
    #[inline(always)]
    fn store(self) -> Stochastic<B> {
        self.cast()
    }
}

impl<B: Format> Store<Stochastic<B>> for Lit {
    #[inline(always)]
    fn store(self) -> Stochastic<B> {
        self.stochastic()
    }
}

macro_rules! store_native_stochastic {
    ($($a:ty),*) => {$(
        impl<B: Format> Store<Stochastic<B>> for $a {
            /// An exact value of the native format, rounded at random into the place's.
            #[inline(always)]
            fn store(self) -> Stochastic<B> {
                Stochastic::<$a>::new(self).cast()
            }
        }
        impl<A: Format> Store<$a> for Stochastic<A> {
            /// The mean, rounded to nearest (samples are lost: only for places outside
            /// the stochastic build's reach).
            #[inline(always)]
            fn store(self) -> $a {
                <$a as Format>::from_repr(<$a as Format>::nearest(self.mean()))
            }
        }
    )*};
}
store_native_stochastic!(f64, f32, f16, bf16);

impl<A: Store<B>, B> Store<Vec<B>> for Vec<A> {
    #[inline]
    fn store(self) -> Vec<B> {
        self.into_iter().map(Store::store).collect()
    }
}

/// A borrowed buffer stored into a `Vec` of another kind of float: a copy, for a shared borrow
/// of values of another type (the heals' `&store(&(e)[..])`).
impl<A: Store<B> + Copy, B> Store<Vec<B>> for &[A] {
    #[inline]
    fn store(self) -> Vec<B> {
        self.iter().map(|&x| x.store()).collect()
    }
}

impl<A1: Store<B1>, B1, A2: Store<B2>, B2> Store<(B1, B2)> for (A1, A2) {
    #[inline]
    fn store(self) -> (B1, B2) {
        (self.0.store(), self.1.store())
    }
}

impl<A1: Store<B1>, B1, A2: Store<B2>, B2, A3: Store<B3>, B3> Store<(B1, B2, B3)> for (A1, A2, A3) {
    #[inline]
    fn store(self) -> (B1, B2, B3) {
        (self.0.store(), self.1.store(), self.2.store())
    }
}

impl<A: Store<B>, B, const N: usize> Store<[B; N]> for [A; N] {
    #[inline]
    fn store(self) -> [B; N] {
        self.map(Store::store)
    }
}

/// A value to store, for dispatch: `(&&src(e)).__fp_store()`.
pub struct Src<T>(Cell<Option<T>>);

/// Wraps a value to store.
#[inline(always)]
pub fn src<T>(x: T) -> Src<T> {
    Src(Cell::new(Some(x)))
}

impl<T> std::fmt::Debug for Src<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Src")
    }
}

impl<T> Src<T> {
    #[inline(always)]
    fn take(&self) -> T {
        match self.0.take() {
            Some(x) => x,
            None => unreachable!("an fptune store is used once"),
        }
    }
}

/// Float values (and containers of them): converted to the place's type.
pub trait FloatStore<T> {
    /// The value in the place's type.
    fn __fp_store(&self) -> T;
    /// `place = value`, the value in the place's type ([`Store::store_into`]).
    fn __fp_store_into(&self, place: &mut T);
}

impl<A: Store<T>, T> FloatStore<T> for &Src<A> {
    #[inline(always)]
    fn __fp_store(&self) -> T {
        self.take().store()
    }
    #[inline(always)]
    fn __fp_store_into(&self, place: &mut T) {
        self.take().store_into(place);
    }
}

/// Any other value: stored as it is.
pub trait StdStore<T> {
    /// The value itself.
    fn __fp_store(&self) -> T;
    /// `place = value`.
    fn __fp_store_into(&self, place: &mut T);
}

impl<T> StdStore<T> for Src<T> {
    #[inline(always)]
    fn __fp_store(&self) -> T {
        self.take()
    }
    #[inline(always)]
    fn __fp_store_into(&self, place: &mut T) {
        *place = self.take();
    }
}

impl<const E: u32, const M: u32, const FLAGS: u32, B: Format> Store<B> for crate::Fx<E, M, FLAGS> {
    /// Round-to-nearest from the exact value.
    #[inline(always)]
    fn store(self) -> B {
        nearest(self)
    }
}

impl<const E: u32, const M: u32, const FLAGS: u32, B: Format> Store<Stochastic<B>> for crate::Fx<E, M, FLAGS> {
    /// An exact value of the format, rounded at random into the place's.
    #[inline(always)]
    fn store(self) -> Stochastic<B> {
        Stochastic::<Self>::new(self).cast()
    }
}

impl<const E: u32, const M: u32, const FLAGS: u32, A: Format> Store<crate::Fx<E, M, FLAGS>> for Stochastic<A> {
    /// The mean, rounded to nearest.
    #[inline(always)]
    fn store(self) -> crate::Fx<E, M, FLAGS> {
        crate::Fx::from_f64(self.mean())
    }
}
