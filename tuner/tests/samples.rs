//! The bundled samples tuned as a user would, with `cargo fptune batch`: `samples/hilbert` and
//! `samples/arclength` (n = 1,000,000) for every digit requirement their reference allows,
//! `samples/control` (its matrices `const` knobs) for 1 to 8 digits. Each result is re-verified
//! by an independent DSA run (another seed, a build of its own) and natively, and is 1-minimal:
//! every knob kept above the bottom of the ladder carries the failed lowering as evidence.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::sample;

/// Tunes a crate for every requirement of `digits` with `cargo fptune batch`; returns the crate's
/// table and the directory of its reports.
fn batch(krate: &Path, digits: &str) -> (serde_json::Value, PathBuf) {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tune-target");
    let out = krate.parent().expect("a parent").join("batch");
    let run = Command::new(env!("CARGO_BIN_EXE_cargo-fptune"))
        .args(["fptune", "batch", "-j", "1", "--digits", digits, "--out"])
        .arg(&out)
        .arg(krate)
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .expect("cargo-fptune runs");
    assert!(
        run.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let name = krate.file_name().expect("a name");
    let text = std::fs::read_to_string(out.join(name).join("table.json")).expect("table.json");
    (serde_json::from_str(&text).expect("JSON"), out.join(name))
}

/// Every requirement up to the reference's own digits is tuned, re-verified and 1-minimal; the
/// ones above it say so. Returns the #double of each tuned requirement, in order.
fn assert_every_allowed_requirement_tuned(table: &serde_json::Value, dir: &Path) -> Vec<u64> {
    let max = table["reference_digits"].as_f64().expect("reference digits");
    let mut doubles = Vec::new();
    for row in table["rows"].as_array().expect("rows") {
        let digits = row["digits"].as_f64().expect("digits");
        if digits > max {
            assert!(row["status"].as_str().is_some_and(|s| s.starts_with("exceeds the reference")), "{row}");
            continue;
        }
        assert_eq!(row["status"], "tuned", "{row}");
        let report = dir.join(row["report"].as_str().expect("a report")).join("report.json");
        let r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(report).expect("report.json")).expect("JSON");
        assert_verified_and_one_minimal(&r, digits as u32);
        doubles.push(r["census"][2].as_u64().expect("census"));
    }
    doubles
}

fn assert_verified_and_one_minimal(r: &serde_json::Value, digits: u32) {
    let check = &r["final_check"];
    assert_eq!(check["dsa_recheck_valid"], true, "{digits} digits: {check}");
    assert_eq!(check["meets_requirement"], true, "{digits} digits: {check}");
    for k in r["knobs"].as_array().expect("knobs") {
        let at_bottom = k["found"] == "f16";
        let pinned = r["units"][k["unit"].as_u64().expect("unit") as usize]["pinned"].is_string();
        if !at_bottom && !pinned {
            assert!(k["evidence"].as_str().is_some_and(|e| !e.is_empty()), "{digits} digits: {k}");
        }
    }
}

#[test]
fn hilbert_is_tuned_for_every_requirement_its_reference_allows() {
    let (_dir, krate) = sample("hilbert");
    let (table, dir) = batch(&krate, "1..=13");
    assert!(table["reference_digits"].as_f64() >= Some(10.0), "{}", table["reference_digits"]);
    let doubles = assert_every_allowed_requirement_tuned(&table, &dir);
    assert!(doubles.len() >= 10, "{doubles:?}");
    // More digits never need fewer doubles.
    assert!(doubles.windows(2).all(|w| w[0] <= w[1]), "{doubles:?}");
}

#[test]
fn arclength_with_a_million_chords_is_tuned_for_every_requirement_its_reference_allows() {
    let (_dir, krate) = sample("arclength");
    let (table, dir) = batch(&krate, "1..=15");
    assert!(table["reference_digits"].as_f64() >= Some(10.0), "{}", table["reference_digits"]);
    let doubles = assert_every_allowed_requirement_tuned(&table, &dir);
    assert!(doubles.len() >= 10, "{doubles:?}");
    // With a few digits the chords' sum needs no double; with many it does.
    assert!(doubles[0] < *doubles.last().expect("a row"), "{doubles:?}");
}

#[test]
fn control_with_constant_matrices_is_tuned_for_every_requirement_without_a_compilation() {
    // A, B, C, D and the sample time are `const` knobs: the single build holds them as constant
    // units, so every candidate of every requirement is a run of it.
    let (_dir, krate) = sample("control");
    let (table, dir) = batch(&krate, "1..=8");
    let doubles = assert_every_allowed_requirement_tuned(&table, &dir);
    assert_eq!(doubles.len(), 8, "{doubles:?}");
    assert!(doubles.windows(2).all(|w| w[0] <= w[1]), "{doubles:?}");
    assert_eq!(doubles[0], 0, "{doubles:?}");
    for row in table["rows"].as_array().expect("rows") {
        assert_eq!(row["compilations"], 0, "{row}");
        let report = dir.join(row["report"].as_str().expect("a report")).join("report.json");
        let r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(report).expect("report.json")).expect("JSON");
        assert_eq!(r["counts"]["single_build"], true, "{}", r["counts"]);
    }
}
