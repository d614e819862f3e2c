//! Binary operators, compound assignments and comparisons between floats of any kinds, by
//! autoref specialisation on `Pair`, the others left to `std::ops`.

use super::*;

/// Two operands, taken out once by whichever implementation the method call selects.
pub struct Pair<A, B>(Cell<Option<A>>, Cell<Option<B>>);

/// Pairs two operands for dispatch: `(&&pair(a, b)).__fp_add()`.
#[inline(always)]
pub fn pair<A, B>(a: A, b: B) -> Pair<A, B> {
    Pair(Cell::new(Some(a)), Cell::new(Some(b)))
}

impl<A, B> std::fmt::Debug for Pair<A, B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Pair")
    }
}

impl<A, B> Pair<A, B> {
    #[inline(always)]
    pub(crate) fn take(&self) -> (A, B) {
        match (self.0.take(), self.1.take()) {
            (Some(a), Some(b)) => (a, b),
            _ => unreachable!("an fptune operand pair is used once"),
        }
    }
}

/// An operand as the dispatch takes it: a float, or a reference to one (`|(a, b)| a * b` over
/// iterators of references).
pub trait Operand {
    /// The float.
    type V: Scalar;
    /// The float, copied out.
    fn v(self) -> Self::V;
}

/// [`Operand`] for float types (`[generics] type`): by value and by reference.
macro_rules! operand {
    ($([$($g:tt)*] $t:ty),* $(,)?) => {$(
        impl<$($g)*> $crate::rt::Operand for $t {
            type V = $t;
            #[inline(always)]
            fn v(self) -> $t { self }
        }
        impl<'a, $($g)*> $crate::rt::Operand for &'a $t {
            type V = $t;
            #[inline(always)]
            fn v(self) -> $t { *self }
        }
    )*};
}
pub(crate) use operand;

/// [`Operand`] for `&mut` of float types, as [`operand!`].
macro_rules! operand_mut {
    ($([$($g:tt)*] $t:ty),* $(,)?) => {$(
        impl<'a, $($g)*> $crate::rt::Operand for &'a mut $t {
            type V = $t;
            #[inline(always)]
            fn v(self) -> $t { *self }
        }
    )*};
}
pub(crate) use operand_mut;

operand!([] f64, [] f32, [] f16, [] bf16, [] Lit, [F: Format] Stochastic<F>, [const E: u32, const M: u32, const FLAGS: u32] crate::Fx<E, M, FLAGS>);
operand_mut!([] f64, [] f32, [] f16, [] bf16, [] Lit, [const E: u32, const M: u32, const FLAGS: u32] crate::Fx<E, M, FLAGS>);

/// The arithmetic of the types two float operands meet in ([`Join::Out`]): their operators,
/// except that `f16` and `bf16` compute in `f32` with [`crate::cvt`]'s conversions (`half`'s
/// operators call a conversion function three times per operation). Computing in binary32 and
/// rounding once to nearest gives the correctly rounded result: 24 >= 2 x 11 + 2 bits, so the
/// double rounding of `+ - * /` is innocuous, and `%` is exact. (`%` is [`ArithRem`].)
pub trait Arith: Sized {
    #[doc(hidden)]
    fn fp_add(a: Self, b: Self) -> Self;
    #[doc(hidden)]
    fn fp_sub(a: Self, b: Self) -> Self;
    #[doc(hidden)]
    fn fp_mul(a: Self, b: Self) -> Self;
    #[doc(hidden)]
    fn fp_div(a: Self, b: Self) -> Self;
}

/// `%` of the native types two float operands meet in (see [`Arith`]).
pub trait ArithRem: Sized {
    #[doc(hidden)]
    fn fp_rem(a: Self, b: Self) -> Self;
}

macro_rules! arith_by_operators {
    ($([$($g:tt)*] $t:ty),* $(,)?) => {$(
        impl<$($g)*> Arith for $t {
            #[inline(always)]
            fn fp_add(a: Self, b: Self) -> Self { a + b }
            #[inline(always)]
            fn fp_sub(a: Self, b: Self) -> Self { a - b }
            #[inline(always)]
            fn fp_mul(a: Self, b: Self) -> Self { a * b }
            #[inline(always)]
            fn fp_div(a: Self, b: Self) -> Self { a / b }
        }
    )*};
}

