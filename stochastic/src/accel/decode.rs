//! The input and accumulator formats of a matrix unit as value grids (to be replaced by
//! `crate::formats`, the generic-format module, when it lands).
//!
//! A matrix unit reads binary16, bfloat16, TF32, OCP FP8 E4M3 or E5M2 and accumulates in binary32
//! or binary16. All that the model needs of them is here, privately: the grid of each format
//! ([`Grid`]: precision, exponent range, largest finite value, infinity or not), the exact
//! decomposition of a value of the grid into an integer significand and an exponent
//! ([`decompose`]). Values travel as `f64`, which holds every value of these formats
//! exactly.

/// A binary floating-point grid: `(-1)^s m 2^(e - p + 1)` with `m < 2^p`, `e >= emin`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Grid {
    /// Precision in bits, hidden bit included.
    pub p: u32,
    /// Exponent of the smallest normal value.
    pub emin: i32,
    /// Exponent of the largest finite value.
    pub emax: i32,
    /// The largest finite significand at `emax` (`2^p - 1` but for E4M3, whose top code is NaN).
    pub max_sig: u64,
    /// Whether the format has infinities (E4M3 has none: an overflow is NaN).
    pub inf: bool,
}

impl Grid {
    /// IEEE binary32.
    pub const F32: Grid = Grid { p: 24, emin: -126, emax: 127, max_sig: (1 << 24) - 1, inf: true };
    /// IEEE binary16.
    pub const F16: Grid = Grid { p: 11, emin: -14, emax: 15, max_sig: (1 << 11) - 1, inf: true };
    /// bfloat16.
    pub const BF16: Grid = Grid { p: 8, emin: -126, emax: 127, max_sig: (1 << 8) - 1, inf: true };
    /// NVIDIA TF32: binary32's range, binary16's precision.
    pub const TF32: Grid = Grid { p: 11, emin: -126, emax: 127, max_sig: (1 << 11) - 1, inf: true };
    /// OCP FP8 E4M3: no infinities, largest finite 448 = 1.75 x 2^8.
    pub const E4M3: Grid = Grid { p: 4, emin: -6, emax: 8, max_sig: 0b1110, inf: false };
    /// OCP FP8 E5M2: IEEE conventions.
    pub const E5M2: Grid = Grid { p: 3, emin: -14, emax: 15, max_sig: 0b111, inf: true };

    /// The largest finite value.
    pub fn max_finite(&self) -> f64 {
        self.max_sig as f64 * pow2(self.emax - self.p as i32 + 1)
    }
}

/// `2^e` for `e` in binary64's normal range.
pub(crate) fn pow2(e: i32) -> f64 {
    debug_assert!((-1022..=1023).contains(&e), "2^{e}");
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// `floor(log2 |x|)` of a nonzero finite `f64` that is normal in binary64 (every value of the
/// formats here is).
pub(crate) fn exponent(x: f64) -> i32 {
    ((x.to_bits() >> 52) & 0x7ff) as i32 - 1023
}

/// A nonzero finite value `x` of grid `g` as `(negative, m, e)` with `|x| = m 2^(e - p + 1)`,
/// `m < 2^p` and `e = max(floor(log2 |x|), emin)`: the significand as the hardware holds it and the
/// exponent it aligns by. `x` must lie on the grid (checked in debug builds).
pub(crate) fn decompose(x: f64, g: Grid) -> (bool, u64, i32) {
    let e = exponent(x).max(g.emin);
    let q = e - g.p as i32 + 1;
    let scaled = x.abs() * pow2(-q);
    debug_assert!(scaled.fract() == 0.0 && scaled < pow2(g.p as i32), "{x} is not on the grid");
    (x < 0.0, scaled as u64, e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_have_their_documented_largest_values() {
        assert_eq!(Grid::E4M3.max_finite(), 448.0);
        assert_eq!(Grid::E5M2.max_finite(), 57344.0);
        assert_eq!(Grid::F16.max_finite(), 65504.0);
    }

    #[test]
    fn decompose_gives_the_aligned_significand() {
        assert_eq!(decompose(1.5, Grid::F16), (false, 0b110_0000_0000, 0));
        assert_eq!(decompose(-pow2(-24), Grid::F16), (true, 1, -14));
        assert_eq!(decompose(448.0, Grid::E4M3), (false, 14, 8));
    }
}
