//! Float literals as operands: `Lit` keeps a literal's `f64` and `f32` roundings and takes the
//! format of the other operand (`lit`, `typed_lit`, `lit_like`).

use super::*;

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

impl<const E: u32, const M: u32, const FLAGS: u32> LitLike for crate::Fx<E, M, FLAGS> {
    type Value = Self;
}

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

/// A container whose elements are literals (`array![[1.0, 2.0]]`, `vec![0.5; n]` built by a
/// macro fptune does not rewrite, so its literals are `f64`s) made a container of `P`, each
/// element as the literal it was (rounded to nearest into `P`), as natively the literals take the
/// type of the place. The stochastic build's heal of such a value (`tuner/src/heal/rules.rs`),
/// and the probe build's value of a knob declaration that literals alone initialise
/// (`tuner/src/probe/sources.rs`): there the declaration's type gives `P`, and the container's
/// shape the parts it leaves to inference (a dimension).
pub trait Relit<P> {
    /// The container, of `P`.
    type Out;
    /// The conversion.
    fn relit(self) -> Self::Out;
}

/// `value` as its container of `P` ([`Relit`]).
#[inline]
pub fn relit<P, C: Relit<P>>(value: C) -> C::Out {
    value.relit()
}

/// An element of a literals' container as the literal it was.
#[inline]
pub(crate) fn relit_one<P: FromLit>(x: f64) -> P {
    P::from_lit(Lit::new(x, x as f32))
}

impl<P: FromLit> Relit<P> for Vec<f64> {
    type Out = Vec<P>;
    fn relit(self) -> Vec<P> {
        self.into_iter().map(relit_one).collect()
    }
}

impl<P: FromLit, const N: usize> Relit<P> for [f64; N] {
    type Out = [P; N];
    fn relit(self) -> [P; N] {
        self.map(relit_one)
    }
}

#[cfg(test)]
mod relit_tests {
    use super::relit;
    use crate::value::{Sf32, Sf64};

    #[test]
    fn a_container_of_literals_takes_the_places_element_type_each_as_its_literal() {
        let v: Vec<Sf32> = relit(vec![0.1, 2.5]);
        assert_eq!(v[0].samples(), [0.1f32; 3]);
        let a: [Sf64; 2] = relit([0.1, -3.0]);
        assert_eq!(a[1].samples(), [-3.0; 3]);
        let n: Vec<f32> = relit(vec![0.1]);
        assert_eq!(n, [0.1f32]);
    }
}
