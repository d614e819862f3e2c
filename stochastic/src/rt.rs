//! Runtime support for the code `#[fptune::tune]` expands to. Not a public API.
//!
//! Rust has no implicit conversions between float types, so the macro rewrites the arithmetic,
//! comparisons, compound assignments, casts and stores of tuned code into calls here. Each call
//! dispatches on the operand types with *autoref specialisation*: a method implemented for
//! `&Pair<A, B>` when both operands are floats of any kind (native, stochastic, literal) is found
//! before the fallback implemented for `Pair<A, B>` that forwards to the ordinary `std::ops`
//! trait. So integers, user types and generic code keep their own operators, while floats follow
//! DESIGN.md's semantics:
//!
//! 1. an operation between two formats is computed in the wider one (`Join`), and
//!    binary16 with bfloat16 in binary32;
//! 2. a literal (or an integer cast to float) used as an operand takes the other operand's format;
//! 3. storing into a place rounds to the place's format (`Store`);
//! 4. with a stochastic and a native operand, the native value joins as an exact stochastic value.
//!
//! Everything here is `#[inline(always)]` and, for native types of one format, compiles to the
//! plain operation: tuned code whose knobs are all `f64` runs as fast as untuned code.

use std::cell::Cell;
use std::marker::PhantomData;
use std::cmp::Ordering;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Rem, RemAssign, Sub, SubAssign};

use half::{bf16, f16};

use crate::cvt::Half32;
use crate::format::{Format, Promote, Repr};
use crate::value::{Sbf16, Sf16, Sf32, Sf64, Stochastic};

// ----------------------------------------------------------------------------------------------
// Literals
// ----------------------------------------------------------------------------------------------

/// A float literal used as an operand. It keeps its `f64` and `f32` roundings (both done by the
/// compiler) and takes the format of the other operand.
#[derive(Clone, Copy, Debug)]
pub struct Lit {
    /// The literal rounded to `f64`.
    pub d: f64,
    /// The literal rounded to `f32` (directly, not through `f64`).
    pub s: f32,
}

impl Lit {
    /// A literal as written: `Lit::new(0.1, 0.1)` from the macro's `0.1f64, 0.1f32`.
    #[inline(always)]
    pub const fn new(d: f64, s: f32) -> Lit {
        Lit { d, s }
    }

    /// The literal as an exact stochastic value of format `F`: rounded to nearest, and in a
    /// 16-bit format an overflow (underflow) counted when it becomes infinite (zero).
    #[inline(always)]
    pub fn stochastic<F: Format>(self) -> Stochastic<F> {
        let v = Stochastic::new(self.to());
        if F::LIMITED_RANGE {
            v.check_range_unary([self.d; 3]);
        }
        v
    }

    /// The literal in format `F`, rounded to nearest.
    #[inline(always)]
    pub fn to<F: Format>(self) -> F {
        if F::PRECISION == 24 {
            F::from_repr(F::exact(f64::from(self.s)))
        } else {
            F::from_repr(F::nearest(self.d))
        }
    }
}

/// The tuner's elaborated literal: an unsuffixed float literal whose type rustc inferred as `T`,
/// with the compiler's two roundings of it (`lit::<f64>(0.1f64, 0.1f32)`). As an operand,
/// `#[fptune::tune]` reads it as the literal it was (it adapts to the other operand); anywhere
/// else it is a value of `T`, which the stochastic build writes as its stochastic type.
#[inline(always)]
pub fn lit<T: FromLit>(d: f64, s: f32) -> T {
    T::from_lit(Lit::new(d, s))
}

/// An elaborated literal whose place gives rustc no type to infer (an argument of a generic
/// function, a printed value): [`lit`] with its type kept, which no expansion takes back. The
/// stochastic build's conversion writes it where rustc asked for a type.
#[inline(always)]
pub fn typed_lit<T: FromLit>(d: f64, s: f32) -> T {
    lit(d, s)
}

/// An elaborated literal given to a method of a value whose type rustc could not tell the literal
/// from (`s.powf(0.5)`, `s` bound by `while let`, and `Stochastic::powf` taking any
/// `impl Into<Self>`): a value of the receiver's own type, as the literal is natively, whatever
/// format the receiver has in this build. The tuner's conversion writes
/// `lit_like(&(s), 0.5f64, 0.5f32)` there.
#[inline(always)]
pub fn lit_like<R: LitLike + ?Sized>(_receiver: &R, d: f64, s: f32) -> R::Value {
    R::Value::from_lit(Lit::new(d, s))
}

/// A value an elaborated literal can take the type of ([`lit_like`]): floats of every kind, and
/// references to them.
pub trait LitLike {
    /// The literal's type.
    type Value: FromLit;
}

macro_rules! lit_like_primitive {
    ($($t:ty),*) => {$(
        impl LitLike for $t {
            type Value = $t;
        }
    )*};
}
lit_like_primitive!(f64, f32, crate::f16, crate::bf16);

impl<F: Format> LitLike for Stochastic<F> {
    type Value = Stochastic<F>;
}

impl<T: LitLike + ?Sized> LitLike for &T {
    type Value = T::Value;
}

impl<T: LitLike + ?Sized> LitLike for &mut T {
    type Value = T::Value;
}

/// Types an elaborated literal can be ([`lit`]): floats of every kind.
pub trait FromLit {
    /// The literal in this type, rounded to nearest.
    fn from_lit(lit: Lit) -> Self;
}

impl<F: Format> FromLit for F {
    #[inline(always)]
    fn from_lit(lit: Lit) -> F {
        lit.to()
    }
}

impl<F: Format> FromLit for Stochastic<F> {
    #[inline(always)]
    fn from_lit(lit: Lit) -> Stochastic<F> {
        lit.stochastic()
    }
}

