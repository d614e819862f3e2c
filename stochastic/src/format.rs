//! The four floating-point formats a stochastic value can have, and their exact directed-rounding
//! kernels.

use std::fmt::{Debug, Display, LowerExp};

use half::{bf16, f16};

use crate::formats::Spec;
use crate::lanes;
use crate::round::{self, GRID_BF16, GRID_F16};

pub(crate) mod sealed {
    pub trait Sealed {}
    impl Sealed for f64 {}
    impl Sealed for f32 {}
    impl Sealed for half::f16 {}
    impl Sealed for half::bf16 {}
}

/// How samples are held in memory: `f64` for binary64, `f32` for the other formats (binary16 and
/// bfloat16 values are exact in `f32`, so they are kept there and never converted in the hot
/// path).
pub trait Repr: Copy + Default + PartialEq + PartialOrd + Debug + Send + Sync + 'static {
    /// A zero-sized field that gives a value of three samples its alignment (see
    /// [`Align16`]).
    #[doc(hidden)]
    type Align: Copy + Send + Sync + 'static;
    #[doc(hidden)]
    const ALIGN: Self::Align;
    /// Exact widening to `f64`.
    fn to_f64(self) -> f64;
    /// Negation (exact).
    fn neg(self) -> Self;
    /// Whether the sample is infinite.
    fn is_infinite(self) -> bool;
}

/// Aligns three `f32` samples (12 bytes) to 16: a value then never straddles two cache lines, and
/// a column walk through a matrix of them (the matmul bench's B at n = 500) touches a line per
/// value where one in eight took two. Three `f64` samples keep their 24 bytes: padding them to 32
/// measured no better.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
#[repr(align(16))]
pub struct Align16;

impl Repr for f64 {
    type Align = ();
    const ALIGN: () = ();
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline(always)]
    fn neg(self) -> Self {
        -self
    }
    #[inline(always)]
    fn is_infinite(self) -> bool {
        f64::is_infinite(self)
    }
}

impl Repr for f32 {
    type Align = Align16;
    const ALIGN: Align16 = Align16;
    #[inline(always)]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    #[inline(always)]
    fn neg(self) -> Self {
        -self
    }
    #[inline(always)]
    fn is_infinite(self) -> bool {
        f32::is_infinite(self)
    }
}

