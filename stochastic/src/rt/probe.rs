//! The probe build's knob type, `Probe<F, K>`: compiled, never run, so that rustc's type errors say
//! which knobs must share a type.

use std::marker::PhantomData;

use super::*;

/// The probe build's knob type: a value of format `F` whose type names the knobs it comes from,
/// `K`: one knob, [`Id<N>`], or a value computed from several, a pair of those.
///
/// The tuner gives every knob its own `Probe<F, Id<N>>` in one scratch build that is compiled,
/// never run. Arithmetic, stores and casts accept any mix of probes and floats (as they accept any
/// mix of formats), so the only type errors left are where rustc requires two types to be
/// *equal*: a buffer passed by reference, a method taking `Self`, a generic argument, a collection
/// of an iterator's items. Those errors read "expected `Probe<f64, Id<3>>`, found `Probe<f64,
/// Id<7>>`" (knobs 3 and 7 must share a type) or name a probe and a plain float (the knob cannot
/// change type at all).
#[derive(Clone, Copy, Default, Debug, PartialEq, PartialOrd)]
#[repr(transparent)]
pub struct Probe<F, K>(pub F, PhantomData<K>);

impl<F, K> Probe<F, K> {
    /// A probe holding `x`.
    #[inline(always)]
    pub const fn new(x: F) -> Self {
        Probe(x, PhantomData)
    }
}

/// Knob number `N` of the probe build, as the tag of [`Probe`].
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Id<const N: u32>;

/// What a [`Probe`]'s tag can be: one knob ([`Id`]) or the knobs of both operands of an
/// operation, `(K, L)`.
pub trait Ids: Copy + Default + std::fmt::Debug + PartialEq + PartialOrd + Send + Sync + 'static {}

impl<const N: u32> Ids for Id<N> {}

impl<K: Ids, L: Ids> Ids for (K, L) {}

impl<F: Format, K: Ids> Scalar for Probe<F, K> {}

// A literal as a probe's element (`(w + w_next) * 0.5` of nalgebra vectors of probes, the
// dispatch's `ElemMulLit`): of the probe's type, as natively the literal takes the element's.
impl<F: Format, K: Ids> FromLit for Probe<F, K> {
    #[inline(always)]
    fn from_lit(lit: Lit) -> Self {
        Probe::new(lit.to())
    }
}

impl<F: Format, K: Ids> LitLike for Probe<F, K> {
    type Value = Self;
}

operand!([F: Format, K: Ids] Probe<F, K>);

// Arithmetic between two probes of different types names both: natively the result has the wider
// operand's format, which is either's in some configuration, so wherever the result must equal
// another type (`x = (0..n).map(|i| (b[i] - s) / a[i][i]).collect()`), every knob it came from
// must share that type. Two operands of one type take rustc's own operator (the dispatch's
// one-type level) and keep it.
impl<A: Format + Promote<B>, B: Format, K: Ids, L: Ids> Join<Probe<B, L>> for Probe<A, K> {
    type Out = Probe<<A as Promote<B>>::Output, (K, L)>;
    #[inline(always)]
    fn join(a: Self, b: Probe<B, L>) -> (Self::Out, Self::Out) {
        (Probe::new(widen(a.0)), Probe::new(widen(b.0)))
    }
}

impl<A: Format + Promote<B>, B: Format, K: Ids> Join<B> for Probe<A, K> {
    type Out = <A as Promote<B>>::Output;
    #[inline(always)]
    fn join(a: Self, b: B) -> (Self::Out, Self::Out) {
        (widen(a.0), widen(b))
    }
}

impl<A: Format + Promote<B>, B: Format, L: Ids> Join<Probe<B, L>> for A {
    type Out = <A as Promote<B>>::Output;
    #[inline(always)]
    fn join(a: A, b: Probe<B, L>) -> (Self::Out, Self::Out) {
        (widen(a), widen(b.0))
    }
}

