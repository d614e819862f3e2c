//! Binary floating-point formats as data: a format is its exponent and significand widths and
//! its conventions, from 2-bit exponents to binary64 itself.
//!
//! A [`Spec`] names any binary format that `f64` holds: `e` exponent bits (2 to 11) and `m`
//! stored significand bits (1 to 52), with IEEE 754's conventions (subnormals, infinities, NaN:
//! binary16, bfloat16, TF32, OCP E5M2, the `bits` ladder's formats) or OCP FP8 E4M3's (the top
//! exponent is a binade of finite values, the one NaN of each sign has every bit set, no
//! infinities: max 448). An overflow gives infinity (NaN in E4M3) or, where the spec saturates,
//! the largest finite value; `ftz` flushes subnormal inputs and results to zero, as CPUs in
//! FTZ/DAZ mode and many accelerators do.
//!
//! This crate is the data alone (names, ranges, which format holds which, where two meet), so
//! that the runtime (`fptune::formats`: the arithmetic), the macro and the tuner share one
//! definition and one spelling.

mod mixing;

/// The `FLAGS` of `fptune::Fx<E, M, FLAGS>`, or'ed together: how a format's conventions are
/// spelled as a const parameter.
pub mod flags {
    /// Overflow gives the largest finite value, not infinity (or NaN).
    pub const SATURATE: u32 = 1;
    /// Subnormal inputs read as zero and subnormal results flush to zero.
    pub const FTZ: u32 = 2;
    /// OCP E4M3's conventions: no infinities, the top binade finite, NaN with every bit set.
    pub const FINITE_NAN: u32 = 4;
}

/// The format of `fptune::Fx<E, M, FLAGS>`; a const-evaluation error (at compile time) for a
/// format out of range.
pub const fn spec_of(e: u32, m: u32, flags: u32) -> Spec {
    assert!(e >= 2 && e <= 11, "Fx<E, M>: E (exponent bits) must be 2 to 11");
    assert!(m >= 1 && m <= 52, "Fx<E, M>: M (significand bits) must be 1 to 52");
    assert!(flags < 8, "Fx<E, M, FLAGS>: FLAGS is an or of fptune::formats::flags");
    Spec {
        exp_bits: e,
        man_bits: m,
        encoding: if flags & flags::FINITE_NAN != 0 { Encoding::FiniteNan } else { Encoding::Ieee },
        overflow: if flags & flags::SATURATE != 0 { Overflow::Saturate } else { Overflow::Special },
        ftz: flags & flags::FTZ != 0,
    }
}

/// The `FLAGS` of a format ([`spec_of`]'s inverse).
pub const fn flags_of(spec: Spec) -> u32 {
    let mut f = 0;
    if matches!(spec.overflow, Overflow::Saturate) {
        f |= flags::SATURATE;
    }
    if spec.ftz {
        f |= flags::FTZ;
    }
    if matches!(spec.encoding, Encoding::FiniteNan) {
        f |= flags::FINITE_NAN;
    }
    f
}

pub use mixing::{meet, mixable, MIXABLE};

use std::fmt;


/// How a format spends its largest exponent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Encoding {
    /// IEEE 754: the top exponent field holds infinities and NaNs.
    Ieee,
    /// OCP FP8 E4M3 ("fn", finite): the top exponent field is a binade of finite values except
    /// its all-ones significand, the NaN; no infinities.
    FiniteNan,
}

/// What a result beyond the largest finite value becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Overflow {
    /// Infinity (IEEE 754), or NaN in a format without infinities (OCP E4M3's non-saturating
    /// mode).
    Special,
    /// The largest finite value of the same sign (OCP's saturating mode).
    Saturate,
}

/// A binary floating-point format: see the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Spec {
    /// Exponent field width, 2 to 11.
    pub exp_bits: u32,
    /// Stored significand bits (the hidden bit not counted), 1 to 52.
    pub man_bits: u32,
    /// Conventions of the top exponent.
    pub encoding: Encoding,
    /// Results beyond the largest finite value.
    pub overflow: Overflow,
    /// Subnormal inputs read as zero and subnormal results flushed to zero (FTZ and DAZ).
    pub ftz: bool,
}

