//! [`DynNative`]: the native single build's value of run-time format.
//!
//! One value with its format's tag, computed as the configuration's own native build computes
//! it: `+ - * /` in the operands' common format by that format's operator (the 16-bit formats in
//! `f32`, then rounded to nearest, as `rt`'s `Arith`); the method set by the format's own
//! functions (`f32`'s for the 16-bit formats, as `rt`'s `HalfMath`); conversions, literals and
//! stores rounded to nearest from the exact value, as `rt`'s `Store` does. So a run gives, bit for bit, the records of the configuration's native
//! build (the tuner checks this on two configurations before it relies on it).

use std::cmp::Ordering;
use std::ops::{Add, Div, Mul, Neg, Rem, Sub};

use half::{bf16, f16};

use super::{DynFloat, DynMath, FloatFormat, Tag};
use crate::check::Checkable;
use crate::cvt::Half32;
use crate::format::{Format, Repr};
use crate::rt::{HalfMath, Lit};

/// A native value whose format is known at run time: what arithmetic on the native single
/// build's knobs (`Knob<F, U, DynNative>`) gives. A binary64 value is kept as it is; a value of the
/// narrower formats as the `f32` that holds it exactly, in the low half of the same word, so that
/// binary32 and 16-bit arithmetic is `f32` arithmetic, converting nothing more than the
/// configuration's own native build does. The word is also what a knob keeps ([`DynFloat::word`]).
#[derive(Clone, Copy, Debug)]
pub struct DynNative {
    /// The binary64 value, or the `f32` value in the low half ([`low_word`]).
    r: f64,
    pub(super) f: FloatFormat,
}

/// The word of an `f32` value: its bits in the low half, zeros above. On x86_64 the value stays
/// in its vector register (a bit cast through integers went through a general register, on the
/// running sums' dependency chains: the `f32` is the register's low lane either way).
#[inline]
fn low_word(x: f32) -> f64 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_castps_pd, _mm_cvtsd_f64, _mm_set_ss};
        // SAFETY: SSE and SSE2 are part of every x86_64 target.
        unsafe { _mm_cvtsd_f64(_mm_castps_pd(_mm_set_ss(x))) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        f64::from_bits(u64::from(x.to_bits()))
    }
}

/// The `f32` value of a word made by [`low_word`].
#[inline]
fn low_f32(w: f64) -> f32 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_castpd_ps, _mm_cvtss_f32, _mm_set_sd};
        // SAFETY: SSE and SSE2 are part of every x86_64 target.
        unsafe { _mm_cvtss_f32(_mm_castpd_ps(_mm_set_sd(w))) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        f32::from_bits(w.to_bits() as u32)
    }
}

/// `x`, a result computed in binary32, rounded to nearest into the 16-bit format `f`, as `rt`'s
/// `Arith` and `HalfMath` round it (binary32 holds the result exactly). A finite `x` rounded to
/// an infinity is an overflow ([`crate::stochastic::native_overflow`]).
#[inline]
fn narrow_half(f: FloatFormat, x: f32) -> f32 {
    let r = match f {
        FloatFormat::F16 => <f16 as Half32>::round(x),
        _ => <bf16 as Half32>::round(x),
    };
    if r.is_infinite() && x.is_finite() {
        crate::stochastic::native_overflow();
    }
    r
}

/// `y`, the value `x` rounded into 16-bit format `G`, after the check of [`narrow_half`].
#[inline]
fn checked_half<G: Format>(x: f64, y: G) -> G {
    if G::PRECISION < 24 && y.to_repr().to_f64().is_infinite() && x.is_finite() {
        crate::stochastic::native_overflow();
    }
    y
}

/// `$e` with `$v` bound to the value as a native float of its format.
macro_rules! read_native {
    ($x:expr, $v:ident => $e:expr) => {{
        let x: DynNative = $x;
        at_format!(x.f, Own => { let $v = x.native::<Own>(); $e })
    }};
}

impl DynNative {
    /// A binary64 value.
    #[inline]
    fn double(x: f64) -> DynNative {
        DynNative { r: x, f: FloatFormat::F64 }
    }

    /// A value of the narrower format `f`, held exactly by `x`.
    #[inline]
    fn single(x: f32, f: FloatFormat) -> DynNative {
        DynNative { r: low_word(x), f }
    }