macro_rules! lit_op {
    ($($Op:ident, $op:ident);*) => {$(
        impl $Op for Lit {
            type Output = Lit;
            /// A literal-only expression stays a literal: computed as a program of each format
            /// would (in `f64` and in `f32`).
            #[inline(always)]
            fn $op(self, rhs: Lit) -> Lit {
                Lit { d: $Op::$op(self.d, rhs.d), s: $Op::$op(self.s, rhs.s) }
            }
        }
    )*};
}
lit_op!(Add, add; Sub, sub; Mul, mul; Div, div; Rem, rem);

impl std::ops::Neg for Lit {
    type Output = Lit;
    #[inline(always)]
    fn neg(self) -> Lit {
        Lit { d: -self.d, s: -self.s }
    }
}

impl PartialEq<Lit> for Lit {
    fn eq(&self, other: &Lit) -> bool {
        self.d == other.d
    }
}

impl PartialOrd<Lit> for Lit {
    fn partial_cmp(&self, other: &Lit) -> Option<Ordering> {
        self.d.partial_cmp(&other.d)
    }
}

impl Join<Lit> for Lit {
    type Out = Lit;
    #[inline(always)]
    fn join(a: Lit, b: Lit) -> (Lit, Lit) {
        (a, b)
    }
}

// ----------------------------------------------------------------------------------------------
// The float kinds and how two of them meet
// ----------------------------------------------------------------------------------------------

/// Values the dispatch treats as floats: the four formats, their stochastic values, literals.
pub trait Scalar: Copy {}
impl Scalar for f64 {}
impl Scalar for f32 {}
impl Scalar for f16 {}
impl Scalar for bf16 {}
impl Scalar for Lit {}
impl<F: Format> Scalar for Stochastic<F> {}

/// Widens a native value exactly into another format.
#[inline(always)]
fn widen<F: Format, G: Format>(x: F) -> G {
    if F::RANK == G::RANK {
        return G::from_bits64(x.to_bits64());
    }
    G::from_repr(G::exact(x.to_repr().to_f64()))
}

/// Round-to-nearest from one native format to another (from the exact value: one rounding).
/// Exact, and no conversion through `f64`, when `B` holds every value of `A` (an `f16` stored
/// into an `f16` place, say).
#[inline(always)]
fn nearest<A: Format, B: Format>(x: A) -> B {
    if crate::format::holds::<A, B>() {
        return widen(x);
    }
    B::from_repr(B::nearest(x.to_repr().to_f64()))
}

/// How two float operands meet: the type both are brought to (exactly) before the operation.
pub trait Join<B> {
    /// The common type.
    type Out;
    /// Both operands in the common type.
    fn join(a: Self, b: B) -> (Self::Out, Self::Out);
}

impl<A: Format + Promote<B>, B: Format> Join<B> for A {
    type Out = <A as Promote<B>>::Output;
    #[inline(always)]
    fn join(a: A, b: B) -> (Self::Out, Self::Out) {
        (widen(a), widen(b))
    }
}

impl<A: Promote<B>, B: Format> Join<Stochastic<B>> for Stochastic<A> {
    type Out = Stochastic<<A as Promote<B>>::Output>;
    #[inline(always)]
    fn join(a: Self, b: Stochastic<B>) -> (Self::Out, Self::Out) {
        (a.cast(), b.cast())
    }
}

impl<A: Promote<B>, B: Format> Join<B> for Stochastic<A> {
    type Out = Stochastic<<A as Promote<B>>::Output>;
    #[inline(always)]
    fn join(a: Self, b: B) -> (Self::Out, Self::Out) {
        (a.cast(), Stochastic::new(b).cast())
    }
}

impl<A: Format + Promote<B>, B: Format> Join<Stochastic<B>> for A {
    type Out = Stochastic<<A as Promote<B>>::Output>;
    #[inline(always)]
    fn join(a: A, b: Stochastic<B>) -> (Self::Out, Self::Out) {
        (Stochastic::new(a).cast(), b.cast())
    }
}

impl<B: Format> Join<B> for Lit {
    type Out = B;
    #[inline(always)]
    fn join(a: Lit, b: B) -> (B, B) {
        (a.to(), b)
    }
}

impl<A: Format> Join<Lit> for A {
    type Out = A;
    #[inline(always)]
    fn join(a: A, b: Lit) -> (A, A) {
        (a, b.to())
    }
}

impl<B: Format> Join<Stochastic<B>> for Lit {
    type Out = Stochastic<B>;
    #[inline(always)]
    fn join(a: Lit, b: Stochastic<B>) -> (Self::Out, Self::Out) {
        (a.stochastic(), b)
    }
}

impl<A: Format> Join<Lit> for Stochastic<A> {
    type Out = Stochastic<A>;
    #[inline(always)]
    fn join(a: Self, b: Lit) -> (Self::Out, Self::Out) {
        (a, b.stochastic())
    }
}

