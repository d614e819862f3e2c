//! binary16 <-> binary32 conversions at hardware speed.
//!
//! `half` converts through a function that checks for F16C at every call and cannot be inlined
//! (it is compiled with `#[target_feature]`): in a tuned crate whose knobs are `f16`, each native
//! `+` or `*` made three such calls, and cg's binary16 configurations ran 25 times slower than
//! binary64 natively. Here the F16C instructions are inline assembly, which inlines into any
//! caller whatever its target features, behind one predictable test of a flag read once per
//! process. The results are the IEEE conversions (binary32 to binary16 rounds to nearest even),
//! bit for bit what `half` computes; without F16C (or off x86_64) `half`'s own code runs.
//! bfloat16 needs none of this: `half`'s conversions of it are inlined bit operations.

use half::{bf16, f16};

/// The two 16-bit formats' conversions to and from binary32, at the speed this module gives.
pub(crate) trait Half32: Copy {
    /// The value exactly, as binary32.
    fn widen(self) -> f32;
    /// `x` rounded to nearest (ties to even).
    fn narrow(x: f32) -> Self;
    /// `x` rounded to nearest (ties to even) into the format, as binary32: `narrow` then
    /// `widen`, without the bits leaving the vector register between them where that is
    /// possible (a value on a dependency chain, like a running sum, waits for both).
    #[inline(always)]
    fn round(x: f32) -> f32 {
        Self::narrow(x).widen()
    }
}

impl Half32 for f16 {
    #[inline(always)]
    fn widen(self) -> f32 {
        f16_to_f32(self)
    }
    #[inline(always)]
    fn narrow(x: f32) -> Self {
        f32_to_f16(x)
    }
    #[inline(always)]
    fn round(x: f32) -> f32 {
        round_f16(x)
    }
}

impl Half32 for bf16 {
    #[inline(always)]
    fn widen(self) -> f32 {
        self.to_f32()
    }
    #[inline(always)]
    fn narrow(x: f32) -> Self {
        bf16::from_f32(x)
    }
}

#[cfg(all(target_arch = "x86_64", not(target_feature = "f16c")))]
mod detect {
    use std::sync::atomic::{AtomicU8, Ordering};

    /// 0: not yet known; 1: no F16C; 2: F16C.
    static F16C: AtomicU8 = AtomicU8::new(0);

    #[cold]
    #[inline(never)]
    fn probe() -> bool {
        let has = std::arch::is_x86_feature_detected!("f16c")
            && std::arch::is_x86_feature_detected!("avx");
        F16C.store(if has { 2 } else { 1 }, Ordering::Relaxed);
        has
    }

    /// Whether the CPU has F16C (and the AVX state its VEX encoding needs).
    #[inline(always)]
    pub(super) fn has_f16c() -> bool {
        match F16C.load(Ordering::Relaxed) {
            0 => probe(),
            v => v == 2,
        }
    }
}

/// The body of a conversion, by what the target and the CPU have: `compiled` when the target
/// has F16C (intrinsics), `detected` when it is x86_64 without it but the CPU has it (inline
/// assembly behind [`detect::has_f16c`]), `otherwise` `half`'s own code.
macro_rules! by_f16c {
    (compiled: $compiled:block, detected: $detected:block, otherwise: $otherwise:block) => {{
        #[cfg(all(target_arch = "x86_64", target_feature = "f16c"))]
        let value = $compiled;
        #[cfg(all(target_arch = "x86_64", not(target_feature = "f16c")))]
        let value = if detect::has_f16c() { $detected } else { $otherwise };
        #[cfg(not(target_arch = "x86_64"))]
        let value = $otherwise;
        value
    }};
}

/// `x` exactly, as binary32.
#[inline(always)]
pub(crate) fn f16_to_f32(x: f16) -> f32 {
    by_f16c!(
        compiled: {
            use std::arch::x86_64::{_mm_cvtph_ps, _mm_cvtsi32_si128, _mm_cvtss_f32};
            // SAFETY: the target has F16C (compile-time feature).
            unsafe { _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(i32::from(x.to_bits())))) }
        },
        detected: {
            let out: f32;
            // SAFETY: the CPU has F16C and AVX (checked by `by_f16c!`); registers only.
            unsafe {
                std::arch::asm!(
                    "vmovd {v}, {b:e}",
                    "vcvtph2ps {v}, {v}",
                    b = in(reg) u32::from(x.to_bits()),
                    v = out(xmm_reg) out,
                    options(pure, nomem, nostack, preserves_flags),
                );
            }
            out
        },
        otherwise: { x.to_f32() }
    )
}

