//! A check's own metric end to end: given by `check!`, it changes the configuration found; given by Cargo.toml, it wins.
//!
//! The fixture `metric_field` (its doc comment says why) is tuned at 2 digits: its `check!`'s
//! `max_rel(1e-2).floor(1e-2)` lets the knob `step` go to binary16, and Cargo.toml's
//! `[package.metadata.fptune.checks.field] metric = "digits"`, over it, brings back the default
//! rule, under which `step` stays in binary32. Bad metadata is refused before anything is built.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

/// A copy of the fixture, its path dependency on fptune made absolute.
fn fixture() -> (tempfile::TempDir, PathBuf) {
    common::fixture_using_this_fptune("metric_field")
}

/// `cargo fptune --digits 2` on the crate, its candidates built in a target directory shared
/// with the other tests of this file.
fn tune(krate: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-fptune"))
        .args(["fptune", "--digits", "2", "--jobs", "1", "--manifest-path"])
        .arg(krate.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("metrics-target"))
        .output()
        .expect("cargo-fptune runs")
}

fn report(krate: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(krate.join("fptune.out/report.json")).expect("report.json");
    serde_json::from_str(&text).expect("valid JSON")
}

fn step(report: &serde_json::Value) -> &str {
    report["knobs"].as_array().expect("knobs").iter().find(|k| k["name"] == "step").expect("the knob step")["found"].as_str().expect("a format")
}

fn text(out: &Output) -> String {
    format!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

#[test]
fn a_checks_metric_changes_the_configuration_found_and_cargo_toml_wins_over_it() {
    let (_dir, krate) = fixture();
    let out = tune(&krate);
    assert!(out.status.success(), "{}", text(&out));
    let r = report(&krate);
    assert_eq!(step(&r), "f16", "{}", text(&out));
    // The check is measured beside its bound on the terminal and in report.json.
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("check `field` (max_rel <= 0.01, |reference| <= 0.01 ignored, from check!): natively "), "{shown}");
    let measured = &r["final_check"]["checks"][0];
    assert_eq!(measured["check"], "field");
    assert_eq!(measured["rule"], serde_json::json!({ "metric": "max_rel", "bound": 0.01, "floor": 0.01, "dsa_digits": true }));
    let native = measured["native"].as_f64().expect("measured natively");
    // binary16's 0.123046875 against 0.123, at the largest value 1 + 15 step (or less).
    assert!(native > 1e-4 && native <= 1e-2, "{measured}");
    assert!(measured["dsa"].as_f64().expect("measured under DSA") <= 1e-2, "{measured}");
    assert!(measured["dsa_digits"].as_f64().expect("DSA digits") >= 2.0, "{measured}");

    // Cargo.toml gives the check the default rule back: it wins, and says so.
    let manifest = krate.join("Cargo.toml");
    let toml = std::fs::read_to_string(&manifest).expect("manifest");
    std::fs::write(&manifest, format!("{toml}\n[package.metadata.fptune.checks.field]\nmetric = \"digits\"\n")).expect("written");
    let out = tune(&krate);
    assert!(out.status.success(), "{}", text(&out));
    let r = report(&krate);
    assert_eq!(step(&r), "f32", "{}", text(&out));
    let warnings = r["warnings"].to_string();
    assert!(warnings.contains("check `field`: [package.metadata.fptune.checks.field] in Cargo.toml (digits) wins over its check!'s metric"), "{warnings}");
    let evidence = r["knobs"][0]["evidence"].as_str().expect("why not lower");
    assert!(evidence.starts_with("field[16] = ") && evidence.contains(" agrees with the reference 3.0000000000000027e-3 to "), "{evidence}");

    // A metric Cargo.toml gets wrong is refused before anything is built, with its table.
    std::fs::write(&manifest, format!("{toml}\n[package.metadata.fptune.checks.field]\nmetric = \"max_rel\"\n")).expect("written");
    let out = tune(&krate);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("[package.metadata.fptune.checks.field] in Cargo.toml: `metric = \"max_rel\"` needs `bound = ...`"), "{}", text(&out));
}
