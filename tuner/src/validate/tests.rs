//! Unit tests of validation: the reference, the rules of validity, reading records.

use super::*;

fn rec(name: &str, index: usize, samples: &[f64], digits: f64) -> Record {
    Record {
        name: name.into(),
        index,
        format: "binary64".into(),
        stochastic: true,
        samples: samples.to_vec(),
        digits,
        rule: None,
    }
}

fn one(name: &str, x: f64, digits: f64) -> Record {
    rec(name, 0, &[x, x, x], digits)
}

#[test]
fn a_printed_value_is_the_same_check_whatever_each_build_wrote_into_its_expression() {
    assert_eq!(identity("printed src/main.rs:42 xs.iter().sum :: < f64 > ()"), "printed src/main.rs:42");
    assert_eq!(identity("printed src/main.rs:42"), "printed src/main.rs:42");
    assert_eq!(identity("energy"), "energy");
    assert_ne!(identity("printed src/main.rs:42 x"), identity("printed src/main.rs:43 x"));
}

#[test]
fn printed_values_the_reference_does_not_know_or_that_change_between_runs_are_not_judged() {
    let records = vec![
        rec("printed a", 0, &[1.0, 1.0, 1.0], 15.0),
        rec("printed noise", 0, &[1e-15, 3e-15, -2e-15], 0.0),
        rec("clock", 0, &[0.25, 0.25, 0.25], 15.0),
        rec("checked", 0, &[2.0, 2.0, 2.0], 15.0),
    ];
    let req = Requirement::new(3.0);
    let unsteady: BTreeSet<usize> = [2].into();
    let r = reference_with(records.clone(), &req, &unsteady, |r| r.name.starts_with("printed ")).expect("a reference");
    assert_eq!(r.unchecked, [1, 2].into());
    let mut candidate = records.clone();
    candidate[1].samples = vec![5.0, 5.0, 5.0];
    candidate[2].samples = vec![9.0, 9.0, 9.0];
    assert_eq!(validate(&r, &candidate, &req, 0), None);
    candidate[3].samples = vec![2.5, 2.5, 2.5];
    assert!(matches!(validate(&r, &candidate, &req, 0), Some(Reason::Disagrees { .. })));
    // A `check!` the reference does not know to the requirement is still an error.
    let mut strict = records.clone();
    strict[3].digits = 1.0;
    assert!(matches!(reference_with(strict, &req, &unsteady, |r| r.name.starts_with("printed ")), Err(ReferenceError::TooFewDigits { .. })));
    // Nothing left to judge.
    let all = reference_with(records[..2].to_vec(), &Requirement::new(16.5), &BTreeSet::new(), |_| true);
    assert!(matches!(all, Err(ReferenceError::NothingToJudge { count: 2 })));
}

fn reference_of(records: Vec<Record>) -> Reference {
    Reference { records, unchecked: BTreeSet::new(), rules: BTreeMap::new() }
}

#[test]
fn equal_samples_of_a_narrower_format_have_that_formats_digits_at_most() {
    let zeta = 10.362_595_087_124_f64;
    let req = Requirement::new(8.0);
    let reference = reference_of(vec![one("zeta", zeta, 15.95)]);
    // zeta stored in binary32 on its way: three equal samples, read as 15.95 digits, that
    // agree with the reference to more digits than binary32 has, by luck, must not pass.
    let narrowed = f64::from(zeta as f32);
    let lucky = one("zeta", narrowed, 15.95);
    assert_eq!(dsa_digits(&lucky, &reference.records[0]), 7.22);
    let agreement = digits_in_common(narrowed, zeta);
    assert!(agreement > 7.3, "{agreement}");
    assert!(matches!(judge(&reference.records[0], &lucky, 7.3, Estimate::Own), Some(Reason::TooFewDigits { digits, .. }) if digits == 7.22));
    assert_eq!(dsa_digits(&one("zeta", f64::from(half::f16::from_f64(zeta)), 15.95), &reference.records[0]), 3.31);
    // An exact value the reference has too (a binary16 number there as well) keeps its digits;
    // so do samples that differ, and binary64 samples.
    let exact = reference_of(vec![one("half", 0.5, 15.95)]);
    assert_eq!(dsa_digits(&one("half", 0.5, 15.95), &exact.records[0]), 15.95);
    assert_eq!(dsa_digits(&rec("zeta", 0, &[narrowed, narrowed, zeta], 6.0), &reference.records[0]), 6.0);
    assert_eq!(dsa_digits(&one("zeta", zeta, 15.95), &reference.records[0]), 15.95);
    assert!(validate(&reference, &[one("zeta", zeta, 15.95)], &req, 0).is_none());
}