// ----------------------------------------------------------------------------------------------
// Binary operators
// ----------------------------------------------------------------------------------------------

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
    fn take(&self) -> (A, B) {
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

operand!([] f64, [] f32, [] f16, [] bf16, [] Lit, [F: Format] Stochastic<F>);
operand_mut!([] f64, [] f32, [] f16, [] bf16, [] Lit);

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

arith_by_operators!([] f64, [] f32, [] Lit, [F: Format] Stochastic<F>);

macro_rules! rem_by_operator {
    ($($t:ty),*) => {$(
        impl ArithRem for $t {
            #[inline(always)]
            fn fp_rem(a: Self, b: Self) -> Self { a % b }
        }
    )*};
}

rem_by_operator!(f64, f32, Lit);

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

binary!(FloatAdd, StdAdd, __fp_add, Add, add, Arith, fp_add);
binary!(FloatSub, StdSub, __fp_sub, Sub, sub, Arith, fp_sub);
binary!(FloatMul, StdMul, __fp_mul, Mul, mul, Arith, fp_mul);
binary!(FloatDiv, StdDiv, __fp_div, Div, div, Arith, fp_div);
binary!(FloatRem, StdRem, __fp_rem, Rem, rem, ArithRem, fp_rem);

/// The operand types of a compound assignment, for dispatch without moving anything:
/// `(&&types(&*place, &rhs)).__fp_compound().sub_assign(place, rhs)`. Only types are dispatched
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

impl<A: Scalar + Join<B::V>, B: Operand> FloatCompoundKind for &Types<A, B> {
    #[inline(always)]
    fn __fp_compound(&self) -> FloatCompound {
        FloatCompound
    }
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
    #[inline(always)]
    fn __fp_lt(&self) -> bool {
        let (a, b) = self.take();
        let (a, b) = A::join(*a, *b);
        a < b
    }
    #[inline(always)]
    fn __fp_le(&self) -> bool {
        let (a, b) = self.take();
        let (a, b) = A::join(*a, *b);
        a <= b
    }
    #[inline(always)]
    fn __fp_gt(&self) -> bool {
        let (a, b) = self.take();
        let (a, b) = A::join(*a, *b);
        a > b
    }
    #[inline(always)]
    fn __fp_ge(&self) -> bool {
        let (a, b) = self.take();
        let (a, b) = A::join(*a, *b);
        a >= b
    }
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
    #[inline(always)]
    fn __fp_lt(&self) -> bool {
        let (a, b) = self.take();
        a < b
    }
    #[inline(always)]
    fn __fp_le(&self) -> bool {
        let (a, b) = self.take();
        a <= b
    }
    #[inline(always)]
    fn __fp_gt(&self) -> bool {
        let (a, b) = self.take();
        a > b
    }
    #[inline(always)]
    fn __fp_ge(&self) -> bool {
        let (a, b) = self.take();
        a >= b
    }
}

// ----------------------------------------------------------------------------------------------
// Stores
// ----------------------------------------------------------------------------------------------

/// Converting a value into a place of another float type: rounds to the place's format
/// (DESIGN.md semantics 4 and 6). Implemented for scalars and, element by element, for `Vec`s
/// and arrays of them.
pub trait Store<T> {
    /// The value in the place's type.
    fn store(self) -> T;

    /// Stores the value into `place`: [`Store::store`], except into a place whose format is
    /// known only at run time ([`crate::knob::Sdyn`]), which keeps its format.
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

// ----------------------------------------------------------------------------------------------
// Casts
// ----------------------------------------------------------------------------------------------

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

macro_rules! cast_operand_int {
    ($($s:ty),*) => {$(
        impl<T> CastOperand<T> for $s {
            type Out = Lit;
            #[inline(always)]
            fn cast_operand(self) -> Lit {
                Lit::new(self as f64, self as f32)
            }
        }
    )*};
}
cast_operand_int!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

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

// ----------------------------------------------------------------------------------------------
// Buffers: copy_from_slice, swap, sum, product
// ----------------------------------------------------------------------------------------------

/// `dst.copy_from_slice(src)` between float slices of any two types: element by element, rounding
/// to `dst`'s format.
pub trait FloatCopy {
    /// The copy.
    fn __fp_copy_from_slice(&self);
}

impl<A, B: Scalar + Store<A>> FloatCopy for &Pair<&mut [A], &[B]> {
    #[inline]
    fn __fp_copy_from_slice(&self) {
        let (dst, src) = self.take();
        assert_eq!(dst.len(), src.len(), "copy_from_slice: source and destination lengths differ");
        for (d, s) in dst.iter_mut().zip(src) {
            *d = s.store();
        }
    }
}

/// Any other slices: `<[T]>::copy_from_slice`.
pub trait StdCopy {
    /// The copy.
    fn __fp_copy_from_slice(&self);
}

impl<A: Copy> StdCopy for Pair<&mut [A], &[A]> {
    #[inline(always)]
    fn __fp_copy_from_slice(&self) {
        let (dst, src) = self.take();
        dst.copy_from_slice(src);
    }
}

/// `std::mem::swap(a, b)` for two places whose float types may differ: when they do, each value is
/// stored into the other's type.
pub trait SwapWith<B> {
    /// The swap.
    fn swap_with(&mut self, other: &mut B);
}

impl<T> SwapWith<T> for T {
    #[inline(always)]
    fn swap_with(&mut self, other: &mut T) {
        std::mem::swap(self, other);
    }
}

macro_rules! swap_pairs {
    ($($a:ty, $b:ty);*) => {$(
        impl SwapWith<$b> for $a {
            #[inline]
            fn swap_with(&mut self, other: &mut $b) {
                let mine = std::mem::take(self);
                *self = std::mem::take(other).store();
                *other = mine.store();
            }
        }
        impl SwapWith<Vec<$b>> for Vec<$a> {
            #[inline]
            fn swap_with(&mut self, other: &mut Vec<$b>) {
                let mine = std::mem::take(self);
                *self = std::mem::take(other).store();
                *other = mine.store();
            }
        }
    )*};
}

swap_pairs!(f64, f32; f64, f16; f64, bf16; f32, f64; f32, f16; f32, bf16;
    f16, f64; f16, f32; f16, bf16; bf16, f64; bf16, f32; bf16, f16);
swap_pairs!(Sf64, Sf32; Sf64, Sf16; Sf64, Sbf16; Sf32, Sf64; Sf32, Sf16; Sf32, Sbf16;
    Sf16, Sf64; Sf16, Sf32; Sf16, Sbf16; Sbf16, Sf64; Sbf16, Sf32; Sbf16, Sf16);

/// `std::mem::swap` as the macro writes it.
#[inline(always)]
pub fn swap<A: SwapWith<B>, B>(a: &mut A, b: &mut B) {
    a.swap_with(b);
}

/// An iterator to sum or multiply, for dispatch.
pub struct Fold<I>(Cell<Option<I>>);

/// Wraps an iterator: `(&&fold(it)).__fp_sum()`.
#[inline(always)]
pub fn fold<I>(it: I) -> Fold<I> {
    Fold(Cell::new(Some(it)))
}

impl<I> std::fmt::Debug for Fold<I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Fold")
    }
}