/// A floating-point format: `f64`, `f32`, [`half::f16`] or [`half::bf16`].
///
/// The kernels round the exact result of an operation toward +inf (`dir = 1.0`) or -inf
/// (`dir = -1.0`). This trait is sealed: the formats are the four above.
pub trait Format:
    sealed::Sealed + Copy + Default + PartialOrd + Debug + Display + LowerExp + Send + Sync + 'static
{
    /// Storage and arithmetic type of the samples.
    type Repr: Repr;
    /// IEEE 754 name of the format.
    const NAME: &'static str;
    /// Rust spelling of the primitive type.
    const RUST: &'static str;
    /// Significand bits, hidden bit included.
    const PRECISION: u32;
    /// Most decimal digits the format can hold: log10(2^PRECISION).
    const MAX_DIGITS: f64;
    /// Whether overflow and underflow are detected (the 16-bit formats).
    const LIMITED_RANGE: bool;
    /// The format as data ([`crate::formats::Spec`]): which formats hold which (see
    /// [`crate::Promote`]), and whether two are the same.
    const SPEC: Spec;

    /// The primitive value of a sample.
    fn from_repr(r: Self::Repr) -> Self;
    /// A primitive value as a sample (exact).
    fn to_repr(self) -> Self::Repr;
    /// The bit pattern, zero-extended (for a conversion to the same format that is no
    /// conversion: formats of equal [`Format::SPEC`] are the same).
    #[doc(hidden)]
    fn to_bits64(self) -> u64;
    /// The value of the bit pattern [`Format::to_bits64`] gives.
    #[doc(hidden)]
    fn from_bits64(b: u64) -> Self;
    /// Round-to-nearest of an `f64` (how a literal or an input is converted).
    fn nearest(x: f64) -> Self::Repr;
    /// Directed rounding of an `f64`.
    fn round(x: f64, dir: f64) -> Self::Repr;
    /// Directed `a + b`.
    fn add(a: Self::Repr, b: Self::Repr, dir: f64) -> Self::Repr;
    /// Directed `a * b`.
    fn mul(a: Self::Repr, b: Self::Repr, dir: f64) -> Self::Repr;
    /// Directed `a / b`.
    fn div(a: Self::Repr, b: Self::Repr, dir: f64) -> Self::Repr;
    /// Directed `sqrt(a)`.
    fn sqrt(a: Self::Repr, dir: f64) -> Self::Repr;
    /// Exact conversion from a narrower format's sample (`x` is representable).
    fn exact(x: f64) -> Self::Repr;

    /// Directed `a + b` of three samples, sample `i` toward -inf when bit `i` of `bits` is set
    /// (sample 2 opposite to sample 1): see [`crate::rng`] and `lanes/`. `cpu`: which of the
    /// CPU's kernels are to be used ([`crate::stochastic::cpu_flags`]).
    #[doc(hidden)]
    #[inline(always)]
    fn add3(a: [Self::Repr; 3], b: [Self::Repr; 3], bits: u64, _cpu: u32) -> [Self::Repr; 3] {
        let d = crate::rng::directions_of(bits);
        [Self::add(a[0], b[0], d[0]), Self::add(a[1], b[1], d[1]), Self::add(a[2], b[2], d[2])]
    }

    /// Directed `a * b` of three samples, directions as in [`Format::add3`].
    #[doc(hidden)]
    #[inline(always)]
    fn mul3(a: [Self::Repr; 3], b: [Self::Repr; 3], bits: u64, _cpu: u32) -> [Self::Repr; 3] {
        let d = crate::rng::directions_of(bits);
        [Self::mul(a[0], b[0], d[0]), Self::mul(a[1], b[1], d[1]), Self::mul(a[2], b[2], d[2])]
    }

    /// Directed rounding of three `f64` samples into this format (a narrowing conversion),
    /// directions as in [`Format::add3`].
    #[doc(hidden)]
    #[inline(always)]
    fn round3(x: [f64; 3], bits: u64, _cpu: u32) -> [Self::Repr; 3] {
        round3_each::<Self>(x, bits)
    }

    /// Whether the three samples are the same finite value, bit for bit.
    #[doc(hidden)]
    #[inline(always)]
    fn exact_finite(s: [Self::Repr; 3]) -> bool {
        let [a, b, c] = s.map(Repr::to_f64);
        (a.to_bits() == b.to_bits()) & (b.to_bits() == c.to_bits()) & a.is_finite()
    }

    /// A sufficient test that the samples `s` are not numerical noise (`value::is_noise_f64` is
    /// false), on their bit patterns: every sample within `2^(p-9)` units in the last place of the
    /// middle one (`within_ulps`), whose exponent keeps them all normal, finite and far from the
    /// ends of the range (`p` the precision of the storage type, binary64 or binary32).
    ///
    /// Why: `D = 2^(p-9)` is below a binade's `2^(p-1)` patterns, so the samples span at most two
    /// binades and each lies within `2 D` ulps of the middle one's binade: within
    /// `2 D 2^(1-p) = 2^-7` of it, relatively. Their deviations from the mean are then below
    /// `2/3 * 2 * 2^-7 / (1 - 2^-7) < 0.0123` relatively, the sum of their squares below
    /// `4.6e-4`, far below the noise bound `0.1 / C = 0.0324` even with the few roundings of
    /// `spread`. The exponent bounds (binary64: `[64, 1981]`, binary32: `[2, 253]`) keep the sum of the samples and
    /// `3 / sum` finite and normal, so `spread` takes its ordinary path. Not for binary16 and
    /// bfloat16 (`false`): as binary32 patterns the bound is 4 and 1/2 of their own ulps, which
    /// few of their values meet, and the test cost binary16 more than it saved.
    #[doc(hidden)]
    #[inline(always)]
    fn surely_not_noise(s: [Self::Repr; 3]) -> bool {
        let _ = s;
        false
    }

    /// Whether the samples of a sum surely kept enough digits for the cancellation check to end
    /// at once: within `stochastic::cancel_ulps` of each other (binary64 and binary32; `false`
    /// for the others, whose check ends on its threshold).
    #[doc(hidden)]
    #[inline(always)]
    fn sum_surely_accurate(s: [Self::Repr; 3]) -> bool {
        let _ = s;
        false
    }

    /// The range events (`lanes::OVERFLOWED`, `lanes::UNDERFLOWED`) of result samples `r` of an
    /// operation on `a` and `b`: a sample infinite from finite operands; a sample zero from finite
    /// nonzero operands when `exact_nonzero` (products and quotients, whose exact value is then
    /// nonzero).
    #[doc(hidden)]
    #[inline(always)]
    fn range_events(r: [Self::Repr; 3], a: [Self::Repr; 3], b: [Self::Repr; 3], exact_nonzero: bool) -> u32 {
        range_events_where::<Self>(r, a, b, exact_nonzero, f64::is_infinite)
    }

    /// Whether every sample is nonzero and finite (a 16-bit result that cannot have overflowed
    /// or underflowed).
    #[doc(hidden)]
    #[inline(always)]
    fn all_nonzero_finite(s: [Self::Repr; 3]) -> bool {
        s.iter().all(|r| {
            let r = r.to_f64().abs();
            r > 0.0 && r < f64::INFINITY
        })
    }

    /// [`Format::mul3`] of operands whose three samples are `a` and `b`.
    #[doc(hidden)]
    #[inline(always)]
    fn mul3_exact(a: Self::Repr, b: Self::Repr, bits: u64, cpu: u32) -> [Self::Repr; 3] {
        Self::mul3([a; 3], [b; 3], bits, cpu)
    }
}

