//! The three-sample kernels on x86_64, and which one an operation runs: SSE2 (always there on
//! x86_64), AVX and FMA when compiled for them, AVX-512 when compiled for it, else the inline
//! assembly kernels chosen at run time (`dispatch!`). The three samples are four lanes, the fourth
//! a copy of the third.

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
mod avx;
#[cfg(not(target_feature = "avx"))]
mod sse2;

#[cfg(target_feature = "avx")]
use avx::V;
#[cfg(not(target_feature = "avx"))]
use sse2::V;

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
        return avx512_asm::add3_f16(a, b, bits);
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
        return avx512_asm::mul3_f16(a, b, bits);
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

#[cfg(all(target_feature = "f16c", target_feature = "avx"))]
mod f16c;

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
// has them (`avx512_asm`).
// ------------------------------------------------------------------------------------------

/// The kernel of the build: the AVX-512 one when compiled for AVX-512; the `_v` one when
/// compiled for AVX without AVX-512; otherwise `avx512_asm::$name` when `cpu` has `SIMD_BIT` (the
/// CPU has AVX-512: see [`super::choose_kernels`]), else `$fma` (given for the binary64 products) when it
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
                avx512_asm::$name($($arg),*)
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
                avx512_asm::$name($($arg),*)
            } else {
                $v($($arg),*)
            }
        }
    )*};
}

dispatch! {
    fn mul3_f64(a: [f64; 3], b: [f64; 3], bits: u64) -> [f64; 3] => mul3_f64_v, fma_asm::mul3_f64;
    fn mul3_exact_f64(a: f64, b: f64, bits: u64) -> [f64; 3] => mul3_exact_f64_v, fma_asm::mul3_exact_f64;
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
        avx512_asm::round3_f16(x, bits)
    } else {
        round3_f16_each(x, bits)
    }
}

#[cfg(not(target_feature = "avx"))]
mod fma_asm;

#[cfg(not(target_feature = "avx"))]
mod avx512_asm;

#[cfg(target_feature = "avx512f")]
mod avx512;