// A literal adapts to the knob's format, so the result has the knob's type in every native
// build: it stays a probe, and rustc says where it meets a type that cannot change
// (`g().max(x - 1.0)`).
impl<A: Format, K: Ids> Join<Lit> for Probe<A, K> {
    type Out = Probe<A, K>;
    #[inline(always)]
    fn join(a: Self, b: Lit) -> (Self, Self) {
        (a, Probe::new(b.to()))
    }
}

impl<B: Format, L: Ids> Join<Probe<B, L>> for Lit {
    type Out = Probe<B, L>;
    #[inline(always)]
    fn join(a: Lit, b: Probe<B, L>) -> (Probe<B, L>, Probe<B, L>) {
        (Probe::new(a.to()), b)
    }
}

impl<A: Format, B: Format, K: Ids> Store<Probe<B, K>> for A {
    #[inline(always)]
    fn store(self) -> Probe<B, K> {
        Probe::new(nearest(self))
    }
}

impl<A: Format, B: Format, K: Ids> Store<B> for Probe<A, K> {
    #[inline(always)]
    fn store(self) -> B {
        nearest(self.0)
    }
}

impl<A: Format, B: Format, K: Ids, L: Ids> Store<Probe<B, L>> for Probe<A, K> {
    #[inline(always)]
    fn store(self) -> Probe<B, L> {
        Probe::new(nearest(self.0))
    }
}

impl<B: Format, K: Ids> Store<Probe<B, K>> for Lit {
    #[inline(always)]
    fn store(self) -> Probe<B, K> {
        Probe::new(self.to())
    }
}

macro_rules! probe_cast {
    ($($t:ty),*) => {$(
        impl<A: Format, K: Ids> CastAs<$t> for Probe<A, K> where A: CastAs<$t> {
            #[inline(always)]
            fn cast_as(self) -> $t {
                self.0.cast_as()
            }
        }
        impl<B: Format, K: Ids> CastAs<Probe<B, K>> for $t where $t: CastAs<B> {
            #[inline(always)]
            fn cast_as(self) -> Probe<B, K> {
                Probe::new(self.cast_as())
            }
        }
    )*};
}
probe_cast!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64, f16, bf16);

impl<A: Format, K: Ids, T> CastOperand<T> for Probe<A, K>
where
    Probe<A, K>: CastAs<T>,
{
    type Out = T;
    #[inline(always)]
    fn cast_operand(self) -> T {
        self.cast_as()
    }
}

impl<F: Format + Arith, K: Ids> Arith for Probe<F, K> {
    #[inline(always)]
    fn fp_add(a: Self, b: Self) -> Self { Probe::new(F::fp_add(a.0, b.0)) }
    #[inline(always)]
    fn fp_sub(a: Self, b: Self) -> Self { Probe::new(F::fp_sub(a.0, b.0)) }
    #[inline(always)]
    fn fp_mul(a: Self, b: Self) -> Self { Probe::new(F::fp_mul(a.0, b.0)) }
    #[inline(always)]
    fn fp_div(a: Self, b: Self) -> Self { Probe::new(F::fp_div(a.0, b.0)) }
}

impl<F: Format + ArithRem, K: Ids> ArithRem for Probe<F, K> {
    #[inline(always)]
    fn fp_rem(a: Self, b: Self) -> Self { Probe::new(F::fp_rem(a.0, b.0)) }
}

macro_rules! probe_ops {
    ($($Op:ident, $op:ident, $OpAssign:ident, $op_assign:ident);*) => {$(
        impl<F: Format + $Op<Output = F>, K: Ids> $Op for Probe<F, K> {
            type Output = Self;
            #[inline(always)]
            fn $op(self, rhs: Self) -> Self {
                Probe::new($Op::$op(self.0, rhs.0))
            }
        }
        impl<F: Format + $Op<Output = F>, K: Ids> $OpAssign for Probe<F, K> {
            #[inline(always)]
            fn $op_assign(&mut self, rhs: Self) {
                self.0 = $Op::$op(self.0, rhs.0);
            }
        }
    )*};
}
probe_ops!(Add, add, AddAssign, add_assign; Sub, sub, SubAssign, sub_assign;
    Mul, mul, MulAssign, mul_assign; Div, div, DivAssign, div_assign);