    /// The value of a narrower format, as the `f32` that holds it.
    #[inline]
    fn s(self) -> f32 {
        low_f32(self.r)
    }

    /// The value, exactly, as an `f64`.
    #[inline]
    pub fn value_f64(self) -> f64 {
        if self.f == FloatFormat::F64 {
            self.r
        } else {
            f64::from(self.s())
        }
    }

    /// A native value of format `f` (its own).
    #[inline]
    fn of<G: Format>(x: G, f: FloatFormat) -> DynNative {
        let v = x.to_repr().to_f64();
        if f == FloatFormat::F64 {
            DynNative::double(v)
        } else {
            DynNative::single(v as f32, f)
        }
    }

    /// A result in format `f`, computed as that format's native arithmetic does: `double` in
    /// binary64; `single` in `f32`, rounded to nearest into a 16-bit format.
    #[inline]
    fn computed(f: FloatFormat, double: impl FnOnce() -> f64, single: impl FnOnce() -> f32) -> DynNative {
        match f {
            FloatFormat::F64 => DynNative::double(double()),
            FloatFormat::F32 => DynNative::single(single(), FloatFormat::F32),
            f => DynNative::single(narrow_half(f, single()), f),
        }
    }

    /// The value as a native float of format `G`, which must hold it exactly.
    #[inline]
    pub(super) fn native<G: Format>(self) -> G {
        G::from_repr(G::exact(self.value_f64()))
    }
}

impl DynFloat for DynNative {
    type Word = f64;

    #[inline]
    fn format(self) -> FloatFormat {
        self.f
    }

    /// The common case first, on its own: operands of one format, which stay as they are (the
    /// formats' promotion, which the mixed case needs, costs selects the common case would wait
    /// for).
    #[inline]
    fn meet(a: DynNative, b: DynNative) -> (DynNative, DynNative) {
        if a.f == b.f {
            return (a, b);
        }
        let f = a.f.promote(b.f);
        (a.to(f), b.to(f))
    }

    #[inline]
    fn word(self) -> f64 {
        self.r
    }

    #[inline]
    fn from_word(r: f64, f: FloatFormat) -> DynNative {
        DynNative { r, f }
    }

    #[inline]
    fn wide_word(self) -> f64 {
        self.value_f64()
    }

    /// Unchecked, as the compiler's rounding of a constant: a 16-bit overflow is the
    /// constant's, not a run's ([`DynNative::from_f64`] stops at one).
    #[inline]
    fn from_wide_word(w: f64, f: FloatFormat) -> DynNative {
        at_format!(f, G => DynNative::of(G::from_repr(G::nearest(w)), f))
    }

    #[inline]
    fn to(self, f: FloatFormat) -> DynNative {
        if f == self.f {
            return self;
        }
        match (f, self.f) {
            (FloatFormat::F64, _) => DynNative::double(f64::from(self.s())),
            (FloatFormat::F32, FloatFormat::F64) => DynNative::single(self.r as f32, f),
            (FloatFormat::F32, _) => DynNative { r: self.r, f },
            // binary16 or bfloat16 from binary64: rounded once, from the exact value.
            (_, FloatFormat::F64) => DynNative::from_f64(self.r, f),
            // From a narrower format: its `f32` rounded once.
            _ => DynNative::single(narrow_half(f, self.s()), f),
        }
    }

    #[inline]
    fn lit(l: Lit, f: FloatFormat) -> DynNative {
        at_format!(f, G => DynNative::of(checked_half(l.d, l.to::<G>()), f))
    }

    #[inline]
    fn exact<A: Tag>(x: A) -> DynNative {
        DynNative::of(x, A::FLOAT_FORMAT)
    }

    #[inline]
    fn from_f64(x: f64, f: FloatFormat) -> DynNative {
        at_format!(f, G => DynNative::of(checked_half(x, G::from_repr(G::nearest(x))), f))
    }

    #[inline]
    fn zero(f: FloatFormat) -> DynNative {
        DynNative { r: 0.0, f }
    }

    #[inline]
    fn store_native<B: Tag>(self) -> B {
        B::from_repr(B::nearest(self.value_f64()))
    }
}

impl Default for DynNative {
    fn default() -> Self {
        DynNative::zero(FloatFormat::F64)
    }
}

