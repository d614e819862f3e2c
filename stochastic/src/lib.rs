//! # fptune: discrete stochastic arithmetic for Rust
//!
//! The runtime a crate tuned by `cargo fptune` depends on. It provides the stochastic types that
//! validate a precision configuration the way the CADNA library does:
//!
//! - [`Sf64`], [`Sf32`], [`Sf16`], [`Sbf16`]: [`Stochastic`] values of binary64, binary32,
//!   binary16 ([`f16`]) and bfloat16 ([`bf16`]). Each holds three samples computed with *random
//!   rounding*: every operation rounds each sample toward +inf or -inf with equal probability (two
//!   random bits per operation, the third sample rounded opposite to the second, as CADNA does).
//! - The rounding is exactly the directed rounding of the exact result, obtained with error-free
//!   transformations, never by changing the hardware rounding mode (Rust and LLVM assume
//!   round-to-nearest). See `round.rs`.
//! - [`Stochastic::digits`] estimates how many decimal digits of the mean are exact (Student t,
//!   95%, three samples); [`Stochastic::is_noise`] says when none is. `Display` prints only the
//!   exact digits, or `@.0` for numerical noise.
//! - Numerical instabilities (unstable division, multiplication, power and mathematical
//!   functions, branching, intrinsics, cancellation, and overflow/underflow in the 16-bit
//!   formats) are counted per thread and summed by [`stochastic::report`].
//!
//! ```
//! use fptune::Sf64;
//! fptune::stochastic::set_seed(1);
//! let third = Sf64::from(1.0) / Sf64::from(3.0);
//! assert!(third.digits() > 15.0);
//! // Catastrophic cancellation leaves numerical noise.
//! let big = Sf64::from(1e17);
//! let noise = (big + third) - big - third;
//! assert!(noise.is_noise());
//! assert_eq!(noise.to_string(), "@.0");
//! ```
//!
//! ## Semantics between formats
//! An operation between two formats is computed in the wider one (binary16 with bfloat16: in
//! binary32) and rounded once there; a primitive `f64`/`f32` operand adapts to the stochastic
//! operand's format (rounded to nearest, like a literal); `*Assign` stores back into the left
//! operand's format, rounding at random when the result is wider.

/// Accelerator dot products: matrix units' arithmetic as data, `dot` and `matmul` through it.
pub mod accel;
mod check;
pub mod contract;
mod cvt;
mod format;
pub mod formats;
mod heal;
mod knob;
mod lanes;
mod math;
pub mod metric;
mod methods;
mod printed;
mod shown;
mod ops;
mod rng;
mod round;
mod startup;
pub mod stochastic;
mod traits;
mod value;

#[doc(hidden)]
pub mod __rt {
    //! Support for the code `#[fptune::tune]` expands to: not a public API.
    pub use crate::knob::{set_formats, DynFloat, DynMath, FloatFormat, Knob, DynNative, DynStochastic, Tag, CONSTANT, FORMATS_ENV, MAX_UNITS};
    pub use crate::heal::{to_native, to_stochastic, ToNative, ToStochastic};
    pub use crate::printed::{printing, Printing, PRINTED_ENV, PRINTED_PREFIX};
    pub use crate::shown::Shown;
    pub use crate::rt::*;
    pub use crate::startup::started;
    // What expansions name from `core`, reached through the crate so that they resolve in
    // 2015-edition crates too, where `::core` is no path (`::fptune` is, by `extern crate`).
    pub use core::convert::AsRef;
    pub use core::{compile_error, concat, file, line, stringify};
    pub use crate::__elaborated as elaborated;
    /// The float primitives, by a path the stochastic build leaves as it is
    /// (`::fptune::__rt::primitive::f64`).
    pub mod primitive {
        pub use core::primitive::{f32, f64};
    }
}
mod rt;

/// `::fptune::__rt::elaborated!(T)`: the type rustc inferred for a parameter of a closure given as
/// an argument, which the tuner wrote down. It is `T` wherever `#[fptune::tune]` does not take it
/// out (it leaves such parameters to inference).
#[doc(hidden)]
#[macro_export]
macro_rules! __elaborated {
    ($t:ty) => { $t };
}

/// `fptune::knob!(f64)`: a float type written as a generic argument (`integrate::<f64>(..)`,
/// `Rule::<f64> { .. }`, `rng.gen::<f64>()`) marked as a knob, as `#[tune]` marks a declaration.
/// It is the type itself wherever `#[fptune::tune]` does not take it out.
#[macro_export]
macro_rules! knob {
    ($t:ty) => { $t };
}

/// `fptune::typed_by_place!(cfg.get("h"))`: a value whose type the place it goes to gives (a call
/// generic in its result, `fn get<T: FromStr>(&self, key: &str) -> T`, in `let h: f64 = ..`).
/// Inside `#[fptune::tune]`, a store around such a value would leave rustc nothing to type it
/// from (E0283): the macro puts none. fptune writes it where a build asks for an annotation
/// there (`tuner/src/sources.rs`); it is the value itself.
#[macro_export]
macro_rules! typed_by_place {
    ($e:expr) => { $e };
}

pub use format::{Format, Promote, Repr};
pub use fptune_macros::tune;
#[doc(hidden)]
pub use fptune_macros::__convert;
pub use half::{bf16, f16};
pub use value::{Sbf16, Sf16, Sf32, Sf64, Stochastic, TAU};
pub use formats::{Fx, E4M3, E5M2, TF32};
pub use accel::machine_dot as dot;
