//! num-complex's `Complex` as a container of fptune's floats (feature `num-complex`); nalgebra's
//! and ndarray's containers are in `nalgebra.rs` and `ndarray.rs`, one instance per version.
//!
//! - [`Elements`]: a literal that meets one takes its element type (`z * 0.5`);
//! - `Checkable`: a printed one is a checked result, its real, then imaginary part;
//! - the heals' conversions ([`crate::heal`]), part by part: a value that enters stochastic
//!   arithmetic from code at `f64`, or leaves it for such code.

use num_complex::Complex;

use crate::check::{Checkable, Record};
use crate::heal::{ToNative, ToStochastic};
use crate::rt::{Elements, FromLit, Relit};

impl<T: FromLit> Elements for Complex<T> {
    type Elem = T;
}

impl<T: Checkable> Checkable for Complex<T> {
    fn visit(&self, f: &mut dyn FnMut(Record)) {
        self.re.visit(f);
        self.im.visit(f);
    }
}

crate::rt::elem_lit_impls!([T: FromLit] Complex<T>);
crate::rt::elem_lit_impls!(['a, T: FromLit] &'a Complex<T>);

macro_rules! heal {
    ($Trait:ident, $method:ident) => {
        impl<T: $Trait> $Trait for Complex<T> {
            type Out = Complex<T::Out>;
            #[inline(always)]
            fn $method(self) -> Self::Out {
                Complex::new(self.re.$method(), self.im.$method())
            }
        }
    };
}
heal!(ToStochastic, to_stochastic);
heal!(ToNative, to_native);

impl<P: FromLit> Relit<P> for Complex<f64> {
    type Out = Complex<P>;
    fn relit(self) -> Complex<P> {
        Complex::new(crate::rt::relit_one(self.re), crate::rt::relit_one(self.im))
    }
}
