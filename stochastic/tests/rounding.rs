//! Property tests of the exact directed-rounding kernels against an independent exact reference
//! (`rounding/oracle.rs`: big-integer dyadic arithmetic and the formats' bit layouts).
//!
//! For every format (f64, f32, f16, bf16) and operation (`+ - * /`, `sqrt`) and for the
//! conversions, at least 100,000 cases are checked in each rounding direction (the 16-bit `sqrt`
//! and the f16 <-> bf16 conversions are checked exhaustively instead: every bit pattern). Cases come
//! from a seeded SplitMix64 and mix uniformly random bit patterns (all exponents: zeros,
//! subnormals, values near overflow) with targeted generators: exact results, exact ties (results
//! on a midpoint), results near ties, underflow below the smallest subnormal, overflow, exact
//! quotients, perfect squares and near squares. Each generator's share is asserted through the
//! categories the results fall in, so that coverage cannot silently shrink.
//!
//! The stochastic type is tested too: every sample of `x op y` is the upward or downward rounding
//! of the exact sample-wise result, and of an inexact result samples 1 and 2 rounded in opposite
//! directions (CADNA's draw), with fair random directions otherwise.

#[path = "rounding/oracle.rs"]
mod oracle;

use std::cmp::Ordering;

use fptune::{bf16, f16, Format, Repr, Stochastic};
use oracle::{
    check_dir, check_nearest, classify, dy, dy_of_bits, from_key, is_finite_bits, key, Dy, Exact, Model,
    Rounded,
};

/// Cases per operation, format and direction.
const CASES: usize = 100_000;
/// Cases per operation and format through the stochastic type (three samples each).
const STOCHASTIC_CASES: usize = 20_000;

// ----------------------------------------------------------------------------------------------
// Random numbers and format helpers
// ----------------------------------------------------------------------------------------------

/// SplitMix64.
struct Rng(u64);

