//! Unit tests of the formats as data: names read back, published ranges, which holds which.

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
    assert_eq!(Spec::BF16.max(), 3.389_531_389_251_535_5e38);
    assert_eq!(Spec::TF32.max(), (2.0 - 2f64.powi(-10)) * 2f64.powi(127));
    assert!(Spec::F16.holds(Spec::E5M2) && Spec::F16.holds(Spec::E4M3) && !Spec::E4M3.holds(Spec::E5M2));
    assert!(Spec::F32.holds(Spec::TF32) && Spec::TF32.holds(Spec::F16) && !Spec::BF16.holds(Spec::F16));
}

#[test]
fn formats_meet_in_the_narrowest_that_holds_both() {
    let p = |n: &str| Spec::parse(n).unwrap();
    assert_eq!(meet(p("e4m3"), p("e5m2")), Spec::F16);
    assert_eq!(meet(p("e4m3"), p("bf16")), Spec::BF16);
    assert_eq!(meet(p("tf32"), p("f16")), p("tf32"));
    assert_eq!(meet(p("tf32"), p("bf16")), p("tf32"));
    assert_eq!(meet(p("e11m40"), p("e11m30")), p("e11m40"));
    assert_eq!(meet(p("e11m3"), p("f32")), Spec::F64, "neither holds the other: the narrowest primitive that holds both");
    assert_eq!(meet(p("f16"), p("bf16")), Spec::F32);
    assert!(mixable(p("e4m3")) && mixable(Spec::F32) && !mixable(p("e6m9")));
}
