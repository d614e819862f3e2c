//! The fixture crate `tests/fixtures/mixed` uses every marking site. These tests build it (copied
//! to a scratch dir) in the configurations a tuner would, and compare what it checks:
//!
//! - all-f64, its results are bit-identical to the same code without the attributes;
//! - every knob (or group) alone lowered to f32, f16 and bf16 builds, and its results equal
//!   `reference.rs`, a hand-written model of the semantics with explicit conversions, bit for bit;
//! - the stochastic build's results agree with the native ones to the digits they claim.

use std::path::{Path, PathBuf};
use std::process::Command;

use fptune_syntax::{discover_file, FloatFormat, Knob, Leaf};

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mixed")
}

fn fptune_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../stochastic").canonicalize().expect("fptune crate")
}

/// A scratch copy of the fixture with `main.rs` replaced, the path dependency made absolute.
struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new(main_rs: &str) -> Scratch {
        let dir = tempfile::tempdir().expect("scratch dir");
        let src = dir.path().join("src");
        std::fs::create_dir_all(&src).expect("src dir");
        let manifest = std::fs::read_to_string(fixture_dir().join("Cargo.toml")).expect("manifest");
        let manifest = manifest.replace(
            "path = \"../../../../stochastic\"",
            &format!("path = {:?}", fptune_dir().display().to_string()),
        );
        std::fs::write(dir.path().join("Cargo.toml"), manifest).expect("write manifest");
        std::fs::write(src.join("main.rs"), main_rs).expect("write main.rs");
        std::fs::copy(fixture_dir().join("src/reference.rs"), src.join("reference.rs")).expect("copy reference.rs");
        Scratch { dir }
    }

    /// Builds (sharing one target dir between all builds, so they are incremental) and returns
    /// the binary, or the compiler's output on failure.
    fn build(&self, features: &[&str], target: &str) -> Result<PathBuf, String> {
        let target_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(target);
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.arg("build").arg("--quiet").arg("--manifest-path").arg(self.dir.path().join("Cargo.toml"));
        cmd.env("CARGO_TARGET_DIR", &target_dir);
        for f in features {
            cmd.arg("--features").arg(f);
        }
        let out = cmd.output().expect("cargo runs");
        if out.status.success() {
            Ok(target_dir.join("debug").join("mixed"))
        } else {
            Err(String::from_utf8_lossy(&out.stderr).into_owned())
        }
    }
}

/// One checked value: name, index, the first sample's exact text, and the DSA digits.
#[derive(Debug, Clone, PartialEq)]
struct Record {
    name: String,
    index: u64,
    samples: Vec<f64>,
    digits: f64,
}

fn run(binary: &Path, args: &[&str]) -> Vec<Record> {
    let out_file = tempfile::NamedTempFile::new().expect("out file");
    let status = Command::new(binary)
        .args(args)
        .env("FPTUNE_OUT", out_file.path())
        .env("FPTUNE_SEED", "42")
        .output()
        .expect("fixture runs");
    assert!(status.status.success(), "fixture failed: {}", String::from_utf8_lossy(&status.stderr));
    let text = std::fs::read_to_string(out_file.path()).expect("records");
    text.lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            Record {
                name: v["name"].as_str().expect("name").to_string(),
                index: v["index"].as_u64().expect("index"),
                samples: v["samples"].as_array().expect("samples").iter().map(|x| x.as_f64().expect("finite")).collect(),
                digits: v["digits"].as_f64().expect("digits"),
            }
        })
        .collect()
}

fn values(records: &[Record]) -> Vec<(String, u64, u64)> {
    records.iter().map(|r| (r.name.clone(), r.index, r.samples[0].to_bits())).collect()
}

fn source() -> String {
    std::fs::read_to_string(fixture_dir().join("src/main.rs")).expect("fixture main.rs")
}

fn knobs(text: &str) -> Vec<Knob> {
    let file: syn::File = syn::parse_str(text).expect("fixture parses");
    let d = discover_file(&file);
    assert!(d.errors.is_empty(), "fixture markers: {:?}", d.error());
    d.knobs
}

/// Knobs grouped as the tuner lowers them: a group together, other knobs alone.
fn units(knobs: &[Knob]) -> Vec<Vec<&Knob>> {
    let mut units: Vec<Vec<&Knob>> = Vec::new();
    for k in knobs {
        match &k.group {
            Some(g) => match units.iter_mut().find(|u| u[0].group.as_deref() == Some(g)) {
                Some(u) => u.push(k),
                None => units.push(vec![k]),
            },
            None => units.push(vec![k]),
        }
    }
    units
}

