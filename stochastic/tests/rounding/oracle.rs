//! An exact reference for the rounding tests, independent of `fptune`'s kernels.
//!
//! - [`Dy`]: exact dyadic numbers `m * 2^e` on big integers. Every finite float is one, and so are
//!   exact sums and products; a quotient or a square root is never materialised: it is compared
//!   by cross-multiplication (`v <=> a/b` is `v*b <=> a` up to the sign of `b`, `v <=> sqrt(a)` is
//!   `v^2 <=> a` for `v >= 0`).
//! - [`Model`]: each format's bit layout (sign, exponent and fraction fields), from which the
//!   neighbours of a value are read off as the next and previous bit patterns of its magnitude.
//!   Nothing here calls `round.rs`, and no rounding function is written at all: `u` is the
//!   rounding of `x` toward +inf exactly when `u >= x > pred(u)`, with `+inf` above and `-inf`
//!   below every finite value, which also makes overflow (`RU(x > MAX) = +inf`,
//!   `RD(x > MAX) = MAX`) fall out of the same two comparisons.

use std::cmp::Ordering;

use fptune::{bf16, f16, Format, Repr};
use num_bigint::{BigInt, Sign};
use num_traits::Zero;

/// The exact value `m * 2^e`.
#[derive(Clone, Debug)]
pub struct Dy {
    m: BigInt,
    e: i64,
}

impl Dy {
    pub fn zero() -> Dy {
        Dy { m: BigInt::zero(), e: 0 }
    }

    /// The exact value of a finite `f64`, read from its fields.
    pub fn from_f64(x: f64) -> Dy {
        assert!(x.is_finite(), "not a finite value: {x:e}");
        let bits = x.to_bits();
        let field = ((bits >> 52) & 0x7ff) as i64;
        let frac = bits & ((1u64 << 52) - 1);
        let (mag, e) = if field == 0 { (frac, -1074) } else { (frac | 1u64 << 52, field - 1075) };
        let m = BigInt::from(mag);
        Dy { m: if bits >> 63 != 0 { -m } else { m }, e }
    }

    pub fn is_zero(&self) -> bool {
        self.m.is_zero()
    }

    pub fn signum(&self) -> Ordering {
        match self.m.sign() {
            Sign::Minus => Ordering::Less,
            Sign::NoSign => Ordering::Equal,
            Sign::Plus => Ordering::Greater,
        }
    }

    pub fn neg(&self) -> Dy {
        Dy { m: -&self.m, e: self.e }
    }

    pub fn add(&self, o: &Dy) -> Dy {
        if self.m.is_zero() {
            return o.clone();
        }
        if o.m.is_zero() {
            return self.clone();
        }
        let e = self.e.min(o.e);
        let a = &self.m << (self.e - e) as usize;
        let b = &o.m << (o.e - e) as usize;
        Dy { m: a + b, e }
    }

    pub fn sub(&self, o: &Dy) -> Dy {
        self.add(&o.neg())
    }

    pub fn mul(&self, o: &Dy) -> Dy {
        Dy { m: &self.m * &o.m, e: self.e + o.e }
    }

    /// `self / 2`.
    pub fn half(&self) -> Dy {
        Dy { m: self.m.clone(), e: self.e - 1 }
    }

    /// Position just above the top bit: `2^(top-1) <= |self| < 2^top` (for nonzero values).
    fn top(&self) -> i64 {
        self.m.bits() as i64 + self.e
    }

    /// Exact comparison, with a shortcut when signs or binades differ.
    pub fn cmp(&self, o: &Dy) -> Ordering {
        let (sa, sb) = (self.signum(), o.signum());
        if sa != sb || sa == Ordering::Equal {
            return sa.cmp(&sb);
        }
        let (ta, tb) = (self.top(), o.top());
        if ta != tb {
            let mag = ta.cmp(&tb);
            return if sa == Ordering::Less { mag.reverse() } else { mag };
        }
        self.sub(o).signum()
    }
}

/// The exact result of an operation.
#[derive(Clone, Debug)]
pub enum Exact {
    /// A dyadic value (sums, differences, products, conversions).
    Val(Dy),
    /// `a / b`, `b != 0`.
    Quot(Dy, Dy),
    /// `sqrt(a)`, `a >= 0`.
    Sqrt(Dy),
}

impl Exact {
    /// The order of the finite value `v` relative to the exact result: `v.cmp(x)`.
    pub fn ord(&self, v: &Dy) -> Ordering {
        match self {
            Exact::Val(x) => v.cmp(x),
            Exact::Quot(a, b) => {
                let o = v.mul(b).cmp(a);
                if b.signum() == Ordering::Less {
                    o.reverse()
                } else {
                    o
                }
            }
            Exact::Sqrt(a) => match v.signum() {
                Ordering::Less => Ordering::Less,
                Ordering::Equal => {
                    if a.is_zero() {
                        Ordering::Equal
                    } else {
                        Ordering::Less
                    }
                }
                Ordering::Greater => v.mul(v).cmp(a),
            },
        }
    }