// `Fx`: its operators round to nearest even from the exact result (`formats::arith`).
arith_by_operators!([] f64, [] f32, [] Lit, [F: Format] Stochastic<F>, [const E: u32, const M: u32, const FLAGS: u32] crate::Fx<E, M, FLAGS>,
    // The single build's knobs: a knob meeting a literal keeps its type ([`Join`]).
    [F: crate::knob::Tag, const K: u32, V: crate::knob::DynFloat] crate::knob::Knob<F, K, V>);

macro_rules! rem_by_operator {
    ($($t:ty),*) => {$(
        impl ArithRem for $t {
            #[inline(always)]
            fn fp_rem(a: Self, b: Self) -> Self { a % b }
        }
    )*};
}

rem_by_operator!(f64, f32, Lit);

impl<F: crate::knob::Tag, const K: u32, V: crate::knob::DynFloat> ArithRem for crate::knob::Knob<F, K, V> {
    #[inline(always)]
    fn fp_rem(a: Self, b: Self) -> Self {
        a % b
    }
}

impl<const E: u32, const M: u32, const FLAGS: u32> ArithRem for crate::Fx<E, M, FLAGS> {
    #[inline(always)]
    fn fp_rem(a: Self, b: Self) -> Self {
        a % b
    }
}

impl<F: Format> ArithRem for Stochastic<F> {
    #[inline(always)]
    fn fp_rem(a: Self, b: Self) -> Self {
        a % b
    }
}

macro_rules! arith_through_f32 {
    ($($h:ty),*) => {$(
        impl Arith for $h {
            #[inline(always)]
            fn fp_add(a: Self, b: Self) -> Self { <$h as Half32>::narrow(a.widen() + b.widen()) }
            #[inline(always)]
            fn fp_sub(a: Self, b: Self) -> Self { <$h as Half32>::narrow(a.widen() - b.widen()) }
            #[inline(always)]
            fn fp_mul(a: Self, b: Self) -> Self { <$h as Half32>::narrow(a.widen() * b.widen()) }
            #[inline(always)]
            fn fp_div(a: Self, b: Self) -> Self { <$h as Half32>::narrow(a.widen() / b.widen()) }
        }
        impl ArithRem for $h {
            #[inline(always)]
            fn fp_rem(a: Self, b: Self) -> Self { <$h as Half32>::narrow(a.widen() % b.widen()) }
        }
    )*};
}

arith_through_f32!(f16, bf16);

/// `$Float`, implemented for a pair of float operands: both brought to their common type
/// ([`Join`]), then `$Trait::$f` of it (an operator, [`Arith`], or a method, [`Math2`]).
macro_rules! float_pair {
    ($Float:ident, $m:ident, $Trait:ident, $f:ident) => {
        /// Float operands: computed in their common format.
        pub trait $Float {
            /// Result type.
            type Out;
            /// The operation.
            fn $m(&self) -> Self::Out;
        }
        impl<A: Operand, B: Operand> $Float for &Pair<A, B>
        where
            A::V: Join<B::V>,
            <A::V as Join<B::V>>::Out: $Trait,
        {
            type Out = <A::V as Join<B::V>>::Out;
            #[inline(always)]
            fn $m(&self) -> Self::Out {
                let (a, b) = self.take();
                let (a, b) = <A::V as Join<B::V>>::join(a.v(), b.v());
                $Trait::$f(a, b)
            }
        }
    };
}
pub(crate) use float_pair;

macro_rules! binary {
    ($Float:ident, $Std:ident, $m:ident, $Op:ident, $op:ident, $Arith:ident, $fp:ident) => {
        float_pair!($Float, $m, $Arith, $fp);
        /// Any other operands: the ordinary operator.
        pub trait $Std {
            /// Result type.
            type Out;
            /// The operation.
            fn $m(&self) -> Self::Out;
        }
        impl<A: $Op<B>, B> $Std for Pair<A, B> {
            type Out = A::Output;
            #[inline(always)]
            fn $m(&self) -> A::Output {
                let (a, b) = self.take();
                $Op::$op(a, b)
            }
        }
    };
}

