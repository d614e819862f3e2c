//! The generic formats' arithmetic against an exact reference: 100,000 random cases per
//! operation and format, in the three roundings, subnormals, the overflow boundary and ties
//! included, each compared with the exact result rounded by big-integer arithmetic; and every
//! OCP FP8 code against an independent table (ml_dtypes, `data/fp8_ml_dtypes.py`).

use std::cmp::Ordering;

use fptune::formats::arith::{self, Rounding};
use fptune::formats::codes;
use fptune::formats::{Encoding, Overflow, Spec};
use num_bigint::{BigInt, Sign};
use num_traits::{One, Signed, Zero};

/// A nonnegative exact value: `num / den * 2^k`, or the square root of `num * 2^k` (`k` even).
enum Exact {
    Ratio { num: BigInt, den: BigInt, k: i64 },
    Sqrt { num: BigInt, k: i64 },
}

/// `x * 2^s` for any integer `s` as a ratio (numerator, denominator).
fn scaled(x: &BigInt, s: i64) -> (BigInt, BigInt) {
    if s >= 0 {
        (x << s as usize, BigInt::one())
    } else {
        (x.clone(), BigInt::one() << (-s) as usize)
    }
}

impl Exact {
    /// `floor(log2(value))` of a positive value.
    fn floor_log2(&self) -> i64 {
        match self {
            Exact::Ratio { num, den, k } => {
                let guess = num.bits() as i64 - den.bits() as i64;
                // value / 2^guess >= 1 ?
                let (n, d) = scaled(num, -guess);
                let (n, d) = (n * BigInt::one(), d * den);
                let l = if n >= d { guess } else { guess - 1 };
                l + k
            }
            Exact::Sqrt { num, k } => {
                // floor(log2(sqrt(num 2^k))) = floor((log2(num) + k) / 2)
                let l = num.bits() as i64 - 1 + k;
                l.div_euclid(2)
            }
        }
    }

    /// `floor(value / 2^qe)`, and how the rest compares with half of `2^qe`, and whether the
    /// rest is nonzero.
    fn quanta(&self, qe: i64) -> (BigInt, Ordering, bool) {
        match self {
            Exact::Ratio { num, den, k } => {
                let (n, d) = scaled(num, k - qe);
                let d = d * den;
                let kept = &n / &d;
                let rest = &n - &kept * &d;
                let twice: BigInt = rest.clone() * 2;
                (kept, twice.cmp(&d), !rest.is_zero())
            }
            Exact::Sqrt { num, k } => {
                // value / 2^qe = sqrt(num 2^(k - 2 qe))
                let (n, d) = scaled(num, k - 2 * qe);
                let kept = (&n / &d).sqrt();
                // Compare 4 n / d with (2 kept + 1)^2.
                let two_k1: BigInt = kept.clone() * 2 + 1;
                let lhs: BigInt = n.clone() * 4;
                let rhs: BigInt = two_k1.pow(2) * &d;
                let exact = n == kept.pow(2) * &d;
                (kept, lhs.cmp(&rhs), !exact)
            }
        }
    }
}

/// The exact value rounded onto `spec` by the definitions: the grid point below, the quantum,
/// ties to even, the format's overflow and flushing.
fn reference(spec: Spec, neg: bool, x: &Exact, mode: Rounding) -> f64 {
    let p = i64::from(spec.precision());
    let l = x.floor_log2();
    let qe = l.max(i64::from(spec.emin())) - (p - 1);
    let (kept, half, inexact) = x.quanta(qe);
    let away = match mode {
        Rounding::NearestEven => half == Ordering::Greater || (half == Ordering::Equal && kept.bit(0)),
        Rounding::Up => inexact && !neg,
        Rounding::Down => inexact && neg,
    };
    let kept = if away { kept + 1 } else { kept };
    // kept * 2^qe as f64, exactly (kept has at most p + 1 bits).
    let (_, digits) = kept.to_u64_digits();
    let kept_f = digits.first().copied().unwrap_or(0) as f64;
    let pow2 = |e: i64| if e >= -1022 { f64::from_bits(((e + 1023) as u64) << 52) } else { f64::from_bits(1 << (e + 1074)) };
    assert!(qe >= -1074, "every format's quantum is a binary64 value");
    let mag = if qe > 1023 { f64::INFINITY } else { kept_f * pow2(qe) };
    let mag = if mag > spec.max() {
        let toward_zero = match mode {
            Rounding::NearestEven => false,
            Rounding::Up => neg,
            Rounding::Down => !neg,
        };
        if toward_zero {
            spec.max()
        } else {
            spec.beyond()
        }
    } else if spec.ftz && mag < spec.min_normal() {
        0.0
    } else {
        mag
    };
    if neg {
        -mag
    } else {
        mag
    }
}