impl<F: Format + std::ops::Neg<Output = F>, K: Ids> std::ops::Neg for Probe<F, K> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        Probe::new(-self.0)
    }
}

impl<F: Format, K: Ids> std::fmt::Display for Probe<F, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

impl<F: Format, K: Ids> std::fmt::LowerExp for Probe<F, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::LowerExp::fmt(&self.0, f)
    }
}

impl<F: Format + std::fmt::UpperExp, K: Ids> std::fmt::UpperExp for Probe<F, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::UpperExp::fmt(&self.0, f)
    }
}

impl<F: Format + std::iter::Sum, K: Ids> std::iter::Sum for Probe<F, K> {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        Probe::new(iter.map(|p| p.0).sum())
    }
}

impl<'a, F: Format + std::iter::Sum, K: Ids> std::iter::Sum<&'a Probe<F, K>> for Probe<F, K> {
    fn sum<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
        Probe::new(iter.map(|p| p.0).sum())
    }
}


impl<F: Format, K: Ids> crate::check::Checkable for Probe<F, K>
where
    F: crate::check::Checkable,
{
    fn visit(&self, f: &mut dyn FnMut(crate::check::Record)) {
        self.0.visit(f);
    }
}

macro_rules! probe_math {
    ($($m:ident),*) => {
        impl<F: Format, K: Ids> Probe<F, K> {
            $(
                /// As the `f64` method (computed in `f64`: a probe build is compiled, not run).
                #[inline(always)]
                pub fn $m(self) -> Self {
                    Probe::new(F::from_repr(F::nearest(self.0.to_repr().to_f64().$m())))
                }
            )*
            /// `self^n`.
            pub fn powi(self, n: i32) -> Self {
                Probe::new(F::from_repr(F::nearest(self.0.to_repr().to_f64().powi(n))))
            }
            /// `self^n`.
            pub fn powf(self, n: Self) -> Self {
                Probe::new(F::from_repr(F::nearest(self.0.to_repr().to_f64().powf(n.0.to_repr().to_f64()))))
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
                Probe::new(F::from_repr(F::nearest(x.mul_add(y, z))))
            }
            /// `atan2(self, o)`.
            pub fn atan2(self, o: Self) -> Self {
                Probe::new(F::from_repr(F::nearest(self.0.to_repr().to_f64().atan2(o.0.to_repr().to_f64()))))
            }
            /// `copysign(self, o)`.
            pub fn copysign(self, o: Self) -> Self {
                Probe::new(F::from_repr(F::nearest(self.0.to_repr().to_f64().copysign(o.0.to_repr().to_f64()))))
            }
            /// `rem_euclid(self, o)`.
            pub fn rem_euclid(self, o: Self) -> Self {
                Probe::new(F::from_repr(F::nearest(self.0.to_repr().to_f64().rem_euclid(o.0.to_repr().to_f64()))))
            }
            /// `div_euclid(self, o)`.
            pub fn div_euclid(self, o: Self) -> Self {
                Probe::new(F::from_repr(F::nearest(self.0.to_repr().to_f64().div_euclid(o.0.to_repr().to_f64()))))
            }
            /// `hypot(self, o)`.
            pub fn hypot(self, o: Self) -> Self {
                Probe::new(F::from_repr(F::nearest(self.0.to_repr().to_f64().hypot(o.0.to_repr().to_f64()))))
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
probe_math!(sqrt, cbrt, abs, exp, exp2, exp_m1, ln, ln_1p, log10, log2, sin, cos, tan, asin, acos, atan, sinh,
    cosh, tanh, asinh, acosh, atanh, floor, ceil, trunc, round, fract, signum, recip, to_degrees, to_radians);
