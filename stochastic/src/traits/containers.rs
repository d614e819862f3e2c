//! The ecosystem's containers as containers of fptune's floats: [`Elements`] (a literal that
//! meets one takes its element type: `v /= 2.0`) for nalgebra's `Matrix` (feature `nalgebra`)
//! and ndarray's `ArrayBase` (feature `ndarray`), and ndarray's `ScalarOperand`, which its
//! operators between an array and a scalar ask of the scalar (`&a * x`), for every float type
//! the builds write: stochastic values, probes, knobs.

#[allow(unused_imports)]
use crate::rt::{Elements, FromLit};

#[cfg(feature = "nalgebra")]
impl<T: FromLit, R, C, S> Elements for nalgebra::Matrix<T, R, C, S> {
    type Elem = T;
}

#[cfg(feature = "nalgebra")]
crate::rt::elem_lit_impls!([T: FromLit, R, C, S] nalgebra::Matrix<T, R, C, S>);
#[cfg(feature = "nalgebra")]
crate::rt::elem_lit_impls!(['a, T: FromLit, R, C, S] &'a nalgebra::Matrix<T, R, C, S>);

#[cfg(feature = "ndarray")]
impl<S: ndarray::RawData, D> Elements for ndarray::ArrayBase<S, D>
where
    S::Elem: FromLit,
{
    type Elem = S::Elem;
}

#[cfg(feature = "ndarray")]
crate::rt::elem_lit_impls!([S: ndarray::RawData, D] ndarray::ArrayBase<S, D>);
#[cfg(feature = "ndarray")]
crate::rt::elem_lit_impls!(['a, S: ndarray::RawData, D] &'a ndarray::ArrayBase<S, D>);

#[cfg(feature = "ndarray")]
mod scalar_operand {
    use crate::format::Format;
    use crate::knob::{DynFloat, Knob};
    use crate::rt::Probe;
    use crate::Stochastic;

    impl<F: Format> ndarray::ScalarOperand for Stochastic<F> {}
    impl<F: Format, const K: u32> ndarray::ScalarOperand for Probe<F, K> {}
    impl<F: 'static, const K: u32, V: DynFloat + 'static> ndarray::ScalarOperand for Knob<F, K, V> where Knob<F, K, V>: Clone {}
}
