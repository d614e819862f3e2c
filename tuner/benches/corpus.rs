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

#[path = "../tests/common/applied.rs"]
mod applied;

use applied::Number;

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

/// The numbers the crate at `krate` prints when run natively ([`applied::numbers`]).
fn printed_floats(krate: &Path, target: &Path) -> Option<Vec<Number>> {
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["run", "--release", "--quiet", "--manifest-path"])
        .arg(krate.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", target)
        .output()
        .ok()?;
    out.status.success().then(|| applied::numbers(&String::from_utf8_lossy(&out.stdout)))
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
        Some(got) => {
            let unjudged = applied::unjudged_numbers(krate, &report, expected);
            applied::verdict(&got, expected, digits, &unjudged).unwrap_or_else(|why| why)
        }
    };
    o
}
