// ndarray's `ArrayBase` as a container of fptune's floats (one instance per supported ndarray
// version, `super::ndarray` being that version: `mod.rs`):
//
// - [`Elements`]: a literal that meets one takes its element type (`&a * 0.5`);
// - `Checkable`: a printed one is a checked result, element by element in iteration order;
// - ndarray's `ScalarOperand`, which its operators between an array and a scalar ask of the
//   scalar (`&a * x`), for every float type the builds write: stochastic values, probes, knobs;
// - the heals' conversions ([`crate::heal`]), element by element.

use self::ndarray::{Array, ArrayBase, Data, Dimension, RawData, ScalarOperand};
use crate::check::{Checkable, Record};
use crate::format::Format;
use crate::heal::{ToNative, ToStochastic};
use crate::knob::{DynFloat, Knob};
use crate::rt::{Elements, FromLit, Ids, Probe, Relit};
use crate::Stochastic;

impl<S: RawData, D> Elements for ArrayBase<S, D>
where
    S::Elem: FromLit,
{
    type Elem = S::Elem;
}

impl<S: Data, D: Dimension> Checkable for ArrayBase<S, D>
where
    S::Elem: Checkable,
{
    fn visit(&self, f: &mut dyn FnMut(Record)) {
        self.iter().for_each(|x| x.visit(f));
    }
}

crate::rt::elem_lit_impls!([S: RawData, D] ArrayBase<S, D>);
crate::rt::elem_lit_impls!(['a, S: RawData, D] &'a ArrayBase<S, D>);

impl<F: Format> ScalarOperand for Stochastic<F> {}
impl<F: Format, K: Ids> ScalarOperand for Probe<F, K> {}
impl<F: 'static, const K: u32, V: DynFloat + 'static> ScalarOperand for Knob<F, K, V> where Knob<F, K, V>: Clone {}

macro_rules! heal {
    ($Trait:ident, $method:ident) => {
        impl<A, S, D> $Trait for ArrayBase<S, D>
        where
            A: Clone + $Trait,
            S: Data<Elem = A>,
            D: Dimension,
        {
            type Out = Array<A::Out, D>;
            fn $method(self) -> Self::Out {
                self.mapv(|x| x.$method())
            }
        }
    };
}
heal!(ToStochastic, to_stochastic);
heal!(ToNative, to_native);

impl<S: Data<Elem = f64>, D: Dimension, P: FromLit> Relit<P> for ArrayBase<S, D> {
    type Out = Array<P, D>;
    fn relit(self) -> Array<P, D> {
        self.mapv(crate::rt::relit_one)
    }
}
