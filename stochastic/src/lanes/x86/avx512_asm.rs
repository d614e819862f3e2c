//! The AVX-512 kernels as inline assembly, for builds without AVX (the default x86_64
//! target), run only where [`super::super::choose_kernels`] found AVX-512F, AVX-512VL and F16C. They
//! compute what the `avx512` module and `f16c::add3_f16` compute, with the same instructions
//! (the directed results computed side by side, then blended by the direction mask).
//!
//! Registers: the operands and results are the compiler's `xmm` registers; the work is done
//! in `zmm16`-`zmm21` and the mask registers `k1`, `k2`, which code compiled without AVX-512
//! never uses (so they need not be declared, and cannot be: their register classes require
//! the target feature). Each block with 256- or 512-bit instructions ends with `vzeroupper`:
//! without it, the SSE code around ran more than ten times slower on a Xeon with AVX-512
//! (those instructions leave the upper state dirty, even on `zmm16`-`zmm31`). That is also why these kernels are not used in AVX builds, whose
//! `ymm` registers `vzeroupper` would clobber. Operand lanes beyond the three samples are
//! zero (never subnormal garbage).

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
