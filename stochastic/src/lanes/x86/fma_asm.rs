//! binary64 products with a hardware FMA residual instead of Dekker's product, as inline
//! assembly for builds without AVX (the default x86_64 target), run only where
//! [`super::super::choose_kernels`] found FMA. They return what `mul3_f64_v` and `mul3_exact_f64_v` return
//! when compiled with FMA. The assembly is VEX-encoded 128-bit instructions on the compiler's
//! `xmm` registers, which clear the upper bits: no SSE/AVX transition penalty.

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