/// A literal meeting a value of another type (a user's vector times `3.0`): the literal as the
/// float the other operand's operator takes, `f64` or `f32`, or their stochastic types (rustc's
/// inference on the written literal, which a [`Lit`] no longer carries). Each is a trait of its
/// own at the level of the ordinary operator, whose bounds rule out all but one.
macro_rules! lit_fallback {
    ($m:ident, $Op:ident, $op:ident: $($Right:ident $Left:ident $f:ty = |$l:ident| $conv:expr),*) => {$(
        /// `value op literal`, the literal as this type.
        pub trait $Right {
            /// Result type.
            type Out;
            /// The operation.
            fn $m(&self) -> Self::Out;
        }
        impl<A: $Op<$f>> $Right for Pair<A, Lit> {
            type Out = A::Output;
            #[inline(always)]
            fn $m(&self) -> A::Output {
                let (a, $l) = self.take();
                $Op::$op(a, $conv)
            }
        }
        /// `literal op value`, the literal as this type.
        pub trait $Left {
            /// Result type.
            type Out;
            /// The operation.
            fn $m(&self) -> Self::Out;
        }
        impl<B> $Left for Pair<Lit, B>
        where
            $f: $Op<B>,
        {
            type Out = <$f as $Op<B>>::Output;
            #[inline(always)]
            fn $m(&self) -> Self::Out {
                let ($l, b) = self.take();
                $Op::$op($conv, b)
            }
        }
    )*};
}

/// A literal meeting a container whose element type the runtime knows (a nalgebra matrix, an
/// ndarray array, by value or by reference: `traits/containers.rs`): the literal as a value of
/// that type, in whatever format the build gives it. One level above the float operators (the
/// expansion of an operator with a literal operand is `(&&&pair(a, b))`), so that no other
/// fallback competes. The traits are implemented for the containers' types only (never for a
/// type parameter), so a float operand of a type not yet inferred is not taken for one.
macro_rules! elem_lit_traits {
    ($($m:ident: $Right:ident $Left:ident;)*) => {$(
        /// `container op literal`.
        pub trait $Right {
            /// Result type.
            type Out;
            /// The operation.
            fn $m(&self) -> Self::Out;
        }
        /// `literal op container`.
        pub trait $Left {
            /// Result type.
            type Out;
            /// The operation.
            fn $m(&self) -> Self::Out;
        }
    )*};
}

elem_lit_traits! {
    __fp_add: ElemAddLit LitAddElem;
    __fp_sub: ElemSubLit LitSubElem;
    __fp_mul: ElemMulLit LitMulElem;
    __fp_div: ElemDivLit LitDivElem;
}