#[test]
fn records_parse_with_non_finite_samples_as_strings() {
    let text = concat!(
        r#"{"name":"d","index":0,"format":"binary64","stochastic":true,"samples":[4.6e-4,4.6e-4,4.7e-4],"digits":14.4}"#,
        "\n\n",
        r#"{"name":"v","index":1,"format":"binary16","stochastic":true,"samples":["inf","-inf","NaN"],"digits":"NaN"}"#,
        "\n"
    );
    let records = parse_run(text).expect("parses").records;
    assert_eq!(records.len(), 2);
    assert_eq!(records[0].samples, [4.6e-4, 4.6e-4, 4.7e-4]);
    assert_eq!(records[0].label(), "d[0]");
    let v = &records[1];
    assert_eq!((v.samples[0], v.samples[1]), (f64::INFINITY, f64::NEG_INFINITY));
    assert!(v.samples[2].is_nan() && v.digits.is_nan());
}

#[test]
fn records_are_read_under_the_runtimes_field_names() {
    // The runtime writes its JSON lines with the field names of `fptune::contract::record`, and
    // the tuner reads them with serde's: a line made of the contract's names parses, non-finite
    // values and instability counts included.
    use fptune::contract::record::*;
    use fptune::stochastic::Instability;
    let line = serde_json::json!({
        NAME: "x",
        INDEX: 2,
        FORMAT: "binary32",
        STOCHASTIC: true,
        SAMPLES: [1.5, INF, NEG_INF],
        DIGITS: NAN,
        INSTABILITIES: { Instability::Overflow.key(): 4 },
    });
    let run = parse_run(&format!("{line}\n")).expect("parses");
    let r = &run.records[0];
    assert_eq!((r.name.as_str(), r.index, r.format.as_str(), r.stochastic), ("x", 2, "binary32", true));
    assert_eq!(&r.samples[..2], &[1.5, f64::INFINITY]);
    assert_eq!(r.samples[2], f64::NEG_INFINITY);
    assert!(r.digits.is_nan());
    assert_eq!(run.overflows(), 4);
}

#[test]
fn instability_counts_are_the_latest_totals() {
    // Lines as `fptune::check!` writes them (stochastic/src/check.rs).
    let text = concat!(
        r#"{"name":"d","index":0,"format":"binary16","stochastic":true,"samples":[0.5,0.5,0.5],"digits":3.3}"#,
        "\n",
        r#"{"name":"v","index":0,"format":"binary16","stochastic":true,"samples":[1.0,1.0,1.0],"digits":3.3,"instabilities":{"cancellation":1,"overflow":2}}"#,
        "\n",
        r#"{"name":"v","index":1,"format":"binary16","stochastic":true,"samples":[1.0,1.0,1.0],"digits":3.3,"instabilities":{"overflow":3}}"#,
        "\n",
    );
    let run = parse_run(text).expect("parses");
    assert_eq!(run.records.len(), 3);
    assert_eq!(run.overflows(), 3);
    assert_eq!(run.instabilities.get("cancellation"), Some(&1));
    assert_eq!(parse_run("").expect("empty").overflows(), 0);
}