impl Format for f64 {
    type Repr = f64;
    const NAME: &'static str = "binary64";
    const RUST: &'static str = "f64";
    const PRECISION: u32 = 53;
    const MAX_DIGITS: f64 = 15.95;
    const LIMITED_RANGE: bool = false;
    const SPEC: Spec = Spec::F64;

    #[inline(always)]
    fn from_repr(r: f64) -> Self {
        r
    }
    #[inline(always)]
    fn to_repr(self) -> f64 {
        self
    }
    #[inline(always)]
    fn to_bits64(self) -> u64 {
        self.to_bits()
    }
    #[inline(always)]
    fn from_bits64(b: u64) -> Self {
        f64::from_bits(b)
    }
    #[inline(always)]
    fn nearest(x: f64) -> f64 {
        x
    }
    #[inline(always)]
    fn round(x: f64, _dir: f64) -> f64 {
        x
    }
    #[inline(always)]
    fn add(a: f64, b: f64, dir: f64) -> f64 {
        round::add_f64(a, b, dir)
    }
    #[inline(always)]
    fn mul(a: f64, b: f64, dir: f64) -> f64 {
        round::mul_f64(a, b, dir)
    }
    #[inline(always)]
    fn div(a: f64, b: f64, dir: f64) -> f64 {
        round::div_f64(a, b, dir)
    }
    #[inline(always)]
    fn sqrt(a: f64, dir: f64) -> f64 {
        round::sqrt_f64(a, dir)
    }
    #[inline(always)]
    fn exact(x: f64) -> f64 {
        x
    }
    #[inline(always)]
    fn add3(a: [f64; 3], b: [f64; 3], bits: u64, cpu: u32) -> [f64; 3] {
        lanes::add3_f64(a, b, bits, cpu)
    }
    #[inline(always)]
    fn mul3(a: [f64; 3], b: [f64; 3], bits: u64, cpu: u32) -> [f64; 3] {
        lanes::mul3_f64(a, b, bits, cpu)
    }
    #[inline(always)]
    fn exact_finite(s: [f64; 3]) -> bool {
        lanes::exact_finite_f64(s)
    }
    #[inline(always)]
    fn sum_surely_accurate(s: [f64; 3]) -> bool {
        let [x0, x1, x2] = s.map(f64::to_bits);
        within_ulps(x0, x1, x2, crate::stochastic::cancel_ulps(53), 52, 0x7ff, 2, 0x7fd)
    }
    #[inline(always)]
    fn mul3_exact(a: f64, b: f64, bits: u64, cpu: u32) -> [f64; 3] {
        lanes::mul3_exact_f64(a, b, bits, cpu)
    }
    #[inline(always)]
    fn surely_not_noise(s: [f64; 3]) -> bool {
        let [x0, x1, x2] = s.map(f64::to_bits);
        within_ulps(x0, x1, x2, 1 << 44, 52, 0x7ff, 64, 0x7ff - 66)
    }
}

impl Format for f32 {
    type Repr = f32;
    const NAME: &'static str = "binary32";
    const RUST: &'static str = "f32";
    const PRECISION: u32 = 24;
    const MAX_DIGITS: f64 = 7.22;
    const LIMITED_RANGE: bool = false;
    const SPEC: Spec = Spec::F32;

