//! Accelerator dot products: a matrix unit's arithmetic as data ([`Unit`]), its presets, and the
//! `dot` and `matmul` that compute through it, natively bit for bit and under DSA.
//!
//! A tensor core does not round operation by operation as IEEE 754 arithmetic does: it forms a
//! block of products exactly, aligns them to the largest, drops the bits past its datapath, adds
//! them in a wide integer adder and rounds once, often by truncation. A [`Unit`] describes that
//! arithmetic as parameters (see `unit.rs`); the [`presets`] give NVIDIA's V100, A100 and
//! H100/H200 and AMD's MI200 DOT4 unit.
//!
//! - [`dot`] and [`matmul`] compute what the unit computes, bit for bit (the H100/H200 presets
//!   reproduce every tile a real H200 computed: `tests/h200_replay.rs`). Their inputs are `f32`,
//!   `f64`, [`half::f16`] or [`half::bf16`] values that should lie in the unit's input format;
//!   one that does not is **rounded to nearest even into it on entry** (as a conversion kernel
//!   would), subnormals flushed where the unit flushes them; the accumulator `c` likewise into
//!   the accumulator's format. Results are `f64`s holding values of the accumulator's format
//!   (exact as `f32`).
//! - [`dot_stochastic`] and [`matmul_stochastic`] do the same on [`crate::Stochastic`] values:
//!   each of the three samples goes through the model, and every rounding point of the model
//!   (the entry of a value onto the input grid, the alignment's truncation, the normalisation,
//!   the rounding into the accumulator, the addition to it) rounds up or down at random instead
//!   of as the unit does, drawn as every other operation of the runtime draws its directions
//!   (one draw per point, sample 2 opposite to sample 1). The digit estimate then covers the
//!   unit's error, as it covers IEEE rounding errors elsewhere.
//!
//! ```
//! use fptune::accel::{dot, H100_F16_F32};
//! // 1 + 2^-23 + 2^-24 in one block: truncated, not rounded up.
//! let a = [1.0f32, 2f32.powi(-23), 2f32.powi(-24)];
//! let b = [1.0f32; 3];
//! assert_eq!(dot(&H100_F16_F32, &a, &b, 0.0), 1.0 + 2f64.powi(-23));
//! ```
//!
//! Module map: `unit.rs` (the model's type and parameters), `presets.rs`, `model.rs` (one
//! evaluation through the steps), `exact.rs` (the integer rounding), `significand.rs` (a value as
//! the unit's integer significand and exponent; the formats are `crate::formats::Spec`s), `dsa.rs`
//! (the stochastic evaluation).

mod significand;
mod dsa;
mod select;
mod exact;
mod model;
pub mod presets;
mod unit;
#[cfg(test)]
mod tests;

pub use dsa::{dot_stochastic, matmul_stochastic};
pub use select::{machine_dot, unit_for, Dot, Machine};
pub use presets::*;
pub use unit::{AccEntry, AccFormat, Alignment, InputFormat, Rounding, Subnormals, Unit};

use model::{chain, enter_a, enter_acc, enter_b, Native};

/// The dot product `sum_l a[l] b[l] + c` as `unit` computes it (see the module documentation):
/// `ceil(n / k)` instructions chained through the accumulator, bit for bit the unit's result.
/// Inputs off the unit's input format are rounded to nearest into it first, `c` into the
/// accumulator's format. Panics when `a` and `b` differ in length.
pub fn dot<T: Copy + Into<f64>>(unit: &Unit, a: &[T], b: &[T], c: f64) -> f64 {
    let a: Vec<f64> = a.iter().map(|&x| enter_a(unit, x.into(), Rounding::NearestEven)).collect();
    let b: Vec<f64> = b.iter().map(|&x| enter_b(unit, x.into(), Rounding::NearestEven)).collect();
    chain(unit, &a, &b, enter_acc(unit, c, Rounding::NearestEven), &mut Native)
}

/// `C = A B + C` as `unit` computes it: `A` is `m x k`, `B` is `k x n`, `C` is `m x n`, all
/// row-major; each entry of `C` is [`dot`] of a row of `A`, a column of `B` and itself. Inputs are
/// entered once each (rounded to nearest into the unit's formats when they are not in them).
/// Panics when a slice's length does not match its shape.
pub fn matmul<T: Copy + Into<f64>>(unit: &Unit, m: usize, n: usize, k: usize, a: &[T], b: &[T], c: &mut [f64]) {
    assert!(a.len() == m * k && b.len() == k * n && c.len() == m * n, "matmul: shapes do not match the slices");
    let a: Vec<f64> = a.iter().map(|&x| enter_a(unit, x.into(), Rounding::NearestEven)).collect();
    // B's columns, contiguous.
    let mut bt = vec![0.0; k * n];
    for l in 0..k {
        for j in 0..n {
            bt[j * k + l] = enter_b(unit, b[l * n + j].into(), Rounding::NearestEven);
        }
    }
    for i in 0..m {
        for j in 0..n {
            let cij = enter_acc(unit, c[i * n + j], Rounding::NearestEven);
            c[i * n + j] = chain(unit, &a[i * k..(i + 1) * k], &bt[j * k..(j + 1) * k], cij, &mut Native);
        }
    }
}