/// Implements the [`ElemMulLit`] family for a container type `[generics] Type`.
#[allow(unused_macros)]
macro_rules! elem_lit_impls {
    ([$($g:tt)*] $t:ty) => {
        $crate::rt::elem_lit_impls!(elem [$($g)*] $t);
    };
    // `left` says how the literal, made an element, goes on the left: `elem`, as the element
    // type itself (`2.0 * z` of num-complex, defined for every element type); `scalar_left`,
    // through `ScalarLeft` (ndarray and nalgebra define `2.0 * &a` for primitive elements only).
    ($left:ident [$($g:tt)*] $t:ty) => {
        $crate::rt::elem_lit_impls!(@ $left [$($g)*] $t; __fp_add, Add, add: ElemAddLit LitAddElem);
        $crate::rt::elem_lit_impls!(@ $left [$($g)*] $t; __fp_sub, Sub, sub: ElemSubLit LitSubElem);
        $crate::rt::elem_lit_impls!(@ $left [$($g)*] $t; __fp_mul, Mul, mul: ElemMulLit LitMulElem);
        $crate::rt::elem_lit_impls!(@ $left [$($g)*] $t; __fp_div, Div, div: ElemDivLit LitDivElem);
    };
    (@ elem [$($g:tt)*] $t:ty; $m:ident, $Op:ident, $op:ident: $Right:ident $Left:ident) => {
        $crate::rt::elem_lit_impls!(@right [$($g)*] $t; $m, $Op, $op: $Right);
        impl<$($g)*> $crate::rt::$Left for &&$crate::rt::Pair<$crate::rt::Lit, $t>
        where
            $t: $crate::rt::Elements,
            <$t as $crate::rt::Elements>::Elem: ::core::ops::$Op<$t>,
        {
            type Out = <<$t as $crate::rt::Elements>::Elem as ::core::ops::$Op<$t>>::Output;
            #[inline(always)]
            fn $m(&self) -> Self::Out {
                let (l, b) = self.take();
                ::core::ops::$Op::$op(<<$t as $crate::rt::Elements>::Elem as $crate::rt::FromLit>::from_lit(l), b)
            }
        }
    };
    (@ scalar_left [$($g:tt)*] $t:ty; $m:ident, $Op:ident, $op:ident: $Right:ident $Left:ident) => {
        $crate::rt::elem_lit_impls!(@right [$($g)*] $t; $m, $Op, $op: $Right);
        impl<$($g)*> $crate::rt::$Left for &&$crate::rt::Pair<$crate::rt::Lit, $t>
        where
            $t: $crate::rt::Elements,
            $crate::rt::ScalarLeft<<$t as $crate::rt::Elements>::Elem>: ::core::ops::$Op<$t>,
        {
            type Out = <$crate::rt::ScalarLeft<<$t as $crate::rt::Elements>::Elem> as ::core::ops::$Op<$t>>::Output;
            #[inline(always)]
            fn $m(&self) -> Self::Out {
                let (l, b) = self.take();
                let s = $crate::rt::ScalarLeft(<<$t as $crate::rt::Elements>::Elem as $crate::rt::FromLit>::from_lit(l));
                ::core::ops::$Op::$op(s, b)
            }
        }
    };
    (@right [$($g:tt)*] $t:ty; $m:ident, $Op:ident, $op:ident: $Right:ident) => {
        impl<$($g)*> $crate::rt::$Right for &&$crate::rt::Pair<$t, $crate::rt::Lit>
        where
            $t: $crate::rt::Elements + ::core::ops::$Op<<$t as $crate::rt::Elements>::Elem>,
        {
            type Out = <$t as ::core::ops::$Op<<$t as $crate::rt::Elements>::Elem>>::Output;
            #[inline(always)]
            fn $m(&self) -> Self::Out {
                let (a, l) = self.take();
                ::core::ops::$Op::$op(a, <<$t as $crate::rt::Elements>::Elem as $crate::rt::FromLit>::from_lit(l))
            }
        }
    };
}
#[allow(unused_imports)]
pub(crate) use elem_lit_impls;

macro_rules! lit_fallbacks {
    ($($m:ident, $Op:ident, $op:ident: $R64:ident $L64:ident $R32:ident $L32:ident $RS64:ident $LS64:ident $RS32:ident $LS32:ident;)*) => {$(
        lit_fallback!($m, $Op, $op:
            $R64 $L64 f64 = |l| l.d,
            $R32 $L32 f32 = |l| l.s,
            $RS64 $LS64 Stochastic<f64> = |l| l.stochastic::<f64>(),
            $RS32 $LS32 Stochastic<f32> = |l| l.stochastic::<f32>());
    )*};
}

lit_fallbacks! {
    __fp_add, Add, add: AddLit64 LitAdd64 AddLit32 LitAdd32 AddSlit64 SlitAdd64 AddSlit32 SlitAdd32;
    __fp_sub, Sub, sub: SubLit64 LitSub64 SubLit32 LitSub32 SubSlit64 SlitSub64 SubSlit32 SlitSub32;
    __fp_mul, Mul, mul: MulLit64 LitMul64 MulLit32 LitMul32 MulSlit64 SlitMul64 MulSlit32 SlitMul32;
    __fp_div, Div, div: DivLit64 LitDiv64 DivLit32 LitDiv32 DivSlit64 SlitDiv64 DivSlit32 SlitDiv32;
    __fp_rem, Rem, rem: RemLit64 LitRem64 RemLit32 LitRem32 RemSlit64 SlitRem64 RemSlit32 SlitRem32;
}

