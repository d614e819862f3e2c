// nalgebra's `Matrix` as a container of fptune's floats (one instance per supported nalgebra
// version, `super::nalgebra` being that version: `mod.rs`):
//
// - [`Elements`]: a literal that meets one takes its element type (`v /= 2.0`);
// - `Checkable`: a printed one (`println!("{}", m)`) is a checked result, element by element in
//   iteration order;
// - the heals' conversions ([`crate::heal`]), element by element: a matrix that enters
//   stochastic arithmetic from code at `f64`, or leaves it for such code.

use self::nalgebra::{allocator::Allocator, DefaultAllocator, Dim, Matrix, OMatrix, RawStorage, Scalar};
use crate::check::{Checkable, Record};
use crate::heal::{ToNative, ToStochastic};
use crate::rt::{Elements, FromLit, Relit, ScalarLeft};

impl<T: FromLit, R, C, S> Elements for Matrix<T, R, C, S> {
    type Elem = T;
}

impl<T: Checkable + Scalar, R: Dim, C: Dim, S: RawStorage<T, R, C>> Checkable for Matrix<T, R, C, S> {
    fn visit(&self, f: &mut dyn FnMut(Record)) {
        self.iter().for_each(|x| x.visit(f));
    }
}

crate::rt::elem_lit_impls!(scalar_left [T: FromLit, R, C, S] Matrix<T, R, C, S>);
crate::rt::elem_lit_impls!(scalar_left ['a, T: FromLit, R, C, S] &'a Matrix<T, R, C, S>);

macro_rules! heal {
    ($Trait:ident, $method:ident) => {
        impl<T, R, C, S> $Trait for Matrix<T, R, C, S>
        where
            T: Scalar + $Trait,
            T::Out: Scalar,
            R: Dim,
            C: Dim,
            S: RawStorage<T, R, C>,
            DefaultAllocator: Allocator<R, C>,
        {
            type Out = OMatrix<T::Out, R, C>;
            fn $method(self) -> Self::Out {
                self.map(|x| x.$method())
            }
        }
    };
}
heal!(ToStochastic, to_stochastic);
heal!(ToNative, to_native);

impl<R: Dim, C: Dim, S: RawStorage<f64, R, C>, P: FromLit + Scalar> Relit<P> for Matrix<f64, R, C, S>
where
    DefaultAllocator: Allocator<R, C>,
{
    type Out = OMatrix<P, R, C>;
    fn relit(self) -> OMatrix<P, R, C> {
        self.map(crate::rt::relit_one)
    }
}

// A float of fptune's on the left of a matrix (`s * &m`), which nalgebra defines for primitive
// scalars only: the stochastic builds' `ScalarLeft` (written by a heal). Each element is `s * x`,
// as natively.
impl<'a, T, A, R, C, S> std::ops::Mul<&'a Matrix<A, R, C, S>> for ScalarLeft<T>
where
    T: Copy + std::ops::Mul<A, Output = A>,
    A: Scalar,
    R: Dim,
    C: Dim,
    S: RawStorage<A, R, C>,
    DefaultAllocator: Allocator<R, C>,
{
    type Output = OMatrix<A, R, C>;
    fn mul(self, m: &'a Matrix<A, R, C, S>) -> OMatrix<A, R, C> {
        m.map(|x| self.0 * x)
    }
}

impl<T, A, R, C, S> std::ops::Mul<Matrix<A, R, C, S>> for ScalarLeft<T>
where
    T: Copy + std::ops::Mul<A, Output = A>,
    A: Scalar,
    R: Dim,
    C: Dim,
    S: RawStorage<A, R, C>,
    DefaultAllocator: Allocator<R, C>,
{
    type Output = OMatrix<A, R, C>;
    fn mul(self, m: Matrix<A, R, C, S>) -> OMatrix<A, R, C> {
        m.map(|x| self.0 * x)
    }
}
