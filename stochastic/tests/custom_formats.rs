//! `Fx<E, M, FLAGS>`, natively and as stochastic values: where it names a primitive format it
//! computes what that format computes, bit for bit, and elsewhere its formats' own rules.

use fptune::formats::{flags, Fx, Spec};
use fptune::stochastic::{self, Instability};
use fptune::{f16, Format, Sf16, Sf32, Stochastic, E4M3, E5M2, TF32};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A float spread over many binades, either sign.
    fn value(&mut self) -> f64 {
        let m = 1.0 + (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        let e = (self.next() % 16) as i32 - 8;
        let s = if self.next() & 1 == 0 { 1.0 } else { -1.0 };
        s * m * 2f64.powi(e)
    }
}

#[test]
fn native_fx_of_binary32_and_binary16_widths_is_f32_and_f16() {
    type F32x = Fx<8, 23>;
    type F16x = Fx<5, 10>;
    let mut rng = Rng(0x5eed);
    for _ in 0..100_000 {
        let (x, y) = (rng.value() as f32, rng.value() as f32);
        let (a, b) = (F32x::from_f32(x), F32x::from_f32(y));
        assert_eq!((a + b).to_f32().to_bits(), (x + y).to_bits());
        assert_eq!((a - b).to_f32().to_bits(), (x - y).to_bits());
        assert_eq!((a * b).to_f32().to_bits(), (x * y).to_bits());
        assert_eq!((a / b).to_f32().to_bits(), (x / y).to_bits());
        assert_eq!(a.abs().sqrt().to_f32().to_bits(), x.abs().sqrt().to_bits());
        let (h, k) = (f16::from_f32(x), f16::from_f32(y));
        let (c, d) = (F16x::from_f32(h.to_f32()), F16x::from_f32(k.to_f32()));
        let via32 = |r: f32| f16::from_f32(r).to_f32();
        assert_eq!((c + d).to_f32().to_bits(), via32(h.to_f32() + k.to_f32()).to_bits());
        assert_eq!((c * d).to_f32().to_bits(), via32(h.to_f32() * k.to_f32()).to_bits());
        assert_eq!((c / d).to_f32().to_bits(), via32(h.to_f32() / k.to_f32()).to_bits());
    }
}

#[test]
fn fp8_natives_follow_ocp_rules() {
    let big = E4M3::from_f64(400.0);
    assert_eq!(big.to_f64(), 384.0, "400 lies between 384 and 416, nearer 384");
    assert!((big + big).is_nan(), "E4M3 has no infinity: overflow is NaN");
    type E4M3Sat = Fx<4, 3, { flags::FINITE_NAN | flags::SATURATE }>;
    assert_eq!((E4M3Sat::from_f64(400.0) * E4M3Sat::from_f64(2.0)).to_f64(), 448.0);
    assert_eq!((E5M2::from_f64(40000.0) * E5M2::from_f64(2.0)).to_f64(), f64::INFINITY);
    assert_eq!(TF32::from_f64(1.0 + 2f64.powi(-11)).to_f64(), 1.0, "a tie goes to even");
    assert_eq!(TF32::from_f64(1.0 + 3.0 * 2f64.powi(-11)).to_f64(), 1.0 + 2f64.powi(-9));
    assert_eq!(E4M3::from_bits(0x7e).to_f64(), 448.0);
    assert_eq!(E4M3::from_f64(-448.0).to_bits(), 0xfe);
    assert_eq!(<E4M3 as Format>::NAME, "e4m3");
    assert_eq!(<Fx<11, 40> as Format>::NAME, "e11m40");
    assert_eq!(<Fx<8, 23, { flags::FTZ }> as Format>::NAME, "f32-ftz");
    assert_eq!(E4M3::SPEC, Spec::E4M3);
    type Flushing = Fx<5, 10, { flags::FTZ }>;
    let tiny = Flushing::from_f64(1e-6);
    assert_eq!(tiny.to_f64(), 0.0, "a subnormal input flushes");
    assert_eq!((Flushing::from_f64(1e-4) * Flushing::from_f64(0.01)).to_f64(), 0.0, "a subnormal result flushes");
}

