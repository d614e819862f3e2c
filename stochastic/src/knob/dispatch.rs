//! The dispatch of `crate::rt` (operands, joins, stores, casts, folds) for knobs and values of
//! run-time format, written once for any `V: DynFloat` (`dyn_value!`).

use super::*;

/// Knobs and values of run-time format as operands: their value.
pub trait Dynamic: Copy {
    /// The value's type.
    type V: DynFloat;
    /// The value.
    fn value_dyn(self) -> Self::V;
}

impl<F: Tag, const K: u32, V: DynFloat> Dynamic for Knob<F, K, V> {
    type V = V;
    #[inline]
    fn value_dyn(self) -> V {
        self.get()
    }
}

impl<F: Tag, const K: u32, V: DynFloat> Scalar for Knob<F, K, V> {}

crate::rt::operand!([F: Tag, const K: u32, V: DynFloat] Knob<F, K, V>);
crate::rt::operand_mut!([F: Tag, const K: u32, V: DynFloat] Knob<F, K, V>);
crate::rt::item!([F: Tag, const K: u32, V: DynFloat] Knob<F, K, V>);

/// `Join` of a run-time-format value or a knob (`$t`) with literals and native floats, both
/// ways, and `CastOperand`.
macro_rules! join_dynamic {
    ($([$($g:tt)*] $t:ty),*) => {$(
        join_dynamic!(@native [$($g)*] $t);
        impl<$($g)*> Join<Lit> for $t {
            type Out = <$t as Dynamic>::V;
            #[inline]
            fn join(a: Self, b: Lit) -> (Self::Out, Self::Out) {
                let a = a.value_dyn();
                (a, DynFloat::lit(b, a.format()))
            }
        }
        impl<$($g)*> Join<$t> for Lit {
            type Out = <$t as Dynamic>::V;
            #[inline]
            fn join(a: Lit, b: $t) -> (Self::Out, Self::Out) {
                let b = b.value_dyn();
                (DynFloat::lit(a, b.format()), b)
            }
        }
    )*};
    (@native [$($g:tt)*] $t:ty) => {
        impl<B: Tag, $($g)*> Join<B> for $t {
            type Out = <$t as Dynamic>::V;
            #[inline]
            fn join(a: Self, b: B) -> (Self::Out, Self::Out) {
                DynFloat::meet(a.value_dyn(), DynFloat::exact(b))
            }
        }
        impl<A: Tag, $($g)*> Join<$t> for A {
            type Out = <$t as Dynamic>::V;
            #[inline]
            fn join(a: A, b: $t) -> (Self::Out, Self::Out) {
                DynFloat::meet(DynFloat::exact(a), b.value_dyn())
            }
        }
        impl<T, $($g)*> CastOperand<T> for $t
        where
            $t: CastAs<T>,
        {
            type Out = T;
            #[inline]
            fn cast_operand(self) -> T {
                self.cast_as()
            }
        }
    };
}

// A knob meeting a literal keeps its type, as natively the literal takes the knob's (`1.0 +
// (t * 0.7).sin()` stored into a knob's container is of the knob's type).
join_dynamic!(@native [F: Tag, const K: u32, V: DynFloat] Knob<F, K, V>);

impl<F: Tag, const K: u32, V: DynFloat> Join<Lit> for Knob<F, K, V> {
    type Out = Self;
    #[inline]
    fn join(a: Self, b: Lit) -> (Self, Self) {
        (a, Knob::holding(V::lit(b, Self::unit_format())))
    }
}

impl<F: Tag, const K: u32, V: DynFloat> Join<Knob<F, K, V>> for Lit {
    type Out = Knob<F, K, V>;
    #[inline]
    fn join(a: Lit, b: Knob<F, K, V>) -> (Knob<F, K, V>, Knob<F, K, V>) {
        (Knob::holding(V::lit(a, Knob::<F, K, V>::unit_format())), b)
    }
}

