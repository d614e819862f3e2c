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
use crate::rt::{Elements, FromLit, Ids, Probe, Relit, ScalarLeft};
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

crate::rt::elem_lit_impls!(scalar_left [S: RawData, D] ArrayBase<S, D>);
crate::rt::elem_lit_impls!(scalar_left ['a, S: RawData, D] &'a ArrayBase<S, D>);

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

// A float of fptune's on the left of an array (`dt / dx * &u`, `s - &a`), which ndarray defines
// for primitive scalars only: the stochastic builds' `ScalarLeft` (written by a heal). Each
// element is `s op x`, in that order, as natively.
macro_rules! scalar_left {
    ([$($g:tt)*] $T:ty, $s:ident => $x:expr; $Op:ident $op:ident) => {
        impl<'a, $($g)* A: Clone, S: Data<Elem = A>, D: Dimension> std::ops::$Op<&'a ArrayBase<S, D>> for $T
        where
            $T: Copy,
        {
            type Output = Array<A, D>;
            fn $op(self, a: &'a ArrayBase<S, D>) -> Array<A, D> {
                let $s = self;
                a.mapv(|x| std::ops::$Op::$op($x, x))
            }
        }
        impl<$($g)* A: Clone, S: Data<Elem = A>, D: Dimension> std::ops::$Op<ArrayBase<S, D>> for $T
        where
            $T: Copy,
        {
            type Output = Array<A, D>;
            fn $op(self, a: ArrayBase<S, D>) -> Array<A, D> {
                let $s = self;
                a.mapv(|x| std::ops::$Op::$op($x, x))
            }
        }
    };
}
scalar_left!([T: Copy + std::ops::Add<A, Output = A>,] ScalarLeft<T>, s => s.0; Add add);
scalar_left!([T: Copy + std::ops::Sub<A, Output = A>,] ScalarLeft<T>, s => s.0; Sub sub);
scalar_left!([T: Copy + std::ops::Mul<A, Output = A>,] ScalarLeft<T>, s => s.0; Mul mul);
scalar_left!([T: Copy + std::ops::Div<A, Output = A>,] ScalarLeft<T>, s => s.0; Div div);

// `a.sum()`, `a.product()`, which the macro writes as a fold's (it cannot tell an array from an
// iterator): the array's own.
impl<A, S, D> crate::rt::ContainerFold for crate::rt::Fold<ArrayBase<S, D>>
where
    A: Clone + std::ops::Add<Output = A> + std::ops::Mul<Output = A> + num_traits::Zero + num_traits::One,
    S: Data<Elem = A>,
    D: Dimension,
{
    type Out = A;
    fn __fp_sum(&self) -> A {
        self.taken().sum()
    }
    fn __fp_product(&self) -> A {
        self.taken().product()
    }
}

#[cfg(test)]
#[allow(clippy::op_ref, clippy::needless_borrow)] // the forms the conversion writes
mod scalar_left_tests {
    use super::ndarray::Array1;
    use crate::rt::scalar_left;
    use crate::Sf64;

    /// Each element is `s op x`, the scalar on the left, as ndarray's own for primitive scalars.
    #[test]
    fn a_scalar_on_the_left_of_an_array_computes_each_element_in_order() {
        let a = Array1::from_vec(vec![Sf64::new(1.0), Sf64::new(4.0)]);
        let s = Sf64::new(2.0);
        let d = scalar_left(s) - &a;
        assert_eq!([d[0].samples(), d[1].samples()], [[1.0; 3], [-2.0; 3]]);
        let q = scalar_left(s) / a.clone();
        assert_eq!(q[1].samples(), [0.5; 3]);
        let p = scalar_left(s) * &a.view();
        assert_eq!(p[1].samples(), [8.0; 3]);
    }

    /// `2.0 * &a`, `1.0 - &a`: the literal takes the elements' type, on the left, through the
    /// dispatch (ndarray has these for primitive scalars only).
    #[test]
    fn a_literal_on_the_left_of_an_array_takes_its_element_type() {
        #[allow(unused_imports)]
        use crate::rt::prelude::*;
        let a = Array1::from_vec(vec![Sf64::new(1.0), Sf64::new(4.0)]);
        let p = (&&&crate::rt::pair(crate::rt::Lit::new(2.0, 2.0), &a)).__fp_mul();
        assert_eq!(p[1].samples(), [8.0; 3]);
        let d = (&&&crate::rt::pair(crate::rt::Lit::new(1.0, 1.0), &a)).__fp_sub();
        assert_eq!(d[1].samples(), [-3.0; 3]);
        let n = Array1::from_vec(vec![1.0f32, 4.0]);
        let q = (&&&crate::rt::pair(crate::rt::Lit::new(2.0, 2.0), &n)).__fp_div();
        assert_eq!(q[1], 0.5f32);
    }

    /// `a.sum()` written as a fold's dispatch is the array's own sum.
    #[test]
    fn an_arrays_sum_through_the_fold_dispatch_is_its_own() {
        #[allow(unused_imports)]
        use crate::rt::prelude::*;
        let a = Array1::from_vec(vec![Sf64::new(1.5), Sf64::new(2.0)]);
        let s = (&&crate::rt::fold(a.clone())).__fp_sum();
        assert_eq!(s.samples(), [3.5; 3]);
        let p = (&&crate::rt::fold(a)).__fp_product();
        assert_eq!(p.samples(), [3.0; 3]);
    }
}