/// Why a format cannot be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError(String);

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SpecError {}

impl Spec {
    /// IEEE 754 binary64.
    pub const F64: Spec = Spec::ieee(11, 52);
    /// IEEE 754 binary32.
    pub const F32: Spec = Spec::ieee(8, 23);
    /// IEEE 754 binary16.
    pub const F16: Spec = Spec::ieee(5, 10);
    /// bfloat16.
    pub const BF16: Spec = Spec::ieee(8, 7);
    /// NVIDIA TF32: binary32's range, binary16's precision.
    pub const TF32: Spec = Spec::ieee(8, 10);
    /// OCP FP8 E4M3 (no infinities, max 448, overflow to NaN).
    pub const E4M3: Spec = Spec { exp_bits: 4, man_bits: 3, encoding: Encoding::FiniteNan, overflow: Overflow::Special, ftz: false };
    /// OCP FP8 E5M2 (IEEE-like, max 57344).
    pub const E5M2: Spec = Spec::ieee(5, 2);

    /// An IEEE-convention format of `exp_bits` and `man_bits` (not checked: see [`Spec::new`]).
    #[inline]
    pub const fn ieee(exp_bits: u32, man_bits: u32) -> Spec {
        Spec { exp_bits, man_bits, encoding: Encoding::Ieee, overflow: Overflow::Special, ftz: false }
    }

    /// A format, checked: 2 to 11 exponent bits, 1 to 52 significand bits.
    pub fn new(exp_bits: u32, man_bits: u32, encoding: Encoding, overflow: Overflow, ftz: bool) -> Result<Spec, SpecError> {
        if !(2..=11).contains(&exp_bits) {
            return Err(SpecError(format!("{exp_bits} exponent bits: a format has 2 to 11 (binary64 has 11)")));
        }
        if !(1..=52).contains(&man_bits) {
            return Err(SpecError(format!("{man_bits} significand bits: a format stores 1 to 52 (binary64 stores 52)")));
        }
        Ok(Spec { exp_bits, man_bits, encoding, overflow, ftz })
    }

    /// The same format saturating on overflow.
    #[inline]
    pub const fn saturating(self) -> Spec {
        Spec { overflow: Overflow::Saturate, ..self }
    }

    /// The same format flushing subnormals to zero.
    #[inline]
    pub const fn flushing(self) -> Spec {
        Spec { ftz: true, ..self }
    }

    /// Width of a bit code: sign, exponent and significand fields.
    #[inline]
    pub const fn width(self) -> u32 {
        1 + self.exp_bits + self.man_bits
    }

    /// Significand bits, the hidden bit included.
    #[inline]
    pub const fn precision(self) -> u32 {
        self.man_bits + 1
    }

    /// The exponent bias.
    #[inline]
    pub const fn bias(self) -> i32 {
        (1 << (self.exp_bits - 1)) - 1
    }

    /// The exponent of the smallest normal value.
    #[inline]
    pub const fn emin(self) -> i32 {
        1 - self.bias()
    }

    /// The exponent of the largest finite value.
    #[inline]
    pub const fn emax(self) -> i32 {
        match self.encoding {
            Encoding::Ieee => self.bias(),
            Encoding::FiniteNan => self.bias() + 1,
        }
    }

    /// The largest finite value: [`Spec::max_significand`] `2^(emax - m)`.
    #[inline]
    pub const fn max(self) -> f64 {
        self.max_significand() as f64 * pow2(self.emax() - self.man_bits as i32)
    }

    /// The integer significand of the largest finite value, hidden bit included: every bit set
    /// (IEEE), or one less (E4M3, whose all-ones significand is the NaN).
    #[inline]
    pub const fn max_significand(self) -> u64 {
        match self.encoding {
            Encoding::Ieee => (1u64 << (self.man_bits + 1)) - 1,
            Encoding::FiniteNan => (1u64 << (self.man_bits + 1)) - 2,
        }
    }

    /// The smallest positive normal value.
    #[inline]
    pub const fn min_normal(self) -> f64 {
        pow2(self.emin())
    }

