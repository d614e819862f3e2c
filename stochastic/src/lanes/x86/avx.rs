//! Four `f64` lanes in one AVX register (builds with AVX).

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