/// `x` rounded to nearest (ties to even) into binary16.
#[inline(always)]
pub(crate) fn f32_to_f16(x: f32) -> f16 {
    by_f16c!(
        compiled: {
            use std::arch::x86_64::{_mm_cvtps_ph, _mm_cvtsi128_si32, _mm_set_ss};
            // SAFETY: the target has F16C (compile-time feature). Immediate 0: to nearest even.
            unsafe { f16::from_bits(_mm_cvtsi128_si32(_mm_cvtps_ph::<0>(_mm_set_ss(x))) as u16) }
        },
        detected: {
            let bits: u32;
            // SAFETY: the CPU has F16C and AVX (checked by `by_f16c!`); registers only.
            // Immediate 0: round to nearest even, whatever MXCSR says.
            unsafe {
                std::arch::asm!(
                    "vcvtps2ph {v}, {v}, 0",
                    "vmovd {b:e}, {v}",
                    v = inout(xmm_reg) x => _,
                    b = out(reg) bits,
                    options(pure, nomem, nostack, preserves_flags),
                );
            }
            f16::from_bits(bits as u16)
        },
        otherwise: { f16::from_f32(x) }
    )
}

/// `x` rounded to nearest (ties to even) onto binary16, as binary32: [`f32_to_f16`] then
/// [`f16_to_f32`] without the bits leaving the vector register.
#[inline(always)]
pub(crate) fn round_f16(x: f32) -> f32 {
    by_f16c!(
        compiled: {
            use std::arch::x86_64::{_mm_cvtph_ps, _mm_cvtps_ph, _mm_cvtss_f32, _mm_set_ss};
            // SAFETY: the target has F16C (compile-time feature). Immediate 0: to nearest even.
            unsafe { _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtps_ph::<0>(_mm_set_ss(x)))) }
        },
        detected: {
            let out: f32;
            // SAFETY: the CPU has F16C and AVX (checked by `by_f16c!`); registers only.
            // Immediate 0: round to nearest even, whatever MXCSR says.
            unsafe {
                std::arch::asm!(
                    "vcvtps2ph {v}, {v}, 0",
                    "vcvtph2ps {v}, {v}",
                    v = inout(xmm_reg) x => out,
                    options(pure, nomem, nostack, preserves_flags),
                );
            }
            out
        },
        otherwise: { f16::from_f32(x).to_f32() }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_binary16_widens_as_half_does() {
        for bits in 0..=u16::MAX {
            let x = f16::from_bits(bits);
            let (ours, theirs) = (f16_to_f32(x), x.to_f32());
            assert!(ours.to_bits() == theirs.to_bits() || (ours.is_nan() && theirs.is_nan()), "{bits:#06x}");
        }
    }

    #[test]
    fn binary32_narrows_as_half_does() {
        // Every binary16 value, the binary32 values next to each one and halfway between
        // neighbours (the ties), and a million random binary32 bit patterns.
        let mut cases: Vec<f32> = Vec::new();
        for bits in 0..=u16::MAX {
            let x = f16::from_bits(bits).to_f32();
            let next = f16::from_bits(bits.wrapping_add(1)).to_f32();
            cases.extend([x, f32::from_bits(x.to_bits() + 1), f32::from_bits(x.to_bits().wrapping_sub(1))]);
            cases.push(((f64::from(x) + f64::from(next)) / 2.0) as f32);
        }
        let mut next = crate::value::splitmix(7);
        cases.extend((0..1_000_000).map(|_| f32::from_bits(next() as u32)));
        for x in cases {
            let (ours, theirs) = (f32_to_f16(x), f16::from_f32(x));
            assert!(ours.to_bits() == theirs.to_bits() || (ours.is_nan() && theirs.is_nan()), "{x:e} ({:#010x})", x.to_bits());
            let (round, widened) = (round_f16(x), theirs.to_f32());
            assert!(round.to_bits() == widened.to_bits() || (round.is_nan() && widened.is_nan()), "round {x:e}");
        }
    }
}