impl<I> Fold<I> {
    #[inline(always)]
    fn take(&self) -> I {
        match self.0.take() {
            Some(i) => i,
            None => unreachable!("an fptune fold is used once"),
        }
    }
}

/// Sums and products of floats: one rounding per step in the items' own format (`half`'s `Sum`
/// for `f16` accumulates in `f32`, which is not binary16 arithmetic).
pub trait FloatFold {
    /// The items' type.
    type Out;
    /// `iter.sum()`
    fn __fp_sum(&self) -> Self::Out;
    /// `iter.product()`
    fn __fp_product(&self) -> Self::Out;
    /// `iter.sum::<S>()`: the items' type (a float sum is in the items' format).
    fn __fp_sum_as<S>(&self) -> Self::Out;
    /// `iter.product::<S>()`
    fn __fp_product_as<S>(&self) -> Self::Out;
}

/// A float item, by value or by reference.
pub trait Item {
    /// The value type.
    type Value: Scalar;
    /// The value.
    fn value(self) -> Self::Value;
}

/// [`Item`] for float types (`[generics] type`): by value and by reference.
macro_rules! item {
    ($([$($g:tt)*] $t:ty),* $(,)?) => {$(
        impl<$($g)*> $crate::rt::Item for $t {
            type Value = $t;
            #[inline(always)]
            fn value(self) -> $t {
                self
            }
        }
        impl<'a, $($g)*> $crate::rt::Item for &'a $t {
            type Value = $t;
            #[inline(always)]
            fn value(self) -> $t {
                *self
            }
        }
    )*};
}
pub(crate) use item;

item!([] f64, [] f32, [] f16, [] bf16, [F: Format] Stochastic<F>, [F: Format, const K: u32] Probe<F, K>);

impl<I: Iterator> FloatFold for &Fold<I>
where
    I::Item: Item,
    <I::Item as Item>::Value: Add<Output = <I::Item as Item>::Value>
        + Mul<Output = <I::Item as Item>::Value>
        + Store<<I::Item as Item>::Value>,
    Lit: Store<<I::Item as Item>::Value>,
{
    type Out = <I::Item as Item>::Value;
    #[inline]
    fn __fp_sum(&self) -> Self::Out {
        // std's float `Sum` starts from -0.0 (so that an empty or all -0.0 sum is -0.0).
        fold_from(self.take(), Lit::new(-0.0, -0.0), |acc, x| acc + x)
    }
    #[inline]
    fn __fp_product(&self) -> Self::Out {
        fold_from(self.take(), Lit::new(1.0, 1.0), |acc, x| acc * x)
    }
    #[inline]
    fn __fp_sum_as<S>(&self) -> Self::Out {
        self.__fp_sum()
    }
    #[inline]
    fn __fp_product_as<S>(&self) -> Self::Out {
        self.__fp_product()
    }
}

/// `start op item_1 op item_2 ...`, `start` in the items' format: stored into a place holding the
/// first item, so that items whose format is known only at run time ([`crate::knob::Sdyn`]) fold
/// in their own format as items of a static type do.
#[inline]
fn fold_from<I: Iterator>(mut items: I, start: Lit, op: impl Fn(<I::Item as Item>::Value, <I::Item as Item>::Value) -> <I::Item as Item>::Value) -> <I::Item as Item>::Value
where
    I::Item: Item,
    <I::Item as Item>::Value: Store<<I::Item as Item>::Value>,
    Lit: Store<<I::Item as Item>::Value>,
{
    let Some(first) = items.next().map(Item::value) else { return start.store() };
    let mut acc = first;
    start.store_into(&mut acc);
    items.fold(op(acc, first), |acc, x| op(acc, x.value()))
}

/// Any other iterator: `Iterator::sum` / `product` into the type the context asks for.
pub trait StdFold {
    /// `iter.sum()`
    fn __fp_sum<S: std::iter::Sum<Self::Item>>(&self) -> S;
    /// `iter.product()`
    fn __fp_product<P: std::iter::Product<Self::Item>>(&self) -> P;
    /// `iter.sum::<S>()`
    fn __fp_sum_as<S: std::iter::Sum<Self::Item>>(&self) -> S;
    /// `iter.product::<S>()`
    fn __fp_product_as<P: std::iter::Product<Self::Item>>(&self) -> P;
    /// The items.
    type Item;
}

impl<I: Iterator> StdFold for Fold<I> {
    type Item = I::Item;
    #[inline(always)]
    fn __fp_sum<S: std::iter::Sum<I::Item>>(&self) -> S {
        self.take().sum()
    }
    #[inline(always)]
    fn __fp_product<P: std::iter::Product<I::Item>>(&self) -> P {
        self.take().product()
    }
    #[inline(always)]
    fn __fp_sum_as<S: std::iter::Sum<I::Item>>(&self) -> S {
        self.take().sum()
    }
    #[inline(always)]
    fn __fp_product_as<P: std::iter::Product<I::Item>>(&self) -> P {
        self.take().product()
    }
}

// ----------------------------------------------------------------------------------------------
// Math methods for the 16-bit formats
// ----------------------------------------------------------------------------------------------