    /// The smallest positive subnormal value.
    #[inline]
    pub const fn min_subnormal(self) -> f64 {
        pow2(self.emin() - self.man_bits as i32)
    }

    /// Whether the format has infinities.
    #[inline]
    pub const fn has_infinity(self) -> bool {
        matches!(self.encoding, Encoding::Ieee)
    }

    /// Most decimal digits the format holds: `log10(2^precision)`.
    #[inline]
    pub const fn max_digits(self) -> f64 {
        self.precision() as f64 * std::f64::consts::LOG10_2
    }

    /// What a result beyond [`Spec::max`] becomes (its sign is the result's).
    #[inline]
    pub const fn beyond(self) -> f64 {
        match (self.overflow, self.encoding) {
            (Overflow::Saturate, _) => self.max(),
            (Overflow::Special, Encoding::Ieee) => f64::INFINITY,
            (Overflow::Special, Encoding::FiniteNan) => f64::NAN,
        }
    }

    /// Whether every value of `other` is one of `self` (conversions from `other` are exact): as
    /// much precision, a quantum as fine at the bottom, a largest value as large.
    #[inline]
    pub const fn holds(self, other: Spec) -> bool {
        let finer = self.emin() - self.man_bits as i32 <= other.emin() - other.man_bits as i32;
        let ((ea, sa), (eb, sb)) = (self.top(), other.top());
        let larger = ea > eb || (ea == eb && sa >= sb);
        self.precision() >= other.precision() && finer && larger
    }

    /// The largest value as `(emax, s)`: `s 2^(emax - 52)`, its significand widened to 53 bits.
    const fn top(self) -> (i32, u64) {
        (self.emax(), self.max_significand() << (52 - self.man_bits))
    }

    /// Whether two specs are the same format (`==`, in a const context).
    #[inline]
    pub const fn same(self, other: Spec) -> bool {
        self.exp_bits == other.exp_bits
            && self.man_bits == other.man_bits
            && matches!((self.encoding, other.encoding), (Encoding::Ieee, Encoding::Ieee) | (Encoding::FiniteNan, Encoding::FiniteNan))
            && matches!((self.overflow, other.overflow), (Overflow::Special, Overflow::Special) | (Overflow::Saturate, Overflow::Saturate))
            && self.ftz == other.ftz
    }

    /// Whether the format is one of the four primitive ones (binary64, binary32, binary16,
    /// bfloat16) with IEEE's conventions and no flushing.
    pub fn is_primitive(self) -> bool {
        [Spec::F64, Spec::F32, Spec::F16, Spec::BF16].contains(&self)
    }

    /// The format of a name: `f64`, `f32`, `f16`, `bf16`, `tf32`, `e4m3` (OCP, no infinities),
    /// `e5m2` (OCP), or `eXmY` for any IEEE-convention format of X exponent and Y significand
    /// bits (`e11m40`: 41 bits of precision in binary64's range); a suffix `-sat` saturates on
    /// overflow, `-ftz` flushes subnormals (`e4m3-sat`, `f32-ftz`), `-fn` takes E4M3's
    /// conventions (`e5m2-fn`) and `-ieee` IEEE's (`e4m3-ieee`).
    pub fn parse(name: &str) -> Result<Spec, SpecError> {
        let name = name.trim();
        let mut parts = name.split('-');
        let base = parts.next().unwrap_or_default();
        let mut spec = match base {
            "f64" => Spec::F64,
            "f32" => Spec::F32,
            "f16" => Spec::F16,
            "bf16" => Spec::BF16,
            "tf32" => Spec::TF32,
            "e4m3" => Spec::E4M3,
            "e5m2" => Spec::E5M2,
            _ => {
                let generic = base.strip_prefix('e').and_then(|r| r.split_once('m')).and_then(|(e, m)| Some((e.parse::<u32>().ok()?, m.parse::<u32>().ok()?)));
                let Some((e, m)) = generic else {
                    return Err(SpecError(format!(
                        "`{name}` is not a format: use f64, f32, f16, bf16, tf32, e4m3, e5m2, or eXmY (X exponent bits, Y significand bits, e.g. e8m16), optionally with -sat or -ftz"
                    )));
                };
                Spec::new(e, m, Encoding::Ieee, Overflow::Special, false).map_err(|e| SpecError(format!("`{name}`: {e}")))?
            }
        };
        for suffix in parts {
            spec = match suffix {
                "sat" => spec.saturating(),
                "fn" => Spec { encoding: Encoding::FiniteNan, ..spec },
                "ieee" => Spec { encoding: Encoding::Ieee, ..spec },
                "ftz" => spec.flushing(),
                _ => return Err(SpecError(format!("`{name}`: unknown suffix `-{suffix}` (use -sat to saturate on overflow, -ftz to flush subnormals, -fn for E4M3's conventions, -ieee for IEEE's)"))),
            };
        }
        Ok(spec)
    }