#[test]
fn a_truncated_last_line_says_the_run_was_killed() {
    let text = concat!(
        r#"{"name":"d","index":0,"format":"binary64","stochastic":true,"samples":[1.0,1.0,1.0],"digits":15.0}"#,
        "\n",
        r#"{"name":"d","index":1,"format":"binary64","stochastic":true,"samp"#
    );
    let e = format!("{:#}", parse_run(text).expect_err("truncated"));
    assert!(e.contains("line 2 is cut short"), "{e}");
    assert!(e.contains("killed while writing"), "{e}");
}

#[test]
fn a_corrupt_line_in_the_middle_is_not_mistaken_for_a_killed_run() {
    let text = "{\"name\":\"d\"}\n{}\n";
    let e = format!("{:#}", parse_run(text).expect_err("corrupt"));
    assert!(e.contains("line 1 is not a check record"), "{e}");
}

#[test]
fn read_records_names_the_file_and_a_missing_file_has_no_records() {
    let dir = tempfile::tempdir().expect("tempdir");
    assert!(read_records(&dir.path().join("absent.jsonl")).expect("missing is empty").is_empty());
    let path = dir.path().join("out.jsonl");
    std::fs::write(&path, "not json\n").expect("write");
    let e = format!("{:#}", read_records(&path).expect_err("bad"));
    assert!(e.contains("out.jsonl") && e.contains("line 1"), "{e}");
}

#[test]
fn per_name_requirements_override_the_default() {
    let req = Requirement::new(4.0).with("det", 6.0);
    assert_eq!(req.required("det"), 6.0);
    assert_eq!(req.required("x"), 4.0);
    let digits = crate::config::Digits { default: 3.0, per_name: [("det".to_string(), 7.0)].into(), checks: BTreeMap::new() };
    let req = Requirement::from(&digits);
    assert_eq!((req.required("det"), req.required("other")), (7.0, 3.0));
}

#[test]
fn the_reference_names_every_value_short_of_the_requirement() {
    let records = vec![one("a", 1.5, 12.0), one("b", 2.0, 7.3), rec("c", 3, &[3.0; 3], 5.1)];
    let e = reference(records, &Requirement::new(8.0)).expect_err("too few digits");
    let ReferenceError::TooFewDigits { values } = &e else { panic!("{e:?}") };
    assert_eq!(values.iter().map(|s| s.value.as_str()).collect::<Vec<_>>(), ["b[0]", "c[3]"]);
    let msg = e.to_string();
    assert!(msg.contains("b[0] = 2e0 has 7.3 exact digits, 8 required"), "{msg}");
    assert!(msg.contains("c[3] = 3e0 has 5.1 exact digits, 8 required"), "{msg}");
    assert!(msg.contains("lower --digits") && msg.contains("--digits-for") && msg.contains("improve the algorithm"));
    assert!(!msg.contains("a[0]"));
}

#[test]
fn a_per_name_requirement_can_ask_less_of_a_weak_value() {
    let records = vec![one("a", 1.5, 12.0), one("b", 2.0, 7.3)];
    let req = Requirement::new(8.0).with("b", 7.0);
    assert_eq!(reference(records, &req).expect("enough").len(), 2);
}

#[test]
fn a_reference_with_digits_exactly_at_the_requirement_is_accepted() {
    assert!(reference(vec![one("a", 1.0, 8.0)], &Requirement::new(8.0)).is_ok());
}

#[test]
fn a_non_finite_reference_value_is_refused_by_name() {
    let records = vec![one("a", 1.0, 15.0), rec("v", 2, &[f64::NAN, 1.0, 1.0], 0.0), one("w", f64::INFINITY, 15.0)];
    let e = reference(records, &Requirement::new(3.0)).expect_err("not finite");
    let msg = e.to_string();
    assert!(msg.contains("v[2] = [NaN, 1, 1]") && msg.contains("w[0] = inf"), "{msg}");
    assert!(!msg.contains("a[0]"));
}

#[test]
fn a_reference_without_checks_asks_for_check_calls() {
    let e = reference(Vec::new(), &Requirement::new(3.0)).expect_err("empty");
    assert_eq!(e, ReferenceError::NoChecks);
    assert!(e.to_string().contains("fptune::check!"));
}

