//! Binary floating-point formats as data: a format is its exponent and significand widths and
//! its conventions, from 2-bit exponents to binary64 itself.
//!
//! A [`Spec`] names any binary format that `f64` holds: `e` exponent bits (2 to 11) and `m`
//! stored significand bits (1 to 52), with IEEE 754's conventions (subnormals, infinities, NaN:
//! binary16, bfloat16, TF32, OCP E5M2, the `bits` ladder's formats) or OCP FP8 E4M3's (the top
//! exponent is a binade of finite values, the one NaN of each sign has every bit set, no
//! infinities: max 448). An overflow gives infinity (NaN in E4M3) or, where the spec saturates,
//! the largest finite value; `ftz` flushes subnormal inputs and results to zero, as CPUs in
//! FTZ/DAZ mode and many accelerators do.
//!
//! Values of a format are held as the `f64` of the same value (every format here is a subset of
//! binary64). [`arith`] computes `+ - * /` and `sqrt` of such values rounded exactly onto the
//! format's grid, to nearest even or toward either infinity (the discrete stochastic
//! arithmetic's random roundings); [`codes`] converts between values and bit codes.

pub mod arith;
pub mod codes;
mod exact;
mod dsa;
mod fx;
pub mod mixing;

pub use fx::{Fx, E4M3, E5M2, TF32};

pub use fptune_spec::{flags, flags_of, spec_of, Encoding, Overflow, Spec, SpecError, NAME_BYTES};

use crate::round::Grid;

/// The grid the rounding kernels of `round.rs` take: precision, smallest normal exponent,
/// largest finite value, and what a rounding past it gives.
#[inline(always)]
pub(crate) const fn grid(spec: Spec) -> Grid {
    Grid { p: spec.precision() as i32, emin: spec.emin(), max: spec.max(), beyond: spec.beyond() }
}

#[cfg(test)]
mod tests;