/// `|x| = m 2^e` with integer `m`.
fn parts(x: f64) -> (BigInt, i64) {
    let bits = x.to_bits() & !(1 << 63);
    let field = (bits >> 52) as i64;
    let man = bits & ((1 << 52) - 1);
    if field == 0 {
        (BigInt::from(man), -1074)
    } else {
        (BigInt::from(man | (1 << 52)), field - 1075)
    }
}

enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Sqrt,
}

/// The exact result of `a op b` (finite operands), with its sign; `None` for a zero result or a
/// division by zero.
fn exact(op: &Op, a: f64, b: f64) -> Option<(bool, Exact)> {
    let ((ma, ea), (mb, eb)) = (parts(a), parts(b));
    let sa = if a < 0.0 { -ma.clone() } else { ma.clone() };
    let sb = if b < 0.0 { -mb.clone() } else { mb.clone() };
    match op {
        Op::Add | Op::Sub => {
            let sb = if matches!(op, Op::Sub) { -sb } else { sb };
            let e = ea.min(eb);
            let s: BigInt = (sa << (ea - e) as usize) + (sb << (eb - e) as usize);
            if s.is_zero() {
                return None;
            }
            Some((s.sign() == Sign::Minus, Exact::Ratio { num: s.abs(), den: BigInt::one(), k: e }))
        }
        _ if a == 0.0 || (b == 0.0 && !matches!(op, Op::Sqrt)) => None,
        Op::Mul => Some(((a < 0.0) != (b < 0.0), Exact::Ratio { num: ma * mb, den: BigInt::one(), k: ea + eb })),
        Op::Div => Some(((a < 0.0) != (b < 0.0), Exact::Ratio { num: ma, den: mb, k: ea - eb })),
        Op::Sqrt => {
            let (num, k) = if ea % 2 == 0 { (ma, ea) } else { (ma << 1usize, ea - 1) };
            Some((false, Exact::Sqrt { num, k }))
        }
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random finite value of the format: a random code a third of the time, else one whose
/// exponent lies near `near` (so that sums overlap and ties, carries and cancellations occur),
/// now and then a subnormal or a value at the top of the range.
fn value(spec: Spec, rng: &mut Rng, near: Option<i32>) -> f64 {
    loop {
        let code = match rng.below(8) {
            0 | 1 | 2 => rng.next(),
            3 => rng.next() & ((1 << spec.man_bits) - 1) | (rng.next() & 1) << (spec.width() - 1),
            4 => {
                let top = codes::encode(spec, spec.max());
                top - rng.below(4) | (rng.next() & 1) << (spec.width() - 1)
            }
            _ => {
                let e = near.unwrap_or(0) + rng.below(9) as i32 - 4;
                let field = (e + spec.bias()).clamp(1, (1 << spec.exp_bits) - 2) as u64;
                (field << spec.man_bits) | rng.next() & ((1 << spec.man_bits) - 1) | (rng.next() & 1) << (spec.width() - 1)
            }
        };
        let x = codes::decode(spec, code & (u64::MAX >> (64 - spec.width())));
        if x.is_finite() && x != 0.0 {
            return x;
        }
    }
}

fn exponent(x: f64) -> i32 {
    ((x.abs().to_bits() >> 52) as i32).max(1) - 1023
}

fn specs() -> Vec<Spec> {
    let mut v: Vec<Spec> = ["e4m3", "e4m3-sat", "e5m2", "f16", "bf16", "tf32", "e8m16", "e8m3", "e11m40", "e11m30", "e11m51", "e5m10-ftz", "e3m2", "f32", "f64"].iter().map(|n| Spec::parse(n).unwrap()).collect();
    v.push(Spec::new(6, 4, Encoding::FiniteNan, Overflow::Saturate, true).unwrap());
    v
}

const CASES: usize = 100_000;

#[test]
fn every_operation_rounds_exactly_onto_every_format() {
    let mut rng = Rng(27);
    let mut checked = 0u64;
    for spec in specs() {
        for (name, op) in [("+", Op::Add), ("-", Op::Sub), ("*", Op::Mul), ("/", Op::Div), ("sqrt", Op::Sqrt)] {
            for case in 0..CASES {
                let a = value(spec, &mut rng, None);
                let a = if matches!(op, Op::Sqrt) { a.abs() } else { a };
                let b = if case % 5 == 0 && matches!(op, Op::Add | Op::Sub) {
                    // A tie or a near-tie: half a quantum of `a`, give or take one of its own.
                    let q = exponent(a).max(spec.emin()) - spec.man_bits as i32 - 1;
                    let half = 2f64.powi(q.max(spec.emin() - spec.man_bits as i32));
                    let b = half * [1.0, 1.5, 0.75, 3.0][rng.below(4) as usize];
                    let b = arith::round(spec, if rng.next() & 1 == 0 { b } else { -b }, Rounding::NearestEven);
                    if b == 0.0 { value(spec, &mut rng, Some(exponent(a))) } else { b }
                } else {
                    value(spec, &mut rng, Some(exponent(a)))
                };
                let got = |mode| match op {
                    Op::Add => arith::add(spec, a, b, mode),
                    Op::Sub => arith::sub(spec, a, b, mode),
                    Op::Mul => arith::mul(spec, a, b, mode),
                    Op::Div => arith::div(spec, a, b, mode),
                    Op::Sqrt => arith::sqrt(spec, a, mode),
                };
                let (a_in, b_in) = (spec.flush(a), spec.flush(b));
                let exact = exact(&op, a_in, b_in);
                for mode in [Rounding::NearestEven, Rounding::Up, Rounding::Down] {
                    let r = got(mode);
                    match &exact {
                        Some((neg, x)) => {
                            let want = reference(spec, *neg, x, mode);
                            let same = r.to_bits() == want.to_bits() || (r.is_nan() && want.is_nan()) || (r == 0.0 && want == 0.0 && spec.ftz);
                            assert!(same, "{spec}: {a:e} {name} {b:e} {mode:?}: got {r:e}, exact rounding gives {want:e}");
                        }
                        // A zero exact result (an operand flushed, or x - x): zero; or x / 0.
                        None => assert!(r == 0.0 || r.is_nan() || r.is_infinite() || r.abs() == spec.beyond(), "{spec}: {a:e} {name} {b:e} {mode:?}: got {r:e}"),
                    }
                    checked += 1;
                }
            }
        }
    }
    eprintln!("{checked} results rounded exactly ({} formats, 5 operations, {CASES} cases, 3 roundings)", specs().len());
}

#[test]
fn fp8_codes_match_an_independent_table() {
    let table = include_str!("data/fp8_ml_dtypes.txt");
    let spec = |name: &str| Spec::parse(name).unwrap();
    let (mut decoded, mut encoded) = (0, 0);
    for line in table.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split_whitespace().collect();
        match f[0] {
            "decode" => {
                let (s, code) = (spec(f[1]), f[2].parse::<u64>().unwrap());
                let v = codes::decode(s, code);
                if f[3] == "nan" {
                    assert!(v.is_nan(), "{} code {code}: {v}, ml_dtypes: NaN", f[1]);
                } else {
                    let want = f64::from_bits(u64::from_str_radix(f[3], 16).unwrap());
                    assert_eq!(v.to_bits(), want.to_bits(), "{} code {code}", f[1]);
                    // And back: the code of every value is the one that names it (zeros keep their sign).
                    assert_eq!(codes::encode(s, want), code, "{} value {want:e}", f[1]);
                }
                decoded += 1;
            }
            "encode" => {
                let (s, x) = (spec(f[1]), f32::from_bits(u32::from_str_radix(f[2], 16).unwrap()));
                let want = f[3].parse::<u64>().unwrap();
                let got = codes::encode(s, f64::from(x));
                let nan = |c: u64| codes::decode(s, c).is_nan();
                assert!(got == want || (nan(got) && nan(want) && (got >> 7) == (want >> 7)), "{} {x:e}: code {got}, ml_dtypes {want}", f[1]);
                encoded += 1;
            }
            other => panic!("unknown line {other}"),
        }
    }
    assert_eq!(decoded, 512, "every code of both formats");
    eprintln!("{decoded} codes decoded and {encoded} binary32 values encoded as ml_dtypes does");
}
