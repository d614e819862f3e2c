//! The remainder operator `%` of stochastic values: each sample's remainder, as `f64`'s `%`.
//!
//! The remainder of two floating-point numbers (C's `fmod`, Rust's `%`) is exact: its result is
//! representable in the operands' format. Each sample is the remainder of the operands' samples,
//! rounded in a random direction like any result, which leaves it unchanged. The samples of a
//! remainder whose quotient is near an integer can differ by the divisor: the result is then
//! numerical noise, as it should be. An operand that is numerical noise counts an unstable
//! mathematical function, as for `fmod` in CADNA.

use std::ops::{Rem, RemAssign};

use crate::format::Format;
use crate::rng;
use crate::stochastic::Instability;
use crate::value::{note, Stochastic};

/// `a % b` in one format: sample `i` is `a_i % b_i` (exact), rounded in sample `i`'s random
/// direction. (A free function: no inherent name that `math.rs` might also want.)
fn remainder<F: Format>(a: Stochastic<F>, b: Stochastic<F>) -> Stochastic<F> {
    if a.is_noise() || b.is_noise() {
        note(Instability::UnstableMathFunction);
    }
    let d = rng::directions();
    let (x, y) = (a.samples_f64(), b.samples_f64());
    // Both samples are values of `F`, exactly widened: their remainder in `f64` is the remainder
    // in `F`, a value of `F`, so the directed rounding below is exact.
    Stochastic::from_repr(std::array::from_fn(|i| F::round(x[i] % y[i], d[i])))
}

impl<F: Format> Rem for Stochastic<F> {
    type Output = Self;
    /// Each sample's remainder (exact, as `f64`'s `%`).
    #[inline]
    fn rem(self, rhs: Self) -> Self {
        remainder(self, rhs)
    }
}

impl<F: Format> Rem<&Stochastic<F>> for Stochastic<F> {
    type Output = Self;
    #[inline]
    fn rem(self, rhs: &Self) -> Self {
        remainder(self, *rhs)
    }
}

impl<F: Format> Rem<Stochastic<F>> for &Stochastic<F> {
    type Output = Stochastic<F>;
    #[inline]
    fn rem(self, rhs: Stochastic<F>) -> Stochastic<F> {
        remainder(*self, rhs)
    }
}

impl<F: Format> Rem<&Stochastic<F>> for &Stochastic<F> {
    type Output = Stochastic<F>;
    #[inline]
    fn rem(self, rhs: &Stochastic<F>) -> Stochastic<F> {
        remainder(*self, *rhs)
    }
}

/// The primitive adapts to the stochastic operand's format (rounded to nearest, like a literal),
/// as for the other operators.
impl<F: Format> Rem<f64> for Stochastic<F> {
    type Output = Self;
    #[inline]
    fn rem(self, rhs: f64) -> Self {
        remainder(self, Self::from_f64(rhs))
    }
}

/// The primitive adapts to the stochastic operand's format.
impl<F: Format> Rem<Stochastic<F>> for f64 {
    type Output = Stochastic<F>;
    #[inline]
    fn rem(self, rhs: Stochastic<F>) -> Stochastic<F> {
        remainder(Stochastic::from_f64(self), rhs)
    }
}

impl<F: Format> RemAssign for Stochastic<F> {
    #[inline]
    fn rem_assign(&mut self, rhs: Self) {
        *self = remainder(*self, rhs);
    }
}

impl<F: Format> RemAssign<&Stochastic<F>> for Stochastic<F> {
    #[inline]
    fn rem_assign(&mut self, rhs: &Self) {
        *self = remainder(*self, *rhs);
    }
}

impl<F: Format> RemAssign<f64> for Stochastic<F> {
    #[inline]
    fn rem_assign(&mut self, rhs: f64) {
        *self = remainder(*self, Self::from_f64(rhs));
    }
}

#[cfg(test)]
mod tests {
    use crate::{Sbf16, Sf16, Sf32, Sf64};

    /// Exact operands: every sample is the primitive remainder, exactly.
    #[test]
    fn remainder_of_exact_values_is_the_primitive_remainder() {
        let cases: [(f64, f64); 7] = [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0), (1e300, 3.0), (0.3, 0.1), (5.0, 0.0), (-0.0, 1.0)];
        for (x, y) in cases {
            let r = Sf64::from(x) % Sf64::from(y);
            for s in r.samples() {
                assert!(s.to_bits() == (x % y).to_bits() || (s.is_nan() && (x % y).is_nan()), "{x} % {y}: {r:?}");
            }
            let (xf, yf) = (x as f32, y as f32);
            let r = Sf32::from(xf) % Sf32::from(yf);
            for s in r.samples() {
                assert!(s.to_bits() == (xf % yf).to_bits() || (s.is_nan() && (xf % yf).is_nan()), "{xf} % {yf}: {r:?}");
            }
        }
        let r = Sf16::from(7.5) % 2.0;
        assert_eq!(r.samples(), [half::f16::from_f64(1.5); 3]);
        let r = 7.5 % Sbf16::from(2.0);
        assert_eq!(r.samples(), [half::bf16::from_f64(1.5); 3]);
        let mut a = Sf64::from(10.0);
        a %= 4.0;
        a %= Sf64::from(1.5);
        assert_eq!(a.samples(), [0.5; 3]);
    }

    /// A quotient within rounding of an integer leaves samples on both sides of it: noise.
    #[test]
    fn remainder_at_an_integer_quotient_is_noise() {
        crate::stochastic::set_seed(5);
        let mut noisy = 0;
        for _ in 0..20 {
            let x = Sf64::from(0.1) * 30.0; // 3 up to rounding
            let r = x % Sf64::from(1.0);
            let s = r.samples();
            // Each sample is either tiny or just below 1.
            assert!(s.iter().all(|v| (0.0..1e-14).contains(v) || (1.0 - 1e-14..1.0).contains(v)), "{r:?}");
            noisy += usize::from(r.is_noise());
        }
        assert!(noisy > 0);
    }
}