impl Rng {
    fn new(name: &str) -> Rng {
        // FNV-1a of the test's name: every test has its own fixed stream.
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        for b in name.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        Rng(h)
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// Uniform in `lo..=hi`.
    fn int(&mut self, lo: i64, hi: i64) -> i64 {
        assert!(lo <= hi);
        lo + self.below((hi - lo + 1) as u64) as i64
    }
    fn coin(&mut self) -> bool {
        self.next() >> 63 != 0
    }
    fn pct(&mut self, p: u64) -> bool {
        self.below(100) < p
    }
    /// `k` random low bits.
    fn bits(&mut self, k: u32) -> u64 {
        if k == 0 {
            0
        } else {
            self.next() >> (64 - k)
        }
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
}

fn sign<T: Model>(neg: bool) -> u64 {
    if neg {
        T::SIGN
    } else {
        0
    }
}

/// `+-(1.frac) * 2^e`; below the normal range the bits under the subnormal grid are cut off.
/// `None` above the range or below the smallest subnormal.
fn compose<T: Model>(neg: bool, e: i64, frac: u64) -> Option<u64> {
    let (m, emin, emax) = (i64::from(T::M), i64::from(T::EMIN), i64::from(T::EMAX));
    let frac = frac & T::FRAC;
    let mag = if e > emax || e < emin - m {
        return None;
    } else if e >= emin {
        ((e + i64::from(T::BIAS)) as u64) << T::M | frac
    } else {
        (T::MIN_NORMAL | frac) >> (emin - e)
    };
    Some(sign::<T>(neg) | mag)
}

/// `+-mant * 2^exp` exactly, if it is a value of the format.
fn from_int<T: Model>(neg: bool, mant: u128, exp: i64) -> Option<u64> {
    if mant == 0 {
        return Some(sign::<T>(neg));
    }
    let tz = mant.trailing_zeros();
    let (mant, exp) = (mant >> tz, exp + i64::from(tz));
    let len = i64::from(128 - mant.leading_zeros());
    let (m, emin, emax) = (i64::from(T::M), i64::from(T::EMIN), i64::from(T::EMAX));
    let top = exp + len - 1;
    if len > i64::from(T::P) || top > emax || exp < emin - m {
        return None;
    }
    let mag = if top >= emin {
        ((top + i64::from(T::BIAS)) as u64) << T::M | ((mant << (m + 1 - len)) as u64 & T::FRAC)
    } else {
        (mant << (exp - (emin - m))) as u64
    };
    Some(sign::<T>(neg) | mag)
}

/// A uniformly random finite bit pattern.
fn finite_bits<T: Model>(rng: &mut Rng) -> u64 {
    loop {
        let b = rng.bits(T::W);
        if is_finite_bits::<T>(b) {
            return b;
        }
    }
}

/// A random fraction, often with a special pattern.
fn frac<T: Model>(rng: &mut Rng) -> u64 {
    match rng.below(10) {
        0 => 0,
        1 => T::FRAC,
        2 => 1,
        3 => T::FRAC - 1,
        4 => {
            let k = rng.int(1, 4) as u32;
            rng.bits(k) << (T::M - k)
        }
        _ => rng.bits(T::M),
    }
}

/// A fraction with at most `k` significant bits.
fn few_bits<T: Model>(rng: &mut Rng, k: u32) -> u64 {
    let k = k.min(T::M);
    rng.bits(k) << (T::M - k)
}

/// Top exponent of a random finite nonzero value, subnormals included.
fn any_exp<T: Model>(rng: &mut Rng) -> i64 {
    rng.int(lo::<T>(), i64::from(T::EMAX))
}

/// Smallest top exponent (the smallest subnormal's).
fn lo<T: Model>() -> i64 {
    i64::from(T::EMIN) - i64::from(T::M)
}

/// The finite bit pattern `d` positions away in the order of values.
fn neighbour<T: Model>(bits: u64, d: i64) -> Option<u64> {
    let b = from_key::<T>(key::<T>(bits) + d);
    is_finite_bits::<T>(b).then_some(b)
}

fn max_bits<T: Model>() -> u64 {
    T::INF - 1
}

/// Two exponents adding up to `et` (for products; for quotients pass `et + eb` style targets).
fn split_exp<T: Model>(rng: &mut Rng, et: i64) -> Option<(i64, i64)> {
    let (lo, hi) = (lo::<T>(), i64::from(T::EMAX));
    let a_lo = lo.max(et - hi);
    let a_hi = hi.min(et - lo);
    if a_lo > a_hi {
        return None;
    }
    let ea = rng.int(a_lo, a_hi);
    Some((ea, et - ea))
}

/// A random odd integer of exactly `k` bits.
fn odd(rng: &mut Rng, k: u32) -> u128 {
    if k <= 1 {
        1
    } else {
        (1u128 << (k - 1)) | u128::from(rng.bits(k - 1)) | 1
    }
}

fn bitlen(x: u128) -> i64 {
    i64::from(128 - x.leading_zeros())
}

// ----------------------------------------------------------------------------------------------
// Case generators
// ----------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

/// Operands for `a + b` and `a - b`.
fn gen_add<T: Model>(rng: &mut Rng) -> Option<(u64, u64)> {
    let (p, emax) = (i64::from(T::P), i64::from(T::EMAX));
    let (sa, sb) = (rng.coin(), rng.coin());
    match rng.below(100) {
        0..=14 => Some((finite_bits::<T>(rng), finite_bits::<T>(rng))),
        15..=39 => {
            let ea = any_exp::<T>(rng);
            let eb = ea + rng.int(-(p + 3), p + 3);
            Some((compose::<T>(sa, ea, frac::<T>(rng))?, compose::<T>(sb, eb, frac::<T>(rng))?))
        }
        40..=54 => {
            // b is (about) half an ulp of a: exact ties and their neighbours.
            let ea = if rng.pct(10) { emax } else { any_exp::<T>(rng) };
            let d = rng.pick(&[-1, 0, 0, 0, 1]);
            let r = rng.bits(T::M);
            let f = rng.pick(&[0, 0, 0, 1, T::FRAC, 1 << (T::M - 1), r]);
            Some((compose::<T>(sa, ea, frac::<T>(rng))?, compose::<T>(sb, ea - p + d, f)?))
        }
        55..=64 => {
            // Few significant bits and close exponents: mostly exact.
            let ea = any_exp::<T>(rng);
            let eb = ea + rng.int(-4, 4);
            let (ka, kb) = (rng.int(0, 4) as u32, rng.int(0, 4) as u32);
            Some((
                compose::<T>(sa, ea, few_bits::<T>(rng, ka))?,
                compose::<T>(sb, eb, few_bits::<T>(rng, kb))?,
            ))
        }
        65..=74 => {
            // Subnormal and tiny operands.
            let top = i64::from(T::EMIN) + 2;
            let (ea, eb) = (rng.int(lo::<T>(), top), rng.int(lo::<T>(), top));
            Some((compose::<T>(sa, ea, frac::<T>(rng))?, compose::<T>(sb, eb, frac::<T>(rng))?))
        }
        75..=87 => {
            // Near overflow, mostly the same sign.
            let ea = rng.int(emax - 1, emax);
            let eb = rng.int(emax - p - 2, emax);
            let sb = if rng.pct(75) { sa } else { sb };
            let fa = frac::<T>(rng) | if rng.coin() { T::FRAC } else { 0 };
            let a = compose::<T>(sa, ea, fa)?;
            if rng.pct(25) {
                // +-MAX and a value of the binade below: with opposite signs, a tie rounded away
                // from zero makes TwoSum's `s - a` overflow.
                let max = sign::<T>(sa) | max_bits::<T>();
                let b = compose::<T>(!sa, emax - 1, rng.bits(T::M) | 1)?;
                return Some(if rng.coin() { (max, b) } else { (b, max) });
            }
            Some((a, compose::<T>(sb, eb, frac::<T>(rng))?))
        }
        _ => {
            // Signed zeros: the sign of an exact zero sum.
            if rng.pct(10) {
                return Some((sign::<T>(sa), sign::<T>(sb)));
            }
            // Cancellation: b close to -a (exactly -a sometimes).
            let a = compose::<T>(sa, any_exp::<T>(rng), frac::<T>(rng))?;
            let b = neighbour::<T>(a ^ T::SIGN, rng.int(-3, 3))?;
            Some((a, b))
        }
    }
}

/// Operands for `a * b`.
fn gen_mul<T: Model>(rng: &mut Rng) -> Option<(u64, u64)> {
    let (p, emin, emax) = (i64::from(T::P), i64::from(T::EMIN), i64::from(T::EMAX));
    let (sa, sb) = (rng.coin(), rng.coin());
    let with_target = |rng: &mut Rng, et: i64, fa: u64, fb: u64| -> Option<(u64, u64)> {
        let (ea, eb) = split_exp::<T>(rng, et)?;
        Some((compose::<T>(sa, ea, fa)?, compose::<T>(sb, eb, fb)?))
    };
    match rng.below(100) {
        0..=14 => Some((finite_bits::<T>(rng), finite_bits::<T>(rng))),
        15..=39 => {
            let et = rng.int(lo::<T>() - 2, emax + 1);
            let (fa, fb) = (frac::<T>(rng), frac::<T>(rng));
            with_target(rng, et, fa, fb)
        }
        40..=54 => {
            // Exact ties: a product of two odd integers with one bit more than the precision
            // (or, in the subnormal range, with its last bit half the smallest subnormal).
            let ka = rng.int(1, p) as u32;
            let kb = rng.int(1, p) as u32;
            let (ia, ib) = (odd(rng, ka), odd(rng, kb));
            let prod = ia * ib;
            let total = if rng.pct(75) {
                if bitlen(prod) != p + 1 {
                    return None;
                }
                rng.int(emin, emax) - p
            } else {
                if bitlen(prod) > p {
                    return None;
                }
                emin - p
            };
            // a = ia * 2^x, b = ib * 2^(total - x), both representable.
            let sub_lsb = emin - (p - 1);
            let x_lo = sub_lsb.max(total - (emax - i64::from(kb) + 1));
            let x_hi = (emax - i64::from(ka) + 1).min(total - sub_lsb);
            if x_lo > x_hi {
                return None;
            }
            let x = rng.int(x_lo, x_hi);
            Some((from_int::<T>(sa, ia, x)?, from_int::<T>(sb, ib, total - x)?))
        }
        55..=64 => {
            // Few significant bits: mostly exact products.
            let et = rng.int(lo::<T>(), emax);
            let (ka, kb) = (rng.int(0, 5) as u32, rng.int(0, 5) as u32);
            let (fa, fb) = (few_bits::<T>(rng, ka), few_bits::<T>(rng, kb));
            with_target(rng, et, fa, fb)
        }
        65..=79 => {
            // Underflow: results from below half the smallest subnormal to the smallest normal.
            let et = rng.int(lo::<T>() - p - 2, emin + 1);
            let (fa, fb) = (frac::<T>(rng), frac::<T>(rng));
            with_target(rng, et, fa, fb)
        }
        80..=91 => {
            // Overflow.
            let et = rng.int(emax - 1, emax + 1);
            let (fa, fb) = (frac::<T>(rng), frac::<T>(rng));
            with_target(rng, et, fa, fb)
        }
        _ => {
            let a = finite_bits::<T>(rng);
            let b = match rng.below(6) {
                0 => sign::<T>(sb),
                1 => compose::<T>(sb, 0, 0)?,
                2 => compose::<T>(sb, rng.int(-8, 8), 0)?,
                3 => sign::<T>(sb) | max_bits::<T>(),
                4 => sign::<T>(sb) | 1,
                _ => sign::<T>(sb) | T::MIN_NORMAL,
            };
            Some(if rng.coin() { (a, b) } else { (b, a) })
        }
    }
}

/// Operands for `a / b` (`b != 0`).
fn gen_div<T: Model>(rng: &mut Rng) -> Option<(u64, u64)> {
    let (p, emin, emax) = (i64::from(T::P), i64::from(T::EMIN), i64::from(T::EMAX));
    let (sa, sb) = (rng.coin(), rng.coin());
    // a / b with the quotient's top exponent near `eq`.
    let with_quotient = |rng: &mut Rng, eq: i64| -> Option<(u64, u64)> {
        let eb = any_exp::<T>(rng);
        let ea = eq + eb;
        Some((compose::<T>(sa, ea, frac::<T>(rng))?, compose::<T>(sb, eb, frac::<T>(rng))?))
    };
    let pair = match rng.below(100) {
        0..=14 => (finite_bits::<T>(rng), finite_bits::<T>(rng)),
        15..=39 => {
            let eq = rng.int(lo::<T>() - 2, emax + 1);
            with_quotient(rng, eq)?
        }
        40..=59 => {
            // Exact quotients a = q * b (and their neighbours).
            let kq = rng.int(1, p - 1) as u32;
            let kb = rng.int(1, p - i64::from(kq)) as u32;
            let (q, b) = (odd(rng, kq), odd(rng, kb));
            let sub_lsb = emin - (p - 1);
            let xq = rng.int(sub_lsb, emax - i64::from(kq) + 1);
            let xb = rng.int(sub_lsb, emax - i64::from(kb) + 1);
            let a = from_int::<T>(sa, q * b, xq + xb)?;
            let a = if rng.pct(30) { neighbour::<T>(a, rng.pick(&[-2, -1, 1, 2]))? } else { a };
            (a, from_int::<T>(sb, b, xb)?)
        }
        60..=74 => {
            let eq = rng.int(lo::<T>() - p - 2, emin + 1);
            with_quotient(rng, eq)?
        }
        75..=87 => {
            let eq = rng.int(emax - 1, emax + 1);
            with_quotient(rng, eq)?
        }
        _ => {
            let b = finite_bits::<T>(rng);
            match rng.below(6) {
                0 => (sign::<T>(sa), b),
                1 => (b, b),
                2 => (b ^ T::SIGN, b),
                3 => (b, compose::<T>(sb, 0, 0)?),
                4 => (b, compose::<T>(sb, rng.int(-8, 8), 0)?),
                _ => (rng.pick(&[1, max_bits::<T>(), T::MIN_NORMAL]) | sign::<T>(sa), b),
            }
        }
    };
    (pair.1 & !T::SIGN != 0).then_some(pair)
}

/// An operand for `sqrt` (non-negative).
fn gen_sqrt<T: Model>(rng: &mut Rng) -> Option<u64> {
    let (p, emin, emax) = (i64::from(T::P), i64::from(T::EMIN), i64::from(T::EMAX));
    let sub_lsb = emin - (p - 1);
    match rng.below(100) {
        0..=24 => Some(finite_bits::<T>(rng) & !T::SIGN),
        25..=59 => {
            // Perfect squares (subnormal ones too), and their neighbours.
            let k = rng.int(1, p / 2) as u32;
            let s = odd(rng, k);
            let x = rng.int(sub_lsb.div_euclid(2) + 1, (emax - 2 * i64::from(k) + 2) / 2);
            let a = from_int::<T>(false, s * s, 2 * x)?;
            if rng.pct(40) {
                neighbour::<T>(a, rng.pick(&[-2, -1, 1, 2])).filter(|b| b & T::SIGN == 0)
            } else {
                Some(a)
            }
        }
        60..=74 => {
            // Near midpoints: the square of a (p+1)-bit odd integer cut to p bits.
            let mid = odd(rng, T::M + 2);
            let sq = mid * mid;
            let shift = bitlen(sq) - p;
            let m = (sq >> shift) + u128::from(rng.coin());
            let x = rng.int((sub_lsb - shift) / 2 + 1, (emax - bitlen(m) - shift + 1) / 2);
            from_int::<T>(false, m, shift + 2 * x)
        }
        75..=87 => compose::<T>(false, rng.int(lo::<T>(), emin + 1), frac::<T>(rng)),
        _ => compose::<T>(false, rng.int(emax - 1, emax), frac::<T>(rng) | (T::FRAC & !(T::FRAC >> 3))),
    }
}

/// An `f64` for a conversion into `T`, or for `T::nearest`.
fn gen_conv_f64<T: Model>(rng: &mut Rng) -> f64 {
    let emax = i64::from(T::EMAX);
    let tval = |b: u64| T::from_bits(b).to_f64();
    loop {
        let x = match rng.below(100) {
            0..=14 => f64::from_bits(finite_bits::<f64>(rng)),
            15..=39 => {
                let e = rng.int(lo::<T>() - 3, emax + 2);
                f64::from_bits(compose::<f64>(rng.coin(), e, frac::<f64>(rng)).unwrap_or(0))
            }
            40..=54 => tval(finite_bits::<T>(rng)),
            55..=74 => {
                // Midpoints between neighbours (exact ties).
                let u = finite_bits::<T>(rng);
                let Some(v) = neighbour::<T>(u, 1) else { continue };
                let mid = (tval(u) + tval(v)) * 0.5;
                // Just off the midpoint by a few f64 positions sometimes.
                neighbour::<f64>(mid.to_bits(), rng.pick(&[0, 0, 0, -2, -1, 1, 2]))
                    .map_or(mid, f64::from_bits)
            }
            75..=86 => {
                // Around the largest value and the overflow threshold.
                let max = tval(max_bits::<T>());
                let ulp = max - tval(max_bits::<T>() - 1);
                let x = max + rng.int(-2, 6) as f64 * ulp * 0.25;
                if rng.coin() {
                    -x
                } else {
                    x
                }
            }
            _ => {
                // Around and below the smallest subnormal.
                let tiny = tval(1);
                let x = if rng.pct(15) {
                    f64::from_bits(rng.bits(52))
                } else {
                    tiny * rng.int(0, 20) as f64 * 0.125
                };
                if rng.coin() {
                    -x
                } else {
                    x
                }
            }
        };
        return x;
    }
}

/// A source value of format `S` for a conversion into `T`: near `T`'s values, midpoints,
/// overflow threshold and smallest subnormal, sometimes moved a few `S` positions away.
fn gen_conv<S: Model, T: Model>(rng: &mut Rng) -> u64 {
    loop {
        let x = S::std_nearest(gen_conv_f64::<T>(rng));
        let Some(b) = S::bits(x) else { continue };
        if !is_finite_bits::<S>(b) {
            continue;
        }
        if rng.pct(30) {
            if let Some(n) = neighbour::<S>(b, rng.pick(&[-3, -2, -1, 1, 2, 3])) {
                return n;
            }
        }
        return b;
    }
}

// ----------------------------------------------------------------------------------------------
// Result categories and failure reports
// ----------------------------------------------------------------------------------------------

#[derive(Default, Debug)]
struct Stats {
    /// Cases checked in each direction.
    up: usize,
    down: usize,
    exact: usize,
    inexact: usize,
    /// Exact value on a midpoint.
    ties: usize,
    /// Exact value beyond the largest finite value.
    overflow: usize,
    /// Nonzero exact value below the smallest normal magnitude (subnormal or underflowing).
    tiny: usize,
    /// Nonzero exact value below the smallest subnormal magnitude.
    flush: usize,
}

/// Minimum share (per 10,000 cases) of each category a test must reach.
#[derive(Clone, Copy)]
struct Minimum {
    exact: usize,
    ties: usize,
    overflow: usize,
    tiny: usize,
    flush: usize,
}

const NEEDS_ALL: Minimum = Minimum { exact: 300, ties: 50, overflow: 50, tiny: 50, flush: 20 };

impl Stats {
    /// Records the category of a case whose two roundings `ru` and `rd` were both verified.
    fn record<T: Model>(&mut self, x: &Exact, ru: T::Repr, rd: T::Repr) {
        let (bu, bd) = (T::bits(ru).expect("verified"), T::bits(rd).expect("verified"));
        let (mu, md) = (bu & !T::SIGN, bd & !T::SIGN);
        let nonzero = x.sign() != Ordering::Equal;
        if nonzero && mu <= T::MIN_NORMAL && md <= T::MIN_NORMAL {
            self.tiny += 1;
        }
        if bu == bd || mu | md == 0 {
            self.exact += 1;
            return;
        }
        self.inexact += 1;
        if let Exact::Val(v) = x {
            let finite = is_finite_bits::<T>(bu) && is_finite_bits::<T>(bd);
            if finite && dy::<T>(ru).add(&dy::<T>(rd)).half().cmp(v) == Ordering::Equal {
                self.ties += 1;
            }
        }
        if bu == T::INF || bd == T::SIGN | T::INF {
            self.overflow += 1;
        }
        if mu == 0 || md == 0 {
            self.flush += 1;
        }
    }

    fn assert_coverage(&self, what: &str, cases: usize, min: Minimum) {
        eprintln!("{what}: {self:?}");
        assert_eq!(self.up, cases, "{what}: cases rounded up");
        assert_eq!(self.down, cases, "{what}: cases rounded down");
        assert!(cases >= CASES || what.contains("exhaustive"), "{what}: only {cases} cases");
        let need = |n: usize, per: usize, name: &str| {
            assert!(n * 10_000 >= per * cases, "{what}: only {n} {name} cases of {cases}");
        };
        need(self.exact, min.exact, "exact");
        need(self.inexact, 3000, "inexact");
        need(self.ties, min.ties, "tie");
        need(self.overflow, min.overflow, "overflow");
        need(self.tiny, min.tiny, "tiny");
        need(self.flush, min.flush, "flush-to-zero");
    }
}

/// Collects failures; panics with the first ones at the end.
#[derive(Default)]
struct Failures {
    count: usize,
    shown: Vec<String>,
}

impl Failures {
    fn add(&mut self, msg: String) {
        self.count += 1;
        if self.shown.len() < 12 {
            self.shown.push(msg);
        }
    }
    fn assert_none(&self, what: &str) {
        assert!(self.count == 0, "{what}: {} failures, first ones:\n{}", self.count, self.shown.join("\n"));
    }
}

fn show<T: Model>(r: T::Repr) -> String {
    format!("{:?} ({:#x})", r, T::bits(r).unwrap_or(u64::MAX))
}

const DIRS: [f64; 2] = [1.0, -1.0];

// ----------------------------------------------------------------------------------------------
// Kernels under test
// ----------------------------------------------------------------------------------------------

/// The exact result of `a op b`.
fn exact_binary<T: Model>(op: Op, a: T::Repr, b: T::Repr) -> Exact {
    let (da, db) = (dy::<T>(a), dy::<T>(b));
    match op {
        Op::Add => Exact::Val(da.add(&db)),
        Op::Sub => Exact::Val(da.sub(&db)),
        Op::Mul => Exact::Val(da.mul(&db)),
        Op::Div => Exact::Quot(da, db),
    }
}

/// The sign IEEE 754 gives an exact zero result of `a op b`, rounding in direction `dir` (`None`:
/// not checked, for an exact zero sum when the direction is not known). A sum of two zeros of one
/// sign is that zero; any other exact zero sum (opposite signs) is `+0`, or `-0` rounding toward
/// -inf (IEEE 754-2019, 6.3).
fn zero_sign<T: Model>(op: Op, a: T::Repr, b: T::Repr, dir: Option<f64>) -> Option<bool> {
    let (na, nb) = (a.to_f64().is_sign_negative(), b.to_f64().is_sign_negative());
    let sum_sign = |nb: bool| dir.map(|d| if na == nb { na } else { d < 0.0 });
    match op {
        Op::Add => sum_sign(nb),
        Op::Sub => sum_sign(!nb),
        Op::Mul | Op::Div => Some(na != nb),
    }
}

fn kernel<T: Model>(op: Op, a: T::Repr, b: T::Repr, dir: f64) -> T::Repr {
    match op {
        Op::Add => T::add(a, b, dir),
        Op::Sub => T::add(a, Repr::neg(b), dir),
        Op::Mul => T::mul(a, b, dir),
        Op::Div => T::div(a, b, dir),
    }
}

fn gen_binary<T: Model>(op: Op, rng: &mut Rng) -> Option<(u64, u64)> {
    match op {
        Op::Add | Op::Sub => gen_add::<T>(rng),
        Op::Mul => gen_mul::<T>(rng),
        Op::Div => gen_div::<T>(rng),
    }
}

fn run_binary<T: Model>(op: Op) {
    let what = format!("{} {:?}", T::LABEL, op);
    let mut rng = Rng::new(&what);
    let mut stats = Stats::default();
    let mut fails = Failures::default();
    let mut cases = 0;
    while cases < CASES {
        let Some((ab, bb)) = gen_binary::<T>(op, &mut rng) else { continue };
        cases += 1;
        let (a, b) = (T::from_bits(ab), T::from_bits(bb));
        let x = exact_binary::<T>(op, a, b);
        let mut r = [a; 2];
        for (i, dir) in DIRS.into_iter().enumerate() {
            let zero_sign = zero_sign::<T>(op, a, b, Some(dir));
            r[i] = kernel::<T>(op, a, b, dir);
            if let Err(e) = check_dir::<T>(r[i], &x, dir, zero_sign) {
                fails.add(format!("{what}({}, {}, dir {dir}): {e}", show::<T>(a), show::<T>(b)));
            }
            if dir > 0.0 {
                stats.up += 1;
            } else {
                stats.down += 1;
            }
        }
        if fails.count == 0 {
            stats.record::<T>(&x, r[0], r[1]);
        }
    }
    fails.assert_none(&what);
    let min = match op {
        // Sums of floats are multiples of the smallest subnormal: no flush to zero.
        Op::Add | Op::Sub => Minimum { flush: 0, ..NEEDS_ALL },
        Op::Mul => NEEDS_ALL,
        // A quotient is never a midpoint.
        Op::Div => Minimum { ties: 0, ..NEEDS_ALL },
    };
    stats.assert_coverage(&what, cases, min);
}

fn run_sqrt<T: Model>() {
    let what = format!("{} sqrt", T::LABEL);
    let mut rng = Rng::new(&what);
    let mut stats = Stats::default();
    let mut fails = Failures::default();
    let (mut cases, mut subnormal) = (0, 0);
    while cases < CASES {
        let Some(ab) = gen_sqrt::<T>(&mut rng) else { continue };
        cases += 1;
        subnormal += usize::from(ab != 0 && ab < T::MIN_NORMAL);
        check_sqrt_case::<T>(ab, &what, &mut stats, &mut fails);
    }
    fails.assert_none(&what);
    assert!(subnormal * 100 >= cases * 5, "{what}: only {subnormal} subnormal operands");
    let min = Minimum { ties: 0, overflow: 0, tiny: 0, flush: 0, exact: 1000 };
    stats.assert_coverage(&what, cases, min);
}

fn check_sqrt_case<T: Model>(ab: u64, what: &str, stats: &mut Stats, fails: &mut Failures) {
    let a = T::from_bits(ab);
    let x = Exact::Sqrt(dy::<T>(a));
    let mut r = [a; 2];
    for (i, dir) in DIRS.into_iter().enumerate() {
        r[i] = T::sqrt(a, dir);
        // sqrt(-0) = -0.
        if let Err(e) = check_dir::<T>(r[i], &x, dir, Some(ab & T::SIGN != 0)) {
            fails.add(format!("{what}({}, dir {dir}): {e}", show::<T>(a)));
        }
        if dir > 0.0 {
            stats.up += 1;
        } else {
            stats.down += 1;
        }
    }
    if fails.count == 0 {
        stats.record::<T>(&x, r[0], r[1]);
    }
}

/// Every bit pattern of a 16-bit format: finite non-negative ones against the reference, the
/// others as IEEE 754 says (NaN for negative values and NaN, +inf for +inf).
fn sqrt_exhaustive<T: Model>() {
    let what = format!("{} sqrt exhaustive", T::LABEL);
    let mut stats = Stats::default();
    let mut fails = Failures::default();
    let mut cases = 0;
    for ab in 0..1u64 << T::W {
        let a = T::from_bits(ab);
        let neg_nonzero = ab & T::SIGN != 0 && ab & !T::SIGN != 0;
        if !is_finite_bits::<T>(ab) || neg_nonzero {
            for dir in DIRS {
                let r = T::sqrt(a, dir).to_f64();
                let want = a.to_f64().sqrt();
                if !(r.to_bits() == want.to_bits() || (r.is_nan() && want.is_nan())) {
                    fails.add(format!("{what}({}, dir {dir}) = {r:?}, want {want:?}", show::<T>(a)));
                }
            }
            continue;
        }
        cases += 1;
        check_sqrt_case::<T>(ab, &what, &mut stats, &mut fails);
    }
    fails.assert_none(&what);
    // Every finite non-negative value, -0 included.
    assert_eq!(cases, (T::INF + 1) as usize, "{what}");
    let min = Minimum { ties: 0, overflow: 0, tiny: 0, flush: 0, exact: 10 };
    stats.assert_coverage(&what, cases, min);
}

/// Directed conversions of `S` values into `T` (through `T::round(x as f64, dir)`).
fn check_conv_case<S: Model, T: Model>(sb: u64, what: &str, stats: &mut Stats, fails: &mut Failures) {
    let s = S::from_bits(sb);
    let x = Exact::Val(dy::<S>(s));
    let mut r = [T::from_bits(0); 2];
    for (i, dir) in DIRS.into_iter().enumerate() {
        r[i] = T::round(s.to_f64(), dir);
        if let Err(e) = check_dir::<T>(r[i], &x, dir, Some(sb & S::SIGN != 0)) {
            fails.add(format!("{what}({}, dir {dir}): {e}", show::<S>(s)));
        }
        if dir > 0.0 {
            stats.up += 1;
        } else {
            stats.down += 1;
        }
    }
    if fails.count == 0 {
        stats.record::<T>(&x, r[0], r[1]);
    }
}

fn run_conv<S: Model, T: Model>() {
    let what = format!("{} -> {} conversion", S::LABEL, T::LABEL);
    let mut rng = Rng::new(&what);
    let mut stats = Stats::default();
    let mut fails = Failures::default();
    for _ in 0..CASES {
        let sb = gen_conv::<S, T>(&mut rng);
        check_conv_case::<S, T>(sb, &what, &mut stats, &mut fails);
    }
    fails.assert_none(&what);
    stats.assert_coverage(&what, CASES, NEEDS_ALL);
}

fn conv_exhaustive<S: Model, T: Model>() {
    let what = format!("{} -> {} conversion exhaustive", S::LABEL, T::LABEL);
    let mut stats = Stats::default();
    let mut fails = Failures::default();
    let mut cases = 0;
    for sb in 0..1u64 << S::W {
        let s = S::from_bits(sb);
        if !is_finite_bits::<S>(sb) {
            for dir in DIRS {
                let r = T::round(s.to_f64(), dir).to_f64();
                let want = s.to_f64();
                if !(r.to_bits() == want.to_bits() || (r.is_nan() && want.is_nan())) {
                    fails.add(format!("{what}({}, dir {dir}) = {r:?}", show::<S>(s)));
                }
            }
            continue;
        }
        cases += 1;
        check_conv_case::<S, T>(sb, &what, &mut stats, &mut fails);
    }
    fails.assert_none(&what);
    assert_eq!(cases, 2 * S::INF as usize, "{what}");
    // f16 -> bf16 neither overflows nor flushes; bf16 -> f16 does both.
    let min = if S::M > T::M {
        Minimum { overflow: 0, flush: 0, tiny: 0, ..NEEDS_ALL }
    } else {
        Minimum { ties: 5, ..NEEDS_ALL }
    };
    stats.assert_coverage(&what, cases, min);
}

fn run_nearest<T: Model>() {
    let what = format!("{} nearest", T::LABEL);
    let mut rng = Rng::new(&what);
    let mut fails = Failures::default();
    let mut ties = 0;
    for _ in 0..CASES {
        let x = gen_conv_f64::<T>(&mut rng);
        let u = T::nearest(x);
        let dx = Dy::from_f64(x);
        if let Err(e) = check_nearest::<T>(u, &dx) {
            fails.add(format!("{what}({x:e} = {:#x}): {e}", x.to_bits()));
        }
        let d = T::round(x, -1.0);
        if T::bits(d).is_some_and(|b| is_finite_bits::<T>(b)) {
            if let Some(n) = T::bits(d).and_then(|b| neighbour::<T>(b, 1)) {
                if dy::<T>(d).add(&dy_of_bits::<T>(n)).half().cmp(&dx) == Ordering::Equal {
                    ties += 1;
                }
            }
        }
    }
    fails.assert_none(&what);
    assert!(ties * 100 >= CASES, "{what}: only {ties} ties");
}

// ----------------------------------------------------------------------------------------------
// The tests
// ----------------------------------------------------------------------------------------------

macro_rules! tests {
    ($($name:ident => $body:expr;)*) => {$(
        #[test]
        fn $name() {
            $body;
        }
    )*};
}

tests! {
    add_f64 => run_binary::<f64>(Op::Add);
    sub_f64 => run_binary::<f64>(Op::Sub);
    mul_f64 => run_binary::<f64>(Op::Mul);
    div_f64 => run_binary::<f64>(Op::Div);
    sqrt_f64 => run_sqrt::<f64>();
    add_f32 => run_binary::<f32>(Op::Add);
    sub_f32 => run_binary::<f32>(Op::Sub);
    mul_f32 => run_binary::<f32>(Op::Mul);
    div_f32 => run_binary::<f32>(Op::Div);
    sqrt_f32 => run_sqrt::<f32>();
    add_f16 => run_binary::<f16>(Op::Add);
    sub_f16 => run_binary::<f16>(Op::Sub);
    mul_f16 => run_binary::<f16>(Op::Mul);
    div_f16 => run_binary::<f16>(Op::Div);
    sqrt_f16_exhaustive => sqrt_exhaustive::<f16>();
    add_bf16 => run_binary::<bf16>(Op::Add);
    sub_bf16 => run_binary::<bf16>(Op::Sub);
    mul_bf16 => run_binary::<bf16>(Op::Mul);
    div_bf16 => run_binary::<bf16>(Op::Div);
    sqrt_bf16_exhaustive => sqrt_exhaustive::<bf16>();
    convert_f64_to_f32 => run_conv::<f64, f32>();
    convert_f64_to_f16 => run_conv::<f64, f16>();
    convert_f64_to_bf16 => run_conv::<f64, bf16>();
    convert_f32_to_f16 => run_conv::<f32, f16>();
    convert_f32_to_bf16 => run_conv::<f32, bf16>();
    convert_f16_to_bf16_exhaustive => conv_exhaustive::<f16, bf16>();
    convert_bf16_to_f16_exhaustive => conv_exhaustive::<bf16, f16>();
    nearest_f32 => run_nearest::<f32>();
    nearest_f16 => run_nearest::<f16>();
    nearest_bf16 => run_nearest::<bf16>();
}

/// The reference is not vacuous: for each kernel result, the values one position above and below
/// are rejected (unless they are the other rounding of an inexact result).
#[test]
fn oracle_rejects_neighbours_of_the_right_answer() {
    fn go<T: Model>() {
        let mut rng = Rng::new(T::LABEL);
        let mut rejected = 0;
        for _ in 0..2000 {
            let Some((ab, bb)) = gen_mul::<T>(&mut rng) else { continue };
            let (a, b) = (T::from_bits(ab), T::from_bits(bb));
            let (x, zs) = (exact_binary::<T>(Op::Mul, a, b), zero_sign::<T>(Op::Mul, a, b, None));
            for dir in DIRS {
                let u = T::mul(a, b, dir);
                check_dir::<T>(u, &x, dir, zs).expect("kernel result");
                let ub = T::bits(u).expect("not NaN");
                // In the right direction, the neighbours are never the answer.
                for d in [-1, 1] {
                    let wb = from_key::<T>(key::<T>(ub) + d);
                    if key::<T>(wb).unsigned_abs() > T::INF {
                        continue;
                    }
                    let w = T::from_bits(wb);
                    assert!(
                        check_dir::<T>(w, &x, dir, zs).is_err(),
                        "{} accepted {w:?} beside {u:?} for {a:?} * {b:?} dir {dir}",
                        T::LABEL
                    );
                    rejected += 1;
                }
            }
        }
        assert!(rejected > 4000, "{}: {rejected}", T::LABEL);
    }
    go::<f64>();
    go::<f32>();
    go::<f16>();
    go::<bf16>();
}

/// The cases that found the two kernel bugs fixed with these tests.
#[test]
fn regressions() {
    fn add<T: Model>(ab: u64, bb: u64) {
        let (a, b) = (T::from_bits(ab), T::from_bits(bb));
        let x = Exact::Val(dy::<T>(a).add(&dy::<T>(b)));
        for dir in DIRS {
            let r = check_dir::<T>(T::add(a, b, dir), &x, dir, None);
            assert!(r.is_ok(), "{} {a:?} + {b:?} dir {dir}: {r:?}", T::LABEL);
        }
    }
    // `a + b` a tie rounded away from zero next to -MAX: TwoSum's `s - a` overflowed to -inf,
    // its residual was NaN, and the sum was not moved toward +inf.
    add::<f32>(0x7ecf_981f, 0xff7f_ffff);
    add::<f32>(0xff7f_ffff, 0x7ecf_981f);
    add::<f64>(0x7fd8_9a9a_8077_531b, 0xffef_ffff_ffff_ffff);
    add::<f64>(0xffdc_647a_3c7f_dd97, 0x7fef_ffff_ffff_ffff);
    // Round to nearest from f64 went through `half`'s `from_f64`, which ignores the low 32 bits of
    // the significand (or, with F16C, rounds through f32 first).
    for (x, f16_too) in
        [(0x3e60_0000_0000_0001, true), (0xbfa9_95ff_ffff_ffff, true), (0x3790_0000_0000_0001, false)]
    {
        let x = f64::from_bits(x);
        if f16_too {
            assert_eq!(
                check_nearest::<f16>(<f16 as Format>::nearest(x), &Dy::from_f64(x)),
                Ok(()),
                "f16 {x:e}"
            );
        }
        assert_eq!(
            check_nearest::<bf16>(<bf16 as Format>::nearest(x), &Dy::from_f64(x)),
            Ok(()),
            "bf16 {x:e}"
        );
    }
}

/// NaN and infinite operands, and division by zero, give what IEEE 754 says in both directions
/// (the results are exact: NaN, an infinity or a signed zero).
#[test]
fn nan_and_infinity_propagate() {
    fn go<T: Model>() {
        let specials = [
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.0,
            -0.0,
            1.0,
            -2.5,
            T::from_bits(max_bits::<T>()).to_f64(),
            -T::from_bits(max_bits::<T>()).to_f64(),
            T::from_bits(1).to_f64(),
        ];
        let same = |r: f64, want: f64| r.to_bits() == want.to_bits() || (r.is_nan() && want.is_nan());
        let mut checked = 0;
        for &x in &specials {
            let a = T::std_nearest(x);
            for dir in DIRS {
                // sqrt and conversions.
                if !x.is_finite() || x <= 0.0 {
                    let (r, want) = (T::sqrt(a, dir).to_f64(), x.sqrt());
                    assert!(same(r, want), "{} sqrt({x}) dir {dir} = {r}", T::LABEL);
                    let r = T::round(x, dir).to_f64();
                    assert!(same(r, x), "{} round({x}) dir {dir} = {r}", T::LABEL);
                    checked += 2;
                }
                for &y in &specials {
                    let b = T::std_nearest(y);
                    let special = !x.is_finite() || !y.is_finite();
                    let ops: [(Op, f64); 4] =
                        [(Op::Add, x + y), (Op::Sub, x - y), (Op::Mul, x * y), (Op::Div, x / y)];
                    for (op, want) in ops {
                        if special || (op == Op::Div && y == 0.0) {
                            let r = kernel::<T>(op, a, b, dir).to_f64();
                            assert!(
                                same(r, want),
                                "{} {x} {op:?} {y} dir {dir} = {r}, want {want}",
                                T::LABEL
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 300, "{checked}");
    }
    go::<f64>();
    go::<f32>();
    go::<f16>();
    go::<bf16>();
}

// ----------------------------------------------------------------------------------------------
// Through the stochastic type
// ----------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SOp {
    Bin(Op),
    Sqrt,
}

fn run_stochastic<T: Model>(op: SOp) {
    let what = format!("Stochastic<{}> {:?}", T::LABEL, op);
    let mut rng = Rng::new(&what);
    fptune::stochastic::set_seed(rng.next());
    let mut fails = Failures::default();
    // Inexact samples: how often each of samples 0 and 1 rounded up, and how often they agreed.
    let (mut up0, mut n0, mut up1, mut n1, mut agree, mut both) = (0, 0, 0, 0, 0, 0);
    let mut opposite_checks = 0;
    let mut cases = 0;
    while cases < STOCHASTIC_CASES {
        let draw = |rng: &mut Rng| -> Option<(u64, u64)> {
            match op {
                SOp::Bin(o) => gen_binary::<T>(o, rng),
                SOp::Sqrt => gen_sqrt::<T>(rng).map(|a| (a, 0)),
            }
        };
        let Some(first) = draw(&mut rng) else { continue };
        let mut pairs = [first; 3];
        if rng.coin() {
            for p in &mut pairs[1..] {
                *p = loop {
                    if let Some(q) = draw(&mut rng) {
                        break q;
                    }
                };
            }
        }
        cases += 1;
        let xs: [T::Repr; 3] = pairs.map(|p| T::from_bits(p.0));
        let ys: [T::Repr; 3] = pairs.map(|p| T::from_bits(p.1));
        let sx = Stochastic::<T>::from_samples(xs.map(T::from_repr));
        let sy = Stochastic::<T>::from_samples(ys.map(T::from_repr));
        let r = match op {
            SOp::Bin(Op::Add) => sx + sy,
            SOp::Bin(Op::Sub) => sx - sy,
            SOp::Bin(Op::Mul) => sx * sy,
            SOp::Bin(Op::Div) => sx / sy,
            SOp::Sqrt => sx.sqrt(),
        };
        let rs = r.samples().map(T::to_repr);
        let mut how = [Rounded::Exact; 3];
        for i in 0..3 {
            let (x, zs) = match op {
                SOp::Bin(o) => (exact_binary::<T>(o, xs[i], ys[i]), zero_sign::<T>(o, xs[i], ys[i], None)),
                SOp::Sqrt => (Exact::Sqrt(dy::<T>(xs[i])), Some(xs[i].to_f64().is_sign_negative())),
            };
            match classify::<T>(rs[i], &x, zs) {
                Ok(c) => how[i] = c,
                Err(e) => fails.add(format!(
                    "{what} sample {i} of ({}, {}): {e}",
                    show::<T>(xs[i]),
                    show::<T>(ys[i])
                )),
            }
        }
        let inexact = |c: Rounded| c != Rounded::Exact;
        if inexact(how[1]) && inexact(how[2]) {
            opposite_checks += 1;
            if how[1] == how[2] {
                fails.add(format!("{what}: samples 1 and 2 both rounded {:?}: {rs:?}", how[1]));
            }
        }
        if inexact(how[0]) {
            n0 += 1;
            up0 += usize::from(how[0] == Rounded::Up);
        }
        if inexact(how[1]) {
            n1 += 1;
            up1 += usize::from(how[1] == Rounded::Up);
        }
        if inexact(how[0]) && inexact(how[1]) {
            both += 1;
            agree += usize::from(how[0] == how[1]);
        }
    }
    fails.assert_none(&what);
    eprintln!("{what}: {n0} {up0} {n1} {up1} {both} {agree} {opposite_checks}");
    assert!(opposite_checks >= STOCHASTIC_CASES / 4, "{what}: {opposite_checks} inexact pairs");
    // Fair random directions: each proportion within 4.5 standard deviations of 1/2.
    for (k, n, name) in
        [(up0, n0, "sample 0 up"), (up1, n1, "sample 1 up"), (agree, both, "samples 0, 1 agree")]
    {
        let (k, n) = (k as f64, n as f64);
        assert!((k - n / 2.0).abs() <= 4.5 * (n / 4.0).sqrt(), "{what}: {name} {k} of {n}");
    }
}

tests! {
    stochastic_f64 => for op in [SOp::Bin(Op::Add), SOp::Bin(Op::Sub), SOp::Bin(Op::Mul), SOp::Bin(Op::Div), SOp::Sqrt] { run_stochastic::<f64>(op) };
    stochastic_f32 => for op in [SOp::Bin(Op::Add), SOp::Bin(Op::Sub), SOp::Bin(Op::Mul), SOp::Bin(Op::Div), SOp::Sqrt] { run_stochastic::<f32>(op) };
    stochastic_f16 => for op in [SOp::Bin(Op::Add), SOp::Bin(Op::Sub), SOp::Bin(Op::Mul), SOp::Bin(Op::Div), SOp::Sqrt] { run_stochastic::<f16>(op) };
    stochastic_bf16 => for op in [SOp::Bin(Op::Add), SOp::Bin(Op::Sub), SOp::Bin(Op::Mul), SOp::Bin(Op::Div), SOp::Sqrt] { run_stochastic::<bf16>(op) };
}
