//! Where kinds of values meet in the DSA single build.
//!
//! Stochastic values of static format (`Stochastic<B>`, in code outside the tuned items) meet the
//! run-time ones; and a constant unit's knob holds a native value (`Knob<F, { U | CONSTANT }, DynNative>`), as a `const` of the
//! configuration's own stochastic build is a primitive constant: its arithmetic with literals,
//! primitives and other constants is native, and where it meets a stochastic value it becomes one
//! exactly, as a primitive does.

use super::*;

impl DynNative {
    /// The value as a stochastic one: exactly, three equal samples of its format (as
    /// `Stochastic::new` makes of a primitive).
    #[inline]
    pub fn stochastic(self) -> DynStochastic {
        at_format!(self.f, G => DynStochastic::of(Stochastic::new(self.native::<G>())))
    }
}

/// A value of either kind, or a stochastic value of static format, as a [`DynStochastic`].
pub trait AsDynStochastic: Copy {
    /// The value as a `DynStochastic` (exactly).
    fn as_dyn_stochastic(self) -> DynStochastic;
}

impl AsDynStochastic for DynStochastic {
    #[inline]
    fn as_dyn_stochastic(self) -> DynStochastic {
        self
    }
}
impl<F: Tag, const K: u32> AsDynStochastic for Knob<F, K, DynStochastic> {
    #[inline]
    fn as_dyn_stochastic(self) -> DynStochastic {
        self.get()
    }
}
impl<B: Tag> AsDynStochastic for Stochastic<B> {
    #[inline]
    fn as_dyn_stochastic(self) -> DynStochastic {
        DynStochastic::of(self)
    }
}
impl AsDynStochastic for DynNative {
    #[inline]
    fn as_dyn_stochastic(self) -> DynStochastic {
        self.stochastic()
    }
}
impl<F: Tag, const K: u32> AsDynStochastic for Knob<F, K, DynNative> {
    #[inline]
    fn as_dyn_stochastic(self) -> DynStochastic {
        self.get().stochastic()
    }
}

/// `Join`s both ways between `$a` and each `$b`: in their common format ([`DynFloat::meet`]), each
/// made a [`DynStochastic`] exactly first ([`AsDynStochastic`]).
macro_rules! dyn_stochastic_joins {
    ($a:tt; $($b:tt),*) => {
        $(dyn_stochastic_joins!(@pair $a $b);)*
    };
    (@pair [[$($ga:tt)*] $a:ty] [[$($gb:tt)*] $b:ty]) => {
        impl<$($ga)* $($gb)*> Join<$b> for $a {
            type Out = DynStochastic;
            #[inline]
            fn join(a: Self, b: $b) -> (DynStochastic, DynStochastic) {
                DynFloat::meet(a.as_dyn_stochastic(), b.as_dyn_stochastic())
            }
        }
        impl<$($ga)* $($gb)*> Join<$a> for $b {
            type Out = DynStochastic;
            #[inline]
            fn join(a: Self, b: $a) -> (DynStochastic, DynStochastic) {
                DynFloat::meet(a.as_dyn_stochastic(), b.as_dyn_stochastic())
            }
        }
    };
}
dyn_stochastic_joins!([[] DynNative]; [[] DynStochastic], [[G: Tag, const L: u32,] Knob<G, L, DynStochastic>], [[G: Tag,] Stochastic<G>]);
dyn_stochastic_joins!([[F: Tag, const K: u32,] Knob<F, K, DynNative>]; [[] DynStochastic], [[G: Tag, const L: u32,] Knob<G, L, DynStochastic>], [[G: Tag,] Stochastic<G>]);
dyn_stochastic_joins!([[A: Tag,] Stochastic<A>]; [[] DynStochastic], [[G: Tag, const L: u32,] Knob<G, L, DynStochastic>]);

/// Stores and casts of each `$t` into a knob of the DSA single build and into a place of type
/// `DynStochastic`: made a [`DynStochastic`] exactly, then rounded at random to the place's format (as a primitive
/// or a `Stochastic` stored into a stochastic place).
macro_rules! into_dyn_stochastic_places {
    ($([[$($g:tt)*] $t:ty]),*) => {$(
        impl<B: Tag, const L: u32, $($g)*> Store<Knob<B, L, DynStochastic>> for $t {
            #[inline]
            fn store(self) -> Knob<B, L, DynStochastic> {
                Knob::from_dyn(self.as_dyn_stochastic())
            }
        }
        impl<B: Tag, const L: u32, $($g)*> CastAs<Knob<B, L, DynStochastic>> for $t {
            #[inline]
            fn cast_as(self) -> Knob<B, L, DynStochastic> {
                Knob::from_dyn(self.as_dyn_stochastic())
            }
        }
        store_dyn_place!(DynStochastic; [$($g)*] $t => |x, f| x.as_dyn_stochastic().to(f), x.as_dyn_stochastic());
    )*};
}
into_dyn_stochastic_places!([[] DynNative], [[F: Tag, const K: u32,] Knob<F, K, DynNative>], [[A: Tag,] Stochastic<A>]);

/// Out of each `$t` into a stochastic place of static format, and `as` one: the value as an
/// [`DynStochastic`], then [`Stochastic::cast`].
macro_rules! into_stochastic {
    ($([[$($g:tt)*] $t:ty]),*) => {$(
        impl<B: Tag, $($g)*> Store<Stochastic<B>> for $t {
            #[inline]
            fn store(self) -> Stochastic<B> {
                self.as_dyn_stochastic().cast()
            }
        }
        impl<B: Tag, $($g)*> CastAs<Stochastic<B>> for $t {
            #[inline]
            fn cast_as(self) -> Stochastic<B> {
                self.as_dyn_stochastic().cast()
            }
        }
        /// What `impl Into<Stochastic<B>>` arguments take (`m.max(v)`, `x.powf(k)` with `m`
        /// stochastic and `v` a knob): where the configuration's own build compiles, a widening,
        /// which draws nothing, as its `From<Stochastic<A>>`.
        impl<B: Tag, $($g)*> From<$t> for Stochastic<B> {
            #[inline]
            fn from(x: $t) -> Stochastic<B> {
                x.as_dyn_stochastic().cast()
            }
        }
    )*};
}
into_stochastic!([[] DynStochastic], [[F: Tag, const K: u32,] Knob<F, K, DynStochastic>], [[] DynNative], [[F: Tag, const K: u32,] Knob<F, K, DynNative>]);

/// A stochastic value (`$s`) stored into a native knob (a `static mut` of a constant unit): its
/// mean rounded to nearest into the unit's format, as into a primitive of the configuration's own
/// stochastic build (the samples are lost).
macro_rules! stochastic_into_native_knob {
    ($([[$($g:tt)*] $s:ty]),*) => {$(
        impl<B: Tag, const L: u32, $($g)*> Store<Knob<B, L, DynNative>> for $s {
            #[inline]
            fn store(self) -> Knob<B, L, DynNative> {
                Knob::holding(DynNative::from_wide_word(self.as_dyn_stochastic().mean(), Knob::<B, L, DynNative>::unit_format()))
            }
        }
    )*};
}
stochastic_into_native_knob!([[] DynStochastic], [[G: Tag, const K: u32,] Knob<G, K, DynStochastic>], [[G: Tag,] Stochastic<G>]);
