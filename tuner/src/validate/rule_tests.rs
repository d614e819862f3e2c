//! Unit tests of checks judged by rules of their own: records carrying them, the reference resolving them, the verdict.

use super::*;

/// The values of one check: `reference[i]` and `candidate[i]` as the means of three equal
/// samples, in `format`, with `digits` exact digits by DSA.
fn check(name: &str, values: &[f64], digits: f64, format: &str, rule: Option<Rule>) -> Vec<Record> {
    values
        .iter()
        .enumerate()
        .map(|(index, &x)| Record { name: name.into(), index, format: format.into(), stochastic: true, samples: vec![x; 3], digits, rule })
        .collect()
}

fn max_rel(bound: f64, floor: f64) -> Rule {
    Rule { metric: Metric::MaxRel { bound, floor }, dsa_digits: true }
}

fn rms(bound: f64) -> Rule {
    Rule { metric: Metric::Rms { bound }, dsa_digits: true }
}

fn printed(_: &Record) -> bool {
    false
}

#[test]
fn a_records_metric_fields_become_its_checks_rule_and_bad_ones_name_the_check() {
    let line = r#"{"name":"e","index":0,"format":"binary32","stochastic":true,"samples":[1.0,1.0,1.0],"digits":7.0,"metric":"max_rel","bound":1e-6,"floor":1e-12,"dsa_digits":false}"#;
    let run = parse_run(&format!("{line}\n")).expect("parses");
    assert_eq!(run.records[0].rule, Some(Rule { metric: Metric::MaxRel { bound: 1e-6, floor: 1e-12 }, dsa_digits: false }));
    let plain = r#"{"name":"e","index":0,"format":"binary32","stochastic":true,"samples":[1.0,1.0,1.0],"digits":7.0}"#;
    assert_eq!(parse_run(&format!("{plain}\n")).expect("parses").records[0].rule, None);
    let bad = line.replace("\"bound\":1e-6", "\"bound\":-1.0");
    let e = parse_run(&format!("{bad}\n")).expect_err("refused").to_string();
    assert!(e.contains("the metric of check `e`: `bound = -1` is not a non-negative finite number"), "{e}");
}

#[test]
fn the_reference_takes_each_checks_rule_from_check_and_cargo_toml_wins() {
    let mut records = check("e", &[1.0, 2.0], 15.0, "binary64", Some(max_rel(1e-6, 0.0)));
    records.extend(check("f", &[3.0], 15.0, "binary64", None));
    records.extend(check("g", &[4.0], 15.0, "binary64", Some(rms(1e-3))));
    let req = Requirement::new(3.0).with_rule("g", max_rel(1e-2, 0.0)).with_rule("f", rms(1e-4));
    let r = reference_with(records.clone(), &req, &BTreeSet::new(), printed).expect("a reference");
    assert_eq!(r.rule("e"), max_rel(1e-6, 0.0));
    assert_eq!(r.rule("f"), rms(1e-4));
    assert_eq!(r.rule("g"), max_rel(1e-2, 0.0));
    assert_eq!(r.rule("h"), Rule::default());
    // A name Cargo.toml gives that no check has is refused, with the names there are.
    let e = reference_with(records.clone(), &Requirement::new(3.0).with_rule("energy", rms(1.0)), &BTreeSet::new(), printed).expect_err("unknown");
    assert_eq!(
        e.to_string(),
        "[package.metadata.fptune.checks.energy] in Cargo.toml names no check of the reference run; the checked names are `e`, `f`, `g`: \
         write the name as check!'s first argument has it, or remove the table"
    );
    // Two check! calls of one name with different rules (or one with none) are refused...
    let mut two = records.clone();
    two.extend(check("e", &[5.0], 15.0, "binary64", Some(rms(1.0))));
    let e = reference_with(two.clone(), &Requirement::new(3.0), &BTreeSet::new(), printed).expect_err("two rules");
    assert!(e.to_string().starts_with("the check! calls of `e` give it two rules, `max_rel <= 1e-6` and `rms <= 1`"), "{e}");
    let mut none = records.clone();
    none.extend(check("e", &[5.0], 15.0, "binary64", None));
    let e = reference_with(none, &Requirement::new(3.0), &BTreeSet::new(), printed).expect_err("one without");
    assert!(e.to_string().contains("`max_rel <= 1e-6` and none"), "{e}");
    // ... unless Cargo.toml gives it one (which wins), said by the error.
    assert!(e.to_string().contains("[package.metadata.fptune.checks.e], which wins"), "{e}");
}

