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

/// Chooses the kernels, once per process: on x86_64 builds without AVX, the AVX-512 ones
/// (`rt512`) when the CPU has AVX-512F, AVX-512VL and F16C, else the FMA ones (`rtfma`, binary64
/// products) when it has FMA, within the cap of [`crate::stochastic::SIMD_ENV`]. The choice is two bits of the
/// detection mask ([`crate::stochastic::cpu_flags`]) that the operators load anyway and pass to
/// the kernels as `cpu`: no extra load per operation.
pub(crate) fn init() {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx")))]
    {
        use std::sync::atomic::{AtomicBool, Ordering};

        use crate::stochastic::{FMA_BIT, SIMD_BIT, SIMD_ENV};
        static DONE: AtomicBool = AtomicBool::new(false);
        if !DONE.load(Ordering::Relaxed) {
            let cap = match std::env::var(SIMD_ENV).as_deref().map(str::trim) {
                Ok("sse2") => 0,
                Ok("fma") => FMA_BIT,
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
            DONE.store(true, Ordering::Relaxed);
        }
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
    init();
    let flags = crate::stochastic::cpu_flags(crate::stochastic::detect_mask());
    if flags & crate::stochastic::SIMD_BIT != 0 {
        "AVX-512 (chosen at run time)"
    } else if flags & crate::stochastic::FMA_BIT != 0 {
        "SSE2, FMA products (chosen at run time)"
    } else {
        "SSE2 (Dekker's product)"
    }
}

// The scalar form of the kernels below (other targets): `round.rs` lane by lane.
#[cfg(not(target_arch = "x86_64"))]
mod imp {
    use super::dirs;
    use crate::round;

    #[inline(always)]
    pub(crate) fn add3_f64(a: [f64; 3], b: [f64; 3], bits: u64, _cpu: u32) -> [f64; 3] {
        let d = dirs(bits);
        std::array::from_fn(|i| round::add_f64(a[i], b[i], d[i]))
    }
    #[inline(always)]
    pub(crate) fn mul3_f64(a: [f64; 3], b: [f64; 3], bits: u64, _cpu: u32) -> [f64; 3] {
        let d = dirs(bits);
        std::array::from_fn(|i| round::mul_f64(a[i], b[i], d[i]))
    }
    #[inline(always)]
    pub(crate) fn add3_f32(a: [f32; 3], b: [f32; 3], bits: u64, _cpu: u32) -> [f32; 3] {
        let d = dirs(bits);
        std::array::from_fn(|i| round::add_f32(a[i], b[i], d[i]))
    }
    #[inline(always)]
    pub(crate) fn mul3_f32(a: [f32; 3], b: [f32; 3], bits: u64, _cpu: u32) -> [f32; 3] {
        let d = dirs(bits);
        std::array::from_fn(|i| round::mul_f32(a[i], b[i], d[i]))
    }

    #[inline(always)]
    pub(crate) fn mul3_exact_f64(a: f64, b: f64, bits: u64, cpu: u32) -> [f64; 3] {
        mul3_f64([a; 3], [b; 3], bits, cpu)
    }

    #[inline(always)]
    pub(crate) fn all_nonzero_finite_f32(s: [f32; 3]) -> bool {
        s.iter().all(|r| r.abs() > 0.0 && r.abs() < f32::INFINITY)
    }

    #[inline(always)]
    pub(crate) fn range_events_f32(r: [f32; 3], a: [f32; 3], b: [f32; 3], exact_nonzero: bool) -> u32 {
        let mut events = 0;
        for i in 0..3 {
            let finite = a[i].is_finite() && b[i].is_finite();
            if finite && r[i].is_infinite() {
                events |= super::OVERFLOWED;
            }
            if exact_nonzero && finite && r[i] == 0.0 && a[i] != 0.0 && b[i] != 0.0 {
                events |= super::UNDERFLOWED;
            }
        }
        events
    }

    #[inline(always)]
    pub(crate) fn exact_finite_f64(s: [f64; 3]) -> bool {
        let [a, b, c] = s.map(f64::to_bits);
        (a == b) & (b == c) & f64::from_bits(a).is_finite()
    }

    pub(crate) type Grid16 = round::Grid;
    pub(crate) const F16: Grid16 = round::GRID_F16;
    pub(crate) const BF16: Grid16 = round::GRID_BF16;

    #[inline(always)]
    pub(crate) fn add3_grid(a: [f32; 3], b: [f32; 3], bits: u64, g: &Grid16, _cpu: u32) -> [f32; 3] {
        let d = dirs(bits);
        std::array::from_fn(|i| round::add_grid(a[i], b[i], d[i], *g))
    }
    #[inline(always)]
    pub(crate) fn mul3_f16(a: [f32; 3], b: [f32; 3], bits: u64, _cpu: u32) -> [f32; 3] {
        let d = dirs(bits);
        std::array::from_fn(|i| round::mul_grid(a[i], b[i], d[i], F16))
    }
    #[inline(always)]
    pub(crate) fn mul3_bf16(a: [f32; 3], b: [f32; 3], bits: u64, _cpu: u32) -> [f32; 3] {
        let d = dirs(bits);
        std::array::from_fn(|i| round::mul_grid(a[i], b[i], d[i], BF16))
    }
    #[inline(always)]
    pub(crate) fn round3_f32(x: [f64; 3], bits: u64, _cpu: u32) -> [f32; 3] {
        super::round3_f32_each(x, bits)
    }
    #[inline(always)]
    pub(crate) fn round3_f16(x: [f64; 3], bits: u64, _cpu: u32) -> [f32; 3] {
        super::round3_f16_each(x, bits)
    }
}

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

#[cfg(target_arch = "x86_64")]
mod imp {
    //! SSE2 (always there on x86_64), AVX and FMA when compiled for them. The three samples are
    //! four lanes, the fourth a copy of the third.

    use std::arch::x86_64::*;

    use super::{dirs, HUGE64, SIGN32, SIGN64, TINY64};
    // The per-sample fallbacks, where the build has no AVX-512 kernel compiled in.
    #[cfg(not(all(target_feature = "avx512f", target_feature = "f16c")))]
    use super::round3_f16_each;
    #[cfg(not(target_feature = "avx512f"))]
    use super::round3_f32_each;
    use crate::round;
    #[cfg(not(target_feature = "avx"))]
    use crate::stochastic::{FMA_BIT, SIMD_BIT};

    /// Direction sign masks of each draw of two random bits, four lanes.
    static MASKS64: [[u64; 4]; 4] = {
        let mut t = [[0u64; 4]; 4];
        let mut bits = 0;
        while bits < 4 {
            let m1 = ((bits as u64) >> 1) << 63;
            t[bits] = [(bits as u64 & 1) << 63, m1, m1 ^ SIGN64, m1 ^ SIGN64];
            bits += 1;
        }
        t
    };
    static MASKS32: [[u32; 4]; 4] = {
        let mut t = [[0u32; 4]; 4];
        let mut bits = 0;
        while bits < 4 {
            let m1 = ((bits as u32) >> 1) << 31;
            t[bits] = [(bits as u32 & 1) << 31, m1, m1 ^ SIGN32, m1 ^ SIGN32];
            bits += 1;
        }
        t
    };

    // ------------------------------------------------------------------------------------------
    // Four f64 lanes: one AVX register, or two SSE2 registers.
    // ------------------------------------------------------------------------------------------

    #[cfg(target_feature = "avx")]
    mod v64 {
        use std::arch::x86_64::*;

        #[derive(Clone, Copy)]
        pub(super) struct V(__m256d);

        // SAFETY (every `unsafe` block of this module): AVX is enabled at compile time, and the
        // loads and stores read or write exactly the arrays they are given.
        impl V {
            #[inline(always)]
            pub fn load3(a: &[f64; 3]) -> V {
                V(unsafe { _mm256_set_pd(a[2], a[2], a[1], a[0]) })
            }
            #[inline(always)]
            pub fn load_bits(a: &[u64; 4]) -> V {
                V(unsafe { _mm256_loadu_pd(a.as_ptr().cast()) })
            }
            #[inline(always)]
            pub fn store3(self) -> [f64; 3] {
                let mut out = [0.0; 4];
                unsafe { _mm256_storeu_pd(out.as_mut_ptr(), self.0) };
                [out[0], out[1], out[2]]
            }
            #[inline(always)]
            pub fn splat(x: f64) -> V {
                V(unsafe { _mm256_set1_pd(x) })
            }
            #[inline(always)]
            pub fn splat_bits(x: u64) -> V {
                V::splat(f64::from_bits(x))
            }
            #[inline(always)]
            pub fn add(self, o: V) -> V {
                V(unsafe { _mm256_add_pd(self.0, o.0) })
            }
            #[inline(always)]
            pub fn sub(self, o: V) -> V {
                V(unsafe { _mm256_sub_pd(self.0, o.0) })
            }
            #[inline(always)]
            pub fn mul(self, o: V) -> V {
                V(unsafe { _mm256_mul_pd(self.0, o.0) })
            }
            /// `self * o - p`, one rounding (only called with FMA).
            #[cfg(target_feature = "fma")]
            #[inline(always)]
            pub fn fmsub(self, o: V, p: V) -> V {
                V(unsafe { _mm256_fmsub_pd(self.0, o.0, p.0) })
            }
            #[inline(always)]
            pub fn max(self, o: V) -> V {
                V(unsafe { _mm256_max_pd(self.0, o.0) })
            }
            #[cfg(not(target_feature = "fma"))]
            #[inline(always)]
            pub fn min(self, o: V) -> V {
                V(unsafe { _mm256_min_pd(self.0, o.0) })
            }
            #[inline(always)]
            pub fn and(self, o: V) -> V {
                V(unsafe { _mm256_and_pd(self.0, o.0) })
            }
            #[inline(always)]
            pub fn or(self, o: V) -> V {
                V(unsafe { _mm256_or_pd(self.0, o.0) })
            }
            #[inline(always)]
            pub fn xor(self, o: V) -> V {
                V(unsafe { _mm256_xor_pd(self.0, o.0) })
            }
            #[inline(always)]
            pub fn lt(self, o: V) -> V {
                V(unsafe { _mm256_cmp_pd::<_CMP_LT_OQ>(self.0, o.0) })
            }
            #[inline(always)]
            pub fn le(self, o: V) -> V {
                V(unsafe { _mm256_cmp_pd::<_CMP_LE_OQ>(self.0, o.0) })
            }
            #[inline(always)]
            pub fn eq(self, o: V) -> V {
                V(unsafe { _mm256_cmp_pd::<_CMP_EQ_OQ>(self.0, o.0) })
            }
            /// `m ? a : b` lane by lane, `m` a comparison mask.
            #[inline(always)]
            pub fn select(m: V, a: V, b: V) -> V {
                V(unsafe { _mm256_blendv_pd(b.0, a.0, m.0) })
            }
            /// Integer addition of the bit patterns.
            #[inline(always)]
            pub fn add_bits(self, o: V) -> V {
                unsafe {
                    let (a, b) = (_mm256_castpd_si256(self.0), _mm256_castpd_si256(o.0));
                    #[cfg(target_feature = "avx2")]
                    let r = _mm256_add_epi64(a, b);
                    #[cfg(not(target_feature = "avx2"))]
                    let r = {
                        let lo = _mm_add_epi64(_mm256_castsi256_si128(a), _mm256_castsi256_si128(b));
                        let hi = _mm_add_epi64(
                            _mm256_extractf128_si256::<1>(a),
                            _mm256_extractf128_si256::<1>(b),
                        );
                        _mm256_set_m128i(hi, lo)
                    };
                    V(_mm256_castsi256_pd(r))
                }
            }
            /// Whether every lane of a comparison mask is set.
            #[inline(always)]
            pub fn all(self) -> bool {
                unsafe { _mm256_movemask_pd(self.0) == 0b1111 }
            }
            /// Exact widening of four f32 lanes.
            #[inline(always)]
            pub fn from_f32x4(a: __m128) -> V {
                V(unsafe { _mm256_cvtps_pd(a) })
            }
            /// Narrowing to f32 lanes (round to nearest: exact for values on a 16-bit grid).
            #[inline(always)]
            pub fn to_f32x4(self) -> __m128 {
                unsafe { _mm256_cvtpd_ps(self.0) }
            }
        }
    }

    #[cfg(not(target_feature = "avx"))]
    mod v64 {
        use std::arch::x86_64::*;

        #[derive(Clone, Copy)]
        pub(super) struct V(__m128d, __m128d);

        // SAFETY (every `unsafe` block of this module): SSE2 is part of x86_64, and the loads
        // and stores read or write exactly the arrays they are given.
        macro_rules! lanes {
            ($f:ident, $a:expr, $b:expr) => {
                V(unsafe { $f($a.0, $b.0) }, unsafe { $f($a.1, $b.1) })
            };
        }

        impl V {
            #[inline(always)]
            pub fn load3(a: &[f64; 3]) -> V {
                unsafe { V(_mm_loadu_pd(a.as_ptr()), _mm_set1_pd(a[2])) }
            }
            #[inline(always)]
            pub fn load_bits(a: &[u64; 4]) -> V {
                unsafe { V(_mm_loadu_pd(a.as_ptr().cast()), _mm_loadu_pd(a[2..].as_ptr().cast())) }
            }
            #[inline(always)]
            pub fn store3(self) -> [f64; 3] {
                let mut out = [0.0; 3];
                unsafe {
                    _mm_storeu_pd(out.as_mut_ptr(), self.0);
                    _mm_store_sd(out[2..].as_mut_ptr(), self.1);
                }
                out
            }
            #[inline(always)]
            pub fn splat(x: f64) -> V {
                let v = unsafe { _mm_set1_pd(x) };
                V(v, v)
            }
            /// Lanes 0-1 and 2-3.
            #[cfg_attr(target_feature = "avx", allow(dead_code))]
            #[inline(always)]
            pub fn from_pair(lo: __m128d, hi: __m128d) -> V {
                V(lo, hi)
            }
            #[inline(always)]
            pub fn splat_bits(x: u64) -> V {
                V::splat(f64::from_bits(x))
            }
            #[inline(always)]
            pub fn add(self, o: V) -> V {
                lanes!(_mm_add_pd, self, o)
            }
            #[inline(always)]
            pub fn sub(self, o: V) -> V {
                lanes!(_mm_sub_pd, self, o)
            }
            #[inline(always)]
            pub fn mul(self, o: V) -> V {
                lanes!(_mm_mul_pd, self, o)
            }
            #[cfg(target_feature = "fma")]
            #[inline(always)]
            pub fn fmsub(self, o: V, p: V) -> V {
                V(unsafe { _mm_fmsub_pd(self.0, o.0, p.0) }, unsafe { _mm_fmsub_pd(self.1, o.1, p.1) })
            }
            #[inline(always)]
            pub fn max(self, o: V) -> V {
                lanes!(_mm_max_pd, self, o)
            }
            #[cfg(not(target_feature = "fma"))]
            #[inline(always)]
            pub fn min(self, o: V) -> V {
                lanes!(_mm_min_pd, self, o)
            }
            #[inline(always)]
            pub fn and(self, o: V) -> V {
                lanes!(_mm_and_pd, self, o)
            }
            #[inline(always)]
            pub fn or(self, o: V) -> V {
                lanes!(_mm_or_pd, self, o)
            }
            #[inline(always)]
            pub fn xor(self, o: V) -> V {
                lanes!(_mm_xor_pd, self, o)
            }
            #[inline(always)]
            pub fn lt(self, o: V) -> V {
                lanes!(_mm_cmplt_pd, self, o)
            }
            #[inline(always)]
            pub fn le(self, o: V) -> V {
                lanes!(_mm_cmple_pd, self, o)
            }
            #[inline(always)]
            pub fn eq(self, o: V) -> V {
                lanes!(_mm_cmpeq_pd, self, o)
            }
            #[inline(always)]
            pub fn select(m: V, a: V, b: V) -> V {
                let pick = |m, a, b| unsafe { _mm_or_pd(_mm_and_pd(m, a), _mm_andnot_pd(m, b)) };
                V(pick(m.0, a.0, b.0), pick(m.1, a.1, b.1))
            }
            #[inline(always)]
            pub fn add_bits(self, o: V) -> V {
                let add = |a, b| unsafe {
                    _mm_castsi128_pd(_mm_add_epi64(_mm_castpd_si128(a), _mm_castpd_si128(b)))
                };
                V(add(self.0, o.0), add(self.1, o.1))
            }
            #[inline(always)]
            pub fn all(self) -> bool {
                unsafe { _mm_movemask_pd(_mm_and_pd(self.0, self.1)) == 0b11 }
            }
            #[inline(always)]
            pub fn from_f32x4(a: __m128) -> V {
                unsafe { V(_mm_cvtps_pd(a), _mm_cvtps_pd(_mm_movehl_ps(a, a))) }
            }
            #[inline(always)]
            pub fn to_f32x4(self) -> __m128 {
                unsafe { _mm_movelh_ps(_mm_cvtpd_ps(self.0), _mm_cvtpd_ps(self.1)) }
            }
        }
    }

    use v64::V;

    /// `s` moved one ulp in the direction of `m` in the lanes where `cond` is set (`s` nonzero
    /// there): toward the direction's sign the magnitude grows, +1 on the bits, otherwise -1.
    #[inline(always)]
    fn step64(s: V, cond: V, m: V) -> V {
        let shrinks = s.xor(m).lt(V::splat(0.0));
        let delta = shrinks.or(V::splat_bits(1));
        s.add_bits(cond.and(delta))
    }

    #[inline(always)]
    fn abs64(x: V) -> V {
        x.and(V::splat_bits(!SIGN64))
    }

    /// Directed `a + b` of each sample.
    #[inline(always)]
    #[cfg_attr(target_feature = "avx512f", allow(dead_code))]
    pub(crate) fn add3_f64_v(a: [f64; 3], b: [f64; 3], bits: u64) -> [f64; 3] {
        let (a, b) = (V::load3(&a), V::load3(&b));
        let m = V::load_bits(&MASKS64[bits as usize & 3]);
        let s = a.add(b);
        // x: the operand of larger magnitude, y the other one (a ^ b ^ x).
        let x = V::select(abs64(b).le(abs64(a)), a, b);
        let y = a.xor(b).xor(x);
        let t = s.sub(x);
        // exact - s = y - t: step when it points in the direction.
        zero_sum_sign64(step64(s, t.xor(m).lt(y.xor(m)), m), a, b, m).store3()
    }

    /// `round::zero_sum_sign` in every lane: an exact zero sum `r` of `a` and `b` rounded
    /// downward (`m`, the directions' sign masks) is `-0` unless both operands are `+0`.
    #[inline(always)]
    fn zero_sum_sign64(r: V, a: V, b: V, m: V) -> V {
        r.or(a.or(b).and(m).and(r.eq(V::splat(0.0))))
    }

    /// Directed `a * b` of each sample.
    #[inline(always)]
    #[cfg_attr(target_feature = "avx512f", allow(dead_code))]
    pub(crate) fn mul3_f64_v(a3: [f64; 3], b3: [f64; 3], bits: u64) -> [f64; 3] {
        let (a, b) = (V::load3(&a3), V::load3(&b3));
        let p = a.mul(b);
        #[cfg(target_feature = "fma")]
        let err = {
            let ap = abs64(p);
            if !(V::splat(TINY64).le(ap).and(ap.le(V::splat(HUGE64)))).all() {
                return mul3_f64_slow(a3, b3, bits);
            }
            a.fmsub(b, p)
        };
        #[cfg(not(target_feature = "fma"))]
        let err = {
            // Dekker's product is exact when both factors lie in [2^-480, 2^480]: the product
            // is then within [TINY64, HUGE64] too (see round.rs).
            let (aa, ab) = (abs64(a), abs64(b));
            let ok = aa.max(ab).le(V::splat(BIG)).and(V::splat(SMALL).le(aa.min(ab)));
            if !ok.all() {
                return mul3_f64_slow(a3, b3, bits);
            }
            let split = |x: V| {
                let t = V::splat(134_217_729.0).mul(x);
                let hi = t.sub(t.sub(x));
                (hi, x.sub(hi))
            };
            let (ah, al) = split(a);
            let (bh, bl) = split(b);
            ah.mul(bh).sub(p).add(ah.mul(bl)).add(al.mul(bh)).add(al.mul(bl))
        };
        let m = V::load_bits(&MASKS64[bits as usize & 3]);
        step64(p, V::splat(0.0).lt(err.xor(m)), m).store3()
    }

    /// [`mul3_f64`] of operands with three equal samples `a` and `b`: one product and residual.
    #[inline(always)]
    #[cfg_attr(target_feature = "avx512f", allow(dead_code))]
    pub(crate) fn mul3_exact_f64_v(a: f64, b: f64, bits: u64) -> [f64; 3] {
        let p = a * b;
        #[cfg(target_feature = "fma")]
        let err = {
            if !(TINY64..=HUGE64).contains(&p.abs()) {
                return mul3_f64_slow([a; 3], [b; 3], bits);
            }
            a.mul_add(b, -p)
        };
        #[cfg(not(target_feature = "fma"))]
        let err = {
            // Both magnitudes in [SMALL, BIG], in one comparison of each bound (NaN fails).
            let ok = unsafe {
                let x = _mm_and_pd(_mm_set_pd(b, a), _mm_castsi128_pd(_mm_set1_epi64x(!SIGN64 as i64)));
                let inside = _mm_and_pd(_mm_cmple_pd(x, _mm_set1_pd(BIG)), _mm_cmpge_pd(x, _mm_set1_pd(SMALL)));
                _mm_movemask_pd(inside) == 0b11
            };
            if !ok {
                return mul3_f64_slow([a; 3], [b; 3], bits);
            }
            let split = |x: f64| {
                let t = 134_217_729.0 * x;
                let hi = t - (t - x);
                (hi, x - hi)
            };
            let (ah, al) = split(a);
            let (bh, bl) = split(b);
            ((ah * bh - p) + ah * bl + al * bh) + al * bl
        };
        let m = V::load_bits(&MASKS64[bits as usize & 3]);
        step64(V::splat(p), V::splat(0.0).lt(V::splat(err).xor(m)), m).store3()
    }

    /// Factors of Dekker's fast path (no FMA): `2^480` and `2^-480`.
    #[cfg(not(target_feature = "fma"))]
    const BIG: f64 = f64::from_bits((480 + 1023) << 52);
    #[cfg(not(target_feature = "fma"))]
    const SMALL: f64 = f64::from_bits((1023 - 480) << 52);
    #[cfg(not(target_feature = "fma"))]
    const _: () = assert!(SMALL * SMALL >= TINY64 && BIG * BIG <= HUGE64);

    /// The scalar kernels, for operands a shortcut does not cover.
    #[inline(always)]
    fn mul3_f64_slow(a: [f64; 3], b: [f64; 3], bits: u64) -> [f64; 3] {
        // The samples are passed as scalars: an array argument of an outlined function is passed
        // by reference, which would keep the operands in memory on the fast path too.
        mul3_f64_scalar(a[0], a[1], a[2], b[0], b[1], b[2], bits)
    }

    #[cold]
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn mul3_f64_scalar(a0: f64, a1: f64, a2: f64, b0: f64, b1: f64, b2: f64, bits: u64) -> [f64; 3] {
        let d = dirs(bits);
        [round::mul_f64(a0, b0, d[0]), round::mul_f64(a1, b1, d[1]), round::mul_f64(a2, b2, d[2])]
    }

    // ------------------------------------------------------------------------------------------
    // Four f32 lanes: one SSE2 register.
    // ------------------------------------------------------------------------------------------

    // SAFETY (every `unsafe` block below): SSE2 is part of x86_64, and the loads and stores read
    // or write exactly the arrays they are given.

    #[inline(always)]
    fn load3_f32(a: &[f32; 3]) -> __m128 {
        unsafe { _mm_set_ps(a[2], a[2], a[1], a[0]) }
    }

    #[inline(always)]
    fn store3_f32(v: __m128) -> [f32; 3] {
        let mut out = [0.0f32; 4];
        unsafe { _mm_storeu_ps(out.as_mut_ptr(), v) };
        [out[0], out[1], out[2]]
    }

    #[inline(always)]
    fn masks32(bits: u64) -> __m128 {
        unsafe { _mm_loadu_ps(MASKS32[bits as usize & 3].as_ptr().cast()) }
    }

    #[inline(always)]
    fn splat32(x: u32) -> __m128 {
        unsafe { _mm_castsi128_ps(_mm_set1_epi32(x as i32)) }
    }

    #[inline(always)]
    fn step32(s: __m128, cond: __m128, m: __m128) -> __m128 {
        unsafe {
            let shrinks = _mm_cmplt_ps(_mm_xor_ps(s, m), _mm_setzero_ps());
            let delta = _mm_or_ps(shrinks, splat32(1));
            _mm_castsi128_ps(_mm_add_epi32(
                _mm_castps_si128(s),
                _mm_castps_si128(_mm_and_ps(cond, delta)),
            ))
        }
    }

    /// Whether the three samples are the same finite value, bit for bit: the first two compared
    /// with the third in one register.
    #[inline(always)]
    pub(crate) fn exact_finite_f64(s: [f64; 3]) -> bool {
        unsafe {
            let v01 = _mm_castpd_si128(_mm_loadu_pd(s.as_ptr()));
            let v22 = _mm_set1_pd(s[2]);
            let same = _mm_movemask_epi8(_mm_cmpeq_epi32(v01, _mm_castpd_si128(v22)));
            let magnitude = _mm_and_pd(v22, _mm_castsi128_pd(_mm_set1_epi64x(!SIGN64 as i64)));
            let finite = _mm_movemask_pd(_mm_cmplt_sd(magnitude, _mm_set_sd(f64::INFINITY)));
            (same == 0xffff) & (finite & 1 != 0)
        }
    }

    /// Whether every sample is nonzero and finite: two comparisons of the magnitudes.
    #[inline(always)]
    pub(crate) fn all_nonzero_finite_f32(s: [f32; 3]) -> bool {
        unsafe {
            let m = _mm_and_ps(load3_f32(&s), splat32(!SIGN32));
            let ok = _mm_and_ps(_mm_cmpgt_ps(m, _mm_setzero_ps()), _mm_cmplt_ps(m, _mm_set1_ps(f32::INFINITY)));
            _mm_movemask_ps(ok) == 0b1111
        }
    }

    /// Which range events ([`super::OVERFLOWED`], [`super::UNDERFLOWED`]) the samples `r` of an
    /// operation on `a` and `b` show, every lane at once: overflow, a sample infinite from finite
    /// operands; underflow, a sample zero from finite operands, when `exact_nonzero` says that
    /// nonzero operands give a nonzero exact result (products and quotients; a sum of 16-bit
    /// values is never a nonzero exact value rounded to zero).
    #[inline(always)]
    pub(crate) fn range_events_f32(r: [f32; 3], a: [f32; 3], b: [f32; 3], exact_nonzero: bool) -> u32 {
        unsafe {
            let abs = splat32(!SIGN32);
            let (r, a, b) = (load3_f32(&r), _mm_and_ps(load3_f32(&a), abs), _mm_and_ps(load3_f32(&b), abs));
            let inf = _mm_set1_ps(f32::INFINITY);
            let finite = _mm_and_ps(_mm_cmplt_ps(a, inf), _mm_cmplt_ps(b, inf));
            let over = _mm_and_ps(finite, _mm_cmpeq_ps(_mm_and_ps(r, abs), inf));
            let zero = _mm_setzero_ps();
            let nonzero = _mm_and_ps(_mm_cmpgt_ps(a, zero), _mm_cmpgt_ps(b, zero));
            let under = _mm_and_ps(_mm_and_ps(finite, nonzero), _mm_cmpeq_ps(r, zero));
            let mut events = 0;
            if _mm_movemask_ps(over) != 0 {
                events |= super::OVERFLOWED;
            }
            if exact_nonzero && _mm_movemask_ps(under) != 0 {
                events |= super::UNDERFLOWED;
            }
            events
        }
    }

    /// RN(a + b) and whether the exact sum lies above and below it (Fast2Sum).
    #[inline(always)]
    fn fast2sum32(a: __m128, b: __m128) -> (__m128, __m128, __m128) {
        unsafe {
            let s = _mm_add_ps(a, b);
            let abs = splat32(!SIGN32);
            let a_first = _mm_cmple_ps(_mm_and_ps(b, abs), _mm_and_ps(a, abs));
            let x = _mm_or_ps(_mm_and_ps(a_first, a), _mm_andnot_ps(a_first, b));
            let y = _mm_xor_ps(_mm_xor_ps(a, b), x);
            let t = _mm_sub_ps(s, x);
            (s, t, y)
        }
    }

    /// Directed `a + b` of each sample.
    #[inline(always)]
    #[cfg_attr(target_feature = "avx512f", allow(dead_code))]
    pub(crate) fn add3_f32_v(a: [f32; 3], b: [f32; 3], bits: u64) -> [f32; 3] {
        let (a, b) = (load3_f32(&a), load3_f32(&b));
        let (s, t, y) = fast2sum32(a, b);
        let m = masks32(bits);
        let cond = unsafe { _mm_cmplt_ps(_mm_xor_ps(t, m), _mm_xor_ps(y, m)) };
        let r = step32(s, cond, m);
        // `zero_sum_sign64` in binary32 lanes.
        store3_f32(unsafe {
            _mm_or_ps(r, _mm_and_ps(_mm_and_ps(_mm_or_ps(a, b), m), _mm_cmpeq_ps(r, _mm_setzero_ps())))
        })
    }

    /// Directed `a * b` of each sample: the product is exact in `f64`, and so is its distance to
    /// the nearest `f32` (infinite when that overflowed, which steps back to `f32::MAX` exactly
    /// when rounding toward zero).
    #[inline(always)]
    #[cfg_attr(target_feature = "avx512f", allow(dead_code))]
    pub(crate) fn mul3_f32_v(a: [f32; 3], b: [f32; 3], bits: u64) -> [f32; 3] {
        unsafe {
            let (a, b) = (load3_f32(&a), load3_f32(&b));
            let p_lo = _mm_mul_pd(_mm_cvtps_pd(a), _mm_cvtps_pd(b));
            let p_hi = _mm_mul_pd(_mm_cvtps_pd(_mm_movehl_ps(a, a)), _mm_cvtps_pd(_mm_movehl_ps(b, b)));
            let s = _mm_movelh_ps(_mm_cvtpd_ps(p_lo), _mm_cvtpd_ps(p_hi));
            let e_lo = _mm_sub_pd(p_lo, _mm_cvtps_pd(s));
            let e_hi = _mm_sub_pd(p_hi, _mm_cvtps_pd(_mm_movehl_ps(s, s)));
            // Whether the error points in the direction, in f64 lanes, packed into f32 lanes.
            let m64 = &MASKS64[bits as usize & 3];
            let m_lo = _mm_loadu_pd(m64.as_ptr().cast());
            let m_hi = _mm_loadu_pd(m64[2..].as_ptr().cast());
            let c_lo = _mm_castpd_ps(_mm_cmplt_pd(_mm_setzero_pd(), _mm_xor_pd(e_lo, m_lo)));
            let c_hi = _mm_castpd_ps(_mm_cmplt_pd(_mm_setzero_pd(), _mm_xor_pd(e_hi, m_hi)));
            let cond = _mm_shuffle_ps::<0b10_00_10_00>(c_lo, c_hi);
            store3_f32(step32(s, cond, masks32(bits)))
        }
    }

    // ------------------------------------------------------------------------------------------
    // binary16 and bfloat16: samples are f32 values on the grid.
    // ------------------------------------------------------------------------------------------

    /// Directed rounding onto grid `g` of the exact values `x` (f64 lanes, every `|x| <= g.max`):
    /// `r` = the nearest grid point (adding and subtracting `1.5 * 2^(e + 53 - p)`, for `x` in
    /// binade `e`, leaves `x` rounded to a multiple of the grid's ulp `q = 2^(e + 1 - p)`, with
    /// `e` no lower than the grid's smallest normal exponent), then one ulp in the direction
    /// when `x` lies beyond `r`. The grid's spacing below a power of two is finer, but the step
    /// never goes there: `r` is then `2^e` with `x` above it. The result has `x`'s sign (the
    /// step never crosses zero), which is set last: a zero result keeps it.
    #[inline(always)]
    fn grid64(x: V, m: V, g: &Grid16) -> V {
        let e = x.and(V::splat_bits(0x7ff0_0000_0000_0000)).max(V::splat(g.min_normal));
        let (q, big) = (e.mul(V::splat(g.ulp)), e.mul(V::splat(g.big64)));
        let r = x.add(big).sub(big);
        r.add(r.xor(m).lt(x.xor(m)).and(q.xor(m))).or(x.and(V::splat_bits(SIGN64)))
    }

    /// [`grid64`] in f32 lanes, for values exact in `f32`.
    #[cfg_attr(all(target_feature = "f16c", target_feature = "avx"), allow(dead_code))]
    #[inline(always)]
    fn grid32(x: __m128, m: __m128, g: &Grid16) -> __m128 {
        unsafe {
            let e = _mm_max_ps(_mm_and_ps(x, splat32(0x7f80_0000)), _mm_set1_ps(g.min_normal as f32));
            let (q, big) = (_mm_mul_ps(e, _mm_set1_ps(g.ulp as f32)), _mm_mul_ps(e, _mm_set1_ps(g.big32)));
            let r = _mm_sub_ps(_mm_add_ps(x, big), big);
            let cond = _mm_cmplt_ps(_mm_xor_ps(r, m), _mm_xor_ps(x, m));
            let r = _mm_add_ps(r, _mm_and_ps(cond, _mm_xor_ps(q, m)));
            _mm_or_ps(r, _mm_and_ps(x, splat32(SIGN32)))
        }
    }

    /// A 16-bit grid: its smallest normal power of two, `2^(1-p)`, the constants of the
    /// round-to-nearest addition, its largest finite value, whether sums of two of its values
    /// are exact in `f64`, and `round.rs`'s description.
    pub(crate) struct Grid16 {
        min_normal: f64,
        ulp: f64,
        big64: f64,
        #[cfg_attr(all(target_feature = "f16c", target_feature = "avx"), allow(dead_code))]
        big32: f32,
        max: f64,
        sums_exact: bool,
        grid: round::Grid,
    }

    pub(crate) const F16: Grid16 = Grid16 {
        min_normal: 6.103_515_625e-5, // 2^-14
        ulp: 9.765_625e-4,            // 2^-10
        big64: 1.5 * 4_398_046_511_104.0, // 1.5 * 2^42
        big32: 1.5 * 8192.0,          // 1.5 * 2^13
        max: 65504.0,
        sums_exact: true,
        grid: round::GRID_F16,
    };

    pub(crate) const BF16: Grid16 = Grid16 {
        min_normal: 1.175_494_350_822_287_5e-38, // 2^-126
        ulp: 7.812_5e-3,                         // 2^-7
        big64: 1.5 * 35_184_372_088_832.0,       // 1.5 * 2^45
        big32: 1.5 * 65536.0,                    // 1.5 * 2^16 (unused: bf16 products use f64)
        max: 3.389_531_389_251_535_5e38,
        sums_exact: false,
        grid: round::GRID_BF16,
    };

    #[inline(always)]
    fn all_within(x: V, max: f64) -> bool {
        abs64(x).le(V::splat(max)).all()
    }

    /// Directed `a + b` of each sample on grid `g`: the sum of two binary16 values is exact in
    /// `f64` (at most 40 bits apart); that of two bfloat16 values is checked (Fast2Sum).
    #[inline(always)]
    pub(crate) fn add3_grid(a: [f32; 3], b: [f32; 3], bits: u64, g: &Grid16, cpu: u32) -> [f32; 3] {
        #[cfg(all(target_feature = "avx512f", target_feature = "f16c"))]
        if g.sums_exact {
            return f16c::add3_f16(a, b, bits);
        }
        #[cfg(target_feature = "avx")]
        let _ = cpu;
        #[cfg(not(target_feature = "avx"))]
        if g.sums_exact && cpu & SIMD_BIT != 0 {
            return rt512::add3_f16(a, b, bits);
        }
        add3_grid_v(a, b, bits, g)
    }

    /// [`add3_grid`] without AVX-512.
    #[inline(always)]
    pub(crate) fn add3_grid_v(a3: [f32; 3], b3: [f32; 3], bits: u64, g: &Grid16) -> [f32; 3] {
        let (a, b) = (V::from_f32x4(load3_f32(&a3)), V::from_f32x4(load3_f32(&b3)));
        let x = a.add(b);
        let exact = g.sums_exact || {
            let big = V::select(abs64(b).le(abs64(a)), a, b);
            let small = a.xor(b).xor(big);
            x.sub(big).eq(small).all()
        };
        if !(exact && all_within(x, g.max)) {
            return add3_grid_slow(a3, b3, bits, g);
        }
        let m = V::load_bits(&MASKS64[bits as usize & 3]);
        store3_f32(zero_sum_sign64(grid64(x, m, g), a, b, m).to_f32x4())
    }

    #[cold]
    #[inline(never)]
    fn add3_grid_slow(a: [f32; 3], b: [f32; 3], bits: u64, g: &Grid16) -> [f32; 3] {
        let d = dirs(bits);
        std::array::from_fn(|i| round::add_grid(a[i], b[i], d[i], g.grid))
    }

    /// Directed `a * b` of each sample on the binary16 grid: the product is exact in `f32`.
    #[inline(always)]
    pub(crate) fn mul3_f16(a: [f32; 3], b: [f32; 3], bits: u64, cpu: u32) -> [f32; 3] {
        #[cfg(target_feature = "avx")]
        let _ = cpu;
        #[cfg(not(target_feature = "avx"))]
        if cpu & SIMD_BIT != 0 {
            return rt512::mul3_f16(a, b, bits);
        }
        mul3_f16_v(a, b, bits)
    }

    /// [`mul3_f16`] without the run-time AVX-512 kernel.
    #[inline(always)]
    pub(crate) fn mul3_f16_v(a3: [f32; 3], b3: [f32; 3], bits: u64) -> [f32; 3] {
        #[cfg(all(target_feature = "f16c", target_feature = "avx"))]
        return f16c::mul3_f16(a3, b3, bits);
        #[cfg(not(all(target_feature = "f16c", target_feature = "avx")))]
        unsafe {
            let x = _mm_mul_ps(load3_f32(&a3), load3_f32(&b3));
            let within = _mm_cmple_ps(_mm_and_ps(x, splat32(!SIGN32)), _mm_set1_ps(65504.0));
            if _mm_movemask_ps(within) != 0b1111 {
                return mul3_grid_slow(a3, b3, bits, &F16);
            }
            store3_f32(grid32(x, masks32(bits), &F16))
        }
    }

    /// With F16C, binary16 results come from the conversion instruction's own rounding control:
    /// every lane converted upward and downward, each lane taking its direction's result.
    #[cfg(all(target_feature = "f16c", target_feature = "avx"))]
    mod f16c {
        use std::arch::x86_64::*;

        use super::{load3_f32, masks32, store3_f32};

        // SAFETY (every `unsafe` block of this module): F16C and AVX are enabled at compile time.

        /// Directed rounding of exact f32 lanes onto binary16 (overflow, underflow, infinities and
        /// NaN as IEEE 754 directed rounding has them, like round.rs), back in f32 lanes. `m`: the
        /// direction sign masks.
        #[inline(always)]
        fn round_f16(x: __m128, m: __m128) -> __m128 {
            unsafe {
                let up = _mm_cvtph_ps(_mm_cvtps_ph::<{ _MM_FROUND_TO_POS_INF }>(x));
                let down = _mm_cvtph_ps(_mm_cvtps_ph::<{ _MM_FROUND_TO_NEG_INF }>(x));
                _mm_blendv_ps(up, down, m)
            }
        }

        /// The product of two binary16 values is exact in f32.
        #[inline(always)]
        pub(crate) fn mul3_f16(a: [f32; 3], b: [f32; 3], bits: u64) -> [f32; 3] {
            let x = unsafe { _mm_mul_ps(load3_f32(&a), load3_f32(&b)) };
            store3_f32(round_f16(x, masks32(bits)))
        }

        /// AVX-512 rounds the sum to f32 in each lane's direction (an exact zero sum with the
        /// sign IEEE 754 gives it in that direction, as round.rs has it), and rounding that again
        /// in the same direction onto binary16 gives the directed rounding of the exact sum (the
        /// binary16 grid lies on the f32 grid).
        #[cfg(target_feature = "avx512f")]
        #[inline(always)]
        pub(crate) fn add3_f16(a: [f32; 3], b: [f32; 3], bits: u64) -> [f32; 3] {
            const UP: i32 = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;
            const DN: i32 = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
            const DOWN: [u16; 4] = [0b1100, 0b1101, 0b0010, 0b0011];
            unsafe {
                let (a, b) = (_mm512_zextps128_ps512(load3_f32(&a)), _mm512_zextps128_ps512(load3_f32(&b)));
                let (up, dn) = (_mm512_add_round_ps::<UP>(a, b), _mm512_add_round_ps::<DN>(a, b));
                let up = _mm_cvtph_ps(_mm_cvtps_ph::<{ _MM_FROUND_TO_POS_INF }>(_mm512_castps512_ps128(up)));
                let dn = _mm_cvtph_ps(_mm_cvtps_ph::<{ _MM_FROUND_TO_NEG_INF }>(_mm512_castps512_ps128(dn)));
                store3_f32(_mm_mask_blend_ps(DOWN[bits as usize & 3] as u8, up, dn))
            }
        }
    }

    /// Directed `a * b` of each sample on the bfloat16 grid: the product is exact in `f64`.
    #[inline(always)]
    pub(crate) fn mul3_bf16(a3: [f32; 3], b3: [f32; 3], bits: u64, _cpu: u32) -> [f32; 3] {
        let x = V::from_f32x4(load3_f32(&a3)).mul(V::from_f32x4(load3_f32(&b3)));
        if !all_within(x, BF16.max) {
            return mul3_grid_slow(a3, b3, bits, &BF16);
        }
        let m = V::load_bits(&MASKS64[bits as usize & 3]);
        store3_f32(grid64(x, m, &BF16).to_f32x4())
    }

    #[cold]
    #[inline(never)]
    fn mul3_grid_slow(a: [f32; 3], b: [f32; 3], bits: u64, g: &Grid16) -> [f32; 3] {
        let d = dirs(bits);
        std::array::from_fn(|i| round::mul_grid(a[i], b[i], d[i], g.grid))
    }

    // ------------------------------------------------------------------------------------------
    // With AVX-512 (e.g. `-C target-cpu=native` on a recent Xeon), binary64 and binary32 use the
    // hardware's per-instruction rounding: every lane rounded up, then the lanes drawn downward
    // rounded down, both exactly as IEEE 754 defines directed rounding. (The AVX-512 intrinsics
    // need Rust 1.89; builds without the target feature keep the crate's MSRV.) Builds without
    // AVX-512 (the default target) run the same instructions, as inline assembly, when the CPU
    // has them (`rt512`).
    // ------------------------------------------------------------------------------------------

    /// The kernel of the build: the AVX-512 one when compiled for AVX-512; the `_v` one when
    /// compiled for AVX without AVX-512; otherwise `rt512::$name` when `cpu` has `SIMD_BIT` (the
    /// CPU has AVX-512: see [`super::init`]), else `$fma` (given for the binary64 products) when it
    /// has `FMA_BIT`, else the `_v` one: predictable branches on a register.
    macro_rules! dispatch {
        ($(fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty => $v:ident, $fma:path;)*) => {$(
            #[inline(always)]
            pub(crate) fn $name($($arg: $ty,)* cpu: u32) -> $ret {
                #[cfg(target_feature = "avx512f")]
                {
                    let _ = cpu;
                    avx512::$name($($arg),*)
                }
                #[cfg(all(target_feature = "avx", not(target_feature = "avx512f")))]
                {
                    let _ = cpu;
                    $v($($arg),*)
                }
                #[cfg(not(target_feature = "avx"))]
                if cpu & SIMD_BIT != 0 {
                    rt512::$name($($arg),*)
                } else if cpu & FMA_BIT != 0 {
                    $fma($($arg),*)
                } else {
                    $v($($arg),*)
                }
            }
        )*};
        ($(fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty => $v:ident;)*) => {$(
            #[inline(always)]
            pub(crate) fn $name($($arg: $ty,)* cpu: u32) -> $ret {
                #[cfg(target_feature = "avx512f")]
                {
                    let _ = cpu;
                    avx512::$name($($arg),*)
                }
                #[cfg(all(target_feature = "avx", not(target_feature = "avx512f")))]
                {
                    let _ = cpu;
                    $v($($arg),*)
                }
                #[cfg(not(target_feature = "avx"))]
                if cpu & SIMD_BIT != 0 {
                    rt512::$name($($arg),*)
                } else {
                    $v($($arg),*)
                }
            }
        )*};
    }

    dispatch! {
        fn mul3_f64(a: [f64; 3], b: [f64; 3], bits: u64) -> [f64; 3] => mul3_f64_v, rtfma::mul3_f64;
        fn mul3_exact_f64(a: f64, b: f64, bits: u64) -> [f64; 3] => mul3_exact_f64_v, rtfma::mul3_exact_f64;
    }

    dispatch! {
        fn add3_f64(a: [f64; 3], b: [f64; 3], bits: u64) -> [f64; 3] => add3_f64_v;
        // Narrowing onto binary32 (a cast): `vcvtpd2ps` with embedded rounding, each way, blended
        // by the directions; `round.rs` per sample without AVX-512.
        fn round3_f32(x: [f64; 3], bits: u64) -> [f32; 3] => round3_f32_each;
        fn add3_f32(a: [f32; 3], b: [f32; 3], bits: u64) -> [f32; 3] => add3_f32_v;
        fn mul3_f32(a: [f32; 3], b: [f32; 3], bits: u64) -> [f32; 3] => mul3_f32_v;
    }

    /// Directed rounding of three `f64` samples onto binary16: as [`round3_f32`] onto binary32,
    /// then F16C's conversion in the same direction. Rounding twice in one direction is rounding
    /// once, as the binary16 grid lies on the binary32 grid (an overflow of the first rounding
    /// stays one: infinity upward, the largest finite value downward).
    #[inline(always)]
    pub(crate) fn round3_f16(x: [f64; 3], bits: u64, cpu: u32) -> [f32; 3] {
        #[cfg(all(target_feature = "avx512f", target_feature = "f16c"))]
        {
            let _ = cpu;
            avx512::round3_f16(x, bits)
        }
        #[cfg(all(target_feature = "avx", not(all(target_feature = "avx512f", target_feature = "f16c"))))]
        {
            let _ = cpu;
            round3_f16_each(x, bits)
        }
        #[cfg(not(target_feature = "avx"))]
        if cpu & SIMD_BIT != 0 {
            rt512::round3_f16(x, bits)
        } else {
            round3_f16_each(x, bits)
        }
    }

    /// binary64 products with a hardware FMA residual instead of Dekker's product, as inline
    /// assembly for builds without AVX (the default x86_64 target), run only where
    /// [`super::init`] found FMA. They return what `mul3_f64_v` and `mul3_exact_f64_v` return
    /// when compiled with FMA. The assembly is VEX-encoded 128-bit instructions on the compiler's
    /// `xmm` registers, which clear the upper bits: no SSE/AVX transition penalty.
    #[cfg(not(target_feature = "avx"))]
    mod rtfma {
        use std::arch::asm;
        use std::arch::x86_64::*;

        use super::{mul3_f64_slow, step64, HUGE64, MASKS64, TINY64, V};

        // SAFETY (every `unsafe` block of this module): callers check that the CPU has FMA and
        // AVX; the assembly touches no memory and only its operands.

        /// `a * b - p` with one rounding, in both lanes.
        #[inline(always)]
        fn fmsub(a: __m128d, b: __m128d, p: __m128d) -> __m128d {
            let r: __m128d;
            unsafe {
                asm!(
                    "vfmsub213pd {a}, {b}, {p}",
                    a = inout(xmm_reg) a => r, b = in(xmm_reg) b, p = in(xmm_reg) p,
                    options(pure, nomem, nostack, preserves_flags),
                );
            }
            r
        }

        /// Directed `a * b` of each sample.
        #[inline(always)]
        pub(super) fn mul3_f64(a3: [f64; 3], b3: [f64; 3], bits: u64) -> [f64; 3] {
            let (a, b) = unsafe {
                (
                    [_mm_loadu_pd(a3.as_ptr()), _mm_set1_pd(a3[2])],
                    [_mm_loadu_pd(b3.as_ptr()), _mm_set1_pd(b3[2])],
                )
            };
            let p = unsafe { [_mm_mul_pd(a[0], b[0]), _mm_mul_pd(a[1], b[1])] };
            let within = |p: __m128d| unsafe {
                let ap = _mm_and_pd(p, _mm_castsi128_pd(_mm_set1_epi64x(!super::SIGN64 as i64)));
                _mm_movemask_pd(_mm_and_pd(_mm_cmple_pd(_mm_set1_pd(TINY64), ap), _mm_cmple_pd(ap, _mm_set1_pd(HUGE64))))
            };
            if (within(p[0]) & within(p[1])) != 0b11 {
                return mul3_f64_slow(a3, b3, bits);
            }
            let err = [fmsub(a[0], b[0], p[0]), fmsub(a[1], b[1], p[1])];
            let (pv, ev) = (V::from_pair(p[0], p[1]), V::from_pair(err[0], err[1]));
            let m = V::load_bits(&MASKS64[bits as usize & 3]);
            step64(pv, V::splat(0.0).lt(ev.xor(m)), m).store3()
        }

        /// [`mul3_f64`] of operands with three equal samples `a` and `b`: one product and
        /// residual.
        #[inline(always)]
        pub(super) fn mul3_exact_f64(a: f64, b: f64, bits: u64) -> [f64; 3] {
            let p = a * b;
            if !(TINY64..=HUGE64).contains(&p.abs()) {
                return mul3_f64_slow([a; 3], [b; 3], bits);
            }
            let err = unsafe { _mm_cvtsd_f64(fmsub(_mm_set_sd(a), _mm_set_sd(b), _mm_set_sd(p))) };
            let m = V::load_bits(&MASKS64[bits as usize & 3]);
            step64(V::splat(p), V::splat(0.0).lt(V::splat(err).xor(m)), m).store3()
        }
    }

    /// The AVX-512 kernels as inline assembly, for builds without AVX (the default x86_64
    /// target), run only where [`super::level::avx512`] found AVX-512F, AVX-512VL and F16C. They
    /// compute what the `avx512` module and `f16c::add3_f16` compute, with the same instructions
    /// (the directed results computed side by side, then blended by the direction mask).
    ///
    /// Registers: the operands and results are the compiler's `xmm` registers; the work is done
    /// in `zmm16`-`zmm21` and the mask registers `k1`, `k2`, which code compiled without AVX-512
    /// never uses (so they need not be declared, and cannot be: their register classes require
    /// the target feature). Each block with 256- or 512-bit instructions ends with `vzeroupper`:
    /// without it, the SSE code around ran more than ten times slower on a Xeon with AVX-512
    /// (those instructions leave the upper state dirty, even on `zmm16`-`zmm31`). That is also why these kernels are not used in AVX builds, whose
    /// `ymm` registers `vzeroupper` would clobber. Operand lanes beyond the three samples are
    /// zero (never subnormal garbage).
    #[cfg(not(target_feature = "avx"))]
    mod rt512 {
        use std::arch::asm;
        use std::arch::x86_64::*;

        /// The lanes rounded toward -inf for each draw of two bits (lane 0: bit 0, lane 1: bit 1,
        /// lanes 2 and 3 opposite to lane 1).
        const DOWN: [u32; 4] = [0b1100, 0b1101, 0b0010, 0b0011];

        #[inline(always)]
        fn down(bits: u64) -> u32 {
            DOWN[bits as usize & 3]
        }

        // SAFETY (every `unsafe` block of this module): callers check that the CPU has
        // AVX-512F, AVX-512VL and F16C; the assembly touches no memory and only the registers
        // described in the module documentation; the loads and stores read or write exactly the
        // arrays they are given.

        #[inline(always)]
        fn split64(a: &[f64; 3]) -> (__m128d, __m128d) {
            unsafe { (_mm_set_pd(a[1], a[0]), _mm_set_sd(a[2])) }
        }

        #[inline(always)]
        fn join64(lo: __m128d, hi: __m128d) -> [f64; 3] {
            let mut out = [0.0; 3];
            unsafe {
                _mm_storeu_pd(out.as_mut_ptr(), lo);
                _mm_store_sd(&mut out[2], hi);
            }
            out
        }

        /// Directed `a + b` of each sample: the sums rounded up and down side by side, blended
        /// by the directions. An exact zero sum has the sign IEEE 754 gives it in its direction
        /// (`x + (-x)` is `+0` upward, `-0` downward), as round.rs computes it.
        #[inline(always)]
        pub(super) fn add3_f64(a: [f64; 3], b: [f64; 3], bits: u64) -> [f64; 3] {
            let ((a01, a2), (b01, b2)) = (split64(&a), split64(&b));
            let (r01, r2): (__m128d, __m128d);
            unsafe {
                asm!(
                    "vmovapd xmm16, {a01}",
                    "vinsertf32x4 ymm16, ymm16, {a2}, 1",
                    "vmovapd xmm17, {b01}",
                    "vinsertf32x4 ymm17, ymm17, {b2}, 1",
                    "kmovw k1, {k:e}",
                    "vaddpd zmm18, zmm16, zmm17, {{ru-sae}}",
                    "vaddpd zmm19, zmm16, zmm17, {{rd-sae}}",
                    "vblendmpd zmm18 {{k1}}, zmm18, zmm19",
                    "vmovapd {r01}, xmm18",
                    "vextractf32x4 {r2}, ymm18, 1",
                    "vzeroupper",
                    a01 = in(xmm_reg) a01, a2 = in(xmm_reg) a2,
                    b01 = in(xmm_reg) b01, b2 = in(xmm_reg) b2,
                    k = in(reg) down(bits),
                    r01 = lateout(xmm_reg) r01, r2 = lateout(xmm_reg) r2,
                    options(pure, nomem, nostack, preserves_flags),
                );
            }
            join64(r01, r2)
        }

        /// Directed `a * b` of each sample.
        #[inline(always)]
        pub(super) fn mul3_f64(a: [f64; 3], b: [f64; 3], bits: u64) -> [f64; 3] {
            let ((a01, a2), (b01, b2)) = (split64(&a), split64(&b));
            let (r01, r2): (__m128d, __m128d);
            unsafe {
                asm!(
                    "vmovapd xmm16, {a01}",
                    "vinsertf32x4 ymm16, ymm16, {a2}, 1",
                    "vmovapd xmm17, {b01}",
                    "vinsertf32x4 ymm17, ymm17, {b2}, 1",
                    "kmovw k1, {k:e}",
                    "vmulpd zmm18, zmm16, zmm17, {{ru-sae}}",
                    "vmulpd zmm19, zmm16, zmm17, {{rd-sae}}",
                    "vblendmpd zmm18 {{k1}}, zmm18, zmm19",
                    "vmovapd {r01}, xmm18",
                    "vextractf32x4 {r2}, ymm18, 1",
                    "vzeroupper",
                    a01 = in(xmm_reg) a01, a2 = in(xmm_reg) a2,
                    b01 = in(xmm_reg) b01, b2 = in(xmm_reg) b2,
                    k = in(reg) down(bits),
                    r01 = lateout(xmm_reg) r01, r2 = lateout(xmm_reg) r2,
                    options(pure, nomem, nostack, preserves_flags),
                );
            }
            join64(r01, r2)
        }

        /// [`mul3_f64`] of operands with three equal samples `a` and `b`: the product rounded
        /// each way once, as scalars (embedded rounding on scalar 128-bit EVEX instructions),
        /// then placed by the direction mask. No 256- or 512-bit register is written, so no
        /// `vzeroupper`.
        #[inline(always)]
        pub(super) fn mul3_exact_f64(a: f64, b: f64, bits: u64) -> [f64; 3] {
            let (r01, r2): (__m128d, __m128d);
            unsafe {
                asm!(
                    "vmulsd xmm18, {a}, {b}, {{ru-sae}}",
                    "vmulsd xmm19, {a}, {b}, {{rd-sae}}",
                    "kmovw k1, {k:e}",
                    "kshiftrw k2, k1, 2",
                    "vblendmpd {r2} {{k2}}, xmm18, xmm19",
                    "vmovddup xmm18, xmm18",
                    "vmovddup xmm19, xmm19",
                    "vblendmpd {r01} {{k1}}, xmm18, xmm19",
                    a = in(xmm_reg) _mm_set_sd(a), b = in(xmm_reg) _mm_set_sd(b),
                    k = in(reg) down(bits),
                    r01 = lateout(xmm_reg) r01, r2 = lateout(xmm_reg) r2,
                    options(pure, nomem, nostack, preserves_flags),
                );
            }
            join64(r01, r2)
        }

        #[inline(always)]
        fn load_ps(a: &[f32; 3]) -> __m128 {
            unsafe { _mm_set_ps(a[2], a[2], a[1], a[0]) }
        }

        /// The samples `$x` rounded onto binary32 by `vcvtpd2ps` with embedded rounding, up into
        /// `xmm17` and down into `xmm18`, then the instructions `$finish`, which leave in
        /// `xmm17` each lane's result in its direction (the mask `k1` holds the lanes drawn
        /// downward); the result's lanes.
        macro_rules! narrow3 {
            ($x:expr, $bits:expr, $($finish:literal),*) => {{
                let (x01, x2) = split64(&$x);
                let r: __m128;
                unsafe {
                    asm!(
                        "vmovapd xmm16, {x01}",
                        "vinsertf32x4 ymm16, ymm16, {x2}, 1",
                        "kmovw k1, {k:e}",
                        "vcvtpd2ps ymm17, zmm16, {{ru-sae}}",
                        "vcvtpd2ps ymm18, zmm16, {{rd-sae}}",
                        $($finish,)*
                        "vmovaps {r}, xmm17",
                        "vzeroupper",
                        x01 = in(xmm_reg) x01, x2 = in(xmm_reg) x2,
                        k = in(reg) down($bits),
                        r = lateout(xmm_reg) r,
                        options(pure, nomem, nostack, preserves_flags),
                    );
                }
                store_ps(r)
            }};
        }

        /// [`super::round3_f32`]: `vcvtpd2ps` with embedded rounding, up and down, blended.
        #[inline(always)]
        pub(super) fn round3_f32(x: [f64; 3], bits: u64) -> [f32; 3] {
            narrow3!(x, bits, "vblendmps xmm17 {{k1}}, xmm17, xmm18")
        }

        /// [`super::round3_f16`]: as [`round3_f32`], then F16C's conversion in each direction.
        #[inline(always)]
        pub(super) fn round3_f16(x: [f64; 3], bits: u64) -> [f32; 3] {
            narrow3!(
                x,
                bits,
                "vcvtps2ph xmm17, xmm17, 2",
                "vcvtps2ph xmm18, xmm18, 1",
                "vcvtph2ps xmm17, xmm17",
                "vcvtph2ps xmm17 {{k1}}, xmm18"
            )
        }

        #[inline(always)]
        fn store_ps(v: __m128) -> [f32; 3] {
            let mut out = [0.0f32; 4];
            unsafe { _mm_storeu_ps(out.as_mut_ptr(), v) };
            [out[0], out[1], out[2]]
        }

        /// Directed `a + b` of each sample, exact zero sums with the sign IEEE 754 gives them
        /// in each direction (see [`add3_f64`]).
        #[inline(always)]
        pub(super) fn add3_f32(a: [f32; 3], b: [f32; 3], bits: u64) -> [f32; 3] {
            let r: __m128;
            unsafe {
                asm!(
                    "vmovaps xmm16, {a}",
                    "vmovaps xmm17, {b}",
                    "kmovw k1, {k:e}",
                    "vaddps zmm18, zmm16, zmm17, {{ru-sae}}",
                    "vaddps zmm19, zmm16, zmm17, {{rd-sae}}",
                    "vblendmps zmm18 {{k1}}, zmm18, zmm19",
                    "vmovaps {r}, xmm18",
                    "vzeroupper",
                    a = in(xmm_reg) load_ps(&a), b = in(xmm_reg) load_ps(&b),
                    k = in(reg) down(bits),
                    r = lateout(xmm_reg) r,
                    options(pure, nomem, nostack, preserves_flags),
                );
            }
            store_ps(r)
        }

        /// Directed `a * b` of each sample.
        #[inline(always)]
        pub(super) fn mul3_f32(a: [f32; 3], b: [f32; 3], bits: u64) -> [f32; 3] {
            let r: __m128;
            unsafe {
                asm!(
                    "vmovaps xmm16, {a}",
                    "vmovaps xmm17, {b}",
                    "kmovw k1, {k:e}",
                    "vmulps zmm18, zmm16, zmm17, {{ru-sae}}",
                    "vmulps zmm19, zmm16, zmm17, {{rd-sae}}",
                    "vblendmps zmm18 {{k1}}, zmm18, zmm19",
                    "vmovaps {r}, xmm18",
                    "vzeroupper",
                    a = in(xmm_reg) load_ps(&a), b = in(xmm_reg) load_ps(&b),
                    k = in(reg) down(bits),
                    r = lateout(xmm_reg) r,
                    options(pure, nomem, nostack, preserves_flags),
                );
            }
            store_ps(r)
        }

        /// Directed `a * b` of each sample on the binary16 grid: the product is exact in f32,
        /// and F16C's conversion rounds it up and down (as `f16c::mul3_f16`). Only 128-bit
        /// instructions, which leave the upper state clean: no `vzeroupper`.
        #[inline(always)]
        pub(super) fn mul3_f16(a: [f32; 3], b: [f32; 3], bits: u64) -> [f32; 3] {
            let r: __m128;
            unsafe {
                asm!(
                    "vmulps xmm16, {a}, {b}",
                    "kmovw k1, {k:e}",
                    "vcvtps2ph xmm17, xmm16, 2",
                    "vcvtps2ph xmm18, xmm16, 1",
                    "vcvtph2ps xmm17, xmm17",
                    "vcvtph2ps xmm17 {{k1}}, xmm18",
                    "vmovaps {r}, xmm17",
                    a = in(xmm_reg) load_ps(&a), b = in(xmm_reg) load_ps(&b),
                    k = in(reg) down(bits),
                    r = lateout(xmm_reg) r,
                    options(pure, nomem, nostack, preserves_flags),
                );
            }
            store_ps(r)
        }

        /// Directed `a + b` of each sample on the binary16 grid (as `f16c::add3_f16`): the sum
        /// rounded to f32 in each lane's direction (as [`add3_f32`]), then onto binary16 in the
        /// same direction. Rounding twice in one direction is rounding once, the binary16 grid
        /// lying on the f32 grid; the f32 rounding of the sum goes straight to the conversion,
        /// with no detour through f64 (two conversions fewer on the path a running sum waits
        /// for).
        #[inline(always)]
        pub(super) fn add3_f16(a: [f32; 3], b: [f32; 3], bits: u64) -> [f32; 3] {
            let r: __m128;
            unsafe {
                asm!(
                    "vmovaps xmm16, {a}",
                    "vmovaps xmm17, {b}",
                    "kmovw k1, {k:e}",
                    "vaddps zmm18, zmm16, zmm17, {{ru-sae}}",
                    "vaddps zmm19, zmm16, zmm17, {{rd-sae}}",
                    "vcvtps2ph xmm20, xmm18, 2",
                    "vcvtps2ph xmm21, xmm19, 1",
                    "vcvtph2ps xmm20, xmm20",
                    "vcvtph2ps xmm20 {{k1}}, xmm21",
                    "vmovaps {r}, xmm20",
                    "vzeroupper",
                    a = in(xmm_reg) load_ps(&a), b = in(xmm_reg) load_ps(&b),
                    k = in(reg) down(bits),
                    r = lateout(xmm_reg) r,
                    options(pure, nomem, nostack, preserves_flags),
                );
            }
            store_ps(r)
        }
    }

    #[cfg(target_feature = "avx512f")]
    mod avx512 {
        use std::arch::x86_64::*;

        /// The lanes rounded toward -inf for each draw of two bits (lane 0: bit 0, lane 1: bit 1,
        /// lanes 2 and 3 opposite to lane 1).
        const DOWN: [u8; 4] = [0b1100, 0b1101, 0b0010, 0b0011];
        const UP: i32 = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;
        const DN: i32 = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;

        // SAFETY (every `unsafe` block of this module): AVX-512F is enabled at compile time, and
        // the loads and stores read or write exactly the arrays they are given.

        #[inline(always)]
        fn load_pd(a: &[f64; 3]) -> __m512d {
            unsafe { _mm512_zextpd256_pd512(_mm256_set_pd(a[2], a[2], a[1], a[0])) }
        }

        #[inline(always)]
        fn store_pd(v: __m512d) -> [f64; 3] {
            let mut out = [0.0; 4];
            unsafe { _mm256_storeu_pd(out.as_mut_ptr(), _mm512_castpd512_pd256(v)) };
            [out[0], out[1], out[2]]
        }

        #[inline(always)]
        fn load_ps(a: &[f32; 3]) -> __m512 {
            unsafe { _mm512_zextps128_ps512(_mm_set_ps(a[2], a[2], a[1], a[0])) }
        }

        #[inline(always)]
        fn store_ps(v: __m512) -> [f32; 3] {
            let mut out = [0.0f32; 4];
            unsafe { _mm_storeu_ps(out.as_mut_ptr(), _mm512_castps512_ps128(v)) };
            [out[0], out[1], out[2]]
        }

        /// Directed `a + b` of each sample: the sums rounded up and down side by side, blended
        /// by the directions. An exact zero sum has the sign IEEE 754 gives it in its direction
        /// (`x + (-x)` is `+0` upward, `-0` downward), as round.rs computes it.
        #[inline(always)]
        pub(crate) fn add3_f64(a: [f64; 3], b: [f64; 3], bits: u64) -> [f64; 3] {
            let (a, b, k) = (load_pd(&a), load_pd(&b), DOWN[bits as usize & 3]);
            unsafe {
                let (up, dn) = (_mm512_add_round_pd::<UP>(a, b), _mm512_add_round_pd::<DN>(a, b));
                store_pd(_mm512_mask_blend_pd(k, up, dn))
            }
        }

        #[inline(always)]
        fn mul_pd(a: __m512d, b: __m512d, bits: u64) -> [f64; 3] {
            unsafe {
                let r = _mm512_mul_round_pd::<UP>(a, b);
                store_pd(_mm512_mask_mul_round_pd::<DN>(r, DOWN[bits as usize & 3], a, b))
            }
        }

        /// Directed `a * b` of each sample.
        #[inline(always)]
        pub(crate) fn mul3_f64(a: [f64; 3], b: [f64; 3], bits: u64) -> [f64; 3] {
            mul_pd(load_pd(&a), load_pd(&b), bits)
        }

        #[inline(always)]
        pub(crate) fn mul3_exact_f64(a: f64, b: f64, bits: u64) -> [f64; 3] {
            mul_pd(unsafe { _mm512_set1_pd(a) }, unsafe { _mm512_set1_pd(b) }, bits)
        }

        #[inline(always)]
        pub(crate) fn add3_f32(a: [f32; 3], b: [f32; 3], bits: u64) -> [f32; 3] {
            let (a, b, k) = (load_ps(&a), load_ps(&b), u16::from(DOWN[bits as usize & 3]));
            unsafe {
                let (up, dn) = (_mm512_add_round_ps::<UP>(a, b), _mm512_add_round_ps::<DN>(a, b));
                store_ps(_mm512_mask_blend_ps(k, up, dn))
            }
        }

        #[inline(always)]
        pub(crate) fn mul3_f32(a: [f32; 3], b: [f32; 3], bits: u64) -> [f32; 3] {
            let (a, b, k) = (load_ps(&a), load_ps(&b), u16::from(DOWN[bits as usize & 3]));
            unsafe {
                let r = _mm512_mul_round_ps::<UP>(a, b);
                store_ps(_mm512_mask_mul_round_ps::<DN>(r, k, a, b))
            }
        }

        /// [`super::round3_f32`].
        #[inline(always)]
        pub(crate) fn round3_f32(x: [f64; 3], bits: u64) -> [f32; 3] {
            let x = load_pd(&x);
            unsafe {
                let r = _mm512_cvt_roundpd_ps::<UP>(x);
                let r = _mm512_mask_cvt_roundpd_ps::<DN>(r, DOWN[bits as usize & 3], x);
                store_ps(_mm512_zextps256_ps512(r))
            }
        }

        /// [`super::round3_f16`].
        #[cfg(target_feature = "f16c")]
        #[inline(always)]
        pub(crate) fn round3_f16(x: [f64; 3], bits: u64) -> [f32; 3] {
            let x = load_pd(&x);
            unsafe {
                let up = _mm256_castps256_ps128(_mm512_cvt_roundpd_ps::<UP>(x));
                let dn = _mm256_castps256_ps128(_mm512_cvt_roundpd_ps::<DN>(x));
                let up = _mm_cvtph_ps(_mm_cvtps_ph::<{ _MM_FROUND_TO_POS_INF }>(up));
                let dn = _mm_cvtph_ps(_mm_cvtps_ph::<{ _MM_FROUND_TO_NEG_INF }>(dn));
                store_ps(_mm512_zextps128_ps512(_mm_mask_blend_ps(DOWN[bits as usize & 3], up, dn)))
            }
        }
    }
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
        init();
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
