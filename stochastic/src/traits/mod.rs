//! The standard numeric traits for stochastic values, so that numerical code written generically
//! runs under discrete stochastic arithmetic.
//!
//! - `%` ([`std::ops::Rem`]), always: the remainder of each sample, exact as for `f64`.
//! - Feature `num-traits`: num-traits' `Float`, `FloatConst`, `Num`, `NumCast`, `Signed`,
//!   `Bounded` and the rest of its family (`num.rs`); `Real` follows from `Float`.
//! - Feature `simba` (implies `num-traits`): simba's `RealField`, `ComplexField`, `Field`,
//!   `SubsetOf` and `SimdValue`, and approx's comparisons (`simba.rs`), which is what nalgebra
//!   asks of a scalar.
//!
//! Every method computes with the stochastic operations, so each sample is randomly rounded and
//! instabilities are counted as anywhere else. Where a trait leaves the stochastic world (a
//! conversion to a primitive number), the value returned is the mean, and the samples are lost.

#[cfg(feature = "approx")]
mod approx;
#[cfg(feature = "num-traits")]
mod consts;
#[cfg(feature = "num-traits")]
mod num;
mod containers;
mod rem;
#[cfg(feature = "simba")]
mod simba;