    #[inline(always)]
    fn from_repr(r: f32) -> Self {
        r
    }
    #[inline(always)]
    fn to_repr(self) -> f32 {
        self
    }
    #[inline(always)]
    fn to_bits64(self) -> u64 {
        u64::from(self.to_bits())
    }
    #[inline(always)]
    fn from_bits64(b: u64) -> Self {
        f32::from_bits(b as u32)
    }
    #[inline(always)]
    fn nearest(x: f64) -> f32 {
        x as f32
    }
    #[inline(always)]
    fn round(x: f64, dir: f64) -> f32 {
        round::f64_to_f32(x, dir)
    }
    #[inline(always)]
    fn round3(x: [f64; 3], bits: u64, cpu: u32) -> [f32; 3] {
        lanes::round3_f32(x, bits, cpu)
    }
    #[inline(always)]
    fn add(a: f32, b: f32, dir: f64) -> f32 {
        round::add_f32(a, b, dir)
    }
    #[inline(always)]
    fn mul(a: f32, b: f32, dir: f64) -> f32 {
        round::mul_f32(a, b, dir)
    }
    #[inline(always)]
    fn div(a: f32, b: f32, dir: f64) -> f32 {
        round::div_f32(a, b, dir)
    }
    #[inline(always)]
    fn sqrt(a: f32, dir: f64) -> f32 {
        round::sqrt_f32(a, dir)
    }
    #[inline(always)]
    fn exact(x: f64) -> f32 {
        x as f32
    }
    #[inline(always)]
    fn add3(a: [f32; 3], b: [f32; 3], bits: u64, cpu: u32) -> [f32; 3] {
        lanes::add3_f32(a, b, bits, cpu)
    }
    #[inline(always)]
    fn exact_finite(s: [f32; 3]) -> bool {
        exact_finite_f32(s)
    }
    #[inline(always)]
    fn sum_surely_accurate(s: [f32; 3]) -> bool {
        let [x0, x1, x2] = s.map(|x| u64::from(x.to_bits()));
        within_ulps(x0, x1, x2, crate::stochastic::cancel_ulps(24), 23, 0xff, 2, 0xfd)
    }
    #[inline(always)]
    fn surely_not_noise(s: [f32; 3]) -> bool {
        surely_not_noise_f32(s)
    }

    #[inline(always)]
    fn mul3(a: [f32; 3], b: [f32; 3], bits: u64, cpu: u32) -> [f32; 3] {
        lanes::mul3_f32(a, b, bits, cpu)
    }
}

macro_rules! sixteen_bit_format {
    ($t:ty, $grid:expr, $lanes:expr, $mul3:path, $round3:expr, $name:literal, $rust:literal, $prec:literal, $digits:literal, $spec:expr) => {
        impl Format for $t {
            type Repr = f32;
            const NAME: &'static str = $name;
            const RUST: &'static str = $rust;
            const PRECISION: u32 = $prec;
            const MAX_DIGITS: f64 = $digits;
            const LIMITED_RANGE: bool = true;
            const SPEC: Spec = $spec;

            #[inline(always)]
            fn from_repr(r: f32) -> Self {
                <$t as crate::cvt::Half32>::narrow(r)
            }
            #[inline(always)]
            fn to_repr(self) -> f32 {
                crate::cvt::Half32::widen(self)
            }
            #[inline(always)]
            fn to_bits64(self) -> u64 {
                u64::from(self.to_bits())
            }
            #[inline(always)]
            fn from_bits64(b: u64) -> Self {
                <$t>::from_bits(b as u16)
            }
            #[inline(always)]
            fn nearest(x: f64) -> f32 {
                round::grid_nearest(x, $grid) as f32
            }
            #[inline(always)]
            fn round(x: f64, dir: f64) -> f32 {
                round::grid_round(x, 0.0, dir, $grid) as f32
            }
            #[inline(always)]
            fn round3(x: [f64; 3], bits: u64, cpu: u32) -> [f32; 3] {
                let kernel: Option<fn([f64; 3], u64, u32) -> [f32; 3]> = $round3;
                match kernel {
                    Some(k) => k(x, bits, cpu),
                    None => round3_each::<Self>(x, bits),
                }
            }
            #[inline(always)]
            fn add(a: f32, b: f32, dir: f64) -> f32 {
                round::add_grid(a, b, dir, $grid)
            }
            #[inline(always)]
            fn mul(a: f32, b: f32, dir: f64) -> f32 {
                round::mul_grid(a, b, dir, $grid)
            }
            #[inline(always)]
            fn div(a: f32, b: f32, dir: f64) -> f32 {
                round::div_grid(a, b, dir, $grid)
            }
            #[inline(always)]
            fn sqrt(a: f32, dir: f64) -> f32 {
                round::sqrt_grid(a, dir, $grid)
            }
            #[inline(always)]
            fn exact(x: f64) -> f32 {
                x as f32
            }
            #[inline(always)]
            fn add3(a: [f32; 3], b: [f32; 3], bits: u64, cpu: u32) -> [f32; 3] {
                lanes::add3_grid(a, b, bits, &$lanes, cpu)
            }
            #[inline(always)]
            fn mul3(a: [f32; 3], b: [f32; 3], bits: u64, cpu: u32) -> [f32; 3] {
                $mul3(a, b, bits, cpu)
            }
            #[inline(always)]
            fn exact_finite(s: [f32; 3]) -> bool {
                exact_finite_f32(s)
            }
            #[inline(always)]
            fn all_nonzero_finite(s: [f32; 3]) -> bool {
                lanes::all_nonzero_finite_f32(s)
            }
            #[inline(always)]
            fn range_events(r: [f32; 3], a: [f32; 3], b: [f32; 3], exact_nonzero: bool) -> u32 {
                lanes::range_events_f32(r, a, b, exact_nonzero)
            }
        }
    };
}

