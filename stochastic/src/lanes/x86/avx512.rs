//! The kernels with AVX-512 compiled in (e.g. `-C target-cpu=native` on a recent Xeon): binary64
//! and binary32 use the hardware's per-instruction rounding, every lane rounded up, then the lanes
//! drawn downward rounded down, both exactly as IEEE 754 defines directed rounding.

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
