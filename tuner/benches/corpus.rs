//! Zero-touch tuning of the third-party corpus (`../shared/corpus/`): every program tuned with
//! `cargo fptune --auto` at each requirement, the result applied, built and run natively, and its
//! printed floats compared with the untuned program's. Prints one Markdown table.
//!
//! ```sh
//! cargo bench -p cargo-fptune --bench corpus
//! # FPTUNE_CORPUS=DIR            the corpus (default: ../shared/corpus beside the checkout;
//! #                               a relative DIR is read from the workspace root)
//! # FPTUNE_CORPUS_PROGRAMS=a,b    only these programs (default: every Cargo package there)
//! # FPTUNE_CORPUS_DIGITS=3,6,10   the requirements
//! # FPTUNE_CORPUS_LIMIT=1200      seconds one tuning run may take before it is stopped
//! ```
//!
//! A program's row reads: its knobs, the configuration found at each requirement
//! (#half-#single-#double, or why none was), the candidate builds (failed), the runs, the time,
//! and whether the applied result is valid: it builds, runs and prints the same number of floats,
//! each within 10^-N (relative) of the untuned run's. Lines naming a time (`Time in seconds`,
//! `Mop/s`) differ from run to run and are left out.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn main() {
    // A relative `FPTUNE_CORPUS` is read from the workspace root (cargo runs benches in the
    // package's directory).
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let corpus = std::env::var_os("FPTUNE_CORPUS").map(|p| root.join(p)).unwrap_or_else(|| root.join("../shared/corpus"));
    if !corpus.is_dir() {
        println!("corpus bench skipped: no corpus at {} (set FPTUNE_CORPUS)", corpus.display());
        return;
    }
    let only: Option<Vec<String>> =
        std::env::var("FPTUNE_CORPUS_PROGRAMS").ok().map(|s| s.split(',').map(str::to_string).collect());
    let digits: Vec<u32> = std::env::var("FPTUNE_CORPUS_DIGITS")
        .unwrap_or_else(|_| "3,6,10".into())
        .split(',')
        .map(|d| d.trim().parse().expect("FPTUNE_CORPUS_DIGITS: numbers"))
        .collect();
    let limit: u64 = std::env::var("FPTUNE_CORPUS_LIMIT").ok().and_then(|s| s.parse().ok()).unwrap_or(1200);
    let mut programs: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .expect("read the corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("Cargo.toml").is_file())
        .filter(|p| only.as_ref().is_none_or(|o| o.iter().any(|n| p.file_name().is_some_and(|f| f == n.as_str()))))
        .collect();
    programs.sort();
    let work = tempfile::Builder::new().prefix("fptune-corpus-").tempdir().expect("temp dir");
    let target = work.path().join("target");
    println!("| program | knobs | {} | builds (failed) | runs | time | valid when applied |", header(&digits));
    println!("|---|---:|{}---:|---:|---:|---|", "---|".repeat(digits.len()));
    for program in &programs {
        let name = program.file_name().expect("name").to_string_lossy().to_string();
        let original = copy(program, &work.path().join(format!("{name}-original")));
        let Some(expected) = printed_floats(&original, &target) else {
            println!("| {name} | - | {} | - | - | - | the untuned program did not run |", vec!["-"; digits.len()].join(" | "));
            continue;
        };
        let mut row = Row::default();
        for &d in &digits {
            let krate = copy(program, &work.path().join(format!("{name}-{d}")));
            row.add(d, tune(&krate, &target, d, limit, &expected));
        }
        println!(
            "| {name} | {} | {} | {} ({}) | {} | {:.0} s | {} |",
            row.knobs.map_or("-".into(), |k| k.to_string()),
            row.configs.join(" | "),
            row.builds,
            row.failed,
            row.runs,
            row.seconds,
            row.valid.join(", ")
        );
    }
}

fn header(digits: &[u32]) -> String {
    digits.iter().map(|d| format!("{d} digits")).collect::<Vec<_>>().join(" | ")
}