    /// The short name [`Spec::parse`] reads back.
    pub fn name(self) -> String {
        let (buf, len) = self.name_bytes();
        String::from_utf8_lossy(&buf[..len]).into_owned()
    }

    /// [`Spec::name`] as bytes, computed in a const context (so that `Fx`'s name is a constant):
    /// the short names of the common formats, else `eXmY`; then `-fn` for E4M3's conventions
    /// on another width (`-ieee` for IEEE's on E4M3's), `-sat`, `-ftz`.
    #[inline]
    pub const fn name_bytes(self) -> ([u8; NAME_BYTES], usize) {
        let mut buf = [0u8; NAME_BYTES];
        let plain = Spec { overflow: Overflow::Special, ftz: false, ..self };
        let ieee = matches!(self.encoding, Encoding::Ieee);
        let named: &[u8] = match (plain.exp_bits, plain.man_bits, ieee) {
            (11, 52, true) => b"f64",
            (8, 23, true) => b"f32",
            (5, 10, true) => b"f16",
            (8, 7, true) => b"bf16",
            (8, 10, true) => b"tf32",
            (4, 3, false) => b"e4m3",
            (5, 2, true) => b"e5m2",
            (4, 3, true) => b"e4m3-ieee",
            _ => b"",
        };
        let mut at = 0;
        if named.is_empty() {
            buf[0] = b'e';
            at = push_number(&mut buf, 1, self.exp_bits);
            buf[at] = b'm';
            at = push_number(&mut buf, at + 1, self.man_bits);
            if !ieee {
                at = push(&mut buf, at, b"-fn");
            }
        } else {
            at = push(&mut buf, at, named);
        }
        if matches!(self.overflow, Overflow::Saturate) {
            at = push(&mut buf, at, b"-sat");
        }
        if self.ftz {
            at = push(&mut buf, at, b"-ftz");
        }
        (buf, at)
    }

    /// The value with subnormals flushed to (signed) zero when the format flushes them.
    #[inline(always)]
    pub const fn flush(self, x: f64) -> f64 {
        if self.ftz && x.abs() < self.min_normal() {
            0.0f64.copysign(x)
        } else {
            x
        }
    }
}

/// The longest [`Spec::name_bytes`]: `e11m52-fn-sat-ftz` and room to spare.
pub const NAME_BYTES: usize = 24;

const fn push(buf: &mut [u8; NAME_BYTES], mut at: usize, s: &[u8]) -> usize {
    let mut i = 0;
    while i < s.len() {
        buf[at] = s[i];
        at += 1;
        i += 1;
    }
    at
}

const fn push_number(buf: &mut [u8; NAME_BYTES], mut at: usize, n: u32) -> usize {
    if n >= 10 {
        buf[at] = b'0' + (n / 10) as u8;
        at += 1;
    }
    buf[at] = b'0' + (n % 10) as u8;
    at + 1
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}


/// `2^e` for `e` in the range of finite `f64` powers of two (subnormal ones included): the
/// runtime's rounding kernels use it on their hot paths, so the range is checked in debug builds.
#[inline(always)]
pub const fn pow2(e: i32) -> f64 {
    debug_assert!(e >= -1074 && e <= 1023, "2^e beyond binary64");
    if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (e + 1074))
    }
}

#[cfg(test)]
mod tests;