/// The native formats whose operands of one type meet through rustc's own operator, at the
/// dispatch's first level ([`SameAdd`], [`SameCmp`], [`SameCompoundKind`]): `f64` and `f32`.
///
/// Markers never break a native build (issue 44, item 9): rustc's operators on floats unify
/// their operand types, so a float it has not typed yet (`let mut s = 0.0;`, the elements of
/// `vec![1.0, 2.0]`) takes the type of the one it meets (`s += a[i] * b[i]` makes `s` an `f64`),
/// and a later method call on it compiles. The dispatch's own levels take two types and type
/// neither; this level's impls take one type for both operands, so rustc unifies them when it
/// selects the method, as its operator would, and computes as the operator does (what the
/// levels below compute for one native format too). Operands of two types, and every other kind
/// (stochastic values, literals, 16-bit and custom formats), go on to the levels below, as before.
///
/// The probe's and the single build's knob types take this level too: two operands of one knob
/// type (one unit) give that type, as natively, where the levels below would give a probe that
/// names the knob twice, or a value of run-time format, which no knob's container takes
/// (`&p * (rr_new / rr)` with `p` a nalgebra vector of the unit's knobs).
pub trait Native: Copy {}
impl Native for f64 {}
impl Native for f32 {}
impl<F: crate::format::Format, K: super::Ids> Native for super::Probe<F, K> {}
impl<F: crate::knob::Tag, const K: u32, V: crate::knob::DynFloat> Native for crate::knob::Knob<F, K, V> {}

/// `SameAdd` and its kin: `a op b` of one native type (see [`Native`]), one level above the
/// float operators (the expansion is `(&&&pair(a, b)).__fp_add()`).
macro_rules! same_binary {
    ($($Same:ident, $m:ident, $Op:ident, $op:ident;)*) => {$(
        /// Two operands of one native type: rustc's own operator.
        pub trait $Same {
            /// Result type.
            type Out;
            /// The operation.
            fn $m(&self) -> Self::Out;
        }
        impl<T: Native + $Op<Output = T>> $Same for &&Pair<T, T> {
            type Out = T;
            #[inline(always)]
            fn $m(&self) -> T {
                let (a, b) = self.take();
                $Op::$op(a, b)
            }
        }
    )*};
}

same_binary! {
    SameAdd, __fp_add, Add, add;
    SameSub, __fp_sub, Sub, sub;
    SameMul, __fp_mul, Mul, mul;
    SameDiv, __fp_div, Div, div;
    SameRem, __fp_rem, Rem, rem;
}

binary!(FloatAdd, StdAdd, __fp_add, Add, add, Arith, fp_add);
binary!(FloatSub, StdSub, __fp_sub, Sub, sub, Arith, fp_sub);
binary!(FloatMul, StdMul, __fp_mul, Mul, mul, Arith, fp_mul);
binary!(FloatDiv, StdDiv, __fp_div, Div, div, Arith, fp_div);
binary!(FloatRem, StdRem, __fp_rem, Rem, rem, ArithRem, fp_rem);

/// The operand types of a compound assignment, for dispatch without moving anything:
/// `(&&&types(&*place, &rhs)).__fp_compound().sub_assign(place, rhs)`. Only types are dispatched
/// on, so the place stays a plain `&mut` the optimiser sees through.
pub struct Types<A: ?Sized, B>(PhantomData<fn(&A, B)>);

impl<A: ?Sized, B> std::fmt::Debug for Types<A, B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Types")
    }
}

/// The types of a place and an operand.
#[inline(always)]
pub fn types<A: ?Sized, B>(_place: &A, _operand: &B) -> Types<A, B> {
    Types(PhantomData)
}

/// Compound assignment of a place and an operand of one native type (see [`Native`]): rustc's
/// own operator, which types a place rustc has not typed yet by the operand.
#[derive(Clone, Copy, Debug)]
pub struct SameCompound;

/// Selects [`SameCompound`] for a place and an operand of one native type, one level above
/// [`FloatCompoundKind`] (the expansion is `(&&&&types(&*place, &rhs)).__fp_compound()`).
pub trait SameCompoundKind {
    /// The strategy.
    fn __fp_compound(&self) -> SameCompound;
}

impl<T: Native> SameCompoundKind for &&&Types<T, T> {
    #[inline(always)]
    fn __fp_compound(&self) -> SameCompound {
        SameCompound
    }
}

/// Compound assignment of floats: computed in the common format, stored back rounded to the
/// place's format.
#[derive(Clone, Copy, Debug)]
pub struct FloatCompound;

/// Any other compound assignment: the ordinary operator.
#[derive(Clone, Copy, Debug)]
pub struct StdCompound;

