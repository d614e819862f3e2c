//! Three-sample kernels for `+` and `*`: the same exact directed roundings as `round.rs`, computed
//! on all samples of an operation at once, branch-free, in a form the compiler turns into SIMD.
//!
//! Every function here returns, bit for bit, what the scalar kernels of `round.rs` return for
//! each sample (the tests at the end compare them on random and special operands); operands for
//! which a shortcut below would not be exact go to those kernels. What is faster:
//!
//! - The direction of each sample is a sign mask (`0` toward +inf, the sign bit toward -inf), so
//!   "the exact value lies beyond the rounded one in direction `dir`" is one comparison of two
//!   values whose signs were flipped by the mask, and the step is an integer add on the bits.
//! - Sums use Fast2Sum on the operands ordered by magnitude: with `|x| >= |y|` and `s = RN(x+y)`,
//!   `t = s - x` is exact and the error is `y - t`, so its sign is the comparison of `y` and `t`
//!   (no rounding error term is computed). An overflow to infinity steps back to the largest
//!   finite value exactly when it should, as `t` is then infinite too.
//! - binary16 and bfloat16 results are rounded onto their grid inside `f32` with the
//!   add-and-subtract of a power of two (round to nearest onto the grid), then one step in the
//!   direction when the exact value lies beyond.
//!
//! One file per target: `scalar.rs` (targets other than x86_64), `x86.rs` (SSE2, AVX and FMA as
//! compiled, and the dispatch to the kernels chosen at run time), and under `x86/` the four
//! `f64` lanes with AVX (`avx.rs`) or SSE2 (`sse2.rs`), binary16 by F16C (`f16c.rs`), AVX-512
//! intrinsics (`avx512.rs`), and the kernels a build without AVX chooses at run time, as inline
//! assembly: FMA products (`fma_asm.rs`) and AVX-512 (`avx512_asm.rs`).

const SIGN64: u64 = 1 << 63;
const SIGN32: u32 = 1 << 31;
/// [`range_events_f32`]: a sample overflowed.
pub(crate) const OVERFLOWED: u32 = 1;
/// [`range_events_f32`]: a sample underflowed.
pub(crate) const UNDERFLOWED: u32 = 2;
/// Below this magnitude an `f64` product residual could underflow (as in `round.rs`).
const TINY64: f64 = f64::from_bits(((-968i64 + 1023) as u64) << 52);
/// Above this magnitude Dekker's splitting could overflow (as in `round.rs`).
const HUGE64: f64 = f64::from_bits(((995i64 + 1023) as u64) << 52);

/// The sign masks of the three samples' directions from the two random bits of
/// [`crate::rng::direction_bits`]: sample 2 rounds opposite to sample 1.
#[inline(always)]
fn masks64(bits: u64) -> [u64; 3] {
    let m1 = (bits >> 1) << 63;
    [bits << 63, m1, m1 ^ SIGN64]
}

/// The `±1.0` directions of the scalar kernels.
#[inline(always)]
fn dirs(bits: u64) -> [f64; 3] {
    masks64(bits).map(|m| f64::from_bits(1f64.to_bits() | m))
}

/// Chooses the kernels, once per process, before `main` (`startup.rs`): on x86_64 builds without
/// AVX, the AVX-512 ones (`avx512_asm`) when the CPU has AVX-512F, AVX-512VL and F16C, else the
/// FMA ones (`fma_asm`, binary64 products) when it has FMA, within the cap of
/// [`crate::stochastic::SIMD_ENV`]. The choice is two bits of the detection mask
/// ([`crate::stochastic::cpu_flags`]) that the operators load anyway and pass to the kernels as
/// `cpu`: no extra load per operation. Until it runs (and where no constructor runs) the
/// operators use the SSE2 kernels.
pub(crate) fn choose_kernels() {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx")))]
    {
        use crate::contract::{SIMD_ENV, SIMD_FMA, SIMD_SSE2};
        use crate::stochastic::{FMA_BIT, SIMD_BIT};
        let cap = match std::env::var(SIMD_ENV).as_deref().map(str::trim) {
            Ok(SIMD_SSE2) => 0,
            Ok(SIMD_FMA) => FMA_BIT,
            _ => FMA_BIT | SIMD_BIT,
        };
        let mut flags = 0;
        if is_x86_feature_detected!("fma") && is_x86_feature_detected!("avx") {
            flags |= FMA_BIT;
        }
        if is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512vl")
            && is_x86_feature_detected!("f16c")
        {
            flags |= SIMD_BIT;
        }
        crate::stochastic::enable_cpu(flags & cap);
    }
}

