//! The DSA evaluation: each of a stochastic value's three samples through the model, every
//! rounding point rounded up or down at random.
//!
//! The three samples meet the same rounding points in the same order (their number depends only
//! on the unit and the lengths: `model.rs`), so one draw of [`crate::rng::direction_bits`] per
//! point serves all three, as for every operation of the runtime: sample 0 and sample 1 take its
//! two bits, sample 2 the opposite of sample 1. The draws of sample 0's pass are recorded and
//! replayed for the other two.

use super::model::{chain, enter_a, enter_acc, enter_b, Points};
use super::unit::{Rounding, Unit};
use crate::format::Format;
use crate::rng;
use crate::value::Stochastic;

/// Random directions for one sample: drawn (and recorded) on the first pass, replayed after.
struct Draws {
    bits: Vec<u64>,
    next: usize,
    sample: usize,
}

impl Points for Draws {
    fn at(&mut self, _native: Rounding) -> Rounding {
        if self.sample == 0 {
            self.bits.push(rng::direction_bits());
        }
        let b = self.bits[self.next];
        self.next += 1;
        if rng::directions_of(b)[self.sample] > 0.0 { Rounding::Up } else { Rounding::Down }
    }
}

impl Draws {
    fn new() -> Draws {
        Draws { bits: Vec::new(), next: 0, sample: 0 }
    }

    /// Starts the pass of sample `s` over the recorded draws.
    fn restart(&mut self, s: usize) {
        self.sample = s;
        self.next = 0;
    }
}

/// Sample `s` of every value, entered onto the input grid at random (one point per value).
fn enter_all<F: Format>(x: &[Stochastic<F>], s: usize, pts: &mut Draws, enter: impl Fn(f64, Rounding) -> f64) -> Vec<f64> {
    x.iter().map(|v| {
        let r = pts.at(Rounding::NearestEven);
        enter(v.samples_f64()[s], r)
    }).collect()
}

/// The three results of [`super::dot`]'s model on the three samples, with random rounding.
fn dot3<F: Format>(unit: &Unit, a: &[Stochastic<F>], b: &[Stochastic<F>], c: [f64; 3]) -> [f64; 3] {
    let mut pts = Draws::new();
    let mut out = [0.0; 3];
    for (s, o) in out.iter_mut().enumerate() {
        pts.restart(s);
        let av = enter_all(a, s, &mut pts, |x, r| enter_a(unit, x, r));
        let bv = enter_all(b, s, &mut pts, |x, r| enter_b(unit, x, r));
        let r = pts.at(Rounding::NearestEven);
        let cv = enter_acc(unit, c[s], r);
        *o = chain(unit, &av, &bv, cv, &mut pts);
    }
    out
}

/// The accumulator's values as samples of `G` (exact where `G` holds the accumulator's format,
/// as `f32` and `f64` hold binary32's; rounded to nearest otherwise).
fn to_samples<G: Format>(x: [f64; 3]) -> Stochastic<G> {
    Stochastic::from_repr(x.map(G::nearest))
}

/// [`super::dot`] under DSA: `sum_l a[l] b[l] + c` through `unit` for each sample, every rounding
/// point of the model rounded up or down at random, so that the result's digits
/// ([`Stochastic::digits`]) account for the unit's truncations and roundings. Inputs of a format
/// the unit does not read enter it by a random rounding too. Panics when `a` and `b` differ in
/// length.
pub fn dot_stochastic<F: Format, G: Format>(unit: &Unit, a: &[Stochastic<F>], b: &[Stochastic<F>], c: Stochastic<G>) -> Stochastic<G> {
    assert_eq!(a.len(), b.len(), "dot product of slices of different lengths");
    to_samples(dot3(unit, a, b, c.samples_f64()))
}

/// [`super::matmul`] under DSA: `C = A B + C` (row-major, `A` `m x k`, `B` `k x n`), each entry
/// by [`dot_stochastic`]. Panics when a slice's length does not match its shape.
pub fn matmul_stochastic<F: Format, G: Format>(unit: &Unit, m: usize, n: usize, k: usize, a: &[Stochastic<F>], b: &[Stochastic<F>], c: &mut [Stochastic<G>]) {
    assert!(a.len() == m * k && b.len() == k * n && c.len() == m * n, "matmul: shapes do not match the slices");
    let mut col = Vec::with_capacity(k);
    for j in 0..n {
        col.clear();
        col.extend((0..k).map(|l| b[l * n + j]));
        for i in 0..m {
            let r = dot3(unit, &a[i * k..(i + 1) * k], &col, c[i * n + j].samples_f64());
            c[i * n + j] = to_samples(r);
        }
    }
}
