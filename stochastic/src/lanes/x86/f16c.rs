//! With F16C, binary16 results come from the conversion instruction's own rounding control:
//! every lane converted upward and downward, each lane taking its direction's result.

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
