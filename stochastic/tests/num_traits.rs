//! Code generic over num-traits' `Float` (and `Num`, `NumCast`, `Real`, ...) run on stochastic
//! values: the same routine instantiated at `f64`/`f32` and at `Sf64`/`Sf32` gives the same
//! result within the format's digits, and the stochastic run says how many digits are exact.
//! Constants are the formats' own, exactly; conversions round trip.

#![cfg(feature = "num-traits")]

use std::num::FpCategory;
use std::sync::{Mutex, MutexGuard, PoisonError};

use fptune::stochastic::{self, Instability};
use fptune::{Format, Sbf16, Sf16, Sf32, Sf64, Stochastic};
// `NumCast` is named by its path: imported, its `from` would make `f64::from` ambiguous.
use num_traits::{
    Bounded, ConstOne, ConstZero, Float, FloatConst, FromPrimitive, Inv, MulAdd, Num, NumAssign, Pow,
    Signed, ToPrimitive, Zero,
};

/// Tests that read the instability counts (which all threads add to) run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A constant of any float type, from an `f64` literal.
fn c<T: Float>(x: f64) -> T {
    <T as num_traits::NumCast>::from(x).expect("a float converts")
}

/// Horner's scheme: `sum coeffs[i] x^i`.
fn horner<T: Float>(coeffs: &[f64], x: T) -> T {
    coeffs.iter().rev().fold(T::zero(), |acc, &a| acc.mul_add(x, c(a)))
}

/// Newton's iteration for `a^(1/3)`, stopped when a step no longer changes `x` beyond a few
/// units in the last place (for a stochastic `x`: when the step is a computed zero).
fn newton_cbrt<T: Float>(a: T) -> (T, usize) {
    let three = c::<T>(3.0);
    let mut x = a;
    for i in 1..=200 {
        let next = x - (x * x * x - a) / (three * x * x);
        if (next - x).abs() <= c::<T>(4.0) * T::epsilon() * next.abs() {
            return (next, i);
        }
        x = next;
    }
    (x, 200)
}

/// Kahan's compensated sum.
fn kahan<T: Float>(terms: impl Iterator<Item = T>) -> T {
    let (mut sum, mut comp) = (T::zero(), T::zero());
    for y in terms {
        let y = y - comp;
        let t = sum + y;
        comp = (t - sum) - y;
        sum = t;
    }
    sum
}

/// The plain recursive sum.
fn naive<T: Float>(terms: impl Iterator<Item = T>) -> T {
    terms.fold(T::zero(), |s, y| s + y)
}

fn harmonic<T: Float>(n: u32) -> impl Iterator<Item = T> {
    (1..=n).map(|k| T::one() / c::<T>(f64::from(k)))
}

/// Relative difference of a stochastic mean from a primitive result.
fn rel(mean: f64, reference: f64) -> f64 {
    ((mean - reference) / reference).abs()
}

/// A well-conditioned polynomial evaluates alike in both worlds, with almost all digits exact;
/// the expanded `(x - 1)^7` near 1 is cancellation, and the stochastic run says so.
#[test]
fn horner_agrees_with_the_primitive_run_and_reports_its_digits() {
    let _serial = serial();
    stochastic::set_seed(1);
    let p = [1.0, -0.5, 1.0 / 3.0, -0.25, 0.2, -1.0 / 6.0];
    for x in [0.3, 0.7, 1.9] {
        let r64 = horner(&p, x);
        let s64 = horner(&p, Sf64::from(x));
        assert!(rel(s64.mean(), r64) < 1e-14, "{s64:?} vs {r64}");
        assert!(s64.digits() > 13.0, "{}", s64.digits());

        let r32 = horner(&p, x as f32);
        let s32 = horner(&p, Sf32::from(x as f32));
        assert!(rel(s32.mean(), f64::from(r32)) < 1e-6, "{s32:?} vs {r32}");
        assert!(s32.digits() > 5.0, "{}", s32.digits());
    }

    // (x - 1)^7, expanded: near 1 the terms cancel to below the rounding errors.
    let binomial = [-1.0, 7.0, -21.0, 35.0, -35.0, 21.0, -7.0, 1.0];
    let x = 1.0 + 1.0 / 1024.0;
    let s64 = horner(&binomial, Sf64::from(x));
    let exact = (x - 1.0).powi(7);
    assert!(s64.digits() < 4.0, "{s64:?}: {} digits", s64.digits());
    // What the stochastic run says is exact, is.
    if !s64.is_noise() {
        assert!(rel(s64.mean(), exact) < 10f64.powf(1.0 - s64.digits()), "{s64:?} vs {exact:e}");
    }
    let s32 = horner(&binomial, Sf32::from(x as f32));
    assert!(s32.is_noise(), "{s32:?}: {} digits", s32.digits());
    assert!(stochastic::report().count(Instability::Cancellation) > 0);
}

