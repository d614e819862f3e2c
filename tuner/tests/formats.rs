//! Ladders beyond the four formats, end to end: `--target fp8` on the `tune_sum` fixture (knobs
//! at E4M3, a `const` knob among them, one kept at bfloat16 by E4M3's range) and `--target
//! fp8-h200` on `samples/mlp` (its `fptune::dot`s on the H200's units). Each configuration is
//! rebuilt and re-checked under DSA and natively by the run itself, and the patch names the types.

use std::path::Path;
use std::process::Command;

mod common;

/// `cargo fptune` with `args` on the crate at `krate`, its output in `out`; the parsed report.
fn tune(krate: &Path, out: &Path, args: &[&str]) -> serde_json::Value {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tune-target");
    let run = Command::new(env!("CARGO_BIN_EXE_cargo-fptune"))
        .arg("fptune")
        .args(args)
        .arg("--out")
        .arg(out)
        .arg("--manifest-path")
        .arg(krate.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .expect("cargo-fptune runs");
    let said = format!("{}\n{}", String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr));
    assert!(run.status.success(), "{said}");
    assert!(said.contains("independent DSA re-check (seed 2): valid"), "{said}");
    assert!(said.contains("native re-check: the checked results meet the requirement"), "{said}");
    serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).expect("report.json")).expect("JSON")
}

fn found(report: &serde_json::Value, knob: &str) -> String {
    let k = report["knobs"].as_array().expect("knobs").iter().find(|k| k["name"] == knob).expect(knob);
    k["found"].as_str().expect("found").to_string()
}

#[test]
fn the_fp8_ladder_puts_knobs_at_e4m3_and_the_patch_says_fptune_e4m3() {
    let (dir, krate) = common::fixture_using_this_fptune("tune_sum");
    let out = dir.path().join("out");
    let report = tune(&krate, &out, &["--digits", "2", "--target", "fp8", "-j", "2"]);
    assert_eq!(report["ladder"], serde_json::json!(["f64", "f32", "bf16", "e4m3"]));
    // `half` (0.5) and the constant 6 are exact in E4M3; 70000 is past its 448.
    assert_eq!(found(&report, "half"), "e4m3");
    assert_eq!(found(&report, "SCALE"), "e4m3");
    assert_eq!(found(&report, "wide"), "bf16");
    assert_eq!(found(&report, "offset"), "f64");
    let patch = std::fs::read_to_string(out.join("tuned.patch")).expect("patch");
    assert!(patch.contains("+        let half: fptune::E4M3 = 0.5;"), "{patch}");
    assert!(patch.contains("const SCALE: fptune::E4M3 = 6.0;"), "{patch}");
    let warnings = report["warnings"].to_string();
    assert!(warnings.contains("no single build") && warnings.contains("e4m3"), "{warnings}");
}

#[test]
fn a_target_machine_runs_dot_products_on_its_tensor_cores() {
    let (dir, krate) = common::sample("mlp");
    let out = dir.path().join("out");
    let report = tune(&krate, &out, &["--digits", "1", "--target", "fp8-h200", "-j", "2"]);
    assert_eq!(report["machine"], "h200");
    // The two operands of each product share a type, and at 1 digit they go to E4M3: the
    // products run on the H200's FP8 unit.
    for knob in ["w1", "x", "w2", "hidden"] {
        assert_eq!(found(&report, knob), "e4m3", "{knob}");
    }
}