/// Selects [`FloatCompound`] for a float place and operand.
pub trait FloatCompoundKind {
    /// The strategy.
    fn __fp_compound(&self) -> FloatCompound;
}

impl<A: Scalar + Join<B::V>, B: Operand> FloatCompoundKind for &&Types<A, B> {
    #[inline(always)]
    fn __fp_compound(&self) -> FloatCompound {
        FloatCompound
    }
}

/// Compound assignment of a container by a float literal (`v /= 2.0`, `v` a nalgebra matrix or an
/// ndarray array): the literal becomes a value of the container's element type ([`Elements`]),
/// whatever format that is in the build, as rustc made it `f64` in the original.
#[derive(Clone, Copy, Debug)]
pub struct LitCompound;

/// Selects [`LitCompound`] for a container place and a literal operand.
pub trait LitCompoundKind {
    /// The strategy.
    fn __fp_compound(&self) -> LitCompound;
}

impl<A: Elements + ?Sized> LitCompoundKind for &Types<A, Lit> {
    #[inline(always)]
    fn __fp_compound(&self) -> LitCompound {
        LitCompound
    }
}

/// A stochastic scalar (or a knob) on the left of an operator whose right operand is an array or a
/// matrix (`dt / dx * &u`, `s - &a`): ndarray and nalgebra define the scalar-on-the-left
/// operators for primitive scalars only, so the stochastic build's heal writes the scalar
/// `scalar_left(s)`, whose operators compute each element as `s op x`, in that order, exactly as
/// the native operator does (`traits/ndarray.rs`, `traits/nalgebra.rs`). (Impls on the
/// stochastic type itself would leave rustc several `Mul`s to choose from where it infers the
/// right operand.)
#[derive(Clone, Copy, Debug)]
pub struct ScalarLeft<T>(pub T);

/// `s` as the left operand of an operator on a container ([`ScalarLeft`]).
#[inline(always)]
pub fn scalar_left<T>(s: T) -> ScalarLeft<T> {
    ScalarLeft(s)
}

/// Containers of floats whose element type the runtime knows, so that a literal meeting one
/// takes that type (features `nalgebra`, `ndarray`; `Vec` and arrays always).
pub trait Elements {
    /// The element type.
    type Elem: FromLit;
}

impl<T: FromLit> Elements for Vec<T> {
    type Elem = T;
}

impl<T: FromLit, const N: usize> Elements for [T; N] {
    type Elem = T;
}

impl<T: FromLit> Elements for [T] {
    type Elem = T;
}

impl<T: Elements + ?Sized> Elements for &T {
    type Elem = T::Elem;
}

/// Selects [`StdCompound`] otherwise.
pub trait StdCompoundKind {
    /// The strategy.
    fn __fp_compound(&self) -> StdCompound;
}

impl<A: ?Sized, B> StdCompoundKind for Types<A, B> {
    #[inline(always)]
    fn __fp_compound(&self) -> StdCompound {
        StdCompound
    }
}

macro_rules! compound {
    ($m:ident, $Arith:ident, $fp:ident, $OpAssign:ident, $op_assign:ident) => {
        impl FloatCompound {
            /// `place op= b` in the common format.
            #[inline(always)]
            pub fn $m<A: Scalar + Join<B::V>, B: Operand>(self, place: &mut A, b: B)
            where
                A::Out: $Arith + Store<A>,
            {
                let (x, y) = A::join(*place, b.v());
                $Arith::$fp(x, y).store_into(place);
            }
        }
        impl LitCompound {
            /// `place op= b`, the literal in the place's element type.
            #[inline(always)]
            pub fn $m<A: Elements + $OpAssign<A::Elem> + ?Sized>(self, place: &mut A, b: Lit) {
                $OpAssign::$op_assign(place, <A::Elem as FromLit>::from_lit(b));
            }
        }
        impl SameCompound {
            /// `place op= b`, both of one native type.
            #[inline(always)]
            pub fn $m<A: Native + $OpAssign<A>>(self, place: &mut A, b: A) {
                $OpAssign::$op_assign(place, b);
            }
        }
        impl StdCompound {
            /// `place op= b`.
            #[inline(always)]
            pub fn $m<A: $OpAssign<B> + ?Sized, B>(self, place: &mut A, b: B) {
                $OpAssign::$op_assign(place, b);
            }
        }
    };
}