/// Newton's iteration converges to the primitive answer, and its digits are the format's.
#[test]
fn newton_converges_alike() {
    let _serial = serial();
    stochastic::set_seed(2);
    let (r64, _) = newton_cbrt(10.0f64);
    let (s64, n) = newton_cbrt(Sf64::from(10.0));
    assert!(n < 200, "no convergence");
    assert!(rel(s64.mean(), r64) < 1e-15, "{s64:?} vs {r64}");
    assert!(s64.digits() > 14.0, "{}", s64.digits());

    let (r32, _) = newton_cbrt(10.0f32);
    let (s32, n) = newton_cbrt(Sf32::from(10.0f32));
    assert!(n < 200, "no convergence");
    assert!(rel(s32.mean(), f64::from(r32)) < 1e-6, "{s32:?} vs {r32}");
    assert!(s32.digits() > 6.0, "{}", s32.digits());
    assert!(rel(s32.mean(), 10f64.cbrt()) < 1e-6);
}

/// The stochastic run sees what Kahan's summation buys: the plain binary32 sum of the harmonic
/// series has lost digits that the compensated one keeps, in the digit estimates and in fact.
#[test]
fn kahan_keeps_digits_that_the_plain_sum_loses() {
    let _serial = serial();
    stochastic::set_seed(3);
    let n = 200_000;
    let truth: f64 = (1..=n).rev().map(|k| 1.0 / f64::from(k)).sum();
    let plain = naive(harmonic::<Sf32>(n));
    let compensated = kahan(harmonic::<Sf32>(n));
    assert!(compensated.digits() > plain.digits() + 1.0, "{} vs {}", compensated.digits(), plain.digits());
    assert!(compensated.digits() > 6.0, "{}", compensated.digits());
    // The estimates are right: each mean has the digits it claims (less one for the estimate's
    // own uncertainty).
    for s in [plain, compensated] {
        assert!(rel(s.mean(), truth) < 10f64.powf(1.0 - s.digits()), "{s:?}: {} digits, truth {truth}", s.digits());
    }
    // And the primitive runs agree with the stochastic means to their digits.
    let p32 = naive(harmonic::<f32>(n));
    let k32 = kahan(harmonic::<f32>(n));
    assert!(rel(f64::from(p32), plain.mean()) < 10f64.powf(1.0 - plain.digits()));
    assert!(rel(f64::from(k32), compensated.mean()) < 1e-6);
}

fn all_equal<F: Format>(x: Stochastic<F>, v: f64) {
    let s = x.samples_f64();
    assert!(s.iter().all(|y| y.to_bits() == v.to_bits()), "{x:?} is not exactly {v:e}");
    if v.is_finite() {
        assert_eq!(x.digits(), F::MAX_DIGITS);
    }
}

/// Constants are the formats' own, exactly, in all three samples.
#[test]
fn constants_are_exact_values_of_the_format() {
    all_equal(Sf64::epsilon(), f64::EPSILON);
    all_equal(Sf32::epsilon(), f64::from(f32::EPSILON));
    all_equal(Sf16::epsilon(), f64::from(half::f16::EPSILON));
    all_equal(Sbf16::epsilon(), f64::from(half::bf16::EPSILON));
    all_equal(<Sf64 as Float>::max_value(), f64::MAX);
    all_equal(<Sf32 as Float>::max_value(), f64::from(f32::MAX));
    all_equal(<Sf16 as Bounded>::max_value(), 65504.0);
    all_equal(<Sbf16 as Bounded>::min_value(), -f64::from(half::bf16::MAX));
    all_equal(<Sf32 as Float>::min_value(), f64::from(f32::MIN));
    all_equal(Sf64::min_positive_value(), f64::MIN_POSITIVE);
    all_equal(Sf32::min_positive_value(), f64::from(f32::MIN_POSITIVE));
    all_equal(Sf16::min_positive_value(), f64::from(half::f16::MIN_POSITIVE));
    all_equal(Sf32::neg_zero(), -0.0);
    all_equal(Sf16::infinity(), f64::INFINITY);
    all_equal(Sbf16::neg_infinity(), f64::NEG_INFINITY);
    assert!(Sf32::nan().is_nan() && Sf16::nan().samples_f64().iter().all(|x| x.is_nan()));
    all_equal(Sf64::ZERO, 0.0);
    all_equal(Sf16::ONE, 1.0);
    all_equal(Sf32::zero(), 0.0);

    macro_rules! check_consts {
        ($($name:ident),*) => {$(
            all_equal(Sf64::$name(), std::f64::consts::$name);
            all_equal(Sf32::$name(), f64::from(std::f32::consts::$name));
            all_equal(Sf16::$name(), f64::from(half::f16::$name));
            all_equal(Sbf16::$name(), f64::from(half::bf16::$name));
        )*};
    }
    check_consts!(
        E, FRAC_1_PI, FRAC_1_SQRT_2, FRAC_2_PI, FRAC_2_SQRT_PI, FRAC_PI_2, FRAC_PI_3, FRAC_PI_4, FRAC_PI_6,
        FRAC_PI_8, LN_10, LN_2, LOG10_E, LOG2_E, PI, SQRT_2, LOG10_2, LOG2_10
    );
    all_equal(Sf64::TAU(), std::f64::consts::TAU);
    all_equal(Sf32::TAU(), f64::from(std::f32::consts::TAU));
}