sixteen_bit_format!(f16, GRID_F16, lanes::F16, lanes::mul3_f16, Some(lanes::round3_f16), "binary16", "fptune::f16", 11, 3.31, Spec::F16);
// No conversion instruction rounds onto bfloat16 in a chosen direction: `round.rs` per sample.
sixteen_bit_format!(bf16, GRID_BF16, lanes::BF16, lanes::mul3_bf16, None, "bfloat16", "fptune::bf16", 8, 2.41, Spec::BF16);

/// [`Format::range_events`], a sample counting as overflowed when `overflowed` says so of it
/// (infinite for IEEE formats; infinite or NaN for `Fx`, whose E4M3 overflows to NaN).
#[inline(always)]
pub(crate) fn range_events_where<F: Format>(r: [F::Repr; 3], a: [F::Repr; 3], b: [F::Repr; 3], exact_nonzero: bool, overflowed: fn(f64) -> bool) -> u32 {
    let mut events = 0;
    for i in 0..3 {
        let (r, x, y) = (r[i].to_f64(), a[i].to_f64(), b[i].to_f64());
        if x.is_finite() && y.is_finite() {
            if overflowed(r) {
                events |= lanes::OVERFLOWED;
            } else if exact_nonzero && r == 0.0 && x != 0.0 && y != 0.0 {
                events |= lanes::UNDERFLOWED;
            }
        }
    }
    events
}

/// [`Format::round3`] sample by sample with [`Format::round`] (`round.rs`): where no kernel does
/// it at once, and the reference the kernels are tested against.
#[inline(always)]
pub(crate) fn round3_each<F: Format>(x: [f64; 3], bits: u64) -> [F::Repr; 3] {
    let d = crate::rng::directions_of(bits);
    [F::round(x[0], d[0]), F::round(x[1], d[1]), F::round(x[2], d[2])]
}

/// Whether format `G` holds every value of format `F` (the same format, or a wider one: binary16
/// and bfloat16 do not hold each other's values), so that converting is exact.
#[inline(always)]
pub(crate) fn holds<F: Format, G: Format>() -> bool {
    const { G::SPEC.holds(F::SPEC) }
}

/// Whether `F` and `G` are the same format.
#[inline(always)]
pub(crate) fn same<F: Format, G: Format>() -> bool {
    const { G::SPEC.same(F::SPEC) }
}

/// [`Format::surely_not_noise`] of `f32` samples (binary32 bit patterns, `D = 2^15`).
#[inline(always)]
fn surely_not_noise_f32(s: [f32; 3]) -> bool {
    let [x0, x1, x2] = s.map(|x| u64::from(x.to_bits()));
    within_ulps(x0, x1, x2, 1 << 15, 23, 0xff, 2, 0xfd)
}

/// [`Format::exact_finite`] of `f32` samples, on their bits.
#[inline(always)]
fn exact_finite_f32(s: [f32; 3]) -> bool {
    let [a, b, c] = s.map(f32::to_bits);
    (a == b) & (b == c) & ((a & 0x7fff_ffff) < 0x7f80_0000)
}