#[test]
fn the_reference_need_not_have_the_digits_a_rule_does_not_require() {
    // A value near zero with few digits: refused by the default rule, not under a floor above
    // it, nor where the DSA digits are turned off.
    let records = [check("big", &[5.0], 15.0, "binary64", None), check("e", &[1.0, 1e-9], 15.0, "binary64", None)].concat();
    let mut weak = records.clone();
    weak[2].digits = 1.0;
    let req = Requirement::new(3.0);
    assert!(matches!(reference_with(weak.clone(), &req, &BTreeSet::new(), printed), Err(ReferenceError::TooFewDigits { .. })));
    let floor = req.clone().with_rule("e", max_rel(1e-3, 1e-6));
    assert!(reference_with(weak.clone(), &floor, &BTreeSet::new(), printed).is_ok());
    let no_dsa = req.clone().with_rule("e", Rule { metric: Metric::Digits, dsa_digits: false });
    assert!(reference_with(weak, &no_dsa, &BTreeSet::new(), printed).is_ok());
}

/// The slides' first case at the verdict: numerical error (1e-6 absolute everywhere) that the
/// default rule calls a failure at a value near zero, which RMS and a max_rel floor accept.
#[test]
fn rms_accepts_numerical_error_the_element_wise_rule_refuses() {
    let mut values: Vec<f64> = (0..50).map(|i| 1.0 + f64::from(i) / 50.0).collect();
    values[3] = 1e-3;
    let reference = check("field", &values, 15.0, "binary64", None);
    let candidate = check("field", &values.iter().map(|x| x + 1e-6).collect::<Vec<_>>(), 6.0, "binary64", None);
    let req = Requirement::new(4.0);
    let default = reference_with(reference.clone(), &req, &BTreeSet::new(), printed).expect("a reference");
    assert!(matches!(validate(&default, &candidate, &req, 0), Some(Reason::Disagrees { ref value, .. }) if value == "field[3]"));
    for rule in [rms(1e-5), max_rel(1e-5, 1e-2)] {
        let req = req.clone().with_rule("field", rule);
        let r = reference_with(reference.clone(), &req, &BTreeSet::new(), printed).expect("a reference");
        assert_eq!(validate(&r, &candidate, &req, 0), None, "{rule}");
    }
}

/// The slides' second case: a bug (one value of 2,000 off by half) that RMS misses and the
/// element-wise rules catch, naming the value.
#[test]
fn element_wise_rules_catch_the_bug_rms_misses() {
    let values = vec![1.0; 2000];
    let reference = check("out", &values, 15.0, "binary64", None);
    let mut candidate = reference.clone();
    candidate[1234].samples = vec![1.5; 3];
    let req = Requirement::new(2.0).with_rule("out", rms(2e-2));
    let r = reference_with(reference.clone(), &req, &BTreeSet::new(), printed).expect("a reference");
    assert_eq!(validate(&r, &candidate, &req, 0), None);
    let req = Requirement::new(2.0).with_rule("out", max_rel(1e-2, 0.0));
    let r = reference_with(reference.clone(), &req, &BTreeSet::new(), printed).expect("a reference");
    let reason = validate(&r, &candidate, &req, 0).expect("refused");
    assert_eq!(reason, Reason::MetricExceeded { check: "out".into(), metric: "max_rel".into(), measured: 0.5, bound: 1e-2, at: Some("out[1234]".into()) });
    assert_eq!(reason.to_string(), "check `out`: max_rel = 5.000e-1 exceeds its bound 0.01 (at out[1234])");
    let r = reference_with(reference, &Requirement::new(2.0), &BTreeSet::new(), printed).expect("a reference");
    assert!(matches!(validate(&r, &candidate, &Requirement::new(2.0), 0), Some(Reason::Disagrees { .. })));
}

#[test]
fn the_dsa_digits_stay_required_under_a_metric_unless_turned_off() {
    let reference = check("e", &[1.0, 2.0], 15.0, "binary64", None);
    let candidate = check("e", &[1.0, 2.0], 2.5, "binary64", None);
    let req = Requirement::new(3.0).with_rule("e", rms(1e-9));
    let r = reference_with(reference.clone(), &req, &BTreeSet::new(), printed).expect("a reference");
    assert!(matches!(validate(&r, &candidate, &req, 0), Some(Reason::TooFewDigits { ref value, .. }) if value == "e[0]"));
    // The confirming run's slack applies as for the default rule.
    assert_eq!(validate_with(&r, &candidate, &req, 0, Estimate::Confirming), None);
    let off = Requirement::new(3.0).with_rule("e", Rule { metric: Metric::Rms { bound: 1e-9 }, dsa_digits: false });
    let r = reference_with(reference.clone(), &off, &BTreeSet::new(), printed).expect("a reference");
    assert_eq!(validate(&r, &candidate, &off, 0), None);
    // Under max_rel's floor a value is not judged at all.
    let reference = check("e", &[1.0, 1e-9], 15.0, "binary64", None);
    let candidate = [check("e", &[1.0], 15.0, "binary64", None), check("e", &[5e-9], 0.5, "binary64", None)].concat();
    let candidate: Vec<Record> = candidate.into_iter().enumerate().map(|(i, r)| Record { index: i, ..r }).collect();
    let req = Requirement::new(3.0).with_rule("e", max_rel(1e-3, 1e-6));
    let r = reference_with(reference, &req, &BTreeSet::new(), printed).expect("a reference");
    assert_eq!(validate(&r, &candidate, &req, 0), None);
}