fn strip_markers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("#[") {
        let (before, tail) = rest.split_at(at);
        out.push_str(before);
        let end = tail.find(']').expect("attribute end") + 1;
        let attr = &tail[..end];
        if attr.starts_with("#[tune") || attr.starts_with("#[fptune::tune]") {
            rest = tail[end..].trim_start_matches([' ']);
        } else {
            out.push_str(attr);
            rest = &tail[end..];
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn all_f64_results_are_bit_identical_to_the_code_without_the_attributes() {
    let text = source();
    let tuned = Scratch::new(&text).build(&[], "native").expect("fixture builds");
    let tuned_values = values(&run(&tuned, &[]));
    let plain_text = strip_markers(&text);
    assert!(!plain_text.contains("#[tune") && !plain_text.contains("#[fptune::tune"), "markers left");
    let plain = Scratch::new(&plain_text).build(&[], "plain").expect("plain fixture builds");
    let plain_values = values(&run(&plain, &[]));
    assert_eq!(tuned_values.len(), 15);
    assert_eq!(tuned_values, plain_values);
}

#[test]
fn the_reference_model_agrees_with_the_all_f64_fixture() {
    let binary = Scratch::new(&source()).build(&[], "native").expect("fixture builds");
    assert_eq!(values(&run(&binary, &[])), values(&run(&binary, &["--reference", ""])));
}

#[test]
fn every_knob_lowered_alone_builds_and_matches_the_hand_written_reference() {
    let text = source();
    let all = knobs(&text);
    assert!(all.len() >= 20, "the fixture marks every site: {} knobs", all.len());
    let mut checked = 0;
    for unit in units(&all) {
        for format in [FloatFormat::F32, FloatFormat::F16, FloatFormat::BF16] {
            let edits: Vec<(&Leaf, String)> = unit
                .iter()
                .flat_map(|k| k.leaves.iter().map(move |l| (l, format.rust().to_string())))
                .collect();
            let variant = fptune_syntax::rewrite_leaves(&text, &edits).expect("leaf offsets");
            let names: Vec<String> = unit.iter().map(|k| k.name.clone()).collect();
            let binary = Scratch::new(&variant)
                .build(&[], "variants")
                .unwrap_or_else(|e| panic!("{names:?} at {format} does not build:\n{e}"));
            let spec: Vec<String> = names.iter().map(|n| format!("{n}={}", format.short())).collect();
            let spec = spec.join(",");
            let got = values(&run(&binary, &[]));
            let want = values(&run(&binary, &["--reference", &spec]));
            assert_eq!(got, want, "{spec}: the tuned code and the reference model differ");
            checked += 1;
        }
    }
    assert!(checked >= 45, "{checked} variants");
}

#[test]
fn the_stochastic_build_agrees_with_the_native_run_to_the_digits_it_claims() {
    let text = source();
    let native = Scratch::new(&text).build(&[], "native").expect("fixture builds");
    let native_records = run(&native, &[]);
    // The tuner converts the whole scratch copy: `main` too.
    let whole = text.replacen("fn main()", "#[fptune::tune]\nfn main()", 1);
    let stochastic = Scratch::new(&whole)
        .build(&["fptune/stochastic"], "stochastic")
        .unwrap_or_else(|e| panic!("stochastic build:\n{e}"));
    let records = run(&stochastic, &[]);
    assert_eq!(records.len(), native_records.len());
    for (s, n) in records.iter().zip(&native_records) {
        assert_eq!((&s.name, s.index), (&n.name, n.index));
        let mean = s.samples.iter().sum::<f64>() / s.samples.len() as f64;
        let exact = n.samples[0];
        // DSA's digits are a 95% estimate of the mean's accuracy; the native value carries its
        // own rounding errors: allow one digit between the two.
        let tolerance = 10f64.powf(1.0 - s.digits.floor()) * exact.abs();
        assert!(
            (mean - exact).abs() <= tolerance,
            "{}: stochastic mean {mean:e} ({} digits) vs native {exact:e}",
            s.name,
            s.digits
        );
        assert!(s.digits >= 3.0, "{}: only {} digits", s.name, s.digits);
    }
}
