//! `Fx<E, M, FLAGS>` as a format of stochastic values (`Stochastic<Fx<..>>`): samples held in
//! `f64`, each operation's exact result rounded onto the format's grid in the sample's random
//! direction (`arith`), digits capped at the format's precision.
//!
//! The kernels are the generic ones (one sample at a time, no SIMD lanes): a custom format costs
//! more than the four, whose speed is unchanged. Overflow and underflow are detected as for the
//! 16-bit formats; a sample that became NaN from finite operands (E4M3 has no infinities) counts
//! as an overflow. Saturating formats hide their overflows, as the hardware does.

use super::arith::{self, Rounding};
use super::fx::Fx;
use super::Spec;
use crate::format::{sealed, Format};

impl<const E: u32, const M: u32, const FLAGS: u32> sealed::Sealed for Fx<E, M, FLAGS> {}

impl<const E: u32, const M: u32, const FLAGS: u32> Fx<E, M, FLAGS> {
    const NAME_BUF: ([u8; super::NAME_BYTES], usize) = Self::SPEC.name_bytes();
    const NAME_ARRAY: &'static [u8; super::NAME_BYTES] = &Self::NAME_BUF.0;
}

impl<const E: u32, const M: u32, const FLAGS: u32> Format for Fx<E, M, FLAGS> {
    type Repr = f64;
    const NAME: &'static str = match std::str::from_utf8(Self::NAME_ARRAY.split_at(Self::NAME_BUF.1).0) {
        Ok(s) => s,
        Err(_) => panic!("format names are ASCII"),
    };
    const RUST: &'static str = "fptune::Fx";
    const PRECISION: u32 = M + 1;
    const MAX_DIGITS: f64 = (M + 1) as f64 * std::f64::consts::LOG10_2;
    const LIMITED_RANGE: bool = true;
    const SPEC: Spec = Fx::<E, M, FLAGS>::SPEC;

    #[inline(always)]
    fn from_repr(r: f64) -> Self {
        Fx::on_grid(r)
    }
    #[inline(always)]
    fn to_repr(self) -> f64 {
        self.to_f64()
    }
    #[inline(always)]
    fn to_bits64(self) -> u64 {
        self.to_f64().to_bits()
    }
    #[inline(always)]
    fn from_bits64(b: u64) -> Self {
        Fx::on_grid(f64::from_bits(b))
    }
    #[inline(always)]
    fn nearest(x: f64) -> f64 {
        arith::round(Self::SPEC, x, Rounding::NearestEven)
    }
    #[inline(always)]
    fn round(x: f64, dir: f64) -> f64 {
        arith::round(Self::SPEC, x, Rounding::directed(dir))
    }
    #[inline(always)]
    fn add(a: f64, b: f64, dir: f64) -> f64 {
        arith::add(Self::SPEC, a, b, Rounding::directed(dir))
    }
    #[inline(always)]
    fn mul(a: f64, b: f64, dir: f64) -> f64 {
        arith::mul(Self::SPEC, a, b, Rounding::directed(dir))
    }
    #[inline(always)]
    fn div(a: f64, b: f64, dir: f64) -> f64 {
        arith::div(Self::SPEC, a, b, Rounding::directed(dir))
    }
    #[inline(always)]
    fn sqrt(a: f64, dir: f64) -> f64 {
        arith::sqrt(Self::SPEC, a, Rounding::directed(dir))
    }
    #[inline(always)]
    fn exact(x: f64) -> f64 {
        x
    }

    /// As the default, and a sample that became NaN from finite operands overflowed too (E4M3's
    /// overflow).
    #[inline(always)]
    fn range_events(r: [f64; 3], a: [f64; 3], b: [f64; 3], exact_nonzero: bool) -> u32 {
        crate::format::range_events_where::<Self>(r, a, b, exact_nonzero, |r| !r.is_finite())
    }
}