#[test]
fn max_eps_diff_counts_in_the_candidates_recorded_format() {
    // The reference in binary64, the candidate's values in binary32: 1 and 3 binary32 ulps off.
    let ulp = f64::from(f32::EPSILON);
    let reference = check("v", &[1.0, 1.5], 15.0, "binary64", Some(Rule { metric: Metric::MaxEpsDiff { bound: 2.0 }, dsa_digits: false }));
    let candidate = check("v", &[1.0 + ulp, 1.5 + 3.0 * ulp], 7.0, "binary32", None);
    let req = Requirement::new(3.0);
    let r = reference_with(reference, &req, &BTreeSet::new(), printed).expect("a reference");
    let reason = validate(&r, &candidate, &req, 0).expect("refused");
    assert!(matches!(reason, Reason::MetricExceeded { measured, ref at, .. } if measured == 3.0 && at.as_deref() == Some("v[1]")), "{reason}");
    let req = req.with_rule("v", Rule { metric: Metric::MaxEpsDiff { bound: 3.0 }, dsa_digits: false });
    let r = reference_with(r.records, &req, &BTreeSet::new(), printed).expect("a reference");
    assert_eq!(validate(&r, &candidate, &req, 0), None);
    // A format without a known ulp fails, not measurable.
    let odd = check("v", &[1.0, 1.5], 7.0, "posit16", None);
    assert!(matches!(validate(&r, &odd, &req, 0), Some(Reason::MetricExceeded { measured, .. }) if measured.is_nan()));
}

#[test]
fn a_non_finite_value_of_a_metric_check_is_named() {
    let reference = check("e", &[1.0, 2.0], 15.0, "binary64", Some(rms(1.0)));
    let mut candidate = reference.clone();
    candidate[1].samples = vec![f64::INFINITY; 3];
    let req = Requirement::new(3.0);
    let r = reference_with(reference, &req, &BTreeSet::new(), printed).expect("a reference");
    assert_eq!(validate(&r, &candidate, &req, 0), Some(Reason::NotFinite { value: "e[1]".into() }));
}

#[test]
fn checks_with_rules_are_measured_for_the_report_and_left_out_of_the_tightest_value() {
    let reference = [check("e", &[1.0, 2.0], 15.0, "binary64", Some(max_rel(1e-3, 0.0))), check("d", &[4.0], 15.0, "binary64", None)].concat();
    let req = Requirement::new(3.0);
    let r = reference_with(reference, &req, &BTreeSet::new(), printed).expect("a reference");
    let dsa = [check("e", &[1.0001, 2.0], 5.5, "binary64", None), check("d", &[4.0001], 5.0, "binary64", None)].concat();
    let native = [check("e", &[1.0, 2.0004], 15.95, "binary32", None), check("d", &[4.0], 15.95, "binary32", None)].concat();
    let measures = measure_checks(&r, Some(&dsa), Some(&native), &req);
    assert_eq!(measures.len(), 1);
    let m = &measures[0];
    assert_eq!((m.check.as_str(), m.from.as_str(), m.rule, m.dsa_digits, m.required), ("e", "check!", max_rel(1e-3, 0.0), Some(5.5), 3.0));
    assert!((m.dsa.expect("measured") - 1e-4).abs() < 1e-12 && (m.native.expect("measured") - 2e-4).abs() < 1e-12, "{m:?}");
    // A run that checked other values is not measured; Cargo.toml's rule says so.
    let req = req.with_rule("e", rms(1e-2));
    let r = reference_with(r.records, &req, &BTreeSet::new(), printed).expect("a reference");
    let m = &measure_checks(&r, Some(&dsa[..1]), None, &req)[0];
    assert_eq!((m.dsa, m.native, m.dsa_digits, m.from.as_str()), (None, None, None, "Cargo.toml"));
    let json = serde_json::to_string(m).expect("serialises");
    assert_eq!(serde_json::from_str::<CheckMeasure>(&json).expect("reads"), *m);
    // The tightest value is among the checks of the default rule.
    assert_eq!(worst(&r, &dsa, &req).expect("a value").value, "d[0]");
}
