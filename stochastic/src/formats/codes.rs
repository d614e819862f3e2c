//! Bit codes of a [`Spec`]'s values: sign, exponent field, significand field, `1 + e + m` bits
//! in the low bits of a `u64` ([`Spec::width`]).

use super::arith::{self, Rounding};
use super::{Encoding, Spec};
use crate::round::pow2;

/// The value of a code (its bits above [`Spec::width`] ignored). NaN codes give NaN.
pub fn decode(spec: Spec, code: u64) -> f64 {
    let (e, m) = (spec.exp_bits, spec.man_bits);
    let man = code & ((1u64 << m) - 1);
    let field = (code >> m) & ((1u64 << e) - 1);
    let neg = (code >> (e + m)) & 1 == 1;
    let all_ones = (1u64 << e) - 1;
    let mag = match spec.encoding {
        Encoding::Ieee if field == all_ones => {
            if man == 0 {
                f64::INFINITY
            } else {
                f64::NAN
            }
        }
        Encoding::FiniteNan if field == all_ones && man == (1u64 << m) - 1 => f64::NAN,
        _ if field == 0 => man as f64 * pow2(spec.emin() - m as i32),
        _ => (man | (1u64 << m)) as f64 * pow2(field as i32 - spec.bias() - m as i32),
    };
    if neg {
        -mag
    } else {
        mag
    }
}

/// The code of `x` rounded to nearest even onto the format ([`arith::round`]; exact for a value
/// of the format). NaN gives the format's NaN code with `x`'s sign (IEEE: the quiet NaN,
/// significand's top bit set; E4M3: every bit set).
pub fn encode(spec: Spec, x: f64) -> u64 {
    let (e, m) = (spec.exp_bits, spec.man_bits);
    let sign = u64::from(x.is_sign_negative()) << (e + m);
    let all_ones = (1u64 << e) - 1;
    let x = arith::round(spec, x, Rounding::NearestEven);
    if x.is_nan() {
        let nan = match spec.encoding {
            Encoding::Ieee => (all_ones << m) | (1u64 << (m - 1)),
            Encoding::FiniteNan => (all_ones << m) | ((1u64 << m) - 1),
        };
        return sign | nan;
    }
    if x.is_infinite() {
        return sign | (all_ones << m);
    }
    let ax = x.abs();
    if ax < spec.min_normal() {
        // A subnormal (or zero): its significand counts quanta of 2^(emin - m).
        return sign | (ax / pow2(spec.emin() - m as i32)) as u64;
    }
    let exp = (ax.to_bits() >> 52) as i32 - 1023;
    let man = (ax / pow2(exp - m as i32)) as u64 & ((1u64 << m) - 1);
    sign | (((exp + spec.bias()) as u64) << m) | man
}
