//! The standard numeric traits for stochastic values, so that numerical code written generically
//! runs under discrete stochastic arithmetic.
//!
//! - `%` ([`std::ops::Rem`]), always: the remainder of each sample, exact as for `f64`.
//! - Feature `num-traits`: num-traits' `Float`, `FloatConst`, `Num`, `NumCast`, `Signed`,
//!   `Bounded` and the rest of its family (`num.rs`); `Real` follows from `Float`.
//! - Features `simba-0.9`, `simba-0.10` (each implies `num-traits`): simba's `RealField`, `ComplexField`, `Field`,
//!   `SubsetOf` and `SimdValue`, and approx's comparisons (`simba.rs`), which is what nalgebra
//!   asks of a scalar.
//!
//! - Feature `num-traits` also gives the probe build's knob type, `Probe<F, K>`, num-traits'
//!   traits, each the native format's (`probe_num.rs`), and the single build's, `Knob<F, K, V>`,
//!   each the knob's own operation in its unit's format (`knob_num.rs`).
//! - Features `rand-0.8`, `rand-0.9`, `rand-0.10`: `Standard`/`StandardUniform` and
//!   `SampleUniform`, drawing the native stream (`rand_0_8.rs`, `rand.rs`).
//! - Features `nalgebra-0.33` to `-0.35`, `ndarray-0.15` to `-0.17`, `num-complex`: their
//!   containers of fptune's floats (`nalgebra.rs`, `ndarray.rs`, `containers.rs`).
//! - Feature `serde`: `Serialize`/`Deserialize`, the native number in the text (`serde.rs`).
//!
//! Every method computes with the stochastic operations, so each sample is randomly rounded and
//! instabilities are counted as anywhere else. Where a trait leaves the stochastic world (a
//! conversion to a primitive number), the value returned is the mean, and the samples are lost.

#[cfg(feature = "approx")]
mod approx;
#[cfg(feature = "num-traits")]
mod consts;
#[cfg(feature = "num-complex")]
mod containers;
#[cfg(feature = "num-traits")]
mod knob_num;
#[cfg(feature = "num-traits")]
mod num;
#[cfg(feature = "num-traits")]
mod probe_num;
mod rem;
#[cfg(feature = "serde")]
mod serde;
#[cfg(any(feature = "rand-0.8", feature = "rand-0.9", feature = "rand-0.10"))]
mod draws;

/// One module per supported major version of a crate whose API changes between them: the same
/// source file included in each, where it names the version `self::<crate>` (the alias of the
/// renamed dependency, `Cargo.toml`); its opening comment says what it implements. A crate's lock
/// file may hold several versions (its own and a dependency's): each gets its impls.
macro_rules! per_version {
    ($($feature:literal: $module:ident = $dep:ident as $alias:ident in $file:literal;)*) => {$(
        #[cfg(feature = $feature)]
        mod $module {
            use ::$dep as $alias;
            include!($file);
        }
    )*};
}
per_version! {
    "simba-0.9": simba_0_9 = simba_0_9 as simba in "simba.rs";
    "simba-0.10": simba_0_10 = simba_0_10 as simba in "simba.rs";
    "nalgebra-0.33": nalgebra_0_33 = nalgebra_0_33 as nalgebra in "nalgebra.rs";
    "nalgebra-0.34": nalgebra_0_34 = nalgebra_0_34 as nalgebra in "nalgebra.rs";
    "nalgebra-0.35": nalgebra_0_35 = nalgebra_0_35 as nalgebra in "nalgebra.rs";
    "ndarray-0.15": ndarray_0_15 = ndarray_0_15 as ndarray in "ndarray.rs";
    "ndarray-0.16": ndarray_0_16 = ndarray_0_16 as ndarray in "ndarray.rs";
    "ndarray-0.17": ndarray_0_17 = ndarray_0_17 as ndarray in "ndarray.rs";
    "rand-0.8": rand_0_8 = rand_0_8 as rand in "rand_0_8.rs";
    "rand-0.9": rand_0_9 = rand_0_9 as rand in "rand.rs";
    "rand-0.10": rand_0_10 = rand_0_10 as rand in "rand.rs";
}