/// Everything between a kind of run-time-format value `$V` and the knobs holding it: `Join`s,
/// stores and casts into knobs and into places of type `$V`, stores and casts out.
macro_rules! dyn_value {
    ($($V:ident),*) => {$(
        impl Dynamic for $V {
            type V = $V;
            #[inline]
            fn value_dyn(self) -> $V {
                self
            }
        }
        impl Scalar for $V {}
        crate::rt::operand!([] $V);
        crate::rt::operand_mut!([] $V);
        crate::rt::item!([] $V);
        join_dynamic!([] $V);

        impl Join<$V> for $V {
            type Out = $V;
            #[inline]
            fn join(a: $V, b: $V) -> ($V, $V) {
                DynFloat::meet(a, b)
            }
        }
        impl<F: Tag, const K: u32> Join<$V> for Knob<F, K, $V> {
            type Out = $V;
            #[inline]
            fn join(a: Self, b: $V) -> ($V, $V) {
                DynFloat::meet(a.get(), b)
            }
        }
        impl<F: Tag, const K: u32> Join<Knob<F, K, $V>> for $V {
            type Out = $V;
            #[inline]
            fn join(a: $V, b: Knob<F, K, $V>) -> ($V, $V) {
                DynFloat::meet(a, b.get())
            }
        }
        impl<A: Tag, B: Tag, const K: u32, const L: u32> Join<Knob<B, L, $V>> for Knob<A, K, $V> {
            type Out = $V;
            #[inline]
            fn join(a: Self, b: Knob<B, L, $V>) -> ($V, $V) {
                DynFloat::meet(a.get(), b.get())
            }
        }

        // Stores into a knob: rounded to its unit's format.
        impl<A: Tag, B: Tag, const K: u32> Store<Knob<B, K, $V>> for A {
            #[inline]
            fn store(self) -> Knob<B, K, $V> {
                Knob::from_dyn(<$V>::exact(self))
            }
        }
        impl<B: Tag, const K: u32> Store<Knob<B, K, $V>> for Lit {
            #[inline]
            fn store(self) -> Knob<B, K, $V> {
                Knob::holding(<$V>::lit(self, Knob::<B, K, $V>::unit_format()))
            }
        }
        impl<B: Tag, const K: u32> crate::rt::LitLike for Knob<B, K, $V> {
            type Value = Self;
        }
        // An elaborated literal at a knob's place (`Square(lit(1.1, 1.1))`).
        impl<B: Tag, const K: u32> crate::rt::FromLit for Knob<B, K, $V> {
            #[inline]
            fn from_lit(l: Lit) -> Self {
                Store::store(l)
            }
        }
        impl<A: Tag, B: Tag, const K: u32, const L: u32> Store<Knob<B, L, $V>> for Knob<A, K, $V> {
            #[inline]
            fn store(self) -> Knob<B, L, $V> {
                Knob::from_dyn(self.get())
            }
        }
        impl<B: Tag, const K: u32> Store<Knob<B, K, $V>> for $V {
            #[inline]
            fn store(self) -> Knob<B, K, $V> {
                Knob::from_dyn(self)
            }
        }

        // Stores into a place of type `$V`: rounded to the format the place holds (its static
        // type's in the configuration's own build); a new value of the value's own format.
        store_dyn_place!($V; [] $V => |x, f| x.to(f), x);
        store_dyn_place!($V; [F: Tag, const K: u32] Knob<F, K, $V> => |x, f| x.get().to(f), x.get());
        store_dyn_place!($V; [] Lit => |x, f| <$V>::lit(x, f), <$V>::lit(x, FloatFormat::F64));

        // Out of one into a native place: rounded to nearest, and `as` to a float the same.
        impl<B: Tag> Store<B> for $V {
            #[inline]
            fn store(self) -> B {
                self.store_native()
            }
        }
        impl<B: Tag, F: Tag, const K: u32> Store<B> for Knob<F, K, $V> {
            #[inline]
            fn store(self) -> B {
                self.get().store_native()
            }
        }
        impl<B: Tag> CastAs<B> for $V {
            #[inline]
            fn cast_as(self) -> B {
                self.store_native()
            }
        }
        impl<B: Tag, F: Tag, const K: u32> CastAs<B> for Knob<F, K, $V> {
            #[inline]
            fn cast_as(self) -> B {
                self.get().store_native()
            }
        }

        // Casts into a knob: as stores.
        impl<A: Tag, B: Tag, const K: u32> CastAs<Knob<B, K, $V>> for A {
            #[inline]
            fn cast_as(self) -> Knob<B, K, $V> {
                Knob::from_dyn(<$V>::exact(self))
            }
        }
        impl<B: Tag, const K: u32> CastAs<Knob<B, K, $V>> for $V {
            #[inline]
            fn cast_as(self) -> Knob<B, K, $V> {
                Knob::from_dyn(self)
            }
        }
        impl<A: Tag, B: Tag, const K: u32, const L: u32> CastAs<Knob<B, L, $V>> for Knob<A, K, $V> {
            #[inline]
            fn cast_as(self) -> Knob<B, L, $V> {
                Knob::from_dyn(self.get())
            }
        }
        cast_ints_into_knob!($V; i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);
    )*};
}

/// `Store<$V>` for `$t`: `$new` a new value, `$into` a store into a place of format `$f`.
macro_rules! store_dyn_place {
    ($V:ident; [$($g:tt)*] $t:ty => |$x:ident, $f:ident| $into:expr, $new:expr) => {
        impl<$($g)*> Store<$V> for $t {
            #[inline]
            fn store(self) -> $V {
                let $x = self;
                $new
            }
            #[inline]
            fn store_into(self, place: &mut $V) {
                let ($x, $f) = (self, place.format());
                *place = $into;
            }
        }
    };
}

/// An integer `as` a knob: rounded to nearest into the knob's format (through `f64`).
macro_rules! cast_ints_into_knob {
    ($V:ident; $($i:ty),*) => {$(
        impl<B: Tag, const K: u32> CastAs<Knob<B, K, $V>> for $i {
            #[inline]
            fn cast_as(self) -> Knob<B, K, $V> {
                Knob::holding(<$V>::from_f64(self as f64, Knob::<B, K, $V>::unit_format()))
            }
        }
    )*};
}

/// A value of run-time format (or a knob of it) `as` an integer: as its format's own value
/// (`$read!` binds it).
macro_rules! cast_dyn_to_ints {
    ($read:ident; $([$($g:tt)*] $t:ty),*) => {$(
        cast_dyn_to_ints!(@each $read; [$($g)*] $t; i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);
    )*};
    (@each $read:ident; $g:tt $t:ty; $($i:ty),*) => {$(
        cast_dyn_to_ints!(@one $read; $g $t; $i);
    )*};
    (@one $read:ident; [$($g:tt)*] $t:ty; $i:ty) => {
        impl<$($g)*> CastAs<$i> for $t {
            #[inline]
            fn cast_as(self) -> $i {
                $read!(self.value_dyn(), x => CastAs::<$i>::cast_as(x))
            }
        }
    };
}

dyn_value!(DynStochastic, DynNative);

cast_dyn_to_ints!(read; [] DynStochastic, [F: Tag, const K: u32] Knob<F, K, DynStochastic>);
cast_dyn_to_ints!(read_native; [] DynNative, [F: Tag, const K: u32] Knob<F, K, DynNative>);
