//! Four `f64` lanes in two SSE2 registers (builds without AVX).

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
