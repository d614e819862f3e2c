//! Where kinds of values meet in the DSA single build.
//!
//! Stochastic values of static format (`Stochastic<B>`, in code outside the tuned items) meet the
//! run-time ones; and a constant unit's knob holds a native value (`Knob<F, { U | CONSTANT }, Ndyn>`), as a `const` of the
//! configuration's own stochastic build is a primitive constant: its arithmetic with literals,
//! primitives and other constants is native, and where it meets a stochastic value it becomes one
//! exactly, as a primitive does.

use super::*;

impl Ndyn {
    /// The value as a stochastic one: exactly, three equal samples of its format (as
    /// `Stochastic::new` makes of a primitive).
    #[inline]
    pub fn stochastic(self) -> Sdyn {
        at_format!(self.f, G => Sdyn::of(Stochastic::new(self.native::<G>())))
    }
}

/// A value of either kind, or a stochastic value of static format, as an [`Sdyn`].
pub trait AsSdyn: Copy {
    /// The value as an `Sdyn` (exactly).
    fn as_sdyn(self) -> Sdyn;
}

impl AsSdyn for Sdyn {
    #[inline]
    fn as_sdyn(self) -> Sdyn {
        self
    }
}
impl<F: Tag, const K: u32> AsSdyn for Knob<F, K, Sdyn> {
    #[inline]
    fn as_sdyn(self) -> Sdyn {
        self.get()
    }
}
impl<B: Tag> AsSdyn for Stochastic<B> {
    #[inline]
    fn as_sdyn(self) -> Sdyn {
        Sdyn::of(self)
    }
}
impl AsSdyn for Ndyn {
    #[inline]
    fn as_sdyn(self) -> Sdyn {
        self.stochastic()
    }
}
impl<F: Tag, const K: u32> AsSdyn for Knob<F, K, Ndyn> {
    #[inline]
    fn as_sdyn(self) -> Sdyn {
        self.get().stochastic()
    }
}

/// `Join`s both ways between `$a` and each `$b`: in their common format ([`Dyn::meet`]), each
/// made an [`Sdyn`] exactly first ([`AsSdyn`]).
macro_rules! sdyn_joins {
    ($a:tt; $($b:tt),*) => {
        $(sdyn_joins!(@pair $a $b);)*
    };
    (@pair [[$($ga:tt)*] $a:ty] [[$($gb:tt)*] $b:ty]) => {
        impl<$($ga)* $($gb)*> Join<$b> for $a {
            type Out = Sdyn;
            #[inline]
            fn join(a: Self, b: $b) -> (Sdyn, Sdyn) {
                Dyn::meet(a.as_sdyn(), b.as_sdyn())
            }
        }
        impl<$($ga)* $($gb)*> Join<$a> for $b {
            type Out = Sdyn;
            #[inline]
            fn join(a: Self, b: $a) -> (Sdyn, Sdyn) {
                Dyn::meet(a.as_sdyn(), b.as_sdyn())
            }
        }
    };
}
sdyn_joins!([[] Ndyn]; [[] Sdyn], [[G: Tag, const L: u32,] Knob<G, L, Sdyn>], [[G: Tag,] Stochastic<G>]);
sdyn_joins!([[F: Tag, const K: u32,] Knob<F, K, Ndyn>]; [[] Sdyn], [[G: Tag, const L: u32,] Knob<G, L, Sdyn>], [[G: Tag,] Stochastic<G>]);
sdyn_joins!([[A: Tag,] Stochastic<A>]; [[] Sdyn], [[G: Tag, const L: u32,] Knob<G, L, Sdyn>]);

/// Stores and casts of each `$t` into a knob of the DSA single build and into a place of type
/// `Sdyn`: made an [`Sdyn`] exactly, then rounded at random to the place's format (as a primitive
/// or a `Stochastic` stored into a stochastic place).
macro_rules! into_sdyn_places {
    ($([[$($g:tt)*] $t:ty]),*) => {$(
        impl<B: Tag, const L: u32, $($g)*> Store<Knob<B, L, Sdyn>> for $t {
            #[inline]
            fn store(self) -> Knob<B, L, Sdyn> {
                Knob::from_dyn(self.as_sdyn())
            }
        }
        impl<B: Tag, const L: u32, $($g)*> CastAs<Knob<B, L, Sdyn>> for $t {
            #[inline]
            fn cast_as(self) -> Knob<B, L, Sdyn> {
                Knob::from_dyn(self.as_sdyn())
            }
        }
        store_dyn_place!(Sdyn; [$($g)*] $t => |x, f| x.as_sdyn().to(f), x.as_sdyn());
    )*};
}
into_sdyn_places!([[] Ndyn], [[F: Tag, const K: u32,] Knob<F, K, Ndyn>], [[A: Tag,] Stochastic<A>]);

/// Out of each `$t` into a stochastic place of static format, and `as` one: the value as an
/// [`Sdyn`], then [`Stochastic::cast`].
macro_rules! into_stochastic {
    ($([[$($g:tt)*] $t:ty]),*) => {$(
        impl<B: Tag, $($g)*> Store<Stochastic<B>> for $t {
            #[inline]
            fn store(self) -> Stochastic<B> {
                self.as_sdyn().cast()
            }
        }
        impl<B: Tag, $($g)*> CastAs<Stochastic<B>> for $t {
            #[inline]
            fn cast_as(self) -> Stochastic<B> {
                self.as_sdyn().cast()
            }
        }
        /// What `impl Into<Stochastic<B>>` arguments take (`m.max(v)`, `x.powf(k)` with `m`
        /// stochastic and `v` a knob): where the configuration's own build compiles, a widening,
        /// which draws nothing, as its `From<Stochastic<A>>`.
        impl<B: Tag, $($g)*> From<$t> for Stochastic<B> {
            #[inline]
            fn from(x: $t) -> Stochastic<B> {
                x.as_sdyn().cast()
            }
        }
    )*};
}
into_stochastic!([[] Sdyn], [[F: Tag, const K: u32,] Knob<F, K, Sdyn>], [[] Ndyn], [[F: Tag, const K: u32,] Knob<F, K, Ndyn>]);

/// A stochastic value (`$s`) stored into a native knob (a `static mut` of a constant unit): its
/// mean rounded to nearest into the unit's format, as into a primitive of the configuration's own
/// stochastic build (the samples are lost).
macro_rules! stochastic_into_native_knob {
    ($([[$($g:tt)*] $s:ty]),*) => {$(
        impl<B: Tag, const L: u32, $($g)*> Store<Knob<B, L, Ndyn>> for $s {
            #[inline]
            fn store(self) -> Knob<B, L, Ndyn> {
                Knob::holding(Ndyn::from_wide_word(self.as_sdyn().mean(), Knob::<B, L, Ndyn>::unit_format()))
            }
        }
    )*};
}
stochastic_into_native_knob!([[] Sdyn], [[G: Tag, const K: u32,] Knob<G, K, Sdyn>], [[G: Tag,] Stochastic<G>]);
