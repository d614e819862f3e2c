//! Printed results: what `#[fptune::tune(printed)]` expands a printing macro's arguments to.
//!
//! `(&&printing(&x)).__fp_printed(name)` records `x` as a checked result (as `check!(name, x)`
//! does) when the run asks for printed results ([`PRINTED_ENV`], the tuner's
//! `--check-printed`), then the macro formats `x` as written. The dispatch is the autoref
//! specialisation of the rest of `__rt`: `FloatPrinted` for a value `check!` takes (floats of
//! every kind, `Vec`s, arrays, slices and references of them), `StdPrinted` for every other
//! type, which records a value whose type only its instantiation makes a float (a generic
//! function's `R`) and nothing else.

use std::sync::OnceLock;

use crate::check::{check, Checkable};
pub use crate::contract::{PRINTED_ENV, PRINTED_PREFIX};

/// Whether this run records printed floats (read once).
fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os(PRINTED_ENV).is_some_and(|v| v == crate::contract::PRINTED_ON))
}

/// A printed argument, for dispatch.
#[derive(Debug)]
pub struct Printing<'a, T: ?Sized>(&'a T);

/// `x`, printed.
#[inline(always)]
pub fn printing<T: ?Sized>(x: &T) -> Printing<'_, T> {
    Printing(x)
}

/// A printed float (or buffer of them): recorded.
pub trait FloatPrinted {
    /// Records the value under `name`, when the run asks for printed results.
    fn __fp_printed(&self, name: &str);
}

impl<T: Checkable + ?Sized> FloatPrinted for &Printing<'_, T> {
    #[inline]
    fn __fp_printed(&self, name: &str) {
        if enabled() {
            check(name, self.0);
        }
    }
}

/// Any other printed value: recorded when, instantiated, it is a float after all.
pub trait StdPrinted {
    /// Records the value when its type is a float's (see [`record_generic`]).
    fn __fp_printed(&self, name: &str);
}

impl<T: ?Sized> StdPrinted for Printing<'_, T> {
    #[inline]
    fn __fp_printed(&self, name: &str) {
        if enabled() {
            record_generic(self.0, name);
        }
    }
}

/// A printed value whose type the macro's dispatch could not see as a float: a generic
/// function's parameter (`fn print_csv<R: RealField>(xs: &[R])`, instantiated at `f64` natively
/// and at `Stochastic<f64>` under DSA), which only its instantiation tells. Recorded as `check!`
/// records it when its type is one of the floats; anything else records nothing.
fn record_generic<T: ?Sized>(v: &T, name: &str) {
    let id = typeid::of::<T>();
    macro_rules! as_float {
        ($($t:ty),*) => {$(
            if id == typeid::of::<$t>() {
                // SAFETY: `T` is `$t` (the same type id), a sized type.
                let v = unsafe { &*(v as *const T).cast::<$t>() };
                check(name, v);
                return;
            }
        )*};
    }
    as_float!(
        f64, f32, crate::f16, crate::bf16,
        crate::Sf64, crate::Sf32, crate::Sf16, crate::Sbf16,
        crate::__rt::DynStochastic, crate::__rt::DynNative
    );
}
