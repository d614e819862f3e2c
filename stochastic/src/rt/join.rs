//! The float kinds (`Scalar`) and how two of them meet (`Join`): in the wider format, binary16 with
//! bfloat16 in binary32, a native value joining a stochastic one exactly.

use super::*;

/// Values the dispatch treats as floats: the four formats, their stochastic values, literals.
pub trait Scalar: Copy {}
impl Scalar for f64 {}
impl Scalar for f32 {}
impl Scalar for f16 {}
impl Scalar for bf16 {}
impl<const E: u32, const M: u32, const FLAGS: u32> Scalar for crate::Fx<E, M, FLAGS> {}
impl Scalar for Lit {}
impl<F: Format> Scalar for Stochastic<F> {}

/// Widens a native value exactly into another format.
#[inline(always)]
pub(super) fn widen<F: Format, G: Format>(x: F) -> G {
    if crate::format::same::<F, G>() {
        return G::from_bits64(x.to_bits64());
    }
    G::from_repr(G::exact(x.to_repr().to_f64()))
}

/// Round-to-nearest from one native format to another (from the exact value: one rounding).
/// Exact, and no conversion through `f64`, when `B` holds every value of `A` (an `f16` stored
/// into an `f16` place, say).
#[inline(always)]
pub(super) fn nearest<A: Format, B: Format>(x: A) -> B {
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
