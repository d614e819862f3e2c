//! Unit tests of the formats: names, ranges, codes, and the integer path against the fast one.

use super::arith::{self, Rounding};
use super::exact;
use super::*;

#[test]
fn names_read_back() {
    for name in ["f64", "f32", "f16", "bf16", "tf32", "e4m3", "e5m2", "e11m40", "e8m3", "e4m3-sat", "f32-ftz", "e5m2-sat-ftz"] {
        assert_eq!(Spec::parse(name).unwrap().name(), name);
    }
    assert_eq!(Spec::parse("e8m23").unwrap(), Spec::F32);
    let err = Spec::parse("e12m3").unwrap_err().to_string();
    assert!(err.contains("2 to 11"), "{err}");
    let err = Spec::parse("fp8").unwrap_err().to_string();
    assert!(err.contains("eXmY"), "{err}");
    let err = Spec::parse("e4m3-fast").unwrap_err().to_string();
    assert!(err.contains("-sat"), "{err}");
}

#[test]
fn ranges_are_the_published_ones() {
    assert_eq!(Spec::E4M3.max(), 448.0);
    assert_eq!(Spec::E4M3.min_subnormal(), 2f64.powi(-9));
    assert_eq!(Spec::E5M2.max(), 57344.0);
    assert_eq!(Spec::E5M2.min_subnormal(), 2f64.powi(-16));
    assert_eq!(Spec::F16.max(), 65504.0);
    assert_eq!(Spec::F32.max(), f64::from(f32::MAX));
    assert_eq!(Spec::F64.max(), f64::MAX);
    assert_eq!(Spec::BF16.max(), f64::from(half::bf16::MAX.to_f32()));
    assert_eq!(Spec::TF32.max(), (2.0 - 2f64.powi(-10)) * 2f64.powi(127));
    assert!(Spec::F16.holds(Spec::E5M2) && Spec::F16.holds(Spec::E4M3) && !Spec::E4M3.holds(Spec::E5M2));
    assert!(Spec::F32.holds(Spec::TF32) && Spec::TF32.holds(Spec::F16) && !Spec::BF16.holds(Spec::F16));
}

#[test]
fn codes_of_the_primitive_formats_are_their_bits() {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..20_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let h = (x & 0xffff) as u16;
        let v = half::f16::from_bits(h);
        if !v.is_nan() {
            assert_eq!(Spec::F16.decode(u64::from(h)), f64::from(v.to_f32()));
            assert_eq!(Spec::F16.encode(f64::from(v.to_f32())), u64::from(h));
        }
        let f = f32::from_bits((x >> 16) as u32);
        if !f.is_nan() {
            assert_eq!(Spec::F32.decode(u64::from(f.to_bits())), f64::from(f));
            assert_eq!(Spec::F32.encode(f64::from(f)), u64::from(f.to_bits()));
        }
        let d = f64::from_bits(x);
        if !d.is_nan() {
            assert_eq!(Spec::F64.decode(x).to_bits(), x);
            assert_eq!(Spec::F64.encode(d), x);
        }
    }
}

#[test]
fn rounding_to_nearest_matches_the_hardware_for_binary32() {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..100_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let d = f64::from_bits(x);
        if d.is_finite() {
            let r = arith::round(Spec::F32, d, Rounding::NearestEven);
            assert_eq!(r.to_bits(), f64::from(d as f32).to_bits(), "{d:e}");
        }
    }
}

#[test]
fn the_integer_path_agrees_with_the_fast_one() {
    let mut x = 0x1234_5678_9abc_def1u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for spec in [Spec::E4M3, Spec::F16, Spec::TF32, Spec::parse("e11m40").unwrap(), Spec::parse("e11m7-sat").unwrap()] {
        for _ in 0..20_000 {
            let a = spec.decode(next() & ((1 << spec.width()) - 1));
            let b = spec.decode(next() & ((1 << spec.width()) - 1));
            if !(a.is_finite() && b.is_finite()) || a == 0.0 || b == 0.0 {
                continue;
            }
            for mode in [Rounding::NearestEven, Rounding::Up, Rounding::Down] {
                let same = |x: f64, y: f64| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan());
                assert!(same(exact::mul(spec, a, b, mode), arith::mul(spec, a, b, mode)), "{spec} {a:e} * {b:e} {mode:?}");
                assert!(same(exact::div(spec, a, b, mode), arith::div(spec, a, b, mode)), "{spec} {a:e} / {b:e} {mode:?}");
                assert!(same(exact::add(spec, a, b, mode), arith::add(spec, a, b, mode)), "{spec} {a:e} + {b:e} {mode:?}");
                if a > 0.0 {
                    assert!(same(exact::sqrt(spec, a, mode), arith::sqrt(spec, a, mode)), "{spec} sqrt {a:e} {mode:?}");
                }
            }
        }
    }
}

#[test]
fn e4m3_overflows_to_nan_or_saturates() {
    let n = Rounding::NearestEven;
    assert_eq!(arith::round(Spec::E4M3, 464.0, n), 448.0);
    assert!(arith::round(Spec::E4M3, 465.0, n).is_nan());
    assert!(arith::round(Spec::E4M3, f64::INFINITY, n).is_nan());
    assert_eq!(arith::round(Spec::E4M3.saturating(), 1e9, n), 448.0);
    assert_eq!(arith::round(Spec::E4M3.saturating(), f64::NEG_INFINITY, n), -448.0);
    assert_eq!(arith::mul(Spec::E4M3, 448.0, 2.0, Rounding::Down), 448.0);
    assert!(arith::mul(Spec::E4M3, 448.0, 2.0, Rounding::Up).is_nan());
    assert_eq!(arith::round(Spec::E5M2, 61440.0, n), f64::INFINITY);
    assert_eq!(arith::round(Spec::E5M2, 61439.0, n), 57344.0);
}

#[test]
fn flushing_formats_flush_inputs_and_results() {
    let ftz = Spec::F16.flushing();
    let tiny = Spec::F16.min_subnormal();
    assert_eq!(arith::add(Spec::F16, tiny, tiny, Rounding::NearestEven), 2.0 * tiny);
    assert_eq!(arith::add(ftz, tiny, tiny, Rounding::NearestEven), 0.0);
    let m = Spec::F16.min_normal();
    assert_eq!(arith::mul(ftz, m, 0.5, Rounding::Up), 0.0);
    assert_eq!(arith::mul(ftz, -m, 0.5, Rounding::Down).to_bits(), (-0.0f64).to_bits());
    assert_eq!(arith::add(ftz, m, m, Rounding::NearestEven), 2.0 * m);
}