#[test]
fn digits_for_an_unchecked_name_is_refused() {
    let e = reference(vec![one("det", 1.0, 15.0)], &Requirement::new(3.0).with("dett", 5.0)).expect_err("typo");
    let msg = e.to_string();
    assert!(msg.contains("`dett`") && msg.contains("`det`"), "{msg}");
}

#[test]
fn a_candidate_exactly_at_the_threshold_is_valid_and_one_ulp_beyond_is_not() {
    // 10^-3 * 1000 = 1 exactly: the bound is |c - 1000| <= 1.
    let r = reference_of(vec![one("x", 1000.0, 15.0)]);
    let req = Requirement::new(3.0);
    assert_eq!(validate(&r, &[one("x", 1001.0, 3.0)], &req, 0), None);
    assert_eq!(validate(&r, &[one("x", 999.0, 3.0)], &req, 0), None);
    let beyond = f64::from_bits(1001f64.to_bits() + 1);
    let reason = validate(&r, &[one("x", beyond, 15.0)], &req, 0).expect("invalid");
    let Reason::Disagrees { value, got, reference, digits_in_common, required } = reason else { panic!("{reason:?}") };
    assert_eq!((value.as_str(), got, reference, required), ("x[0]", beyond, 1000.0, 3.0));
    assert!(digits_in_common < 3.0 && digits_in_common > 2.99, "{digits_in_common}");
}

#[test]
fn dsa_digits_exactly_at_the_requirement_pass_and_below_fail() {
    let r = reference_of(vec![one("x", 2.0, 15.0)]);
    let req = Requirement::new(5.0);
    assert_eq!(validate(&r, &[one("x", 2.0, 5.0)], &req, 0), None);
    assert_eq!(
        validate(&r, &[one("x", 2.0, 4.9)], &req, 0),
        Some(Reason::TooFewDigits { value: "x[0]".into(), digits: 4.9, required: 5.0 })
    );
}

#[test]
fn a_confirming_run_may_fall_half_a_digit_short_of_the_dsa_requirement_only() {
    let r = reference_of(vec![one("x", 2.0, 15.0)]);
    let req = Requirement::new(3.0);
    let run = |digits: f64| vec![one("x", 2.0, digits)];
    // The search's own run: strict.
    assert!(matches!(validate(&r, &run(2.9), &req, 0), Some(Reason::TooFewDigits { .. })));
    // Another seed: within the slack, and no further.
    for digits in [2.9, 2.67, 3.0 - CONFIRM_SLACK] {
        assert_eq!(validate_with(&r, &run(digits), &req, 0, Estimate::Confirming), None, "{digits}");
    }
    let short = validate_with(&r, &run(2.4), &req, 0, Estimate::Confirming).expect("short");
    assert_eq!(short, Reason::Unconfirmed { value: "x[0]".into(), digits: 2.4, required: 3.0, slack: CONFIRM_SLACK });
    assert!(short.to_string().contains("2.5 needed to confirm 3"), "{short}");
    // The distance to the reference and overflows stay strict.
    let far = vec![one("x", 2.01, 15.0)];
    assert!(matches!(validate_with(&r, &far, &req, 0, Estimate::Confirming), Some(Reason::Disagrees { .. })));
    assert!(matches!(validate_with(&r, &run(15.0), &req, 1, Estimate::Confirming), Some(Reason::Overflow { .. })));
}

#[test]
fn the_slack_is_what_two_three_sample_estimates_differ_by_in_two_pairs_of_eleven() {
    // log10 of the ratio of two estimates is ln(E1 / E2) / (2 ln 10) with E1, E2
    // exponential: the logistic law scaled by 1 / (2 ln 10). P(|D| > t) = 2 / (1 + 100^t).
    let p = |t: f64| 2.0 / (1.0 + 100f64.powf(t));
    assert!((p(CONFIRM_SLACK) - 2.0 / 11.0).abs() < 1e-15);
    // And by simulation: the exponential law by inversion, a fixed quasi-random sequence.
    let n = 200_000;
    let u = |i: usize, a: f64| ((i as f64 + 0.5) * a).fract();
    let beyond = (0..n)
        .filter(|&i| {
            let (e1, e2) = (-(1.0 - u(i, 0.618_033_988_749_895)).ln(), -(1.0 - u(i, 0.754_877_666_246_693)).ln());
            ((e1 / e2).log10() / 2.0).abs() > CONFIRM_SLACK
        })
        .count();
    let share = beyond as f64 / n as f64;
    assert!((share - 2.0 / 11.0).abs() < 0.01, "{share}");
}

