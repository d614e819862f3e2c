//! The ecosystem's containers as containers of fptune's floats, for nalgebra's `Matrix` (feature
//! `nalgebra`), ndarray's `ArrayBase` (feature `ndarray`) and num-complex's `Complex` (feature
//! `num-complex`):
//!
//! - [`Elements`]: a literal that meets one takes its element type (`v /= 2.0`, `z * 0.5`);
//! - `Checkable`: a printed one (`println!("{}", m)`) is a checked result, element by element in
//!   iteration order (a complex number as its real, then imaginary part);
//! - ndarray's `ScalarOperand`, which its operators between an array and a scalar ask of the
//!   scalar (`&a * x`), for every float type the builds write: stochastic values, probes, knobs.

#[allow(unused_imports)]
use crate::check::{Checkable, Record};
#[allow(unused_imports)]
use crate::rt::{Elements, FromLit};

#[cfg(feature = "nalgebra")]
impl<T: FromLit, R, C, S> Elements for nalgebra::Matrix<T, R, C, S> {
    type Elem = T;
}

#[cfg(feature = "nalgebra")]
impl<T: Checkable + nalgebra::Scalar, R: nalgebra::Dim, C: nalgebra::Dim, S: nalgebra::RawStorage<T, R, C>> Checkable for nalgebra::Matrix<T, R, C, S> {
    fn visit(&self, f: &mut dyn FnMut(Record)) {
        self.iter().for_each(|x| x.visit(f));
    }
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
impl<S: ndarray::Data, D: ndarray::Dimension> Checkable for ndarray::ArrayBase<S, D>
where
    S::Elem: Checkable,
{
    fn visit(&self, f: &mut dyn FnMut(Record)) {
        self.iter().for_each(|x| x.visit(f));
    }
}

#[cfg(feature = "ndarray")]
crate::rt::elem_lit_impls!([S: ndarray::RawData, D] ndarray::ArrayBase<S, D>);
#[cfg(feature = "ndarray")]
crate::rt::elem_lit_impls!(['a, S: ndarray::RawData, D] &'a ndarray::ArrayBase<S, D>);

#[cfg(feature = "num-complex")]
impl<T: FromLit> Elements for num_complex::Complex<T> {
    type Elem = T;
}

#[cfg(feature = "num-complex")]
impl<T: Checkable> Checkable for num_complex::Complex<T> {
    fn visit(&self, f: &mut dyn FnMut(Record)) {
        self.re.visit(f);
        self.im.visit(f);
    }
}

#[cfg(feature = "num-complex")]
crate::rt::elem_lit_impls!([T: FromLit] num_complex::Complex<T>);
#[cfg(feature = "num-complex")]
crate::rt::elem_lit_impls!(['a, T: FromLit] &'a num_complex::Complex<T>);

#[cfg(feature = "ndarray")]
mod scalar_operand {
    use crate::format::Format;
    use crate::knob::{DynFloat, Knob};
    use crate::rt::Probe;
    use crate::Stochastic;

    impl<F: Format> ndarray::ScalarOperand for Stochastic<F> {}
    impl<F: Format, K: crate::rt::Ids> ndarray::ScalarOperand for Probe<F, K> {}
    impl<F: 'static, const K: u32, V: DynFloat + 'static> ndarray::ScalarOperand for Knob<F, K, V> where Knob<F, K, V>: Clone {}
}

/// The heals' conversions ([`crate::heal`]) of a container of floats, part by part: a value that
/// enters stochastic arithmetic from code at `f64`, or leaves it for such code.
mod heals {
    #[allow(unused_imports)]
    use crate::heal::{ToNative, ToStochastic};

    macro_rules! container_heal {
        ($Trait:ident, $method:ident) => {
            #[cfg(feature = "num-complex")]
            impl<T: $Trait> $Trait for num_complex::Complex<T> {
                type Out = num_complex::Complex<T::Out>;
                #[inline(always)]
                fn $method(self) -> Self::Out {
                    num_complex::Complex::new(self.re.$method(), self.im.$method())
                }
            }

            #[cfg(feature = "nalgebra")]
            impl<T, R, C, S> $Trait for nalgebra::Matrix<T, R, C, S>
            where
                T: nalgebra::Scalar + $Trait,
                T::Out: nalgebra::Scalar,
                R: nalgebra::Dim,
                C: nalgebra::Dim,
                S: nalgebra::RawStorage<T, R, C>,
                nalgebra::DefaultAllocator: nalgebra::allocator::Allocator<R, C>,
            {
                type Out = nalgebra::OMatrix<T::Out, R, C>;
                fn $method(self) -> Self::Out {
                    self.map(|x| x.$method())
                }
            }

            #[cfg(feature = "ndarray")]
            impl<A, S, D> $Trait for ndarray::ArrayBase<S, D>
            where
                A: Clone + $Trait,
                S: ndarray::Data<Elem = A>,
                D: ndarray::Dimension,
            {
                type Out = ndarray::Array<A::Out, D>;
                fn $method(self) -> Self::Out {
                    self.mapv(|x| x.$method())
                }
            }
        };
    }
    container_heal!(ToStochastic, to_stochastic);
    container_heal!(ToNative, to_native);
}