#[derive(Default)]
struct Row {
    knobs: Option<u64>,
    configs: Vec<String>,
    builds: u64,
    failed: u64,
    runs: u64,
    seconds: f64,
    valid: Vec<String>,
}

/// One requirement's result.
struct Outcome {
    knobs: Option<u64>,
    config: String,
    builds: u64,
    failed: u64,
    runs: u64,
    seconds: f64,
    valid: String,
}

impl Row {
    fn add(&mut self, d: u32, o: Outcome) {
        self.knobs = self.knobs.or(o.knobs);
        self.configs.push(o.config);
        self.builds += o.builds;
        self.failed += o.failed;
        self.runs += o.runs;
        self.seconds += o.seconds;
        self.valid.push(format!("{d}: {}", o.valid));
    }
}

/// A copy of the crate (without build outputs) at `to`.
fn copy(from: &Path, to: &Path) -> PathBuf {
    for entry in walkdir::WalkDir::new(from).into_iter().filter_entry(|e| e.file_name() != "target" && e.file_name() != "fptune.out") {
        let entry = entry.expect("walk the corpus");
        let rel = entry.path().strip_prefix(from).expect("inside");
        let dest = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).expect("mkdir");
        } else {
            std::fs::copy(entry.path(), &dest).expect("copy");
        }
    }
    to.to_path_buf()
}

/// A number a run prints.
#[derive(Clone, Copy, Debug)]
struct Number {
    value: f64,
    /// Whether it reads as a float (a `.`, an exponent, `NaN`, `inf`).
    float: bool,
    /// Half a unit of its last printed digit: how far the value printed may be from it.
    resolution: f64,
}

/// Half a unit in the last place of a printed number (`4.17e-1`: 0.5e-3).
fn resolution(token: &str) -> f64 {
    let t = token.trim_start_matches(['-', '+']);
    let (mantissa, exponent) = match t.find(['e', 'E']) {
        Some(p) => (&t[..p], t[p + 1..].parse::<i32>().unwrap_or(0)),
        None => (t, 0),
    };
    let decimals = mantissa.find('.').map_or(0, |p| mantissa.len() - p - 1) as i32;
    0.5 * 10f64.powi(exponent - decimals)
}

/// The numbers a run prints (lines naming a time left out), each with whether it reads as a
/// float (an `f32` of integral value prints as `10548063`: its place is the original's float's).
fn printed_floats(krate: &Path, target: &Path) -> Option<Vec<Number>> {
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["run", "--release", "--quiet", "--manifest-path"])
        .arg(krate.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", target)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Some(
        text.lines()
            .filter(|l| !(l.to_lowercase().contains("time") || l.contains("Mop/s")))
            .flat_map(|l| l.split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')' || c == '[' || c == ']' || c == '='))
            .filter_map(|t| {
                let t = t.trim_end_matches([':', ';']);
                t.parse::<f64>().ok().map(|value| Number {
                    value,
                    float: t.contains(['.', 'e', 'E']) || t.contains("NaN") || t.contains("inf"),
                    resolution: resolution(t),
                })
            })
            .collect(),
    )
}