macro_rules! dyn_native_ops {
    ($($Op:ident, $op:ident);*) => {$(
        impl $Op for DynNative {
            type Output = DynNative;
            /// In the common format, as `rt`'s `Arith`: binary64 and binary32 by their own
            /// operator, the 16-bit formats in binary32 then rounded to nearest.
            #[inline]
            fn $op(self, rhs: DynNative) -> DynNative {
                let (a, b) = DynFloat::meet(self, rhs);
                DynNative::computed(a.f, || $Op::$op(a.r, b.r), || $Op::$op(a.s(), b.s()))
            }
        }
    )*};
}
dyn_native_ops!(Add, add; Sub, sub; Mul, mul; Div, div; Rem, rem);

impl Neg for DynNative {
    type Output = DynNative;
    #[inline]
    fn neg(self) -> DynNative {
        if self.f == FloatFormat::F64 {
            DynNative::double(-self.r)
        } else {
            DynNative::single(-self.s(), self.f)
        }
    }
}

impl PartialEq for DynNative {
    #[inline]
    fn eq(&self, other: &DynNative) -> bool {
        // Both widen exactly to their common format: comparing the `f64`s is comparing there.
        self.value_f64() == other.value_f64()
    }
}

impl PartialOrd for DynNative {
    #[inline]
    fn partial_cmp(&self, other: &DynNative) -> Option<Ordering> {
        self.value_f64().partial_cmp(&other.value_f64())
    }
}

impl std::fmt::Display for DynNative {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        read_native!(*self, x => std::fmt::Display::fmt(&x, f))
    }
}

// The exponent forms write a narrower format's value as the `f32` that holds it exactly:
// `half`'s own `{:e}` drops the caller's width and precision (see `shown.rs`).
impl std::fmt::LowerExp for DynNative {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.f {
            FloatFormat::F64 => std::fmt::LowerExp::fmt(&self.r, f),
            _ => std::fmt::LowerExp::fmt(&self.s(), f),
        }
    }
}

impl std::fmt::UpperExp for DynNative {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.f {
            FloatFormat::F64 => std::fmt::UpperExp::fmt(&self.r, f),
            _ => std::fmt::UpperExp::fmt(&self.s(), f),
        }
    }
}

impl Checkable for DynNative {
    fn visit(&self, f: &mut dyn FnMut(crate::check::Record)) {
        read_native!(*self, x => x.visit(f))
    }
}

macro_rules! dyn_native_methods {
    (unary: [$($u:ident),*], binary: [$($b:ident),*], queries: [$($q:ident -> $r:ty),*]) => {
        impl DynNative {
            $(
                #[doc = concat!("`", stringify!($u), "` of the value's format (of `f32` for a 16-bit one).")]
                #[inline]
                pub fn $u(self) -> DynNative {
                    DynNative::computed(self.f, || self.r.$u(), || self.s().$u())
                }
            )*
            $(
                #[doc = concat!("`", stringify!($b), "` in the common format (of `f32` for a 16-bit one).")]
                #[inline]
                pub fn $b(self, o: DynNative) -> DynNative {
                    let (a, b) = DynFloat::meet(self, o);
                    DynNative::computed(a.f, || a.r.$b(b.r), || a.s().$b(b.s()))
                }
            )*
            $(
                #[doc = concat!("`", stringify!($q), "`.")]
                #[inline]
                pub fn $q(&self) -> $r {
                    self.value_f64().$q()
                }
            )*
            /// `self^n`.
            #[inline]
            pub fn powi(self, n: i32) -> DynNative {
                DynNative::computed(self.f, || self.r.powi(n), || self.s().powi(n))
            }
            /// IEEE 754's total order (of the values, which every format holds in `f64`).
            #[inline]
            pub fn total_cmp(&self, o: &DynNative) -> std::cmp::Ordering {
                self.value_f64().total_cmp(&o.value_f64())
            }
            /// `self * a + b`, rounded once in the format of the three.
            #[inline]
            pub fn mul_add(self, a: DynNative, b: DynNative) -> DynNative {
                let f = self.f.promote(a.f).promote(b.f);
                let (x, a, b) = (self.to(f), a.to(f), b.to(f));
                at_format!(f, G => DynNative::of(x.native::<G>().mul_add(a.native::<G>(), b.native::<G>()), f))
            }
        }
        dyn_math_inherent!(DynNative; unary: [$($u),*], binary: [$($b),*], queries: [$($q -> $r),*]);
    };
}
crate::methods::f64_methods!(dyn_native_methods);