/// Conversions in round to nearest once (an exact value); conversions out give the mean.
#[test]
fn numcast_round_trips() {
    for i in [0i64, 1, -7, 1 << 40, -(1 << 53) - 1, i64::MAX, i64::MIN] {
        let s: Sf64 = num_traits::NumCast::from(i).expect("converts");
        all_equal(s, i as f64);
        if i.unsigned_abs() < 1 << 53 {
            assert_eq!(s.to_i64(), i);
            assert_eq!(ToPrimitive::to_i64(&s), Some(i));
        }
        let s: Sf32 = num_traits::cast(i).expect("converts");
        all_equal(s, f64::from(i as f32));
    }
    // Rounded once: through f64 first, this integer would round to even (2^60) in binary32.
    let i: u64 = (1 << 60) + (1 << 36) + 1;
    let s: Sf32 = num_traits::NumCast::from(i).expect("converts");
    all_equal(s, f64::from(i as f32));
    assert_eq!(i as f32, 2f32.powi(60) + 2f32.powi(37));
    let s = Sf32::from_u64(i).expect("converts");
    all_equal(s, f64::from(i as f32));

    for x in [0.1f64, -2.5, 1e300, 5e-324] {
        let s: Sf64 = num_traits::NumCast::from(x).expect("converts");
        assert_eq!(num_traits::cast::<Sf64, f64>(s), Some(x));
        let s: Sf32 = num_traits::NumCast::from(x as f32).expect("converts");
        assert_eq!(num_traits::cast::<Sf32, f32>(s), Some(x as f32));
    }
    let h: Sf16 = num_traits::NumCast::from(0.1f64).expect("converts");
    all_equal(h, f64::from(half::f16::from_f64(0.1)));
    let h: Sf16 = num_traits::NumCast::from(100_000u32).expect("converts");
    assert!(h.is_infinite());
    let b = Sbf16::from_i32(257).expect("converts");
    all_equal(b, 256.0);

    // Out of range of the integer type: None, as for f64.
    assert_eq!(ToPrimitive::to_u8(&Sf64::from(300.0)), None);
    assert_eq!(ToPrimitive::to_i32(&Sf64::from(-3.7)), Some(-3));
    assert_eq!(ToPrimitive::to_u32(&Sf64::nan()), None);

    assert_eq!(Sf64::from_str_radix("ff", 16).expect("parses").mean(), 255.0);
    assert_eq!(Sf32::from_str_radix("0.1", 10).expect("parses").samples(), [0.1f32; 3]);
    assert!(Sf64::from_str_radix("x", 10).is_err());
}

/// An integer conversion of samples that truncate to different integers counts an unstable
/// intrinsic; it returns the mean's.
#[test]
fn integer_conversion_of_an_uncertain_value_is_unstable() {
    let _serial = serial();
    stochastic::reset();
    let x = Sf64::from_samples([2.999_999_999, 3.000_000_001, 3.000_000_000_5]);
    assert_eq!(ToPrimitive::to_i32(&x), Some(3));
    assert_eq!(stochastic::report().count(Instability::UnstableIntrinsic), 1);
    let y = Sf64::from_samples([3.25, 3.25, 3.25]);
    assert_eq!(ToPrimitive::to_u16(&y), Some(3));
    assert_eq!(stochastic::report().count(Instability::UnstableIntrinsic), 1);
}