#[test]
fn a_zero_reference_bounds_the_candidate_absolutely() {
    let r = reference_of(vec![one("z", 0.0, 15.0)]);
    let req = Requirement::new(3.0);
    assert_eq!(validate(&r, &[one("z", 0.0, 15.0)], &req, 0), None);
    assert_eq!(validate(&r, &[one("z", -tolerance(3.0), 15.0)], &req, 0), None);
    let reason = validate(&r, &[one("z", 2e-3, 15.0)], &req, 0).expect("too far from zero");
    let Reason::Disagrees { digits_in_common, .. } = reason else { panic!("{reason:?}") };
    assert!((digits_in_common - (-(2e-3f64).log10())).abs() < 1e-12);
}

#[test]
fn the_candidate_mean_is_what_is_compared() {
    let r = reference_of(vec![one("x", 1.0, 15.0)]);
    let c = rec("x", 0, &[0.99, 1.0, 1.01], 2.0);
    assert_eq!(validate(&r, &[c], &Requirement::new(2.0), 0), None);
}

#[test]
fn non_finite_candidates_are_invalid() {
    let r = reference_of(vec![one("x", 1.0, 15.0)]);
    let req = Requirement::new(2.0);
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let c = rec("x", 0, &[1.0, bad, 1.0], 15.0);
        assert_eq!(validate(&r, &[c], &req, 0), Some(Reason::NotFinite { value: "x[0]".into() }));
    }
}

#[test]
fn the_first_failing_value_in_check_order_is_reported() {
    let r = reference_of(vec![one("a", 1.0, 15.0), one("b", 1.0, 15.0), one("c", 1.0, 15.0)]);
    let c = vec![one("a", 1.0, 15.0), one("b", 1.0, 1.0), one("c", f64::NAN, 15.0)];
    let reason = validate(&r, &c, &Requirement::new(3.0), 0).expect("invalid");
    assert_eq!(reason, Reason::TooFewDigits { value: "b[0]".into(), digits: 1.0, required: 3.0 });
}

#[test]
fn disagreement_is_reported_before_too_few_digits_of_the_same_value() {
    let r = reference_of(vec![one("a", 1.0, 15.0)]);
    let reason = validate(&r, &[one("a", 1.5, 0.0)], &Requirement::new(3.0), 0).expect("invalid");
    assert!(matches!(reason, Reason::Disagrees { .. }), "{reason:?}");
}

#[test]
fn a_different_count_is_a_count_mismatch() {
    let r = reference_of(vec![one("a", 1.0, 15.0), one("b", 1.0, 15.0)]);
    let req = Requirement::new(3.0);
    assert_eq!(
        validate(&r, &[one("a", 1.0, 15.0)], &req, 0),
        Some(Reason::CountMismatch { expected: 2, got: 1 })
    );
    assert_eq!(validate(&r, &[], &req, 0), Some(Reason::CountMismatch { expected: 2, got: 0 }));
}

#[test]
fn values_checked_in_another_order_are_refused_even_when_they_agree() {
    let r = reference_of(vec![one("a", 1.0, 15.0), one("b", 1.0, 15.0)]);
    let c = vec![one("b", 1.0, 15.0), one("a", 1.0, 15.0)];
    assert_eq!(
        validate(&r, &c, &Requirement::new(3.0), 0),
        Some(Reason::ChecksDiffer { position: 0, expected: "a[0]".into(), got: "b[0]".into() })
    );
    let c = vec![one("a", 1.0, 15.0), rec("a", 1, &[1.0; 3], 15.0)];
    assert_eq!(
        validate(&r, &c, &Requirement::new(3.0), 0),
        Some(Reason::ChecksDiffer { position: 1, expected: "b[0]".into(), got: "a[1]".into() })
    );
}