    /// The sign of the exact result.
    pub fn sign(&self) -> Ordering {
        self.ord(&Dy::zero()).reverse()
    }
}

/// How a returned value relates to the exact result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounded {
    /// The result is the exact value.
    Exact,
    /// The result is the rounding of an inexact value toward +inf.
    Up,
    /// The result is the rounding of an inexact value toward -inf.
    Down,
}

/// A format's bit layout, on top of `fptune::Format`. `Repr` values of the 16-bit formats are
/// `f32` holding a grid value; [`Model::bits`] refuses any `f32` that is not on the grid.
pub trait Model: Format {
    /// Total bits.
    const W: u32;
    /// Stored fraction bits (precision - 1).
    const M: u32;
    /// Short name for messages.
    const LABEL: &'static str;

    /// The value with these bits (low `W` bits of `b`).
    fn from_bits(b: u64) -> Self::Repr;
    /// The bits of a value of this format; `None` for NaN or for a value off the format's grid.
    fn bits(r: Self::Repr) -> Option<u64>;
    /// Round-to-nearest from `f64` by the standard library (for generators only).
    fn std_nearest(x: f64) -> Self::Repr;

    const P: i32 = Self::M as i32 + 1;
    const BIAS: i32 = (1 << (Self::W - Self::M - 2)) - 1;
    const EMIN: i32 = 1 - Self::BIAS;
    const EMAX: i32 = Self::BIAS;
    const SIGN: u64 = 1 << (Self::W - 1);
    const FRAC: u64 = (1 << Self::M) - 1;
    /// Magnitude bits of +inf (one above the largest finite magnitude).
    const INF: u64 = ((1 << (Self::W - Self::M - 1)) - 1) << Self::M;
    /// Magnitude bits of the smallest normal value.
    const MIN_NORMAL: u64 = 1 << Self::M;
}

impl Model for f64 {
    const W: u32 = 64;
    const M: u32 = 52;
    const LABEL: &'static str = "f64";
    fn from_bits(b: u64) -> f64 {
        f64::from_bits(b)
    }
    fn bits(r: f64) -> Option<u64> {
        (!r.is_nan()).then(|| r.to_bits())
    }
    fn std_nearest(x: f64) -> f64 {
        x
    }
}

impl Model for f32 {
    const W: u32 = 32;
    const M: u32 = 23;
    const LABEL: &'static str = "f32";
    fn from_bits(b: u64) -> f32 {
        f32::from_bits(b as u32)
    }
    fn bits(r: f32) -> Option<u64> {
        (!r.is_nan()).then(|| u64::from(r.to_bits()))
    }
    fn std_nearest(x: f64) -> f32 {
        x as f32
    }
}

impl Model for f16 {
    const W: u32 = 16;
    const M: u32 = 10;
    const LABEL: &'static str = "f16";
    fn from_bits(b: u64) -> f32 {
        f16::from_bits(b as u16).to_f32()
    }
    fn bits(r: f32) -> Option<u64> {
        let h = f16::from_f32(r);
        (!r.is_nan() && h.to_f32().to_bits() == r.to_bits()).then(|| u64::from(h.to_bits()))
    }
    fn std_nearest(x: f64) -> f32 {
        // f32 first (exact for the values generators make), then half's f32 conversion.
        f16::from_f32(x as f32).to_f32()
    }
}

impl Model for bf16 {
    const W: u32 = 16;
    const M: u32 = 7;
    const LABEL: &'static str = "bf16";
    fn from_bits(b: u64) -> f32 {
        bf16::from_bits(b as u16).to_f32()
    }
    fn bits(r: f32) -> Option<u64> {
        let h = bf16::from_f32(r);
        (!r.is_nan() && h.to_f32().to_bits() == r.to_bits()).then(|| u64::from(h.to_bits()))
    }
    fn std_nearest(x: f64) -> f32 {
        bf16::from_f32(x as f32).to_f32()
    }
}

/// Position of a bit pattern in the order of values: `-inf < -MAX < ... < -0 = +0 < ... < +inf`.
pub fn key<T: Model>(bits: u64) -> i64 {
    let mag = (bits & !T::SIGN & ((T::SIGN << 1).wrapping_sub(1))) as i64;
    if bits & T::SIGN != 0 {
        -mag
    } else {
        mag
    }
}

/// The bit pattern at a position (`+0` for 0).
pub fn from_key<T: Model>(k: i64) -> u64 {
    if k < 0 {
        T::SIGN | k.unsigned_abs()
    } else {
        k as u64
    }
}

pub fn is_finite_bits<T: Model>(bits: u64) -> bool {
    bits & !T::SIGN < T::INF
}

/// Exact value of finite bits.
pub fn dy_of_bits<T: Model>(bits: u64) -> Dy {
    Dy::from_f64(T::from_bits(bits).to_f64())
}

