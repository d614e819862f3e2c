//! binary16 <-> binary32 conversions at hardware speed.
//!
//! `half` converts through a function that checks for F16C at every call and cannot be inlined
//! (it is compiled with `#[target_feature]`): in a tuned crate whose knobs are `f16`, each native
//! `+` or `*` made three such calls, and cg's binary16 configurations ran 25 times slower than
//! binary64 natively. Here the F16C instructions are inline assembly, which inlines into any
//! caller whatever its target features, behind one predictable test of a flag read before
//! `main`. The results are the IEEE conversions (binary32 to binary16 rounds to nearest even),
//! bit for bit what `half` computes; without F16C (or off x86_64) [`soft`]'s inlined code runs.
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
    use crate::startup::Plain;

    /// Whether the CPU has F16C (and the AVX state its VEX encoding needs), as probed before
    /// `main` ([`crate::startup`]): false until then, so a conversion takes [`super::soft`]'s
    /// path, which gives the same values.
    static F16C: Plain<bool> = Plain::new(false);

    /// Probes the CPU.
    ///
    /// # Safety
    /// No other thread may run (it is called before `main`).
    pub(crate) unsafe fn probe_f16c() {
        let has = std::arch::is_x86_feature_detected!("f16c") && std::arch::is_x86_feature_detected!("avx");
        // SAFETY: the caller's promise.
        unsafe { F16C.set(has) }
    }

    /// Whether the CPU has F16C (and the AVX state its VEX encoding needs).
    #[inline(always)]
    pub(super) fn has_f16c() -> bool {
        F16C.get()
    }
}

#[cfg(all(target_arch = "x86_64", not(target_feature = "f16c")))]
pub(crate) use detect::probe_f16c;

/// Nothing to probe: the target has F16C, or is not x86_64.
///
/// # Safety
/// None needed; `unsafe` as the probe it stands for.
#[cfg(not(all(target_arch = "x86_64", not(target_feature = "f16c"))))]
pub(crate) unsafe fn probe_f16c() {}

/// The body of a conversion, by what the target and the CPU have: `compiled` when the target
/// has F16C (intrinsics), `detected` when it is x86_64 without it but the CPU has it (inline
/// assembly behind [`detect::has_f16c`]), `otherwise` [`soft`]'s.
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

/// The conversions in integer and `f32` arithmetic, inlined. `half` has them too, but out of
/// line (and its other functions detect F16C themselves, with a call): a call in a loop, even on
/// a path never taken, keeps LLVM from hoisting any load out of it ([`crate::startup`]), and a
/// native single build's loops read their knobs' formats at every operation. (A build with F16C
/// compiled in uses them only in its tests.)
#[cfg_attr(all(target_arch = "x86_64", target_feature = "f16c"), allow(dead_code))]
mod soft {
    /// The binary16 value of bits `h`, exactly, as binary32.
    #[inline(always)]
    pub(super) fn widen(h: u16) -> f32 {
        let sign = u32::from(h & 0x8000) << 16;
        let magnitude = u32::from(h & 0x7fff);
        let bits = if magnitude >= 0x7c00 {
            // Infinity, or NaN (kept, made quiet).
            let quiet = if magnitude > 0x7c00 { 0x0040_0000 } else { 0 };
            0x7f80_0000 | ((magnitude & 0x3ff) << 13) | quiet
        } else if magnitude >= 0x0400 {
            // Normal: the exponent's bias 15 becomes 127.
            (magnitude << 13) + ((127 - 15) << 23)
        } else {
            // Zero or subnormal: the significand times 2^-24, exact in binary32.
            (magnitude as f32 * f32::from_bits(0x3380_0000)).to_bits()
        };
        f32::from_bits(sign | bits)
    }

    /// The bits of `x` rounded to nearest, ties to even, into binary16.
    #[inline(always)]
    pub(super) fn narrow(x: f32) -> u16 {
        let f = x.to_bits();
        let sign = ((f >> 16) & 0x8000) as u16;
        let a = f & 0x7fff_ffff;
        let bits = if a >= 0x7f80_0000 {
            // Infinity, or NaN (its high payload bits kept, made quiet).
            if a > 0x7f80_0000 {
                0x7e00 | ((a >> 13) & 0x3ff) as u16
            } else {
                0x7c00
            }
        } else if a >= (127 + 16) << 23 {
            // 2^16 and above: beyond the largest finite value and half an ulp.
            0x7c00
        } else if a >= (127 - 14) << 23 {
            // Normal in binary16: rebias, then add just under half the 13 bits dropped, plus the
            // kept last bit (ties to even); a carry goes into the exponent, up to infinity.
            let odd = (a >> 13) & 1;
            ((a - ((127 - 15) << 23) + 0x0fff + odd) >> 13) as u16
        } else {
            // Subnormal or zero in binary16: added to 0.5, whose ulp is binary16's quantum
            // 2^-24, the value is rounded (to nearest even) by the addition itself; what is left
            // above 0.5's bits counts quanta (1024 of them: the smallest normal, as it should).
            let half = f32::from_bits(126 << 23);
            ((f32::from_bits(a) + half).to_bits() - half.to_bits()) as u16
        };
        sign | bits
    }
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
        otherwise: { soft::widen(x.to_bits()) }
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
        otherwise: { f16::from_bits(soft::narrow(x)) }
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
        otherwise: { soft::widen(soft::narrow(x)) }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same_f32(a: f32, b: f32) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    fn same_f16(a: f16, b: f16) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    #[test]
    fn every_binary16_widens_as_half_does() {
        for bits in 0..=u16::MAX {
            let x = f16::from_bits(bits);
            let theirs = x.to_f32();
            assert!(same_f32(f16_to_f32(x), theirs), "{bits:#06x}");
            assert!(same_f32(soft::widen(bits), theirs), "software, {bits:#06x}");
        }
    }

    /// Every binary16 value, the binary32 values next to each one and halfway between
    /// neighbours (the ties), and a million random binary32 bit patterns.
    fn narrowing_cases() -> Vec<f32> {
        let mut cases: Vec<f32> = Vec::new();
        for bits in 0..=u16::MAX {
            let x = f16::from_bits(bits).to_f32();
            let next = f16::from_bits(bits.wrapping_add(1)).to_f32();
            cases.extend([x, f32::from_bits(x.to_bits() + 1), f32::from_bits(x.to_bits().wrapping_sub(1))]);
            cases.push(((f64::from(x) + f64::from(next)) / 2.0) as f32);
        }
        let mut next = crate::value::splitmix(7);
        cases.extend((0..1_000_000).map(|_| f32::from_bits(next() as u32)));
        cases
    }

    #[test]
    fn binary32_narrows_as_half_does() {
        for x in narrowing_cases() {
            let theirs = f16::from_f32(x);
            assert!(same_f16(f32_to_f16(x), theirs), "{x:e} ({:#010x})", x.to_bits());
            assert!(same_f32(round_f16(x), theirs.to_f32()), "round {x:e}");
            assert!(same_f16(f16::from_bits(soft::narrow(x)), theirs), "software, {x:e} ({:#010x})", x.to_bits());
        }
    }
}