/// Which kernels the operators use: compiled in, or chosen at run time (and which).
pub(crate) fn describe() -> &'static str {
    if cfg!(not(target_arch = "x86_64")) {
        return "scalar";
    }
    if cfg!(target_feature = "avx512f") {
        return "AVX-512 (compiled in)";
    }
    if cfg!(target_feature = "fma") {
        return "AVX2/FMA (compiled in)";
    }
    if cfg!(target_feature = "avx") {
        return "AVX (compiled in)";
    }
    let flags = crate::stochastic::cpu_flags(crate::stochastic::detect_mask());
    if flags & crate::stochastic::SIMD_BIT != 0 {
        "AVX-512 (chosen at run time)"
    } else if flags & crate::stochastic::FMA_BIT != 0 {
        "SSE2, FMA products (chosen at run time)"
    } else {
        "SSE2 (Dekker's product)"
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod scalar;
#[cfg(not(target_arch = "x86_64"))]
use scalar as imp;
#[cfg(target_arch = "x86_64")]
mod x86;
#[cfg(target_arch = "x86_64")]
use x86 as imp;

/// `round.rs`'s directed rounding of each of three `f64` samples onto binary32.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "avx512f"), allow(dead_code))]
#[inline(always)]
fn round3_f32_each(x: [f64; 3], bits: u64) -> [f32; 3] {
    crate::format::round3_each::<f32>(x, bits)
}

/// `round.rs`'s directed rounding of each of three `f64` samples onto binary16 (in `f32`).
#[cfg_attr(all(target_arch = "x86_64", target_feature = "avx512f", target_feature = "f16c"), allow(dead_code))]
#[inline(always)]
fn round3_f16_each(x: [f64; 3], bits: u64) -> [f32; 3] {
    crate::format::round3_each::<half::f16>(x, bits)
}

pub(crate) use imp::{
    add3_f32, add3_f64, add3_grid, all_nonzero_finite_f32, exact_finite_f64, range_events_f32, mul3_bf16, mul3_exact_f64, mul3_f16, mul3_f32, mul3_f64, round3_f16, round3_f32, BF16, F16,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::round;

    /// The crate's test generator (SplitMix64), with the operand shapes these tests need.
    struct Rng(Box<dyn FnMut() -> u64>);
    impl Rng {
        fn new(seed: u64) -> Rng {
            Rng(Box::new(crate::value::splitmix(seed)))
        }
        fn next(&mut self) -> u64 {
            (self.0)()
        }
        /// Random bits, exponents near each other, special values, or sums and products that
        /// land near the extremes.
        fn f64(&mut self) -> f64 {
            let r = self.next();
            match r % 8 {
                0 => f64::from_bits(self.next()),
                1 => [0.0, -0.0, f64::INFINITY, -f64::INFINITY, f64::NAN, f64::MAX, -f64::MAX,
                    f64::MIN_POSITIVE, 5e-324, -5e-324, 1.0, -1.0][(r >> 8) as usize % 12],
                2 => f64::from_bits((self.next() >> 12) | (((r >> 8) % 2048) << 52)),
                _ => {
                    let e = ((r >> 8) % 120) as i32 - 60;
                    let x = (self.next() >> 11) as f64 / (1u64 << 53) as f64 + 0.5;
                    let x = x * 2f64.powi(e);
                    if r >> 20 & 1 == 0 { x } else { -x }
                }
            }
        }
        fn f32(&mut self) -> f32 {
            let r = self.next();
            match r % 8 {
                0 => f32::from_bits(self.next() as u32),
                1 => [0.0, -0.0, f32::INFINITY, -f32::INFINITY, f32::NAN, f32::MAX, -f32::MAX,
                    f32::MIN_POSITIVE, 1e-45, -1e-45, 1.0, -1.0][(r >> 8) as usize % 12],
                _ => {
                    let e = ((r >> 8) % 60) as i32 - 30;
                    let x = (self.next() >> 40) as f32 / (1u64 << 24) as f32 + 0.5;
                    let x = x * 2f32.powi(e);
                    if r >> 20 & 1 == 0 { x } else { -x }
                }
            }
        }
    }

    /// A choice of the kernels this CPU has (at random, so that the tests check each).
    fn cpu(g: &mut Rng) -> u32 {
        let have = crate::stochastic::cpu_flags(crate::stochastic::detect_mask());
        have & [0, crate::stochastic::FMA_BIT, crate::stochastic::SIMD_BIT, u32::MAX][(g.next() % 4) as usize]
    }

    fn same64(x: f64, y: f64) -> bool {
        x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
    }

    fn same32(x: f32, y: f32) -> bool {
        x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
    }

    /// Values a narrowing conversion must get right: random bits, the special values, exact
    /// binary32 and binary16 values and their neighbours, midpoints between them, and the ends
    /// of both ranges (overflow thresholds, subnormals, below the smallest subnormal).
    fn narrowing_case(g: &mut Rng) -> f64 {
        let r = g.next();
        let sign = if r >> 60 & 1 == 0 { 1.0 } else { -1.0 };
        match r % 8 {
            0 | 1 => g.f64(),
            2 => f64::from(g.f32()),
            3 => {
                // A binary16 value (subnormals included), or a step away from it.
                let h = half::f16::from_bits(g.next() as u16);
                let x = f64::from(h.to_f32());
                let ulp = 2f64.powi(-24).max(x.abs() * 2f64.powi(-11));
                x + ulp * [0.0, 0.5, -0.5, 0.25, 1e-9, -1e-9][(r >> 8) as usize % 6]
            }
            4 => sign * [65504.0, 65519.99, 65520.0, 65536.0, 6.0e-8, 2.98e-8, 2f64.powi(-25), 1e-12,
                f64::from(f32::MAX), f64::from(f32::MAX) * (1.0 + 1e-12), 3.5e38, 1e300,
                f64::from(f32::MIN_POSITIVE), 1.4e-45, 7e-46, 7.006e-46, 1e-300, 0.0][(r >> 8) as usize % 18],
            5 => {
                // Just off a binary32 value (a residual below the binary32 ulp).
                let x = f64::from(g.f32());
                x * (1.0 + sign * 2f64.powi(-30 - (r >> 8) as i32 % 20))
            }
            _ => {
                let e = ((r >> 8) % 180) as i32 - 150;
                sign * ((g.next() >> 11) as f64 / (1u64 << 53) as f64 + 0.5) * 2f64.powi(e)
            }
        }
    }

    #[test]
    fn narrowing_kernels_match_round_rs() {
        let mut g = Rng::new(7);
        for _ in 0..400_000 {
            let x = [narrowing_case(&mut g), narrowing_case(&mut g), narrowing_case(&mut g)];
            let bits = g.next() % 4;
            let d = dirs(bits);
            let cpu = cpu(&mut g);
            let (r32, r16) = (round3_f32(x, bits, cpu), round3_f16(x, bits, cpu));
            for i in 0..3 {
                let e32 = round::f64_to_f32(x[i], d[i]);
                let e16 = round::grid_round(x[i], 0.0, d[i], round::GRID_F16) as f32;
                assert!(same32(r32[i], e32), "binary32 {:e} dir {}: {:e} vs {:e} (cpu {cpu:x})", x[i], d[i], r32[i], e32);
                assert!(same32(r16[i], e16), "binary16 {:e} dir {}: {:e} vs {:e} (cpu {cpu:x})", x[i], d[i], r16[i], e16);
            }
        }
    }

    #[test]
    fn f64_kernels_match_round_rs() {
        let mut g = Rng::new(1);
        for _ in 0..400_000 {
            let (a, b) = ([g.f64(), g.f64(), g.f64()], [g.f64(), g.f64(), g.f64()]);
            let b = if g.next().is_multiple_of(4) { [-a[0] * 0.75, b[1], -a[2]] } else { b };
            let bits = g.next() % 4;
            let d = dirs(bits);
            let cpu = cpu(&mut g);
            let (s, p) = (add3_f64(a, b, bits, cpu), mul3_f64(a, b, bits, cpu));
            let pe = mul3_exact_f64(a[0], b[0], bits, cpu);
            #[cfg(target_arch = "x86_64")]
            let (sv, pv) = (imp::add3_f64_v(a, b, bits), imp::mul3_f64_v(a, b, bits));
            #[cfg(target_arch = "x86_64")]
            for i in 0..3 {
                // The SSE2/AVX forms too, whether or not AVX-512 replaces them.
                assert!(same64(sv[i], s[i]) && same64(pv[i], p[i]), "{a:?} {b:?} {bits}");
            }
            for i in 0..3 {
                let re = round::mul_f64(a[0], b[0], d[i]);
                assert!(same64(pe[i], re), "{:e} * {:e} dir {}: {:e} vs {:e}", a[0], b[0], d[i], pe[i], re);
                let (rs, rp) = (round::add_f64(a[i], b[i], d[i]), round::mul_f64(a[i], b[i], d[i]));
                assert!(same64(s[i], rs), "{:e} + {:e} dir {}: {:e} vs {:e}", a[i], b[i], d[i], s[i], rs);
                assert!(same64(p[i], rp), "{:e} * {:e} dir {}: {:e} vs {:e}", a[i], b[i], d[i], p[i], rp);
            }
        }
    }

    #[test]
    fn exact_finite_f64_compares_bits() {
        let mut g = Rng::new(4);
        for _ in 0..200_000 {
            let x = g.f64();
            let y = if g.next().is_multiple_of(2) { x } else { g.f64() };
            let s = match g.next() % 4 {
                0 => [x, x, x],
                1 => [x, x, y],
                2 => [y, x, x],
                _ => [x, y, x],
            };
            let [a, b, c] = s.map(f64::to_bits);
            let expected = a == b && b == c && s[0].is_finite();
            assert_eq!(exact_finite_f64(s), expected, "{s:?}");
        }
        assert!(!exact_finite_f64([0.0, -0.0, 0.0]));
        assert!(exact_finite_f64([-0.0, -0.0, -0.0]));
        assert!(!exact_finite_f64([f64::INFINITY; 3]));
        assert!(!exact_finite_f64([f64::NAN; 3]));
    }

    /// A random binary16 (or bfloat16) value as f32: random bits, or values near the extremes.
    fn sixteen(g: &mut Rng, bf: bool) -> f32 {
        let r = g.next();
        let x = if r.is_multiple_of(5) {
            [0.0, -0.0, f32::INFINITY, -f32::INFINITY, f32::NAN, 65504.0, -65504.0, 6.0e-8, 1.0]
                [(r >> 8) as usize % 9]
        } else if bf {
            half::bf16::from_bits((r >> 16) as u16).to_f32()
        } else {
            half::f16::from_bits((r >> 16) as u16).to_f32()
        };
        if r >> 40 & 7 == 0 && !bf {
            // Small values whose sums and products stay in range.
            half::f16::from_bits((r >> 16) as u16 & 0x3fff).to_f32()
        } else {
            x
        }
    }

    #[test]
    fn sixteen_bit_kernels_match_round_rs() {
        let mut g = Rng::new(3);
        for bf in [false, true] {
            let grid = if bf { round::GRID_BF16 } else { round::GRID_F16 };
            for _ in 0..400_000 {
                let a = [sixteen(&mut g, bf), sixteen(&mut g, bf), sixteen(&mut g, bf)];
                let b = [sixteen(&mut g, bf), sixteen(&mut g, bf), sixteen(&mut g, bf)];
                let b = if g.next().is_multiple_of(4) { [-a[0], b[1], a[2]] } else { b };
                let bits = g.next() % 4;
                let d = dirs(bits);
                let cpu = cpu(&mut g);
                let s = add3_grid(a, b, bits, if bf { &BF16 } else { &F16 }, cpu);
                let p = if bf { mul3_bf16(a, b, bits, cpu) } else { mul3_f16(a, b, bits, cpu) };
                #[cfg(target_arch = "x86_64")]
                {
                    // The forms without AVX-512 too, whether or not AVX-512 replaces them.
                    let sv = imp::add3_grid_v(a, b, bits, if bf { &BF16 } else { &F16 });
                    let pv = if bf { p } else { imp::mul3_f16_v(a, b, bits) };
                    for i in 0..3 {
                        assert!(same32(sv[i], s[i]) && same32(pv[i], p[i]), "{a:?} {b:?} {bits}");
                    }
                }
                for i in 0..3 {
                    let rs = round::add_grid(a[i], b[i], d[i], grid);
                    let rp = round::mul_grid(a[i], b[i], d[i], grid);
                    assert!(same32(s[i], rs), "bf16 {bf}: {:e} + {:e} dir {}: {:e} vs {:e}", a[i], b[i], d[i], s[i], rs);
                    assert!(same32(p[i], rp), "bf16 {bf}: {:e} * {:e} dir {}: {:e} vs {:e}", a[i], b[i], d[i], p[i], rp);
                }
            }
        }
    }

    #[test]
    fn f32_kernels_match_round_rs() {
        let mut g = Rng::new(2);
        for _ in 0..400_000 {
            let (a, b) = ([g.f32(), g.f32(), g.f32()], [g.f32(), g.f32(), g.f32()]);
            let b = if g.next().is_multiple_of(4) { [-a[0] * 0.75, b[1], -a[2]] } else { b };
            let bits = g.next() % 4;
            let d = dirs(bits);
            let cpu = cpu(&mut g);
            let (s, p) = (add3_f32(a, b, bits, cpu), mul3_f32(a, b, bits, cpu));
            #[cfg(target_arch = "x86_64")]
            let (sv, pv) = (imp::add3_f32_v(a, b, bits), imp::mul3_f32_v(a, b, bits));
            #[cfg(target_arch = "x86_64")]
            for i in 0..3 {
                assert!(same32(sv[i], s[i]) && same32(pv[i], p[i]), "{a:?} {b:?} {bits}");
            }
            for i in 0..3 {
                let (rs, rp) = (round::add_f32(a[i], b[i], d[i]), round::mul_f32(a[i], b[i], d[i]));
                assert!(same32(s[i], rs), "{:e} + {:e} dir {}: {:e} vs {:e}", a[i], b[i], d[i], s[i], rs);
                assert!(same32(p[i], rp), "{:e} * {:e} dir {}: {:e} vs {:e}", a[i], b[i], d[i], p[i], rp);
            }
        }
    }
}
