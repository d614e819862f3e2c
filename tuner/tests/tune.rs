//! `cargo fptune` end to end on fixture crates (copied before use): the configuration found, the
//! exit codes, the report, the patch and `apply`, the cache, and candidates that go wrong.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

/// A copy of a fixture crate (or workspace) in a temporary directory, its path dependency on
/// fptune made absolute.
fn fixture(name: &str) -> (tempfile::TempDir, PathBuf) {
    common::fixture_using_this_fptune(name)
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn fptune(crate_dir: &Path, args: &[&str]) -> Run {
    // One target dir for every test: the candidates' builds stay warm from test to test.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tune-target");
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-fptune"))
        .arg("fptune")
        .args(args)
        .arg("--manifest-path")
        .arg(crate_dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .expect("cargo-fptune runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `cargo fptune apply` on the crate at `krate`.
fn apply_in(krate: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-fptune"))
        .args(["fptune", "apply", "--manifest-path"])
        .arg(krate.join("Cargo.toml"))
        .output()
        .expect("apply runs")
}

/// `cargo run` of the crate at `krate`, natively, which must succeed: its stdout.
fn cargo_run(krate: &Path) -> String {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tune-target");
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["run", "--quiet", "--manifest-path"])
        .arg(krate.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .expect("cargo run");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn report(crate_dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(crate_dir.join("fptune.out/report.json")).expect("report.json");
    serde_json::from_str(&text).expect("valid JSON")
}

fn found(report: &serde_json::Value) -> Vec<(String, String)> {
    report["knobs"]
        .as_array()
        .expect("knobs")
        .iter()
        .map(|k| (k["name"].as_str().expect("name").to_string(), k["found"].as_str().expect("found").to_string()))
        .collect()
}

/// What `tune_sum` needs at 2 digits (its doc comment says why), however the search gets there.
fn tune_sum_at_2_digits() -> Vec<(String, String)> {
    [("SCALE", "f16"), ("TENTH", "f16"), ("half", "f16"), ("third", "f16"), ("wide", "f32"), ("offset", "f64")]
        .map(|(k, f)| (k.to_string(), f.to_string()))
        .to_vec()
}

#[test]
fn tuning_finds_each_knobs_lowest_format_and_apply_writes_it() {
    let (_dir, krate) = fixture("tune_sum");
    let original = std::fs::read_to_string(krate.join("src/main.rs")).expect("source");
    let run = fptune(&krate, &["--digits", "2", "-j", "1"]);
    assert_eq!(run.code, 0, "stdout:\n{}\nstderr:\n{}", run.stdout, run.stderr);
    // The user's tree is not touched by tuning.
    assert_eq!(std::fs::read_to_string(krate.join("src/main.rs")).expect("source"), original);
    let r = report(&krate);
    assert_eq!(r["schema"], 2);
    assert_eq!(found(&r), tune_sum_at_2_digits());
    // The knobs kept high carry their evidence: what lowering them did.
    let wide = &r["knobs"][4];
    // Its binary16 run stopped at the first overflow.
    assert!(wide["evidence"].as_str().is_some_and(|e| e.contains("overflow")), "{wide}");
    let offset = &r["knobs"][5];
    assert!(offset["evidence"].as_str().is_some_and(|e| !e.is_empty()), "{offset}");
    // Every DSA candidate was a run of the single build: no candidate was compiled.
    assert_eq!(r["counts"]["single_build"], true, "{}", r["counts"]);
    assert_eq!(r["counts"]["compilations"], 0, "{}", r["counts"]);
    assert!(r["counts"]["executions"].as_u64().is_some_and(|n| n > 0), "{}", r["counts"]);
    assert!(run.stdout.contains("runs of one single build"), "{}", run.stdout);
    assert_eq!(r["final_check"]["meets_requirement"], true);
    assert_eq!(r["final_check"]["dsa_recheck_valid"], true, "{}", r["final_check"]);
    // 1-minimal: every knob above the bottom of the ladder has the failed lowering as evidence.
    for k in r["knobs"].as_array().expect("knobs") {
        if k["found"] != "f16" {
            assert!(k["evidence"].as_str().is_some_and(|e| !e.is_empty()), "{k}");
        }
    }
    assert!(run.stdout.contains("compilations:"), "{}", run.stdout);
    let patch = std::fs::read_to_string(krate.join("fptune.out/tuned.patch")).expect("patch");
    assert!(patch.contains("+        let half: fptune::f16 = 0.5;"), "{patch}");

    // A second run of the same source and settings tests nothing again; with --json the report
    // goes to stdout as JSON.
    let again = fptune(&krate, &["--digits", "2", "-j", "1", "--json"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let r2: serde_json::Value = serde_json::from_str(&again.stdout).expect("--json prints the report");
    assert_eq!(r2["counts"]["compilations"], 0, "{}", again.stdout);
    assert_eq!(found(&r2), found(&r));

    // apply writes the tuned source; the tuned crate builds and runs natively.
    let apply = apply_in(&krate);
    assert!(apply.status.success(), "{}", String::from_utf8_lossy(&apply.stderr));
    let tuned = std::fs::read_to_string(krate.join("src/main.rs")).expect("tuned source");
    assert!(tuned.contains("let half: fptune::f16 = 0.5;") && tuned.contains("let wide: f32") && tuned.contains("let offset: f64"), "{tuned}");
    cargo_run(&krate);
    // apply again knows its own change.
    let twice = apply_in(&krate);
    assert!(twice.status.success(), "{}", String::from_utf8_lossy(&twice.stderr));
    assert!(String::from_utf8_lossy(&twice.stdout).contains("already applied: src/main.rs"));
    // An edit since is refused, named.
    std::fs::write(krate.join("src/main.rs"), format!("{tuned}\n// edited\n")).expect("edited");
    let edited = apply_in(&krate);
    assert_eq!(edited.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&edited.stderr).contains("src/main.rs changed since tuning"));
}

#[test]
fn building_each_candidate_finds_what_the_single_build_finds() {
    let (_dir, krate) = fixture("tune_sum");
    // Unoptimised builds are asked for rather than left to `auto`, whose choice weighs a run of
    // milliseconds against a build of a second: timings a fast or a loaded machine may turn.
    let run = fptune(&krate, &["--digits", "2", "-j", "1", "--single-build", "never", "--quick-builds", "always"]);
    assert_eq!(run.code, 0, "stdout:\n{}\nstderr:\n{}", run.stdout, run.stderr);
    let r = report(&krate);
    assert_eq!(found(&r), tune_sum_at_2_digits());
    let c = &r["counts"];
    assert_eq!(c["single_build"], false, "{c}");
    assert_eq!(c["compilations_failed"], 0, "{c}");
    // The reference built unoptimised gave the optimised build's records: candidates were built
    // unoptimised.
    assert_eq!(c["quick_builds"], true, "{c}");
    assert!(c["compilations"].as_u64().is_some_and(|n| n > 0), "{c}");
    assert_eq!(r["final_check"]["dsa_recheck_valid"], true, "{}", r["final_check"]);
}

#[test]
fn candidates_run_natively_first_find_the_same_configuration_and_skip_dsa_runs_that_fail() {
    let (_dir, krate) = fixture("tune_sum");
    // Two workers: the native single build is built and verified on the second while the first
    // builds the DSA single build.
    let run = fptune(&krate, &["--digits", "2", "-j", "2", "--native-first", "always", "--quick-builds", "never"]);
    assert_eq!(run.code, 0, "stdout:\n{}\nstderr:\n{}", run.stdout, run.stderr);
    let r = report(&krate);
    assert_eq!(found(&r), tune_sum_at_2_digits());
    let c = &r["counts"];
    assert_eq!((c["native_first"].as_bool(), c["quick_builds"].as_bool()), (Some(true), Some(false)), "{c}");
    // `offset` in binary32 loses `recovered` natively too: no DSA run was needed to refuse it.
    assert!(c["native_rejected"].as_u64().is_some_and(|n| n > 0), "{c}");
    let offset = &r["knobs"][5];
    assert!(offset["evidence"].as_str().is_some_and(|e| e.starts_with("natively:")), "{offset}");
    // `wide` (70000) in binary16: the native single build's run stopped at the overflow.
    let wide = &r["knobs"][4];
    assert!(wide["evidence"].as_str().is_some_and(|e| e.starts_with("natively:") && e.contains("overflow")), "{wide}");
    assert!(run.stdout.contains("candidates ran natively first"), "{}", run.stdout);
    // Native runs too were runs of a single build (built natively, verified bit for bit on the
    // original and a lowered configuration): the search compiled nothing.
    assert_eq!((c["single_build"].as_bool(), c["single_native"].as_bool()), (Some(true), Some(true)), "{c}");
    assert_eq!(c["compilations"], 0, "{c}");
    assert!(run.stdout.contains("native runs were runs of one native single build"), "{}", run.stdout);
    assert!(run.stderr.contains("a run of the native single build"), "{}", run.stderr);
    // The configuration found still passed under DSA, with both seeds.
    assert_eq!(r["final_check"]["dsa_recheck_valid"], true, "{}", r["final_check"]);
}

#[test]
fn a_configuration_that_passes_under_dsa_but_stagnates_natively_makes_the_search_check_natively() {
    let (_dir, _krate, run, r) = tuned_fixture("stagnation", &["--digits", "1", "-j", "1"]);
    // All in binary16 passes under DSA (about 4, two digits) but gives 2 natively: rejected at
    // its re-check, after which candidates valid under DSA also run natively.
    assert_eq!(found(&r), vec![("step".into(), "f16".into()), ("sum".into(), "f32".into())]);
    let c = &r["counts"];
    assert_eq!((c["native_after"].as_bool(), c["native_first"].as_bool()), (Some(true), Some(false)), "{c}");
    assert!(c["rejected"].as_u64().is_some_and(|n| n >= 1), "{c}");
    assert_eq!(r["final_check"]["meets_requirement"], true, "{}", r["final_check"]);
    assert_eq!(r["final_check"]["dsa_recheck_valid"], true, "{}", r["final_check"]);
    let sum = &r["knobs"][1];
    assert!(sum["evidence"].as_str().is_some_and(|e| e.contains("natively") || e.contains("re-checked")), "{sum}");
    assert!(run.stdout.contains("candidates valid under DSA also ran natively"), "{}", run.stdout);
}

#[test]
fn candidates_that_hang_give_nan_panic_or_check_fewer_values_are_invalid_and_the_search_goes_on() {
    let (_dir, _krate, _run, r) = tuned_fixture("tune_trouble", &["--digits", "3", "-j", "1", "--timeout", "5"]);
    assert_eq!(
        found(&r),
        vec![
            ("tiny".into(), "f32".into()),
            ("big".into(), "f64".into()),
            ("gate".into(), "f32".into()),
            ("fine".into(), "f16".into()),
            ("limit".into(), "f32".into())
        ]
    );
    let evidence: Vec<String> =
        r["knobs"].as_array().expect("knobs").iter().map(|k| k["evidence"].as_str().unwrap_or("").to_string()).collect();
    assert!(evidence[0].contains("timed out"), "tiny: {}", evidence[0]);
    assert!(evidence[1].contains("not finite"), "big: {}", evidence[1]);
    assert!(evidence[2].contains("exited with code 101") && evidence[2].contains("gate moved"), "gate: {}", evidence[2]);
    assert!(evidence[4].contains("checked 1 values, the reference checked 2"), "limit: {}", evidence[4]);
    assert!(r["counts"]["executions_failed"].as_u64().expect("count") >= 2);
}

#[test]
fn a_requirement_beyond_the_reference_exits_3_naming_the_values() {
    let (_dir, krate) = fixture("tune_sum");
    let run = fptune(&krate, &["--digits", "16"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains("recovered"), "{}", run.stderr);
    assert!(run.stderr.contains("lower --digits"), "{}", run.stderr);
}

#[test]
fn bad_input_gets_a_usage_error_that_says_what_to_do() {
    let (_dir, krate) = fixture("tune_sum");
    let run = fptune(&krate, &[]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--digits N"), "{}", run.stderr);
    let main = krate.join("src/main.rs");
    let text = std::fs::read_to_string(&main).expect("source");
    std::fs::write(&main, text.replace("fptune::check!", "drop")).expect("write");
    let run = fptune(&krate, &["--digits", "2"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("no checked results"), "{}", run.stderr);
    std::fs::write(&main, text.replace("#[tune]", "")).expect("write");
    let run = fptune(&krate, &["--digits", "2"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("no knobs"), "{}", run.stderr);
    // Another run writing into the same output directory (here: its lock held by the test).
    std::fs::write(&main, &text).expect("write");
    let out = krate.join("fptune.out");
    std::fs::create_dir_all(&out).expect("out dir");
    let lock = std::fs::File::create(out.join(".lock")).expect("lock file");
    lock.try_lock().expect("the test takes the lock");
    let run = fptune(&krate, &["--digits", "2"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("another fptune run is writing into") && run.stderr.contains("--out DIR"), "{}", run.stderr);
    assert!(!out.join("cache.json").exists() && !out.join("report.json").exists());
}

#[test]
fn an_original_that_does_not_build_exits_4() {
    let (_dir, krate) = fixture("tune_sum");
    let main = krate.join("src/main.rs");
    let text = std::fs::read_to_string(&main).expect("source");
    std::fs::write(&main, text.replace("(recovered, scaled, ratio)\n    }", "(recovered, scaled, ratio, 1)\n    }")).expect("write");
    let run = fptune(&krate, &["--digits", "2"]);
    assert_eq!(run.code, 4, "{}", run.stderr);
    assert!(run.stderr.contains("does not build"), "{}", run.stderr);
}

#[test]
fn list_shows_the_knobs_and_checks() {
    let (_dir, krate) = fixture("tune_sum");
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-fptune"))
        .args(["fptune", "list", "--manifest-path"])
        .arg(krate.join("Cargo.toml"))
        .output()
        .expect("list runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(text.contains("6 knob(s)") && text.contains("kernel::run::offset") && text.contains("src/main.rs:24:13"), "{text}");
    assert!(text.contains("3 check(s)") && text.contains("recovered"), "{text}");
}

#[test]
fn a_workspace_member_with_a_build_script_and_two_binaries_is_tuned() {
    let (_dir, ws) = fixture("tune_workspace");
    let member = ws.join("member");
    let run = fptune(&member, &["--digits", "2", "-j", "1"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("several binaries") && run.stderr.contains("--bin"), "{}", run.stderr);
    let run = fptune(&member, &["--digits", "2", "-j", "1", "--bin", "member"]);
    assert_eq!(run.code, 0, "stdout:\n{}\nstderr:\n{}", run.stdout, run.stderr);
    let r = report(&member);
    assert_eq!(found(&r), vec![("scale".into(), "f16".into()), ("offset".into(), "f64".into())]);
}

/// `cargo fptune --digits 2 -j 1` on `krate` (scratch copies in `tmp` when given), running,
/// once its stderr has said `stage`: the child, its stderr, and what it said so far.
fn fptune_until(krate: &Path, tmp: Option<&Path>, stage: &str) -> (std::process::Child, std::process::ChildStderr, String) {
    use std::io::Read;
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tune-target");
    let mut command = Command::new(env!("CARGO_BIN_EXE_cargo-fptune"));
    command.args(["fptune", "--digits", "2", "-j", "1", "--manifest-path"]).arg(krate.join("Cargo.toml")).env("CARGO_TARGET_DIR", &target);
    if let Some(tmp) = tmp {
        command.env("TMPDIR", tmp);
    }
    let mut child = command.stderr(std::process::Stdio::piped()).stdout(std::process::Stdio::null()).spawn().expect("spawns");
    let mut stderr = child.stderr.take().expect("stderr");
    let mut seen = String::new();
    let mut buf = [0u8; 256];
    while !seen.contains(stage) {
        let n = stderr.read(&mut buf).expect("reads");
        assert!(n > 0, "fptune ended before `{stage}`: {seen}");
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    (child, stderr, seen)
}

#[test]
fn a_digits_for_name_no_check_has_is_refused_after_the_first_run_as_a_usage_error() {
    let (_dir, krate) = fixture("tune_sum");
    let run = fptune(&krate, &["--digits", "2", "-j", "1", "--digits-for", "recoverd=1"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("--digits-for names `recoverd`, which the reference run never checked") && run.stderr.contains("`recovered`"), "{}", run.stderr);
    assert!(!run.stderr.contains("probing"), "refused before the probe: {}", run.stderr);
}

#[test]
fn a_target_directory_that_cannot_be_written_gives_way_to_a_temporary_one() {
    let (dir, krate) = fixture("tune_sum");
    // A target "directory" that is a file: nothing can be created under it, as under a
    // read-only checkout (which root, running the tests, could write).
    let blocked = dir.path().join("blocked");
    std::fs::write(&blocked, "").expect("written");
    let tmp = tempfile::tempdir().expect("tmp");
    let run = Command::new(env!("CARGO_BIN_EXE_cargo-fptune"))
        .args(["fptune", "--digits", "2", "-j", "1", "--manifest-path"])
        .arg(krate.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &blocked)
        .env("TMPDIR", tmp.path())
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(stderr.contains("blocked/fptune (") && stderr.contains("building in") && stderr.contains("set CARGO_TARGET_DIR to choose"), "{stderr}");
    assert!(std::fs::read_dir(tmp.path()).expect("tmp").flatten().any(|e| e.file_name().to_string_lossy().starts_with("fptune-target-")));
}

#[test]
fn a_corrupt_cache_is_said_on_the_terminal_and_replaced() {
    let (_dir, krate) = fixture("tune_sum");
    std::fs::create_dir_all(krate.join("fptune.out")).expect("created");
    std::fs::write(krate.join("fptune.out/cache.json"), "{ not json").expect("written");
    let run = fptune(&krate, &["--digits", "2", "-j", "1"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("fptune: warning: ignoring the cache") && run.stderr.contains("it is not valid"), "{}", run.stderr);
    let cache = std::fs::read_to_string(krate.join("fptune.out/cache.json")).expect("a cache");
    assert!(serde_json::from_str::<serde_json::Value>(&cache).is_ok(), "replaced by a valid one");
}

/// `chattr` on a tree, undone when dropped.
struct Immutable(PathBuf);

impl Immutable {
    /// Makes `root` immutable (what root's permissions cannot do), or says why not.
    fn new(root: &Path) -> Result<Immutable, String> {
        let out = Command::new("chattr").args(["-R", "+i"]).arg(root).output().map_err(|e| e.to_string())?;
        if !out.status.success() {
            let _ = Command::new("chattr").args(["-R", "-i"]).arg(root).output();
            return Err(String::from_utf8_lossy(&out.stderr).into_owned());
        }
        Ok(Immutable(root.to_path_buf()))
    }
}

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = Command::new("chattr").args(["-R", "-i"]).arg(&self.0).output();
    }
}

#[test]
fn a_read_only_crate_is_tuned_with_its_output_elsewhere_and_left_as_it_was() {
    let (_dir, krate) = fixture("tune_sum");
    let before = common_tree(&krate);
    let hash = |root: &Path| -> Vec<(PathBuf, Vec<u8>)> {
        common_tree(root).into_iter().filter(|p| p.is_file()).map(|p| (p.clone(), std::fs::read(&p).expect("readable"))).collect()
    };
    let contents = hash(&krate);
    let guard = match Immutable::new(&krate) {
        Ok(g) => g,
        Err(why) => {
            eprintln!("skipped: this machine cannot make a tree immutable with chattr ({why})");
            return;
        }
    };
    assert!(std::fs::write(krate.join("probe.txt"), "").is_err(), "the crate is read-only now");
    let (out, tmp) = (tempfile::tempdir().expect("out"), tempfile::tempdir().expect("tmp"));
    let run = Command::new(env!("CARGO_BIN_EXE_cargo-fptune"))
        .args(["fptune", "--digits", "2", "-j", "1", "--out"])
        .arg(out.path())
        .arg("--manifest-path")
        .arg(krate.join("Cargo.toml"))
        .env_remove("CARGO_TARGET_DIR")
        .env("TMPDIR", tmp.path())
        .output()
        .expect("runs");
    drop(guard);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(stderr.contains("building in") && stderr.contains("set CARGO_TARGET_DIR to choose"), "{stderr}");
    assert!(out.path().join("report.json").is_file());
    assert_eq!(common_tree(&krate), before);
    assert_eq!(hash(&krate), contents, "the crate's files are byte for byte as they were");
    // Only the builds' directory is left in the temporary directory: no scratch copy.
    let left: Vec<String> = std::fs::read_dir(tmp.path()).expect("tmp").flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    assert!(left.iter().all(|n| n.starts_with("fptune-target-")), "{left:?}");
}

#[test]
fn an_interrupted_re_check_keeps_the_searchs_runs_for_the_next_run() {
    use std::io::Read;
    let (_dir, krate) = fixture("tune_sum");
    let (mut child, mut stderr, mut seen) = fptune_until(&krate, None, "re-checking");
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let _ = stderr.read_to_string(&mut seen);
    child.wait().expect("waits");
    let cache: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(krate.join("fptune.out/cache.json")).expect("a cache")).expect("JSON");
    assert!(cache["runs"].as_array().is_some_and(|r| r.len() > 1), "{seen}");
    let again = fptune(&krate, &["--digits", "2", "-j", "1", "--json"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let r: serde_json::Value = serde_json::from_str(&again.stdout).expect("JSON");
    assert!(r["counts"]["cached"].as_u64().is_some_and(|n| n > 0) && r["counts"]["executions"] == 0, "{}", r["counts"]);
}

#[test]
fn ctrl_c_stops_cleanly_and_removes_the_scratch_dirs() {
    use std::io::Read;
    let (_dir, krate) = fixture("tune_sum");
    let tmp = tempfile::tempdir().expect("tmp");
    let (mut child, mut stderr, mut seen) = fptune_until(&krate, Some(tmp.path()), "probing");
    assert!(std::fs::read_dir(tmp.path()).expect("tmp").count() > 0, "a scratch dir exists while tuning");
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let status = child.wait().expect("waits");
    let _ = stderr.read_to_string(&mut seen);
    assert_eq!(status.code(), Some(5), "{seen}");
    let left: Vec<_> = std::fs::read_dir(tmp.path()).expect("tmp").map(|e| e.expect("entry").path()).collect();
    assert!(left.is_empty(), "scratch dirs left behind: {left:?}");
}

#[test]
fn an_original_that_never_ends_is_stopped_at_the_timeout_and_told_with_the_limit() {
    // Waits for an argument it never gets, as a program reading its input file might.
    let main = "fn main() {\n    let x: f64 = 1.5;\n    while std::env::args().count() < 2 {\n        std::thread::sleep(std::time::Duration::from_millis(50));\n    }\n    println!(\"{x}\");\n}\n";
    let (_dir, krate) = inline_crate("waits", main, &[]);
    let run = fptune(&krate, &["--auto", "--digits", "2", "-j", "1", "--timeout", "3"]);
    assert_eq!(run.code, 4, "{}", run.stderr);
    assert!(run.stderr.contains("did not end within 3 s (--timeout)") && run.stderr.contains("--args"), "{}", run.stderr);
}

/// A crate in a fresh temporary directory, outside any workspace: `main.rs` and more files.
fn inline_crate(name: &str, main: &str, files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new().prefix("fptune-test-user-").tempdir().expect("temp dir");
    let krate = dir.path().canonicalize().expect("canonical").join(name);
    std::fs::create_dir_all(krate.join("src")).expect("created");
    let manifest = format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n");
    std::fs::write(krate.join("Cargo.toml"), manifest).expect("written");
    std::fs::write(krate.join("src/main.rs"), main).expect("written");
    for (rel, text) in files {
        let path = krate.join(rel);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("created");
        std::fs::write(path, text).expect("written");
    }
    (dir, krate)
}

#[test]
fn programs_run_in_a_copy_of_the_package_and_what_they_write_stays_there() {
    // Reads its input and appends to a history, both relative to its working directory: each
    // run must find the input as the user left it, and the user's tree must get no history.
    let main = r#"use std::io::Write;
fn main() {
    let text = std::fs::read_to_string("data/input.txt").expect("the input");
    let runs = text.lines().count();
    let x: f64 = text.lines().next().unwrap().parse().unwrap();
    std::fs::OpenOptions::new().append(true).open("data/input.txt").unwrap().write_all(b"9.0\n").unwrap();
    std::fs::create_dir_all("results").unwrap();
    std::fs::write("results/history.txt", format!("{runs}")).unwrap();
    let y: f64 = x * 3.0 + runs as f64;
    println!("{y}");
}
"#;
    let (_dir, krate) = inline_crate("writes_files", main, &[("data/input.txt", "1.5\n")]);
    let before = common_tree(&krate);
    let run = fptune(&krate, &["--auto", "--digits", "3", "-j", "1"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    // Every run read one line: y = 5.5 in each.
    let r = report(&krate);
    assert_eq!(r["final_check"]["meets_requirement"], true, "{}", r["final_check"]);
    assert!(r["reference"][0]["samples"][0].as_f64().is_some_and(|y| (y - 5.5).abs() < 1e-12), "{}", r["reference"]);
    let mut after = common_tree(&krate);
    after.retain(|p| !p.starts_with(krate.join("fptune.out")));
    assert_eq!(before, after, "the program's runs wrote into the user's tree");
    assert_eq!(std::fs::read_to_string(krate.join("data/input.txt")).expect("kept"), "1.5\n");
}

#[test]
fn files_above_the_package_and_cargo_config_env_are_seen_as_cargo_build_sees_them() {
    // `include_str!` of a file beside the package and `[env]` of the parent's cargo config:
    // both need the scratch copies to see the package's surroundings.
    let main = r#"fn main() {
    let text = include_str!("../../shared.txt");
    let x: f64 = text.trim().parse().unwrap();
    let scale: f64 = env!("FPTUNE_TEST_SCALE").parse().unwrap();
    println!("{}", x * scale / 3.0);
}
"#;
    let (dir, krate) = inline_crate("reaches_up", main, &[]);
    let parent = krate.parent().expect("a parent");
    std::fs::write(parent.join("shared.txt"), "1.25\n").expect("written");
    std::fs::create_dir_all(parent.join(".cargo")).expect("created");
    std::fs::write(parent.join(".cargo/config.toml"), "[env]\nFPTUNE_TEST_SCALE = \"2.5\"\n").expect("written");
    let run = fptune(&krate, &["--auto", "--digits", "3", "-j", "1"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let r = report(&krate);
    assert!(r["reference"][0]["samples"][0].as_f64().is_some_and(|y| (y - 1.25 * 2.5 / 3.0).abs() < 1e-12), "{}", r["reference"]);
    drop(dir);
}

#[test]
fn a_crate_that_does_not_compile_is_said_so_under_auto_not_knobless() {
    let (_dir, krate) = inline_crate("broken_auto", "fn main() {\n    let x: f64 = \"1.5\";\n    println!(\"{x}\");\n}\n", &[]);
    let run = fptune(&krate, &["--auto", "--digits", "3", "-j", "1"]);
    assert_eq!(run.code, 4, "{}", run.stderr);
    assert!(run.stderr.contains("does not build") && run.stderr.contains("mismatched types"), "{}", run.stderr);
}

fn common_tree(root: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(root).sort_by_file_name().into_iter().map(|e| e.expect("entry").into_path()).collect()
}

#[test]
fn an_output_directory_holding_the_users_files_is_refused_before_anything_is_written() {
    let (_dir, krate) = fixture("tune_sum");
    let before = common_tree(&krate);
    for command in [&["fptune", "--digits", "2", "--out", "."][..], &["fptune", "batch", "--digits", "2", "--out", ".", "."]] {
        let run = Command::new(env!("CARGO_BIN_EXE_cargo-fptune")).args(command).current_dir(&krate).output().expect("runs");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{command:?}: {stderr}");
        assert!(stderr.contains("holds files fptune did not write (`Cargo.toml`"), "{stderr}");
        let after = common_tree(&krate);
        assert_eq!(before, after, "{command:?} wrote into the crate");
    }
}

#[test]
fn options_choose_the_ladder_the_requirements_the_output_and_keep_scratch_dirs() {
    let (_dir, krate) = fixture("tune_sum");
    let out = tempfile::tempdir().expect("out dir");
    let tmp = tempfile::tempdir().expect("tmp");
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tune-target");
    let run = Command::new(env!("CARGO_BIN_EXE_cargo-fptune"))
        .args(["fptune", "--digits", "2", "-j", "1", "--target", "bf16", "--digits-for", "recovered=1", "--seed", "7"])
        .arg("--out")
        .arg(out.path())
        .arg("--leak-dirs")
        .arg("--manifest-path")
        .arg(krate.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .env("TMPDIR", tmp.path())
        .output()
        .expect("runs");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("report.json")).expect("report in --out")).expect("JSON");
    assert_eq!(r["ladder"], serde_json::json!(["f64", "f32", "bf16"]));
    assert_eq!(r["digits_for"]["recovered"], 1.0);
    assert_eq!(r["seed"], 7);
    // `half` is exact in bfloat16.
    let formats: Vec<String> = found(&r).into_iter().map(|(_, f)| f).collect();
    assert_eq!(formats[0], "bf16");
    assert!(!krate.join("fptune.out").exists(), "--out moves the output");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout.contains(&format!("cargo fptune apply --out {} --manifest-path {}", out.path().display(), krate.join("Cargo.toml").display())),
        "{stdout}"
    );
    assert!(std::fs::read_dir(tmp.path()).expect("tmp").count() > 0, "--leak-dirs keeps the scratch copies");
}

#[test]
fn batch_tunes_each_requirement_once_per_run_and_writes_tables_and_charts() {
    let (dir, krate) = fixture("tune_sum");
    let missing = dir.path().join("no_such_crate");
    let out = dir.path().join("batch");
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tune-target");
    let run = Command::new(env!("CARGO_BIN_EXE_cargo-fptune"))
        .args(["fptune", "batch", "-j", "1", "--digits", "1..=3,17", "--json", "--out"])
        .arg(&out)
        .arg(&krate)
        .arg(&missing)
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .expect("cargo-fptune runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    // The crate that cannot be read fails the batch (usage), after the other one was tuned.
    assert_eq!(run.status.code(), Some(2), "{stdout}\n{}", String::from_utf8_lossy(&run.stderr));
    let tables: serde_json::Value = serde_json::from_str(&stdout).expect("--json prints the tables");
    assert_eq!(tables.as_array().map(Vec::len), Some(2));
    let (table, bad) = (&tables[0], &tables[1]);
    assert!(bad["error"].as_str().is_some_and(|e| e.contains("cargo metadata")), "{bad}");
    assert_eq!(bad["package"], "no_such_crate", "a missing crate is titled by its own name");

    assert_eq!(table["package"], "tune_sum");
    let rows = table["rows"].as_array().expect("rows");
    assert_eq!(rows.iter().map(|r| r["digits"].as_f64().expect("digits")).collect::<Vec<_>>(), [1.0, 2.0, 3.0, 17.0]);
    for row in &rows[..3] {
        assert_eq!(row["status"], "tuned", "{row}");
        assert_eq!((&row["dsa_recheck_valid"], &row["native_valid"]), (&true.into(), &true.into()), "{row}");
        let dir = out.join("tune_sum").join(row["report"].as_str().expect("a report"));
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).expect("report.json")).expect("JSON");
        assert_eq!(report["digits"], row["digits"]);
        assert_eq!(report["census"], row["census"], "the table and the report agree");
    }
    // The same configuration as a single run finds, for 2 digits (see the first test).
    assert_eq!(rows[1]["census"], serde_json::json!([4, 1, 1]));
    // Later requirements judge earlier runs again instead of running them again.
    assert!(rows[1]["from_cache"].as_u64() > Some(0) && rows[2]["from_cache"].as_u64() > Some(0), "{rows:?}");
    assert!(rows[3]["status"].as_str().is_some_and(|s| s.starts_with("exceeds the reference")), "{}", rows[3]);

    for name in ["table.md", "table.csv", "table.json", "chart.svg", "chart.png"] {
        let path = out.join("tune_sum").join(name);
        assert!(std::fs::metadata(&path).is_ok_and(|m| m.len() > 0), "{}", path.display());
    }
    let md = std::fs::read_to_string(out.join("tune_sum/table.md")).expect("table.md");
    assert!(md.contains("| 2 | 4-1-1 |"), "{md}");
    let summary = std::fs::read_to_string(out.join("summary.md")).expect("summary.md");
    assert!(summary.contains("tune_sum/chart.png") && summary.contains("no_such_crate"), "{summary}");
}

// ----------------------------------------------------------------------------------------------
// Code written the way people write it: each failure class of third-party code, in a crate of a
// few lines, tuned or refused with its reason.
// ----------------------------------------------------------------------------------------------

fn knob<'a>(r: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    r["knobs"].as_array().expect("knobs").iter().find(|k| k["name"] == name).unwrap_or_else(|| panic!("no knob `{name}`: {r}"))
}

fn evidence(k: &serde_json::Value) -> &str {
    k["evidence"].as_str().unwrap_or_default()
}

/// A copy of fixture `name` tuned with `args`, which must succeed: the copy, the run, the report.
fn tuned_fixture(name: &str, args: &[&str]) -> (tempfile::TempDir, PathBuf, Run, serde_json::Value) {
    let (dir, krate) = fixture(name);
    let run = fptune(&krate, args);
    assert_eq!(run.code, 0, "stdout:\n{}\nstderr:\n{}", run.stdout, run.stderr);
    let r = report(&krate);
    (dir, krate, run, r)
}

#[test]
fn untuned_code_whose_types_rustc_infers_meets_knobs_and_each_pin_says_where() {
    // A caller's buffer, `fold` from a literal, a method of a suffixed literal, `f64::from`,
    // `.into()`, a `&dyn Fn`, a tuple struct and `Result`.
    let (_dir, _krate, _run, r) = tuned_fixture("styles_marked", &["--digits", "3"]);
    assert_eq!(r["counts"]["compilations_failed"], 0, "{}", r["counts"]);
    assert_ne!(knob(&r, "total")["found"], "f64", "{r}");
    // `out` meets the caller's `[0.0f64; 2]`, `floor` the untuned tuple struct's field: both
    // stay, with the place and what to do.
    for (name, line) in [("out", "src/main.rs:28"), ("floor", "src/main.rs:23")] {
        let k = knob(&r, name);
        assert_eq!(k["found"], "f64");
        assert!(evidence(k).contains(line) && evidence(k).contains("#[tune]"), "{k}");
    }
    assert_eq!(r["final_check"]["meets_requirement"], true, "{}", r["final_check"]);
}

#[test]
fn marks_beside_literals_written_0_dot_and_untyped_knob_locals_build_natively_and_tune() {
    let (_dir, krate, _run, r) = tuned_fixture("marked_literals", &["--digits", "3"]);
    assert_eq!(r["counts"]["compilations_failed"], 0, "{}", r["counts"]);
    assert_eq!(knob(&r, "e")["found"], "f16", "{r}");
    // `#[tune] let mut pkm1 = z;`: a knob of the type rustc infers, written in the patch.
    assert_eq!(knob(&r, "pkm1")["declared"], "f64");
    let patch = std::fs::read_to_string(krate.join("fptune.out/tuned.patch")).expect("patch");
    assert!(patch.contains("let mut pkm1: "), "{patch}");
}

#[test]
fn knob_fields_built_by_knob_arithmetic_in_constructors_are_not_pinned() {
    let (_dir, _krate, _run, r) = tuned_fixture("knob_fields", &["--digits", "3"]);
    for k in r["knobs"].as_array().expect("knobs") {
        assert_ne!(k["found"], "f64", "{k}");
        assert!(!evidence(k).contains("requires its type to stay"), "{k}");
    }
    // `V2(0.0, 0.0)` in `main` gives the fields a literal: 32 bits at least, said with the place.
    let e = evidence(knob(&r, "0"));
    assert!(e.contains("float literal") && e.contains("(at src/main.rs:40)"), "{e}");
}

#[test]
fn a_marked_return_value_of_a_free_function_is_a_knob() {
    let (_dir, _krate, _run, r) = tuned_fixture("return_knob", &["--digits", "3"]);
    let norm = knob(&r, "norm");
    assert_eq!(norm["kind"], "return", "{norm}");
    assert_eq!(norm["found"], "f32", "{norm}");
    assert_eq!(r["counts"]["compilations_failed"], 0, "{}", r["counts"]);
}

#[test]
fn zero_touch_tunes_a_crate_without_markers_or_dependency_and_says_every_fallback() {
    let (_dir, krate) = fixture("styles_zero_touch");
    let manifest = std::fs::read_to_string(krate.join("Cargo.toml")).expect("manifest");
    assert!(!manifest.contains("fptune"));
    let run = fptune(&krate, &["--auto", "--digits", "3"]);
    assert_eq!(run.code, 0, "stdout:\n{}\nstderr:\n{}", run.stdout, run.stderr);
    let r = report(&krate);
    assert!(r["knobs"].as_array().expect("knobs").len() >= 15, "{r}");
    // Every printed float is a checked result.
    assert_eq!(r["reference"].as_array().expect("reference").len(), 9, "{}", r["reference"]);
    // `cubic` called with fifteen literals: rustc names one ambiguous literal a build, and the
    // conversion goes on for as many rounds as it finds heals.
    let a = r["knobs"].as_array().expect("knobs").iter().find(|k| k["scope"] == "cubic" && k["name"] == "a").expect("cubic::a");
    assert_ne!(a["found"], "f64", "{a}");
    assert_eq!(r["final_check"]["meets_requirement"], true, "{}", r["final_check"]);
    // `let k: f64 = 2i32.into()`: std has `From<i32>` for f64 only.
    assert!(evidence(knob(&r, "k")).contains("From<i32>"), "{r}");
    // A single-build fallback is said on the terminal, not only in the report.
    for w in r["warnings"].as_array().expect("warnings") {
        let w = w.as_str().expect("text");
        if w.starts_with("no single build") {
            assert!(run.stderr.contains(w), "{w}\n{}", run.stderr);
        }
    }
    // The user's tree is untouched, and the patch adds nothing the crate cannot build with.
    assert_eq!(std::fs::read_to_string(krate.join("Cargo.toml")).expect("manifest"), manifest);
}

#[test]
fn const_fns_and_tuple_lets_are_tuned_and_applied_code_keeps_its_printed_columns() {
    let (_dir, krate, run, r) = tuned_fixture("const_fns", &["--auto", "--digits", "2"]);
    assert_eq!(r["counts"]["compilations_failed"], 0, "{}\n{}", r["counts"], run.stderr);
    assert_eq!(r["counts"]["single_build"], true, "{}\n{}", r["counts"], run.stderr);
    let scoped = |scope: &str, name: &str| {
        r["knobs"].as_array().expect("knobs").iter().find(|k| k["scope"] == scope && k["name"] == name).unwrap_or_else(|| panic!("no knob {scope}::{name}: {r}")).clone()
    };
    // A `const fn`'s parameters and return values are knobs; the fields its constructor fills
    // are no longer pinned at `f64`. Natively the body stays `const` and as written, so a
    // literal argument keeps them at 32 bits at least, which the report says.
    for (scope, name) in [("Complex::new", "re"), ("Complex", "re"), ("Complex::norm2", "norm2"), ("scaled", "x")] {
        let k = scoped(scope, name);
        assert_eq!(k["found"], "f32", "{k}");
        assert!(evidence(&k).contains("float literal"), "{k}");
    }
    // `let (lo, hi) = bounds(&xs)`: the tuple follows `bounds`' return knob, which goes to 16 bits.
    assert_eq!(scoped("bounds", "bounds")["found"], "f16", "{r}");
    assert_eq!(scoped("mean", "mean")["found"], "f16", "{r}");
    // Applied, it builds and prints its table in the original's columns: a 16-bit value's
    // `{:<12.3E}` and `{:>10.2e}` keep their width and precision.
    let original = cargo_run(&krate);
    let apply = apply_in(&krate);
    assert!(apply.status.success(), "{}", String::from_utf8_lossy(&apply.stderr));
    let tuned = cargo_run(&krate);
    assert_ne!(tuned, original, "the lowered values print other digits");
    let columns = |text: &str| -> Vec<Vec<usize>> {
        text.lines().map(|l| l.char_indices().filter(|(_, c)| *c == '|' || *c == 'e' || *c == 'E').map(|(i, _)| i).chain([l.len()]).collect()).collect()
    };
    assert_eq!(columns(&tuned), columns(&original), "original:\n{original}tuned:\n{tuned}");
}

#[test]
fn a_loop_that_stops_at_a_native_fixed_point_is_tuned_with_noisy_order_comparisons_decided_by_the_mean_and_says_so() {
    // Lentz's method stops on `|del - 1| + |del.im| < f64::EPSILON`: under CADNA's comparisons
    // (a noisy difference is equal) the DSA reference never stops; fptune runs it again with
    // noisy order comparisons decided by the mean, and says so.
    let (_dir, _krate, run, r) = tuned_fixture("fixed_point", &["--auto", "--digits", "6"]);
    let said = "the DSA reference failed with CADNA's comparisons";
    assert!(run.stderr.contains(said) && run.stderr.contains("tan: failure to converge"), "{}", run.stderr);
    assert!(r["warnings"].as_array().expect("warnings").iter().any(|w| w.as_str().is_some_and(|w| w.contains(said))), "{}", r["warnings"]);
    // The six inputs and their tangents, each with the digits of a stopped loop.
    let reference = r["reference"].as_array().expect("reference");
    assert_eq!(reference.len(), 24, "{}", r["reference"]);
    assert!(reference.iter().all(|v| v["digits"].as_f64().is_some_and(|d| d > 14.0)), "{}", r["reference"]);
    assert_eq!(r["counts"]["single_build"], true, "{}\n{}", r["counts"], run.stderr);
    assert_eq!(r["final_check"]["meets_requirement"], true, "{}", r["final_check"]);
}

#[test]
fn a_routine_generic_over_the_crates_own_float_trait_is_tuned_with_its_candidates_built_and_says_why() {
    let (_dir, _krate, run, r) = tuned_fixture("own_float_trait", &["--auto", "--digits", "4"]);
    let said = "cannot give its knobs the bound `Real`";
    assert!(run.stderr.contains(said), "{}", run.stderr);
    assert!(r["warnings"].as_array().expect("warnings").iter().any(|w| w.as_str().is_some_and(|w| w.contains(said))), "{}", r["warnings"]);
    assert_eq!(r["counts"]["single_build"], false, "{}", r["counts"]);
    assert_eq!(r["counts"]["compilations_failed"], 0, "{}\n{}", r["counts"], run.stderr);
    // `xs` goes to `f32`, for which the crate implements `Real`; not to 16 bits, for which not.
    assert_eq!(knob(&r, "xs")["found"], "f32", "{r}");
    assert_eq!(r["final_check"]["meets_requirement"], true, "{}", r["final_check"]);
}

#[test]
fn zero_touch_tunes_a_2015_crate_of_modules_operators_and_folds_with_no_failed_build() {
    let (_dir, _krate, run, r) = tuned_fixture("styles_zero_touch_2015", &["--auto", "--digits", "3"]);
    // Every printed float (not the `usize`, the `&str` or the `Debug` of a struct).
    assert_eq!(r["reference"].as_array().expect("reference").len(), 10, "{}", r["reference"]);
    assert_eq!(r["final_check"]["meets_requirement"], true, "{}", r["final_check"]);
    // A literal in a tuple struct's constructor follows the lowered field in every candidate
    // build, and the single build compiles in a 2015-edition crate.
    assert_eq!(r["counts"]["compilations_failed"], 0, "{}\n{}", r["counts"], run.stderr);
    assert_eq!(r["counts"]["single_build"], true, "{}\n{}", r["counts"], run.stderr);
    let square = r["knobs"].as_array().expect("knobs").iter().find(|k| k["scope"] == "Square" && k["name"] == "0").expect("Square::0");
    assert_ne!(square["found"], "f64", "{square}");
    // `fold(f64::NEG_INFINITY, f64::max)` over a lowered buffer's items, and `mean` inside an
    // inline module, are tuned like any other code.
    assert_ne!(knob(&r, "mean")["found"], "f64", "{r}");
    // `xs.windows(2).map(|w| ..)`: the closure's parameter follows the buffer (no type of
    // fptune's pins it).
    assert_ne!(knob(&r, "halves")["found"], "f64", "{r}");
    let xs = r["knobs"].as_array().expect("knobs").iter().find(|k| k["scope"] == "halves" && k["name"] == "xs").expect("halves::xs");
    assert_ne!(xs["found"], "f64", "{xs}");
}

#[test]
fn a_library_and_its_binary_in_npb_style_tune_with_no_failed_build() {
    let (_dir, _krate, run, r) = tuned_fixture("styles_lib_and_bin", &["--auto", "--digits", "3"]);
    assert_eq!(r["counts"]["compilations_failed"], 0, "{}\n{}", r["counts"], run.stderr);
    assert_eq!(r["counts"]["single_build"], true, "{}\n{}", r["counts"], run.stderr);
    assert_eq!(r["final_check"]["meets_requirement"], true, "{}", r["final_check"]);
    // The printed floats, not the `m + 1` beside them.
    assert_eq!(r["reference"].as_array().expect("reference").len(), 12, "{}", r["reference"]);
    // A `const` table lent to a slice parameter, and a `static` table of references to `static`
    // tables whose elements are lent: one type with the parameter, and the single build serves
    // (the heal lends a converted copy where the kinds of value differ).
    let rows = knob(&r, "ROWS");
    assert_eq!(rows["unit"], knob(&r, "ROW_1")["unit"], "{r}");
    assert_eq!(knob(&r, "COEFFS")["unit"], knob(&r, "c")["unit"], "{r}");
    assert_eq!(rows["unit"], knob(&r, "c")["unit"], "{r}");
    // `if denom == 0.0 { TINY } else { denom }`: the constant's branch is made stochastic in the single
    // build, whose runs then give the own builds' samples bit for bit (it serves).
    assert_eq!(knob(&r, "TINY")["unit"], knob(&r, "denom")["unit"], "{r}");
    // A `const` table read through `T: From<f64>`: built at 32 bits, rustc refuses the bound.
    let weights = knob(&r, "WEIGHTS");
    assert_eq!(weights["found"], "f64", "{weights}");
    assert!(evidence(weights).contains("the bound `T: From<f32>`"), "{weights}");
    // The binary's requirements are read once the library's are: `impl Stepped<f64>` holds `Time`.
    assert!(evidence(knob(&r, "Time")).contains("it meets `f64`"), "{r}");
    // `let mut q;` assigned in a loop is a knob of the type rustc infers.
    assert_eq!(knob(&r, "q")["kind"], "let", "{r}");
    // `&mut 1.0` lent to a knob parameter: a temporary, 32 bits at least; `-1.0e99` given to a
    // buffer holds it at 64 (rustc refuses the literal at 32 bits).
    assert!(evidence(knob(&r, "seed")).contains("float literal"), "{r}");
    let v = r["knobs"].as_array().expect("knobs").iter().find(|k| k["scope"] == "main" && k["name"] == "v").expect("main::v");
    assert_eq!(v["found"], "f64", "{v}");
}

#[test]
fn a_knob_no_check_depends_on_keeps_its_declared_type_and_is_said_unchecked() {
    let (_dir, krate, run, r) = tuned_fixture("unchecked_knob", &["--digits", "3"]);
    for k in r["knobs"].as_array().expect("knobs").iter().filter(|k| k["name"] == "scale") {
        assert_eq!(k["found"], "f64", "{k}");
        assert!(evidence(k).starts_with("unchecked:"), "{k}");
    }
    assert_ne!(knob(&r, "sum")["found"], "f64", "{r}");
    assert!(run.stderr.contains("change what the program prints but no checked result"), "{}", run.stderr);
    // Asked for, they are tuned as any knob.
    let again = fptune(&krate, &["--digits", "3", "--lower-unchecked"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let r = report(&krate);
    for k in r["knobs"].as_array().expect("knobs").iter().filter(|k| k["name"] == "scale") {
        assert_ne!(k["found"], "f64", "{k}");
    }
}

/// A gallery program (`fixtures/gallery/NAME`, one per style of the ecosystem: issue 44) tuned
/// zero-touch at 3 and 6 digits: no failed build, something lowered at 3 digits, the native
/// re-check met, and the patch applied valid as the corpus bench judges it ([`common::applied`]).
fn gallery(name: &str) {
    let expected = std::fs::read_to_string(common::fixtures_dir().join("gallery").join(name).join("expected.txt")).expect("expected.txt");
    let expected = common::applied::numbers(&expected);
    for digits in [3u32, 6] {
        let (_dir, krate) = fixture(&format!("gallery/{name}"));
        let run = fptune(&krate, &["--auto", "--check-printed", "--digits", &digits.to_string()]);
        assert_eq!(run.code, 0, "{name} at {digits}: stdout:\n{}\nstderr:\n{}", run.stdout, run.stderr);
        let r = report(&krate);
        assert_eq!(r["counts"]["compilations_failed"], 0, "{name}: {}", r["counts"]);
        if digits == 3 {
            assert!(found(&r).iter().any(|(_, f)| f != "f64"), "{name}: nothing lowered at 3 digits:\n{}", run.stdout);
        }
        assert_eq!(r["final_check"]["meets_requirement"], true, "{name}: {}", r["final_check"]);
        let applied = apply_in(&krate);
        assert!(applied.status.success(), "{name}: {}", String::from_utf8_lossy(&applied.stderr));
        let unjudged = common::applied::unjudged_numbers(&krate, &r, &expected);
        let got = common::applied::numbers(&cargo_run(&krate));
        if let Err(e) = common::applied::verdict(&got, &expected, digits, &unjudged) {
            panic!("{name} at {digits} digits, applied: {e}");
        }
    }
}

#[test]
fn gallery_closures_and_fn_pointers() {
    gallery("closures");
}

#[test]
fn gallery_iterator_chains() {
    gallery("iterator_chains");
}

#[test]
fn gallery_a_library_with_a_binary() {
    gallery("lib_and_bin");
}

/// The gallery's programs that build nalgebra, ndarray, num-complex, rand, approx or serde (each
/// a minute of builds per candidate on two cores): `cargo test -p cargo-fptune --test tune --
/// --ignored gallery_heavy`, and the table in BENCHMARKS.md (the corpus bench on the gallery).
#[test]
#[ignore = "minutes per program: run with --ignored, or the corpus bench on the gallery (BENCHMARKS.md)"]
fn gallery_heavy() {
    for name in ["printed_format", "generic_float", "own_matrix", "nalgebra_fixed", "nalgebra_dense", "ndarray_zip", "complex", "rand_seeded", "approx_stop", "serde_state"] {
        gallery(name);
    }
}

#[test]
fn a_foreign_alias_of_a_float_type_is_a_knob_over_its_float() {
    // Issue 44 item 5: `Complex64` as the type of fields, parameters, `let`s and a `Vec`, and as a
    // path (`Complex64::new`, `Complex64 { .. }`), is written as `Complex<f64>`: knobs, lowered.
    let (_dir, _krate, run, r) = tuned_fixture("eco_foreign_alias", &["--auto", "--check-printed", "--digits", "3"]);
    assert_eq!(r["counts"]["compilations_failed"], 0, "{}", r["counts"]);
    for name in ["amp", "rate", "total", "power", "evolve"] {
        let k = knob(&r, name);
        assert!(k["ty"].as_str().is_some_and(|d| d.contains("Complex<f64>")), "{k}");
        assert_ne!(k["found"], "f64", "{k}\n{}", run.stdout);
    }
    assert_eq!(r["final_check"]["meets_requirement"], true, "{}", r["final_check"]);
}

#[test]
fn a_closures_typed_parameters_and_generic_instantiations_are_knobs() {
    // Issue 44 item 4: `|t: f64| ..` and `Rule::<f64>` declare floats; zero-touch marks them. What a parameter
    // meets is said at its place (a bound `Fn(f64) -> f64`, a `fn(f64) -> f64` field of
    // `Rule::<f64>`); one that meets nothing of the kind is lowered.
    let (_dir, _krate, run, r) = tuned_fixture("eco_closure_params", &["--auto", "--check-printed", "--digits", "3"]);
    assert_eq!(r["counts"]["compilations_failed"], 0, "{}", r["counts"]);
    let width = knob(&r, "width");
    assert_eq!(width["kind"], "closure", "{width}");
    assert_ne!(width["found"], "f64", "{width}\n{}", run.stdout);
    // `Rule::<f64> { f: |x: f64| .. }`: the instantiation is a knob (`fptune::knob!`), and the
    // closure coerced to its `fn(F) -> F` shares its type.
    let rule = knob(&r, "Rule");
    assert_eq!(rule["kind"], "instantiation", "{rule}");
    assert_ne!(rule["found"], "f64", "{rule}\n{}", run.stdout);
    assert_eq!(knob(&r, "x")["unit"], rule["unit"], "{}", run.stdout);
    let t = knob(&r, "t");
    assert_eq!(t["kind"], "closure", "{t}");
    assert!(evidence(t).contains("src/main.rs:21"), "{t}");
    assert_eq!(r["final_check"]["meets_requirement"], true, "{}", r["final_check"]);
}

#[test]
fn seeded_draws_and_a_serde_checkpoint_run_under_dsa_and_tune() {
    // rand 0.8's `gen`/`gen_range` and serde's derives over fptune's floats (runtime features
    // `rand` and `serde`, turned on from the lock file): something lowered, nothing failed.
    let (_dir, krate, run, r) = tuned_fixture("eco_rand_serde", &["--auto", "--check-printed", "--digits", "3"]);
    assert_eq!(r["counts"]["compilations_failed"], 0, "{}", r["counts"]);
    assert_ne!(knob(&r, "kick")["found"], "f64", "{}", run.stdout);
    // `rng.gen::<f64>()` is a knob (`fptune::knob!`): drawn at `f32` it would draw another stream,
    // which the search sees as results that change, not as a failed build.
    assert_eq!(knob(&r, "gen")["kind"], "instantiation", "{}", run.stdout);
    assert_eq!(r["final_check"]["meets_requirement"], true, "{}", r["final_check"]);
    let patch = std::fs::read_to_string(krate.join("fptune.out/tuned.patch")).expect("patch");
    assert!(patch.contains(r#"features = ["rand-0.8", "serde"]"#), "{patch}");
}

#[test]
fn an_element_type_known_only_from_an_indexed_store_is_written_and_tunes() {
    // Issue 44 items 1 and 10: `M::new(n)` then `m[i] = x` (E0283 in the stochastic build before
    // the naming build), `let w = geo::C { .. }`, `v = it.collect()`.
    let (_dir, _krate, run, r) = tuned_fixture("eco_index_store", &["--auto", "--check-printed", "--digits", "3"]);
    assert_eq!(r["counts"]["compilations_failed"], 0, "{}", r["counts"]);
    // `m` and `w` are knobs: their types were written (`crate::M<f64>`, `crate::geo::C<f64>`).
    let _ = knob(&r, "w");
    assert_ne!(knob(&r, "m")["found"], "f64", "{}", run.stdout);
    assert_eq!(r["final_check"]["meets_requirement"], true, "{}", r["final_check"]);
}

#[test]
fn a_value_computed_from_several_knobs_couples_them_where_it_meets_a_type() {
    // `x = (0..n).map(|i| (b[i] - s) / a[i][i]).collect()`: the quotient has the widest of the
    // three formats natively, so the probe couples `x` with each, `s` in the middle included (a
    // rule naming one side left it out: builds failed where `s` stayed wider). And a literal
    // array given to `.iter()` follows the knob its items meet (`horner(&c, t)`).
    let (_dir, _krate, run, r) = tuned_fixture("eco_mixed_meet", &["--auto", "--check-printed", "--digits", "3"]);
    assert_eq!(r["counts"]["compilations_failed"], 0, "{}", r["counts"]);
    let in_jacobi = |name: &str| {
        r["knobs"].as_array().expect("knobs").iter().find(|k| k["name"] == name && k["scope"] == "jacobi").unwrap_or_else(|| panic!("no jacobi::{name}"))
    };
    let unit = in_jacobi("x")["unit"].clone();
    for name in ["a", "b", "s"] {
        assert_eq!(in_jacobi(name)["unit"], unit, "jacobi::{name}\n{}", run.stdout);
    }
    let c = r["knobs"].as_array().expect("knobs").iter().find(|k| k["name"] == "c" && k["scope"] == "main").expect("main::c");
    assert_ne!(c["found"], "f64", "{c}\n{}", run.stdout);
    assert_eq!(r["final_check"]["meets_requirement"], true, "{}", r["final_check"]);
}

#[test]
fn a_call_typed_by_its_place_keeps_its_knobs_and_the_applied_crate_runs() {
    // `let h: f64 = cfg.get("h")`, `get` generic in its result: the elaborated build asked for an
    // annotation there (E0283) and --auto found "no knobs"; the call is now written
    // `fptune::typed_by_place!(..)`, in the builds and in the applied code.
    let (_dir, krate, run, r) = tuned_fixture("eco_place_typed", &["--auto", "--check-printed", "--digits", "3"]);
    assert_eq!(r["counts"]["compilations_failed"], 0, "{}", r["counts"]);
    assert_ne!(knob(&r, "h")["found"], "f64", "{}", run.stdout);
    assert_eq!(r["final_check"]["meets_requirement"], true, "{}", r["final_check"]);
    let applied = apply_in(&krate);
    assert!(applied.status.success(), "{}", String::from_utf8_lossy(&applied.stderr));
    let text = std::fs::read_to_string(krate.join("src/main.rs")).expect("main.rs");
    assert!(text.contains("::fptune::typed_by_place!(cfg.get(\"h\"))"), "{text}");
    // Two in one tuple (`let (lo, hi): (f64, f64) = (cfg.get("h"), cfg.get("x0"))`): the tuple
    // is stored part by part, and neither call was written half (an unbalanced `)` before).
    assert_eq!(r["counts"]["compilations_failed"], 0, "{}", r["counts"]);
    assert!(knob(&r, "lo")["found"].is_string() && knob(&r, "hi")["found"].is_string(), "{}", run.stdout);
    assert!(cargo_run(&krate).starts_with("x = 1.02"));
}

#[test]
fn arrays_of_literals_from_a_foreign_macro_follow_their_knobs_in_every_build() {
    // `let a = array![[1.0, ..]]` given to `col_std(&a: &Array2<f64>)`: the probe build could not
    // give the literals the probe type, the declaration's dimension (`_`) stayed unknown and hid
    // the meeting with `col_std`, and the stochastic build's heal held the literals at `f64`: 12 of
    // 14 candidates failed to build. The literals now follow the place (`__rt::relit`).
    let (_dir, _krate, run, r) = tuned_fixture("eco_literal_array", &["--auto", "--check-printed", "--digits", "3"]);
    assert_eq!(r["counts"]["compilations_failed"], 0, "{}\n{}", r["counts"], run.stdout);
    assert_ne!(knob(&r, "a")["found"], "f64", "{}", run.stdout);
    assert_eq!(r["final_check"]["meets_requirement"], true, "{}", r["final_check"]);
}

#[test]
fn a_callables_floats_and_a_tuple_patterns_names_are_knobs() {
    // `rhs: &dyn Fn(f64, f64) -> f64` and `let (mut t, mut y) = (t0, y0)`: the callable's floats
    // were no knob's, so everything it met was pinned at `f64` ("no declaration holds" it), and
    // the tuple pattern was annotated `(f64, f64)` without being a knob, which held the state
    // and the path it is pushed to. Both are knobs now, and lower.
    let (_dir, krate, run, r) = tuned_fixture("eco_callable_tuple", &["--auto", "--check-printed", "--digits", "3"]);
    assert_eq!(r["counts"]["compilations_failed"], 0, "{}\n{}", r["counts"], run.stdout);
    for name in ["rhs", "t", "y", "path"] {
        assert_ne!(knob(&r, name)["found"], "f64", "{name}: {}", run.stdout);
    }
    assert_eq!(r["final_check"]["meets_requirement"], true, "{}", r["final_check"]);
    let applied = apply_in(&krate);
    assert!(applied.status.success(), "{}", String::from_utf8_lossy(&applied.stderr));
    assert!(cargo_run(&krate).starts_with("y(0.0) = 1.0000000000"));
}

#[test]
fn callables_held_in_fields_and_closures_inside_vec_are_knobs() {
    // `f: Box<dyn Fn(f64) -> f64>`, `df: fn(f64) -> f64`, called `(self.f)(x)`, and the closures
    // given to them inside `vec![..]` (whose parameters no knob held: the single build did not
    // compile, and every knob they met stayed `f64`).
    let (_dir, krate, run, r) = tuned_fixture("eco_callable_table", &["--auto", "--check-printed", "--digits", "3"]);
    assert_eq!(r["counts"]["compilations_failed"], 0, "{}\n{}", r["counts"], run.stdout);
    assert!(!run.stderr.contains("no single build"), "{}", run.stderr);
    for name in ["f", "df", "x"] {
        assert_ne!(knob(&r, name)["found"], "f64", "{name}: {}", run.stdout);
    }
    assert_eq!(r["final_check"]["meets_requirement"], true, "{}", r["final_check"]);
    let applied = apply_in(&krate);
    assert!(applied.status.success(), "{}", String::from_utf8_lossy(&applied.stderr));
    assert!(cargo_run(&krate).starts_with("cube: 1.2"));
}

#[test]
fn floats_printed_through_format_strings_are_checked_results() {
    // Issue 44 item 6: `format!` then `join`, the only way the program prints its floats: with
    // `--check-printed` the formatted values are the checked results (it "printed no float"
    // before), and the knobs are lowered as they allow.
    let (_dir, _krate, run, r) = tuned_fixture("eco_format_string", &["--auto", "--check-printed", "--digits", "3"]);
    assert_eq!(r["counts"]["compilations_failed"], 0, "{}", r["counts"]);
    assert!(found(&r).iter().any(|(_, f)| f != "f64"), "{}", run.stdout);
    assert_eq!(r["final_check"]["meets_requirement"], true, "{}", r["final_check"]);
}
