//! `fptune::dot` on the single build's knobs: the accumulator format's loop, computed with the
//! values of run-time format as the configuration's own build computes it (the casts and
//! operations of `Stochastic`, or of the native formats), so that a crate whose products are
//! `fptune::dot`s keeps its single build. A machine's matrix units are not modelled here: the
//! tuner does not use the single build when the target names a machine.

use super::*;
use crate::accel::Dot;

/// An accumulator of a dot product on knobs: its value as one of run-time format, and back.
pub trait DotAcc<V: DynFloat>: Copy {
    /// The accumulator as a value of run-time format.
    fn to_dyn(self) -> V;
    /// The result, of the accumulator's format, in the accumulator's type.
    fn from_dyn(v: V) -> Self;
}

impl<G: Tag, const L: u32, V: DynFloat> DotAcc<V> for Knob<G, L, V> {
    #[inline]
    fn to_dyn(self) -> V {
        self.get()
    }
    #[inline]
    fn from_dyn(v: V) -> Self {
        Knob::from_dyn(v)
    }
}

impl<G: Tag> DotAcc<DynStochastic> for Stochastic<G> {
    #[inline]
    fn to_dyn(self) -> DynStochastic {
        DynStochastic::of(self)
    }
    #[inline]
    fn from_dyn(v: DynStochastic) -> Self {
        v.cast::<G>()
    }
}

impl<G: Tag> DotAcc<DynNative> for G {
    #[inline]
    fn to_dyn(self) -> DynNative {
        DynNative::exact(self)
    }
    #[inline]
    fn from_dyn(v: DynNative) -> Self {
        v.store_native::<G>()
    }
}

impl<F: Tag, const K: u32, V: DynFloat, A: DotAcc<V>> Dot<A> for Knob<F, K, V> {
    /// `c + a[0] b[0] + ...`, each operand brought to the accumulator's format and each product
    /// and sum computed there: the loop `fptune::dot` is without a machine.
    fn dot(a: &[Self], b: &[Self], c: A) -> A {
        assert_eq!(a.len(), b.len(), "dot: the operands differ in length");
        let acc = c.to_dyn();
        let f = acc.format();
        A::from_dyn(a.iter().zip(b).fold(acc, |acc, (x, y)| acc + x.get().to(f) * y.get().to(f)))
    }
}