fn tune(krate: &Path, target: &Path, digits: u32, limit: u64, expected: &[Number]) -> Outcome {
    let start = Instant::now();
    let out = Command::new("timeout")
        .arg(limit.to_string())
        .arg(env!("CARGO_BIN_EXE_cargo-fptune"))
        .args(["fptune", "--auto", "--digits", &digits.to_string(), "--manifest-path"])
        .arg(krate.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", target)
        .output()
        .expect("cargo-fptune runs");
    let seconds = start.elapsed().as_secs_f64();
    let code = out.status.code().unwrap_or(-1);
    let mut o = Outcome { knobs: None, config: String::new(), builds: 0, failed: 0, runs: 0, seconds, valid: "-".into() };
    if code != 0 {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let first = stderr.lines().find(|l| l.starts_with("error")).unwrap_or("").chars().take(90).collect::<String>();
        o.config = match code {
            124 => format!("stopped after {limit} s"),
            _ => format!("exit {code}: {}", first.replace('|', "/")),
        };
        return o;
    }
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(krate.join("fptune.out/report.json")).expect("report.json")).expect("JSON");
    let census: Vec<u64> = report["census"].as_array().map(|a| a.iter().filter_map(|v| v.as_u64()).collect()).unwrap_or_default();
    o.knobs = report["knobs"].as_array().map(|k| k.len() as u64);
    o.config = census.iter().map(u64::to_string).collect::<Vec<_>>().join("-");
    o.builds = report["counts"]["compilations"].as_u64().unwrap_or(0);
    o.failed = report["counts"]["compilations_failed"].as_u64().unwrap_or(0);
    o.runs = report["counts"]["executions"].as_u64().unwrap_or(0);
    let applied = Command::new(env!("CARGO_BIN_EXE_cargo-fptune"))
        .args(["fptune", "apply", "--manifest-path"])
        .arg(krate.join("Cargo.toml"))
        .output()
        .expect("apply runs");
    if !applied.status.success() {
        let why = String::from_utf8_lossy(&applied.stderr);
        let first = why.lines().find(|l| l.starts_with("error")).unwrap_or("").trim_start_matches("error: ");
        o.valid = format!("apply refused ({})", first.chars().take(120).collect::<String>());
        return o;
    }
    o.valid = match printed_floats(krate, target) {
        None => "does not build or run".into(),
        Some(got) if got.len() != expected.len() => format!("prints {} numbers, not {}", got.len(), expected.len()),
        Some(got) => {
            let tolerance = 10f64.powi(-(digits as i32));
            let unjudged = unjudged_numbers(krate, &report, expected);
            // The original's floats compared, but those fptune did not judge (fewer exact digits
            // than required in the reference itself); its integers (counts, indices) only counted.
            let floats = || {
                got.iter().zip(expected).enumerate().filter(|(i, (_, e))| e.float && !unjudged.contains(i)).map(|(_, (g, e))| (g.value, e.value))
            };
            let off = floats().filter(|(g, e)| !((g - e).abs() <= tolerance * e.abs() || g == e)).count();
            let compared = floats().count();
            let judged = if unjudged.is_empty() { String::new() } else { format!(", {} not judged", unjudged.len()) };
            if off == 0 { format!("yes{judged}") } else { format!("no ({off} of {compared} off{judged})") }
        }
    };
    o
}

/// The positions in `expected` (the original's printed numbers) of the values fptune did not
/// judge (report.json's `unchecked`, positions of its records): each record is the next printed
/// number its native value (the original's run, `logs/original.jsonl`) prints as.
fn unjudged_numbers(krate: &Path, report: &serde_json::Value, expected: &[Number]) -> std::collections::BTreeSet<usize> {
    let unchecked: std::collections::BTreeSet<u64> = report["unchecked"].as_array().map(|a| a.iter().filter_map(|v| v.as_u64()).collect()).unwrap_or_default();
    let mut out = std::collections::BTreeSet::new();
    if unchecked.is_empty() {
        return out;
    }
    let Ok(original) = std::fs::read_to_string(krate.join("fptune.out/logs/original.jsonl")) else { return out };
    let values: Vec<f64> = original
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|r| r["samples"].as_array().and_then(|s| s.first()).and_then(|v| v.as_f64()))
        .collect();
    let mut next = 0;
    for (k, v) in values.iter().enumerate() {
        let Some(j) = (next..expected.len()).find(|&j| (expected[j].value - v).abs() <= expected[j].resolution * 1.000001 + 1e-12 * v.abs()) else {
            continue;
        };
        if unchecked.contains(&(k as u64)) {
            out.insert(j);
        }
        next = j + 1;
    }
    out
}
