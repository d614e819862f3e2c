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
//! - Feature `num-traits` also gives the probe build's knob type, `Probe<F, K>`, num-traits'
//!   traits, each the native format's (`probe_num.rs`), and the single build's, `Knob<F, K, V>`,
//!   each the knob's own operation in its unit's format (`knob_num.rs`).
//! - Feature `rand` (rand 0.8): `Standard` and `SampleUniform`, drawing the native stream
//!   (`rand.rs`).
//! - Feature `serde`: `Serialize`/`Deserialize`, the native number in the text (`serde.rs`).
//!
//! Every method computes with the stochastic operations, so each sample is randomly rounded and
//! instabilities are counted as anywhere else. Where a trait leaves the stochastic world (a
//! conversion to a primitive number), the value returned is the mean, and the samples are lost.

#[cfg(feature = "approx")]
mod approx;
#[cfg(feature = "num-traits")]
mod consts;
#[cfg(feature = "num-traits")]
mod knob_num;
#[cfg(feature = "num-traits")]
mod num;
#[cfg(feature = "num-traits")]
mod probe_num;
mod containers;
#[cfg(feature = "rand")]
mod rand;
mod rem;
#[cfg(feature = "serde")]
mod serde;
#[cfg(feature = "simba")]
mod simba;