/// Whether the bit patterns `x0` and `x2` (of one format, zero-extended) lie within `d` of `x1`,
/// whose biased exponent (`exp_mask` at `mant_bits`) is in `[e_lo, e_hi]`, so that every value
/// within `d` units in the last place of it (`d` below `2^(p-2)`) is a normal number of the format,
/// and finite. For samples of the same sign the difference of the bit patterns counts the ulps
/// between them; samples of different signs are far apart. No branch, no floating-point
/// operation. See `stochastic::cancel_ulps_for` for why `d` ulps keep enough digits.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn within_ulps(x0: u64, x1: u64, x2: u64, d: u64, mant_bits: u32, exp_mask: u64, e_lo: u64, e_hi: u64) -> bool {
    let e = (x1 >> mant_bits) & exp_mask;
    let normal = e.wrapping_sub(e_lo) <= e_hi - e_lo;
    let near = |x: u64| x.wrapping_sub(x1).wrapping_add(d) <= 2 * d;
    normal & near(x0) & near(x2)
}

/// The format an operation between `Self` and `Rhs` is computed in: the wider of the two
/// (DESIGN.md, semantics 2). binary16 and bfloat16 each hold values the other cannot, so an
/// operation between them is computed in binary32, the narrowest format holding both exactly.
pub trait Promote<Rhs: Format>: Format {
    /// The common format.
    type Output: Format;
}

macro_rules! promote {
    ($($a:ty, $b:ty => $o:ty;)*) => { $( impl Promote<$b> for $a { type Output = $o; } )* };
}

promote! {
    f64, f64 => f64; f64, f32 => f64; f64, f16 => f64; f64, bf16 => f64;
    f32, f64 => f64; f32, f32 => f32; f32, f16 => f32; f32, bf16 => f32;
    f16, f64 => f64; f16, f32 => f32; f16, f16 => f16; f16, bf16 => f32;
    bf16, f64 => f64; bf16, f32 => f32; bf16, f16 => f32; bf16, bf16 => bf16;
}

#[cfg(test)]
mod not_noise_tests {
    use super::*;
    use crate::value::{is_noise_f64, splitmix, unit};

    /// The bit test must imply that the full noise test says "not noise", for samples spread
    /// around the test's bound and the noise bound, across the range, for each storage type.
    #[test]
    fn surely_not_noise_implies_not_noise() {
        let mut next = splitmix(9);
        let mut passed = [0u32; 3];
        for i in 0..3_000_000u32 {
            let format = i % 3;
            let (e_lo, e_hi) = if format == 0 { (-1030, 1030) } else { (-150, 130) };
            let m = (1.0 + unit(next())) * 2f64.powi(e_lo + (next() % (e_hi - e_lo) as u64) as i32);
            let m = if next().is_multiple_of(2) { m } else { -m };
            // Relative spreads from 2^-60 to 4, log-uniform.
            let spread = 2f64.powf(-60.0 + 62.0 * unit(next()));
            let mut s: [f64; 3] = std::array::from_fn(|_| m * (1.0 + spread * (2.0 * unit(next()) - 1.0)));
            if next().is_multiple_of(4) {
                // Adversarial: the outer samples at the test's bound, or just inside, in bits.
                let d = if format == 0 { 1i64 << 44 } else { 1i64 << 15 };
                let step = |x: f64, n: i64| {
                    if format == 0 {
                        f64::from_bits((x.to_bits() as i64).wrapping_add(n) as u64)
                    } else {
                        f64::from(f32::from_bits(((x as f32).to_bits() as i64 + n) as u32))
                    }
                };
                let off = |r: u64| d - (r % 3) as i64;
                s = [step(s[1], -off(next())), s[1], step(s[1], off(next()))];
                if next().is_multiple_of(2) {
                    s.swap(0, 2);
                }
            }
            let (ok, samples) = match format {
                0 => (<f64 as Format>::surely_not_noise(s), s),
                1 => {
                    let t = s.map(|x| x as f32);
                    (<f32 as Format>::surely_not_noise(t), t.map(f64::from))
                }
                _ => {
                    // binary16 values tested as binary32 patterns (what the test would see).
                    let t = s.map(<half::f16 as Format>::nearest);
                    (surely_not_noise_f32(t), t.map(f64::from))
                }
            };
            if ok {
                passed[format as usize] += 1;
                assert!(!is_noise_f64(samples), "{samples:?}");
            }
        }
        assert!(passed.iter().all(|&n| n > 100_000), "{passed:?}");
    }
}