/// The `f64` method set for `f16` and `bf16` (which `half` does not provide): computed in `f32`
/// and rounded to nearest into the format (correctly rounded for `sqrt`, whose double rounding
/// through `f32` is innocuous).
pub trait HalfMath: Sized {
    #[doc(hidden)]
    fn via(self, f: impl Fn(f32) -> f32) -> Self;
    #[doc(hidden)]
    fn via2(self, o: Self, f: impl Fn(f32, f32) -> f32) -> Self;
    /// Square root.
    #[inline(always)]
    fn sqrt(self) -> Self {
        self.via(f32::sqrt)
    }
    /// Cube root.
    #[inline(always)]
    fn cbrt(self) -> Self {
        self.via(f32::cbrt)
    }
    /// Absolute value.
    #[inline(always)]
    fn abs(self) -> Self {
        self.via(f32::abs)
    }
    /// `e^x`.
    #[inline(always)]
    fn exp(self) -> Self {
        self.via(f32::exp)
    }
    /// `2^x`.
    #[inline(always)]
    fn exp2(self) -> Self {
        self.via(f32::exp2)
    }
    /// Natural logarithm.
    #[inline(always)]
    fn ln(self) -> Self {
        self.via(f32::ln)
    }
    /// Base-10 logarithm.
    #[inline(always)]
    fn log10(self) -> Self {
        self.via(f32::log10)
    }
    /// Base-2 logarithm.
    #[inline(always)]
    fn log2(self) -> Self {
        self.via(f32::log2)
    }
    /// Integer power.
    #[inline(always)]
    fn powi(self, n: i32) -> Self {
        self.via(|x| x.powi(n))
    }
    /// Float power.
    #[inline(always)]
    fn powf(self, n: Self) -> Self {
        self.via2(n, f32::powf)
    }
    /// Sine.
    #[inline(always)]
    fn sin(self) -> Self {
        self.via(f32::sin)
    }
    /// Cosine.
    #[inline(always)]
    fn cos(self) -> Self {
        self.via(f32::cos)
    }
    /// Tangent.
    #[inline(always)]
    fn tan(self) -> Self {
        self.via(f32::tan)
    }
    /// Arcsine.
    #[inline(always)]
    fn asin(self) -> Self {
        self.via(f32::asin)
    }
    /// Arccosine.
    #[inline(always)]
    fn acos(self) -> Self {
        self.via(f32::acos)
    }
    /// Arctangent.
    #[inline(always)]
    fn atan(self) -> Self {
        self.via(f32::atan)
    }
    /// Four-quadrant arctangent.
    #[inline(always)]
    fn atan2(self, o: Self) -> Self {
        self.via2(o, f32::atan2)
    }
    /// The magnitude of `self` with the sign of `sign`.
    #[inline(always)]
    fn copysign(self, sign: Self) -> Self {
        self.via2(sign, f32::copysign)
    }
    /// The least non-negative remainder of `self / rhs`.
    #[inline(always)]
    fn rem_euclid(self, rhs: Self) -> Self {
        self.via2(rhs, f32::rem_euclid)
    }
    /// The quotient of Euclidean division.
    #[inline(always)]
    fn div_euclid(self, rhs: Self) -> Self {
        self.via2(rhs, f32::div_euclid)
    }
    /// `(sin(self), cos(self))`.
    #[inline(always)]
    fn sin_cos(self) -> (Self, Self)
    where
        Self: Copy,
    {
        (self.via(f32::sin), self.via(f32::cos))
    }
    /// Hyperbolic sine.
    #[inline(always)]
    fn sinh(self) -> Self {
        self.via(f32::sinh)
    }
    /// Hyperbolic cosine.
    #[inline(always)]
    fn cosh(self) -> Self {
        self.via(f32::cosh)
    }
    /// Hyperbolic tangent.
    #[inline(always)]
    fn tanh(self) -> Self {
        self.via(f32::tanh)
    }
    /// `sqrt(x^2 + y^2)`.
    #[inline(always)]
    fn hypot(self, o: Self) -> Self {
        self.via2(o, f32::hypot)
    }
    /// Floor.
    #[inline(always)]
    fn floor(self) -> Self {
        self.via(f32::floor)
    }
    /// Ceiling.
    #[inline(always)]
    fn ceil(self) -> Self {
        self.via(f32::ceil)
    }
    /// Truncation.
    #[inline(always)]
    fn trunc(self) -> Self {
        self.via(f32::trunc)
    }
    /// Rounding, ties away from zero.
    #[inline(always)]
    fn round(self) -> Self {
        self.via(f32::round)
    }
    /// `1 / x`.
    #[inline(always)]
    fn recip(self) -> Self {
        self.via(f32::recip)
    }
    /// `x * a + b`, rounded once.
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// Radians to degrees.
    #[inline(always)]
    fn to_degrees(self) -> Self {
        self.via(f32::to_degrees)
    }
    /// Degrees to radians.
    #[inline(always)]
    fn to_radians(self) -> Self {
        self.via(f32::to_radians)
    }
}

macro_rules! half_math {
    ($($h:ty),*) => {$(
        impl HalfMath for $h {
            #[inline(always)]
            fn via(self, f: impl Fn(f32) -> f32) -> Self {
                <$h as Half32>::narrow(f(self.widen()))
            }
            #[inline(always)]
            fn via2(self, o: Self, f: impl Fn(f32, f32) -> f32) -> Self {
                <$h as Half32>::narrow(f(self.widen(), o.widen()))
            }
            #[inline(always)]
            fn mul_add(self, a: Self, b: Self) -> Self {
                // The product is exact in f64 and the sum of three 16-bit values too.
                <$h>::from_f64(self.to_f64() * a.to_f64() + b.to_f64())
            }
        }
    )*};
}
half_math!(f16, bf16);

// ----------------------------------------------------------------------------------------------
// Checked results
// ----------------------------------------------------------------------------------------------

pub use crate::check::{check, Checkable, Record};

/// Compares two floats of any kinds in their common format (for tests of the expansion).
#[inline(always)]
pub fn compare<A: Scalar + Join<B>, B>(a: A, b: B) -> Option<Ordering>
where
    A::Out: PartialOrd,
{
    let (a, b) = A::join(a, b);
    a.partial_cmp(&b)
}

