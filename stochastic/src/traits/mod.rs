//! The standard numeric traits for stochastic values, so that numerical code written generically
//! runs under discrete stochastic arithmetic.
//!
//! - `%` ([`std::ops::Rem`]): the remainder of each sample, exact as for `f64`.

mod rem;
