//! The bundled samples tuned as a user would: `samples/hilbert` for every digit requirement its
//! reference allows, `samples/arclength` (n = 1,000,000) for a few. Each result is re-verified by
//! an independent DSA run (another seed) and natively, and is 1-minimal: every knob kept above
//! the bottom of the ladder carries the failed lowering as evidence.

use std::path::{Path, PathBuf};
use std::process::Command;

fn sample(name: &str) -> (tempfile::TempDir, PathBuf) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let src = root.join("samples").join(name);
    let dir = tempfile::tempdir().expect("temp dir");
    let dest = dir.path().join(name);
    std::fs::create_dir_all(dest.join("src")).expect("src");
    let fptune = root.join("stochastic").canonicalize().expect("fptune");
    let manifest = std::fs::read_to_string(src.join("Cargo.toml"))
        .expect("manifest")
        .replace("path = \"../../stochastic\"", &format!("path = {:?}", fptune.display().to_string()));
    std::fs::write(dest.join("Cargo.toml"), format!("{manifest}\n[workspace]\n")).expect("manifest");
    std::fs::copy(src.join("src/main.rs"), dest.join("src/main.rs")).expect("main.rs");
    (dir, dest)
}

fn tune(krate: &Path, digits: u32) -> serde_json::Value {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tune-target");
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-fptune"))
        .args(["fptune", "-j", "1", "--digits", &digits.to_string(), "--manifest-path"])
        .arg(krate.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .expect("cargo-fptune runs");
    assert!(
        out.status.success(),
        "{} digits: {}\n{}",
        digits,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(krate.join("fptune.out/report.json")).expect("report.json");
    serde_json::from_str(&text).expect("JSON")
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

/// The lowest DSA digits of the reference's checked values.
fn reference_digits(r: &serde_json::Value) -> f64 {
    r["reference"].as_array().expect("reference").iter().map(|v| v["digits"].as_f64().expect("digits")).fold(f64::INFINITY, f64::min)
}

#[test]
fn hilbert_is_tuned_for_every_requirement_its_reference_allows() {
    let (_dir, krate) = sample("hilbert");
    let first = tune(&krate, 1);
    assert_verified_and_one_minimal(&first, 1);
    let max = reference_digits(&first).floor() as u32;
    assert!(max >= 10, "the reference keeps {max} digits");
    let mut doubles = Vec::new();
    for digits in 2..=max {
        let r = tune(&krate, digits);
        assert_verified_and_one_minimal(&r, digits);
        doubles.push(r["census"][2].as_u64().expect("census"));
    }
    // More digits never need fewer doubles.
    assert!(doubles.windows(2).all(|w| w[0] <= w[1]), "{doubles:?}");
}

#[test]
fn arclength_with_a_million_chords_is_tuned_and_verified() {
    let (_dir, krate) = sample("arclength");
    for digits in [3, 8] {
        let r = tune(&krate, digits);
        assert_verified_and_one_minimal(&r, digits);
    }
}