/// Every dispatch trait, for a glob import where the expansion calls them.
pub mod prelude {
    pub use crate::printed::{FloatPrinted, StdPrinted};
    pub use super::{
        FloatAdd, FloatAtan2, FloatCmp, FloatCompoundKind, FloatCopy, FloatCopysign, FloatDiv,
        FloatDivEuclid, FloatFold, FloatHypot, FloatMax, FloatMin, FloatMul, FloatPowf, FloatRem,
        FloatRemEuclid, FloatStore, FloatSub, HalfMath, StdAdd,
        StdCompoundKind, StdCopy, StdDiv, StdEq, StdFold, StdMax, StdMin, StdMul, StdOrd, StdRem,
        StdStore, StdSub,
    };
    pub use super::{
        AddLit32, AddLit64, AddSlit32, AddSlit64, DivLit32, DivLit64, DivSlit32, DivSlit64,
        LitAdd32, LitAdd64, LitDiv32, LitDiv64, LitMul32, LitMul64, LitRem32, LitRem64, LitSub32,
        LitSub64, MulLit32, MulLit64, MulSlit32, MulSlit64, RemLit32, RemLit64, RemSlit32,
        RemSlit64, SlitAdd32, SlitAdd64, SlitDiv32, SlitDiv64, SlitMul32, SlitMul64, SlitRem32,
        SlitRem64, SlitSub32, SlitSub64, SubLit32, SubLit64, SubSlit32, SubSlit64,
    };
}

// ----------------------------------------------------------------------------------------------
// Two-operand math methods
// ----------------------------------------------------------------------------------------------

/// The two-operand methods of `f64`'s set, on the types two float operands meet in: `x.powf(y)`
/// with `x` and `y` of different formats is computed in the common one, like `x + y`, and a
/// literal (or `1.0 / (n as f64)`) argument adapts to the receiver, so lowering a receiver does
/// not pin it to its argument's format.
pub trait Math2: Sized {
    #[doc(hidden)]
    fn m_powf(a: Self, b: Self) -> Self;
    #[doc(hidden)]
    fn m_atan2(a: Self, b: Self) -> Self;
    #[doc(hidden)]
    fn m_hypot(a: Self, b: Self) -> Self;
    #[doc(hidden)]
    fn m_min(a: Self, b: Self) -> Self;
    #[doc(hidden)]
    fn m_max(a: Self, b: Self) -> Self;
    #[doc(hidden)]
    fn m_copysign(a: Self, b: Self) -> Self;
    #[doc(hidden)]
    fn m_rem_euclid(a: Self, b: Self) -> Self;
    #[doc(hidden)]
    fn m_div_euclid(a: Self, b: Self) -> Self;
}

macro_rules! math2_by_methods {
    ($([$($g:tt)*] $t:ty),* $(,)?) => {$(
        impl<$($g)*> Math2 for $t {
            #[inline(always)]
            fn m_powf(a: Self, b: Self) -> Self { a.powf(b) }
            #[inline(always)]
            fn m_atan2(a: Self, b: Self) -> Self { a.atan2(b) }
            #[inline(always)]
            fn m_hypot(a: Self, b: Self) -> Self { a.hypot(b) }
            #[inline(always)]
            fn m_min(a: Self, b: Self) -> Self { a.min(b) }
            #[inline(always)]
            fn m_max(a: Self, b: Self) -> Self { a.max(b) }
            #[inline(always)]
            fn m_copysign(a: Self, b: Self) -> Self { a.copysign(b) }
            #[inline(always)]
            fn m_rem_euclid(a: Self, b: Self) -> Self { a.rem_euclid(b) }
            #[inline(always)]
            fn m_div_euclid(a: Self, b: Self) -> Self { a.div_euclid(b) }
        }
    )*};
}

math2_by_methods!(
    [] f64,
    [] f32,
    [F: Format] Stochastic<F>,
    [F: Format, const K: u32] Probe<F, K>,
    // The single build's values of run-time format.
    [] crate::knob::Sdyn,
    [] crate::knob::Ndyn,
);

macro_rules! math2_half {
    ($($h:ty),*) => {$(
        impl Math2 for $h {
            #[inline(always)]
            fn m_powf(a: Self, b: Self) -> Self { HalfMath::powf(a, b) }
            #[inline(always)]
            fn m_atan2(a: Self, b: Self) -> Self { HalfMath::atan2(a, b) }
            #[inline(always)]
            fn m_hypot(a: Self, b: Self) -> Self { HalfMath::hypot(a, b) }
            #[inline(always)]
            fn m_min(a: Self, b: Self) -> Self { <$h>::min(a, b) }
            #[inline(always)]
            fn m_max(a: Self, b: Self) -> Self { <$h>::max(a, b) }
            #[inline(always)]
            fn m_copysign(a: Self, b: Self) -> Self { HalfMath::copysign(a, b) }
            #[inline(always)]
            fn m_rem_euclid(a: Self, b: Self) -> Self { HalfMath::rem_euclid(a, b) }
            #[inline(always)]
            fn m_div_euclid(a: Self, b: Self) -> Self { HalfMath::div_euclid(a, b) }
        }
    )*};
}

math2_half!(f16, bf16);

float_pair!(FloatPowf, __fp_powf, Math2, m_powf);
float_pair!(FloatAtan2, __fp_atan2, Math2, m_atan2);
float_pair!(FloatHypot, __fp_hypot, Math2, m_hypot);
float_pair!(FloatMin, __fp_min, Math2, m_min);
float_pair!(FloatMax, __fp_max, Math2, m_max);
float_pair!(FloatCopysign, __fp_copysign, Math2, m_copysign);
float_pair!(FloatRemEuclid, __fp_rem_euclid, Math2, m_rem_euclid);
float_pair!(FloatDivEuclid, __fp_div_euclid, Math2, m_div_euclid);

macro_rules! ord_method {
    ($Std:ident, $m:ident, $ord:ident) => {
        /// `min`/`max` of any other operands (integers, say): [`Ord`]'s.
        pub trait $Std {
            /// Result type.
            type Out;
            /// The method.
            fn $m(&self) -> Self::Out;
        }
        impl<A: Ord> $Std for Pair<A, A> {
            type Out = A;
            #[inline(always)]
            fn $m(&self) -> A {
                let (a, b) = self.take();
                Ord::$ord(a, b)
            }
        }
    };
}