#[test]
fn an_overflow_invalidates_a_candidate_whose_values_agree() {
    let r = reference_of(vec![one("a", 1.0, 15.0)]);
    assert_eq!(
        validate(&r, &[one("a", 1.0, 15.0)], &Requirement::new(3.0), 2),
        Some(Reason::Overflow { count: 2 })
    );
}

#[test]
fn per_name_requirements_apply_to_candidates() {
    let r = reference_of(vec![one("loose", 1.0, 15.0), one("tight", 1.0, 15.0)]);
    let req = Requirement::new(2.0).with("tight", 6.0);
    let c = vec![one("loose", 1.001, 15.0), one("tight", 1.001, 15.0)];
    let reason = validate(&r, &c, &req, 0).expect("tight fails");
    assert!(matches!(&reason, Reason::Disagrees { value, required, .. } if value == "tight[0]" && *required == 6.0));
}

#[test]
fn the_worst_value_is_the_one_with_the_least_margin_even_when_valid() {
    let r = reference_of(vec![one("a", 1.0, 15.0), one("b", 1.0, 15.0), one("c", 1.0, 15.0)]);
    let c = vec![one("a", 1.0, 6.0), one("b", 1.0 + 1e-5, 12.0), one("c", 1.0, 4.5)];
    let req = Requirement::new(3.0).with("c", 1.0);
    assert_eq!(validate(&r, &c, &req, 0), None);
    let w = worst(&r, &c, &req).expect("values");
    // a: 6 digits (margin 3); b: ~5 in common (margin ~2); c: 4.5 DSA digits (margin 3.5).
    assert_eq!(w.value, "b[0]");
    assert!((w.digits_in_common - 5.0).abs() < 1e-6 && w.dsa_digits == 12.0);
    assert!(w.to_string().starts_with("b[0] = 1.00001e0: 5.0 digits in common"), "{w}");
}

#[test]
fn the_worst_value_of_a_failing_candidate_is_its_non_finite_one() {
    let r = reference_of(vec![one("a", 1.0, 15.0), one("b", 1.0, 15.0)]);
    let c = vec![one("a", 1.5, 15.0), one("b", f64::NAN, f64::NAN)];
    let w = worst(&r, &c, &Requirement::new(3.0)).expect("values");
    assert_eq!(w.value, "b[0]");
    assert_eq!(w.margin(), f64::NEG_INFINITY);
    assert_eq!(worst(&r, &[], &Requirement::new(3.0)), None);
}

#[test]
fn digits_in_common_of_equal_values_is_infinite() {
    assert_eq!(digits_in_common(2.0, 2.0), f64::INFINITY);
    assert!((digits_in_common(1.01, 1.0) - 2.0).abs() < 1e-9);
    assert!(agrees(0.0, 0.0, 17.0));
}

#[test]
fn values_with_three_identical_samples_are_blind_and_said_apart() {
    // Issue 44 item 7: a value computed by code the conversion did not reach has three identical
    // samples, and DSA's 15.95 digits for it are no measure.
    let records = vec![
        rec("det", 0, &[56.0, 56.0, 56.0], 15.95),
        rec("x", 0, &[1.0000001, 1.0000002, 1.0], 6.5),
        rec("noise", 0, &[-9.8e-16, -9.8e-16, -9.8e-16], 15.95),
    ];
    assert_eq!(blind(&records, &BTreeSet::new()), vec![0, 2]);
    assert_eq!(blind(&records, &BTreeSet::from([2])), vec![0]);
    let native = Record { stochastic: false, ..rec("n", 0, &[2.0, 2.0, 2.0], 15.95) };
    assert!(blind(&[native], &BTreeSet::new()).is_empty());
}