/// Exact value of a finite sample.
pub fn dy<T: Model>(r: T::Repr) -> Dy {
    Dy::from_f64(r.to_f64())
}

/// `v.cmp(x)` for the value at position `k`, infinities included.
fn ord_at<T: Model>(k: i64, x: &Exact) -> Ordering {
    let inf = T::INF as i64;
    if k >= inf {
        Ordering::Greater
    } else if k <= -inf {
        Ordering::Less
    } else {
        x.ord(&dy_of_bits::<T>(from_key::<T>(k)))
    }
}

/// Says whether `u` is the exact result, or its rounding up or down; an error otherwise.
///
/// `zero_sign`: the sign bit IEEE 754 prescribes for an exact zero result (`None`: not checked).
/// A zero result of a nonzero exact value must carry the sign of the exact value.
pub fn classify<T: Model>(u: T::Repr, x: &Exact, zero_sign: Option<bool>) -> Result<Rounded, String> {
    let Some(bits) = T::bits(u) else {
        return Err(format!("result {u:?} is NaN or not a {} value", T::LABEL));
    };
    let k = key::<T>(bits);
    let r = match ord_at::<T>(k, x) {
        Ordering::Equal => Rounded::Exact,
        Ordering::Greater => {
            if ord_at::<T>(k - 1, x) != Ordering::Less {
                return Err(format!("result {u:?} is above the exact value, but so is its predecessor"));
            }
            Rounded::Up
        }
        Ordering::Less => {
            if ord_at::<T>(k + 1, x) != Ordering::Greater {
                return Err(format!("result {u:?} is below the exact value, but so is its successor"));
            }
            Rounded::Down
        }
    };
    if bits & !T::SIGN == 0 {
        let neg = bits & T::SIGN != 0;
        let want = match x.sign() {
            Ordering::Less => Some(true),
            Ordering::Greater => Some(false),
            Ordering::Equal => zero_sign,
        };
        if let Some(w) = want {
            if w != neg {
                return Err(format!("zero result {u:?} has the wrong sign (exact sign {:?})", x.sign()));
            }
        }
    }
    Ok(r)
}

/// Checks that `u` is the rounding of `x` in direction `dir` (`+1.0` up, `-1.0` down).
pub fn check_dir<T: Model>(
    u: T::Repr,
    x: &Exact,
    dir: f64,
    zero_sign: Option<bool>,
) -> Result<Rounded, String> {
    let r = classify::<T>(u, x, zero_sign)?;
    match (r, dir > 0.0) {
        (Rounded::Down, true) => Err(format!("result {u:?} rounded down, direction was up")),
        (Rounded::Up, false) => Err(format!("result {u:?} rounded up, direction was down")),
        _ => Ok(r),
    }
}

/// Checks that `u` is the round-to-nearest-even of the finite `x`: `x` lies between the midpoints
/// with its neighbours, and on a midpoint `u` has an even last bit. The overflow threshold is the
/// midpoint between `MAX` and `2^(EMAX+1)`, which counts as even.
pub fn check_nearest<T: Model>(u: T::Repr, x: &Dy) -> Result<(), String> {
    let Some(bits) = T::bits(u) else {
        return Err(format!("result {u:?} is NaN or not a {} value", T::LABEL));
    };
    let k = key::<T>(bits);
    let inf = T::INF as i64;
    let max = dy_of_bits::<T>(T::INF - 1);
    let max_ulp = max.sub(&dy_of_bits::<T>(T::INF - 2));
    // Exact value at a position, with the infinities replaced by +-2^(EMAX+1).
    let at = |k: i64| -> Dy {
        if k >= inf {
            max.add(&max_ulp)
        } else if k <= -inf {
            max.add(&max_ulp).neg()
        } else {
            dy_of_bits::<T>(from_key::<T>(k))
        }
    };
    let even = |k: i64| k.abs() >= inf || k % 2 == 0;
    let v = at(k);
    if k.abs() >= inf {
        // Infinity: x must be at or beyond the overflow threshold.
        let inner = if k > 0 { k - 1 } else { k + 1 };
        let mid = v.add(&at(inner)).half();
        let o = x.cmp(&mid);
        let ok = if k > 0 { o != Ordering::Less } else { o != Ordering::Greater };
        return if ok { Ok(()) } else { Err(format!("{u:?} overflowed below the threshold")) };
    }
    let lo = v.add(&at(k - 1)).half();
    let hi = v.add(&at(k + 1)).half();
    match (x.cmp(&lo), x.cmp(&hi)) {
        (Ordering::Greater, Ordering::Less) => Ok(()),
        (Ordering::Equal, _) if even(k) => Ok(()),
        (_, Ordering::Equal) if even(k) => Ok(()),
        _ => Err(format!("{u:?} is not the nearest (ties to even) value")),
    }
}