ord_method!(StdMin, __fp_min, min);
ord_method!(StdMax, __fp_max, max);

// ----------------------------------------------------------------------------------------------
// Probe build
// ----------------------------------------------------------------------------------------------

/// The probe build's knob type: knob number `K` holding a value of format `F`.
///
/// The tuner gives every knob its own `Probe<F, K>` in one scratch build that is compiled, never
/// run. Arithmetic, stores and casts accept any mix of probes and floats (as they accept any mix
/// of formats), so the only type errors left are where rustc requires two types to be *equal*:
/// a buffer passed by reference, a method taking `Self`, a generic argument. Those errors read
/// "expected `Probe<f64, 3>`, found `Probe<f64, 7>`" (knobs 3 and 7 must share a type) or name a
/// probe and a plain float (the knob cannot change type at all).
#[derive(Clone, Copy, Default, Debug, PartialEq, PartialOrd)]
#[repr(transparent)]
pub struct Probe<F, const K: u32>(pub F);

impl<F: Format, const K: u32> Scalar for Probe<F, K> {}

operand!([F: Format, const K: u32] Probe<F, K>);

// Arithmetic between knobs has the left one's type: `Self(self.0 + o.0)` fits the field of
// `self.0`'s knob, as it does natively in every configuration, and a sum of two knobs stored in
// either says they share a type. Natively the wider one's format is the sum's, so the tuner
// probes again with the feature `probe-right`, under which it has the right one's type:
// `*r = a.iter().map(|a| a * z[i]).sum()` then couples `r` with `z` as well as with `a`.
impl<A: Format + Promote<B>, B: Format, const K: u32, const L: u32> Join<Probe<B, L>> for Probe<A, K> {
    #[cfg(not(feature = "probe-right"))]
    type Out = Probe<<A as Promote<B>>::Output, K>;
    #[cfg(feature = "probe-right")]
    type Out = Probe<<A as Promote<B>>::Output, L>;
    #[inline(always)]
    fn join(a: Self, b: Probe<B, L>) -> (Self::Out, Self::Out) {
        (Probe(widen(a.0)), Probe(widen(b.0)))
    }
}

impl<A: Format + Promote<B>, B: Format, const K: u32> Join<B> for Probe<A, K> {
    type Out = <A as Promote<B>>::Output;
    #[inline(always)]
    fn join(a: Self, b: B) -> (Self::Out, Self::Out) {
        (widen(a.0), widen(b))
    }
}

impl<A: Format + Promote<B>, B: Format, const L: u32> Join<Probe<B, L>> for A {
    type Out = <A as Promote<B>>::Output;
    #[inline(always)]
    fn join(a: A, b: Probe<B, L>) -> (Self::Out, Self::Out) {
        (widen(a), widen(b.0))
    }
}

// A literal adapts to the knob's format, so the result has the knob's type in every native
// build: it stays a probe, and rustc says where it meets a type that cannot change
// (`g().max(x - 1.0)`).
impl<A: Format, const K: u32> Join<Lit> for Probe<A, K> {
    type Out = Probe<A, K>;
    #[inline(always)]
    fn join(a: Self, b: Lit) -> (Self, Self) {
        (a, Probe(b.to()))
    }
}

impl<B: Format, const L: u32> Join<Probe<B, L>> for Lit {
    type Out = Probe<B, L>;
    #[inline(always)]
    fn join(a: Lit, b: Probe<B, L>) -> (Probe<B, L>, Probe<B, L>) {
        (Probe(a.to()), b)
    }
}

impl<A: Format, B: Format, const K: u32> Store<Probe<B, K>> for A {
    #[inline(always)]
    fn store(self) -> Probe<B, K> {
        Probe(nearest(self))
    }
}

impl<A: Format, B: Format, const K: u32> Store<B> for Probe<A, K> {
    #[inline(always)]
    fn store(self) -> B {
        nearest(self.0)
    }
}

impl<A: Format, B: Format, const K: u32, const L: u32> Store<Probe<B, L>> for Probe<A, K> {
    #[inline(always)]
    fn store(self) -> Probe<B, L> {
        Probe(nearest(self.0))
    }
}

impl<B: Format, const K: u32> Store<Probe<B, K>> for Lit {
    #[inline(always)]
    fn store(self) -> Probe<B, K> {
        Probe(self.to())
    }
}

macro_rules! probe_cast {
    ($($t:ty),*) => {$(
        impl<A: Format, const K: u32> CastAs<$t> for Probe<A, K> where A: CastAs<$t> {
            #[inline(always)]
            fn cast_as(self) -> $t {
                self.0.cast_as()
            }
        }
        impl<B: Format, const K: u32> CastAs<Probe<B, K>> for $t where $t: CastAs<B> {
            #[inline(always)]
            fn cast_as(self) -> Probe<B, K> {
                Probe(self.cast_as())
            }
        }
    )*};
}
probe_cast!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64, f16, bf16);

impl<A: Format, const K: u32, T> CastOperand<T> for Probe<A, K>
where
    Probe<A, K>: CastAs<T>,
{
    type Out = T;
    #[inline(always)]
    fn cast_operand(self) -> T {
        self.cast_as()
    }
}

impl<F: Format + Arith, const K: u32> Arith for Probe<F, K> {
    #[inline(always)]
    fn fp_add(a: Self, b: Self) -> Self { Probe(F::fp_add(a.0, b.0)) }
    #[inline(always)]
    fn fp_sub(a: Self, b: Self) -> Self { Probe(F::fp_sub(a.0, b.0)) }
    #[inline(always)]
    fn fp_mul(a: Self, b: Self) -> Self { Probe(F::fp_mul(a.0, b.0)) }
    #[inline(always)]
    fn fp_div(a: Self, b: Self) -> Self { Probe(F::fp_div(a.0, b.0)) }
}

