//! Unit tests of the formats: names, ranges, codes, and the integer path against the fast one.

use super::arith::{self, Rounding};
use super::exact;
use super::*;

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
            assert_eq!(codes::decode(Spec::F16, u64::from(h)), f64::from(v.to_f32()));
            assert_eq!(codes::encode(Spec::F16, f64::from(v.to_f32())), u64::from(h));
        }
        let f = f32::from_bits((x >> 16) as u32);
        if !f.is_nan() {
            assert_eq!(codes::decode(Spec::F32, u64::from(f.to_bits())), f64::from(f));
            assert_eq!(codes::encode(Spec::F32, f64::from(f)), u64::from(f.to_bits()));
        }
        let d = f64::from_bits(x);
        if !d.is_nan() {
            assert_eq!(codes::decode(Spec::F64, x).to_bits(), x);
            assert_eq!(codes::encode(Spec::F64, d), x);
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
            let a = codes::decode(spec, next() & ((1 << spec.width()) - 1));
            let b = codes::decode(spec, next() & ((1 << spec.width()) - 1));
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


#[test]
fn mixing_table_is_current() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/formats/mixing_table.rs");
    let want = mixing::table_source();
    if std::env::var_os("FPTUNE_BLESS").is_some() {
        std::fs::write(&path, &want).expect("written");
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(have == want, "{} is stale: run `FPTUNE_BLESS=1 cargo test -p fptune --lib mixing_table` and commit it", path.display());
}