/// The rest of `Float`, `Signed`, `Inv`, `MulAdd`, `Pow` on stochastic values, against `f64`.
#[test]
fn float_methods_agree_with_f64() {
    let _serial = serial();
    stochastic::set_seed(4);
    let x = Sf64::from(0.75);
    let close = |s: Sf64, r: f64| assert!(s.mean() == r || rel(s.mean(), r) < 1e-15, "{s:?} vs {r}");
    close(Float::sqrt(x), 0.75f64.sqrt());
    close(Float::exp(x), 0.75f64.exp());
    close(Float::powf(x, Sf64::from(1.5)), 0.75f64.powf(1.5));
    close(Float::powi(x, -3), 0.75f64.powi(-3));
    close(x.pow(3i32), 0.75f64.powi(3));
    close(x.pow(0.5), 0.75f64.sqrt());
    close(x.inv(), 1.0 / 0.75);
    close(MulAdd::mul_add(x, Sf64::from(2.0), Sf64::from(1.0)), 2.5);
    close(Float::atan2(x, Sf64::from(-1.0)), 0.75f64.atan2(-1.0));
    close(Float::hypot(x, Sf64::from(1.0)), 1.25);
    close(Float::log(x, Sf64::from(2.0)), 0.75f64.log2());
    let (s, co) = Float::sin_cos(x);
    close(s, 0.75f64.sin());
    close(co, 0.75f64.cos());
    close(Float::copysign(x, Sf64::from(-2.0)), -0.75);
    close(Float::abs_sub(x, Sf64::from(1.0)), 0.0);
    close(Signed::abs_sub(&x, &Sf64::from(0.5)), 0.25);
    close(Float::to_degrees(Sf64::PI()), 180.0);
    close(Float::clamp(Sf64::from(3.0), Sf64::from(0.0), Sf64::from(1.0)), 1.0);
    assert!(Signed::is_positive(&x) && !Signed::is_negative(&x) && Signed::is_negative(&-x));
    close(Signed::signum(&-x), -1.0);
    close(Signed::abs(&-x), 0.75);
    assert_eq!(Float::integer_decode(Sf64::from(0.75)), 0.75f64.integer_decode());
    assert_eq!(Float::integer_decode(Sf32::from(-1.5f32)), (-1.5f32).integer_decode());
    assert_eq!(Float::integer_decode(Sf32::from(1e-40f32)), 1e-40f32.integer_decode());
    // binary16: 1.5 = 1536 * 2^-10.
    assert_eq!(Float::integer_decode(Sf16::from(1.5)), (1536, -10, 1));
    assert_eq!(Float::integer_decode(Sbf16::from(-1.5)), (192, -7, -1));
    assert_eq!(Float::classify(Sf16::from(1e-5)), FpCategory::Subnormal);
    assert_eq!(Float::classify(Sf32::from(1e-5f32)), FpCategory::Normal);
    assert_eq!(Float::classify(Sf32::zero()), FpCategory::Zero);
    assert_eq!(Float::classify(Sf64::infinity()), FpCategory::Infinite);
    assert_eq!(Float::classify(Sf64::nan()), FpCategory::Nan);
    assert!(Float::is_normal(Sf16::from(1.0)) && !Float::is_normal(Sf16::from(1e-5)));
}

/// `%` and the assigning operators through `NumAssign`; `is_zero` is CADNA's computed zero.
#[test]
fn num_assign_and_computed_zero() {
    fn accumulate<T: NumAssign + Copy>(xs: &[T], m: T) -> T {
        let mut acc = T::zero();
        for &x in xs {
            acc += x;
            acc %= m;
        }
        acc
    }
    let xs: Vec<Sf64> = [3.5, 4.0, 2.25].into_iter().map(Sf64::from).collect();
    let r = accumulate(&xs, Sf64::from(5.0));
    assert_eq!(r.samples(), [accumulate(&[3.5, 4.0, 2.25], 5.0); 3]);

    let _serial = serial();
    let noise = {
        let big = Sf64::from(1e17);
        let third = Sf64::from(1.0) / Sf64::from(3.0);
        (big + third) - big - third
    };
    assert!(noise.is_noise() && noise.is_zero() && !Sf64::from(1e-300).is_zero());
}

/// `Real` comes with `Float`.
#[test]
fn real_is_implemented() {
    fn norm2<T: num_traits::real::Real>(x: T, y: T) -> T {
        (x * x + y * y).sqrt()
    }
    assert_eq!(norm2(Sf64::from(3.0), Sf64::from(4.0)).samples(), [5.0; 3]);
    assert_eq!(norm2(Sf32::from(3.0f32), Sf32::from(4.0f32)).samples(), [5.0f32; 3]);
}