impl<F: Format + ArithRem, const K: u32> ArithRem for Probe<F, K> {
    #[inline(always)]
    fn fp_rem(a: Self, b: Self) -> Self { Probe(F::fp_rem(a.0, b.0)) }
}

macro_rules! probe_ops {
    ($($Op:ident, $op:ident, $OpAssign:ident, $op_assign:ident);*) => {$(
        impl<F: Format + $Op<Output = F>, const K: u32> $Op for Probe<F, K> {
            type Output = Self;
            #[inline(always)]
            fn $op(self, rhs: Self) -> Self {
                Probe($Op::$op(self.0, rhs.0))
            }
        }
        impl<F: Format + $Op<Output = F>, const K: u32> $OpAssign for Probe<F, K> {
            #[inline(always)]
            fn $op_assign(&mut self, rhs: Self) {
                self.0 = $Op::$op(self.0, rhs.0);
            }
        }
    )*};
}
probe_ops!(Add, add, AddAssign, add_assign; Sub, sub, SubAssign, sub_assign;
    Mul, mul, MulAssign, mul_assign; Div, div, DivAssign, div_assign);

impl<F: Format + std::ops::Neg<Output = F>, const K: u32> std::ops::Neg for Probe<F, K> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        Probe(-self.0)
    }
}

impl<F: Format, const K: u32> std::fmt::Display for Probe<F, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

impl<F: Format, const K: u32> std::fmt::LowerExp for Probe<F, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::LowerExp::fmt(&self.0, f)
    }
}

impl<F: Format + std::fmt::UpperExp, const K: u32> std::fmt::UpperExp for Probe<F, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::UpperExp::fmt(&self.0, f)
    }
}

impl<F: Format + std::iter::Sum, const K: u32> std::iter::Sum for Probe<F, K> {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        Probe(iter.map(|p| p.0).sum())
    }
}

impl<'a, F: Format + std::iter::Sum, const K: u32> std::iter::Sum<&'a Probe<F, K>> for Probe<F, K> {
    fn sum<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
        Probe(iter.map(|p| p.0).sum())
    }
}


impl<F: Format, const K: u32> crate::check::Checkable for Probe<F, K>
where
    F: crate::check::Checkable,
{
    fn visit(&self, f: &mut dyn FnMut(crate::check::Record)) {
        self.0.visit(f);
    }
}

macro_rules! probe_math {
    ($($m:ident),*) => {
        impl<F: Format, const K: u32> Probe<F, K> {
            $(
                /// As the `f64` method (computed in `f64`: a probe build is compiled, not run).
                #[inline(always)]
                pub fn $m(self) -> Self {
                    Probe(F::from_repr(F::nearest(self.0.to_repr().to_f64().$m())))
                }
            )*
            /// `self^n`.
            pub fn powi(self, n: i32) -> Self {
                Probe(F::from_repr(F::nearest(self.0.to_repr().to_f64().powi(n))))
            }
            /// `self^n`.
            pub fn powf(self, n: Self) -> Self {
                Probe(F::from_repr(F::nearest(self.0.to_repr().to_f64().powf(n.0.to_repr().to_f64()))))
            }
            /// The larger value.
            pub fn max(self, o: Self) -> Self {
                if self.0 >= o.0 { self } else { o }
            }
            /// The smaller value.
            pub fn min(self, o: Self) -> Self {
                if self.0 <= o.0 { self } else { o }
            }
            /// `self * a + b`.
            pub fn mul_add(self, a: Self, b: Self) -> Self {
                let (x, y, z) = (self.0.to_repr().to_f64(), a.0.to_repr().to_f64(), b.0.to_repr().to_f64());
                Probe(F::from_repr(F::nearest(x.mul_add(y, z))))
            }
            /// `atan2(self, o)`.
            pub fn atan2(self, o: Self) -> Self {
                Probe(F::from_repr(F::nearest(self.0.to_repr().to_f64().atan2(o.0.to_repr().to_f64()))))
            }
            /// `copysign(self, o)`.
            pub fn copysign(self, o: Self) -> Self {
                Probe(F::from_repr(F::nearest(self.0.to_repr().to_f64().copysign(o.0.to_repr().to_f64()))))
            }
            /// `rem_euclid(self, o)`.
            pub fn rem_euclid(self, o: Self) -> Self {
                Probe(F::from_repr(F::nearest(self.0.to_repr().to_f64().rem_euclid(o.0.to_repr().to_f64()))))
            }
            /// `div_euclid(self, o)`.
            pub fn div_euclid(self, o: Self) -> Self {
                Probe(F::from_repr(F::nearest(self.0.to_repr().to_f64().div_euclid(o.0.to_repr().to_f64()))))
            }
            /// `hypot(self, o)`.
            pub fn hypot(self, o: Self) -> Self {
                Probe(F::from_repr(F::nearest(self.0.to_repr().to_f64().hypot(o.0.to_repr().to_f64()))))
            }
            /// `(sin(self), cos(self))`.
            pub fn sin_cos(self) -> (Self, Self) {
                (self.sin(), self.cos())
            }
            /// IEEE 754's total order.
            pub fn total_cmp(&self, o: &Self) -> Ordering {
                self.0.to_repr().to_f64().total_cmp(&o.0.to_repr().to_f64())
            }
            /// Whether the value is NaN.
            pub fn is_nan(self) -> bool {
                self.0.to_repr().to_f64().is_nan()
            }
            /// Whether the value is finite.
            pub fn is_finite(self) -> bool {
                self.0.to_repr().to_f64().is_finite()
            }
        }
    };
}
probe_math!(sqrt, cbrt, abs, exp, exp2, ln, log10, log2, sin, cos, tan, asin, acos, atan, sinh,
    cosh, tanh, floor, ceil, trunc, round, signum, recip, to_degrees, to_radians);