/// The same computation on two stochastic types, from the same seed: a sum of products with
/// cancellation, the samples of every step.
fn trace<F: Format>(seed: u64) -> Vec<[u64; 3]> {
    stochastic::set_seed(seed);
    let mut rng = Rng(seed | 1);
    let mut acc = Stochastic::<F>::from_f64(0.0);
    let mut out = Vec::new();
    for i in 0..2_000 {
        let x = Stochastic::<F>::from_f64(rng.value());
        let y = Stochastic::<F>::from_f64(rng.value());
        acc = acc + x * y - if i % 7 == 0 { acc / Stochastic::from_f64(3.0) } else { Stochastic::from_f64(0.0) };
        out.push(acc.samples_f64().map(f64::to_bits));
        out.push((x / y).sqrt_abs().map(f64::to_bits));
    }
    out
}

trait SqrtAbs {
    fn sqrt_abs(self) -> [f64; 3];
}

impl<F: Format> SqrtAbs for Stochastic<F> {
    fn sqrt_abs(self) -> [f64; 3] {
        let a = if self.mean() < 0.0 { -self } else { self };
        a.sqrt().samples_f64()
    }
}

fn same(a: Vec<[u64; 3]>, b: Vec<[u64; 3]>, what: &str, seed: u64) {
    assert_eq!(a.len(), b.len());
    if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
        panic!("{what}, seed {seed}: step {i} differs: {:?} against {:?}", a[i].map(f64::from_bits), b[i].map(f64::from_bits));
    }
}

#[test]
fn stochastic_fx_of_primitive_widths_draws_what_the_primitive_draws() {
    for seed in [1, 2, 3] {
        same(trace::<Fx<5, 10>>(seed), trace::<fptune::f16>(seed), "binary16", seed);
        same(trace::<Fx<8, 23>>(seed), trace::<f32>(seed), "binary32", seed);
        same(trace::<Fx<8, 7>>(seed), trace::<fptune::bf16>(seed), "bfloat16", seed);
    }
    let _: (Sf16, Sf32) = (Sf16::from_f64(1.0), Sf32::from_f64(1.0));
}

#[test]
fn stochastic_fx_caps_digits_and_counts_overflow() {
    let third = Stochastic::<E4M3>::from_f64(1.0) / Stochastic::from_f64(3.0);
    assert!(third.digits() <= <E4M3 as Format>::MAX_DIGITS + 1e-12, "{}", third.digits());
    let exact = Stochastic::<Fx<11, 40>>::from_f64(0.5);
    assert!((exact.digits() - 41.0 * std::f64::consts::LOG10_2).abs() < 1e-9);
    stochastic::reset();
    stochastic::set_detected(Instability::Overflow, true);
    let big = Stochastic::<E4M3>::from_f64(300.0);
    let r = big * Stochastic::from_f64(2.0);
    // 600 lies beyond 448: toward zero it is 448, away it is NaN (E4M3 has no infinity).
    assert!(r.samples_f64().iter().all(|&s| s == 448.0 || s.is_nan()), "{:?}", r.samples_f64());
    assert_eq!(stochastic::report().count(Instability::Overflow), 1);
}

#[test]
fn the_const_conversion_rounds_as_the_other_one() {
    fn both<const E: u32, const M: u32, const FLAGS: u32>(x: f64) {
        let (a, b) = (Fx::<E, M, FLAGS>::from_f64_const(x).to_f64(), Fx::<E, M, FLAGS>::from_f64(x).to_f64());
        assert!(a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()), "{x:e}: const {a:e}, run time {b:e}");
    }
    let mut rng = Rng(0xc0de);
    let mut values = vec![0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, 448.0, 464.0, 465.0, 480.0, 1e-300, 5e-324, f64::MAX, 61440.0, 65520.0];
    values.extend((0..20_000).map(|_| {
        let x = rng.value() * 2f64.powi((rng.next() % 600) as i32 - 300);
        if rng.next() % 4 == 0 { x * 1e-30 } else { x }
    }));
    for x in values {
        both::<4, 3, { flags::FINITE_NAN }>(x);
        both::<4, 3, { flags::FINITE_NAN | flags::SATURATE }>(x);
        both::<5, 2, 0>(x);
        both::<8, 10, 0>(x);
        both::<5, 10, { flags::FTZ }>(x);
        both::<11, 40, 0>(x);
        both::<11, 3, 0>(x);
        both::<8, 23, 0>(x);
    }
    const C: E4M3 = E4M3::from_f64_const(0.1);
    assert_eq!(C.to_f64(), 0.1015625);
}