compound!(add_assign, Arith, fp_add, AddAssign, add_assign);
compound!(sub_assign, Arith, fp_sub, SubAssign, sub_assign);
compound!(mul_assign, Arith, fp_mul, MulAssign, mul_assign);
compound!(div_assign, Arith, fp_div, DivAssign, div_assign);
compound!(rem_assign, ArithRem, fp_rem, RemAssign, rem_assign);

/// The comparison methods of one dispatch level: `$operands` (of the receiver `$s`) gives the two
/// values compared, each method compares them with its operator.
macro_rules! compared {
    ($s:ident => |$a:ident, $b:ident| $operands:expr; $($m:ident $op:tt),*) => {$(
        #[inline(always)]
        fn $m(&$s) -> bool {
            let ($a, $b) = $operands;
            $a $op $b
        }
    )*};
}

/// Float comparisons in the common format (stochastic ones as CADNA's relational operators).
pub trait FloatCmp {
    /// `a == b`
    fn __fp_eq(&self) -> bool;
    /// `a != b`
    fn __fp_ne(&self) -> bool;
    /// `a < b`
    fn __fp_lt(&self) -> bool;
    /// `a <= b`
    fn __fp_le(&self) -> bool;
    /// `a > b`
    fn __fp_gt(&self) -> bool;
    /// `a >= b`
    fn __fp_ge(&self) -> bool;
}

impl<A: Scalar + Join<B>, B: Scalar> FloatCmp for &Pair<&A, &B>
where
    A::Out: PartialOrd,
{
    #[inline(always)]
    fn __fp_eq(&self) -> bool {
        let (a, b) = self.take();
        let (a, b) = A::join(*a, *b);
        a == b
    }
    #[inline(always)]
    fn __fp_ne(&self) -> bool {
        !self.__fp_eq()
    }
    compared!(self => |a, b| { let (a, b) = self.take(); A::join(*a, *b) }; __fp_lt <, __fp_le <=, __fp_gt >, __fp_ge >=);
}

/// Comparisons of two operands of one native type (see [`Native`]): rustc's own, one level above
/// [`FloatCmp`] (the expansion is `(&&&pair(&a, &b)).__fp_lt()`).
pub trait SameCmp {
    /// `a == b`
    fn __fp_eq(&self) -> bool;
    /// `a != b`
    fn __fp_ne(&self) -> bool;
    /// `a < b`
    fn __fp_lt(&self) -> bool;
    /// `a <= b`
    fn __fp_le(&self) -> bool;
    /// `a > b`
    fn __fp_gt(&self) -> bool;
    /// `a >= b`
    fn __fp_ge(&self) -> bool;
}

impl<T: Native + PartialOrd> SameCmp for &&Pair<&T, &T> {
    compared!(self => |a, b| self.take(); __fp_eq ==, __fp_ne !=, __fp_lt <, __fp_le <=, __fp_gt >, __fp_ge >=);
}

/// Equality of any other operands: `PartialEq`.
pub trait StdEq {
    /// `a == b`
    fn __fp_eq(&self) -> bool;
    /// `a != b`
    fn __fp_ne(&self) -> bool;
}

impl<A: PartialEq<B> + ?Sized, B: ?Sized> StdEq for Pair<&A, &B> {
    #[inline(always)]
    fn __fp_eq(&self) -> bool {
        let (a, b) = self.take();
        a == b
    }
    #[inline(always)]
    fn __fp_ne(&self) -> bool {
        let (a, b) = self.take();
        a != b
    }
}

/// Order of any other operands: `PartialOrd`.
pub trait StdOrd {
    /// `a < b`
    fn __fp_lt(&self) -> bool;
    /// `a <= b`
    fn __fp_le(&self) -> bool;
    /// `a > b`
    fn __fp_gt(&self) -> bool;
    /// `a >= b`
    fn __fp_ge(&self) -> bool;
}

impl<A: PartialOrd<B> + ?Sized, B: ?Sized> StdOrd for Pair<&A, &B> {
    compared!(self => |a, b| self.take(); __fp_lt <, __fp_le <=, __fp_gt >, __fp_ge >=);
}
