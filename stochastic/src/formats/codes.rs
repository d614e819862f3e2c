//! Bit codes of a [`Spec`]'s values: sign, exponent field, significand field, `1 + e + m` bits
//! in the low bits of a `u64`.

use super::arith::{self, Rounding};
use super::{Encoding, Spec};
use crate::round::pow2;

impl Spec {
    /// Width of a code in bits.
    pub const fn width(self) -> u32 {
        1 + self.exp_bits + self.man_bits
    }

    /// The value of a code (its bits above [`Spec::width`] ignored). NaN codes give NaN.
    pub fn decode(self, code: u64) -> f64 {
        let (e, m) = (self.exp_bits, self.man_bits);
        let man = code & ((1u64 << m) - 1);
        let field = (code >> m) & ((1u64 << e) - 1);
        let neg = (code >> (e + m)) & 1 == 1;
        let all_ones = (1u64 << e) - 1;
        let mag = match self.encoding {
            Encoding::Ieee if field == all_ones => {
                if man == 0 {
                    f64::INFINITY
                } else {
                    f64::NAN
                }
            }
            Encoding::FiniteNan if field == all_ones && man == (1u64 << m) - 1 => f64::NAN,
            _ if field == 0 => man as f64 * pow2(self.emin() - m as i32),
            _ => (man | (1u64 << m)) as f64 * pow2(field as i32 - self.bias() - m as i32),
        };
        if neg {
            -mag
        } else {
            mag
        }
    }

    /// The code of `x` rounded to nearest even onto the format ([`arith::round`]; exact for a
    /// value of the format). NaN gives the format's NaN code with `x`'s sign (IEEE: the quiet
    /// NaN, significand's top bit set; E4M3: every bit set).
    pub fn encode(self, x: f64) -> u64 {
        let (e, m) = (self.exp_bits, self.man_bits);
        let sign = u64::from(x.is_sign_negative()) << (e + m);
        let all_ones = (1u64 << e) - 1;
        let x = arith::round(self, x, Rounding::NearestEven);
        if x.is_nan() {
            let nan = match self.encoding {
                Encoding::Ieee => (all_ones << m) | (1u64 << (m - 1)),
                Encoding::FiniteNan => (all_ones << m) | ((1u64 << m) - 1),
            };
            return sign | nan;
        }
        if x.is_infinite() {
            return sign | (all_ones << m);
        }
        let ax = x.abs();
        if ax < self.min_normal() {
            // A subnormal (or zero): its significand counts quanta of 2^(emin - m).
            return sign | (ax / pow2(self.emin() - m as i32)) as u64;
        }
        let exp = (ax.to_bits() >> 52) as i32 - 1023;
        let man = (ax / pow2(exp - m as i32)) as u64 & ((1u64 << m) - 1);
        sign | (((exp + self.bias()) as u64) << m) | man
    }
}
