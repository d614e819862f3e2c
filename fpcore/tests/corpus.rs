//! The translator on FPBench's own benchmarks (read from `../shared/corpus/fpbench` beside the
//! workspace, skipped when it is absent): how many translate, and whether the programs build,
//! print one finite number per sample, and print the same on every run.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fptune_fpcore::{summary, translate_source, write_package, Options, Outcome, Slugs};

/// How many of the 136 definitions translate: all but the three tensor results, the three
/// loops on `TRUE` and the one whose `:example` input fails its own precondition.
const AT_LEAST_TRANSLATED: usize = 129;

/// A varied handful built and run by the default test: a plain expression, a `let*`, a
/// binary32 `while*`, a binary32 expression, a `!=` precondition, and nested loops with integer
/// counters and binary32/binary80 annotations.
const HANDFUL: &[&str] = &[
    "nmse_example_3_1",
    "instantaneouscurrent",
    "odometry",
    "hypot32",
    "nmse_problem_3_3_3",
    "arclength_of_a_wiggly_function",
];

fn corpus() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/fpbench");
    if dir.is_dir() {
        Some(dir)
    } else {
        println!("skipped: no FPBench corpus at {}", dir.display());
        None
    }
}

fn translate_all(dir: &Path, options: &Options) -> Vec<Outcome> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .expect("the corpus directory is readable")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "fpcore"))
        .collect();
    files.sort();
    let mut slugs = Slugs::default();
    let mut outcomes = Vec::new();
    for file in files {
        let text = fs::read_to_string(&file).expect("an FPCore file is readable");
        let origin = file.display().to_string();
        outcomes.extend(
            translate_source(&origin, &text, &mut slugs, options)
                .expect("the file is S-expressions"),
        );
    }
    outcomes
}

/// A scratch directory under cargo's target directory for tests, emptied of old packages; the
/// programs' build directory beside it is kept between runs.
fn scratch(name: &str) -> (PathBuf, PathBuf) {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let packages = root.join("packages");
    if packages.exists() {
        fs::remove_dir_all(&packages).expect("old packages are removable");
    }
    fs::create_dir_all(&packages).expect("the scratch directory can be made");
    (packages, root.join("target"))
}

/// Builds the package in `dir` in release mode, with `target` as its build directory.
fn build(dir: &Path, target: &Path) -> Result<(), String> {
    let cargo = option_env!("CARGO").unwrap_or("cargo");
    let output = Command::new(cargo)
        .args([
            "build",
            "--release",
            "--quiet",
            "--offline",
            "--manifest-path",
        ])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", target)
        .output()
        .map_err(|e| format!("running cargo: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

/// Runs a built program, killing it after `limit`; its standard output.
fn run(program: &Path, limit: Duration) -> Result<String, String> {
    let mut child = Command::new(program)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("starting {}: {e}", program.display()))?;
    let start = Instant::now();
    loop {
        match child.try_wait().map_err(|e| e.to_string())? {
            Some(_) => break,
            None if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("still running after {} s", limit.as_secs()));
            }
            None => std::thread::sleep(Duration::from_millis(10)),
        }
    }
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(format!(
            "exited with {}: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    String::from_utf8(output.stdout).map_err(|e| e.to_string())
}

/// Whether `stdout` is `samples` lines, each a finite number.
fn check_output(stdout: &str, samples: usize) -> Result<(), String> {
    let lines: Vec<&str> = stdout.lines().collect();
    if lines.len() != samples {
        return Err(format!("{} lines instead of {samples}", lines.len()));
    }
    for line in lines {
        match line.parse::<f64>() {
            Ok(v) if v.is_finite() => {}
            _ => return Err(format!("`{line}` is not a finite number")),
        }
    }
    Ok(())
}

/// Builds and runs the program of `slug` twice; the first run's output.
fn build_and_run_twice(
    packages: &Path,
    target: &Path,
    slug: &str,
    samples: usize,
) -> Result<String, String> {
    build(&packages.join(slug), target)?;
    let program = target.join("release").join(slug);
    let first = run(&program, Duration::from_secs(60))?;
    check_output(&first, samples)?;
    let second = run(&program, Duration::from_secs(60))?;
    if first != second {
        return Err(format!("two runs differ:\n{first}---\n{second}"));
    }
    Ok(first)
}

#[test]
fn most_fpbench_benchmarks_translate_and_a_varied_handful_build_and_print_the_same_finite_numbers()
{
    let Some(dir) = corpus() else { return };
    let options = Options::default();
    let outcomes = translate_all(&dir, &options);
    println!("{}", summary(&outcomes));
    assert_eq!(outcomes.len(), 136, "the corpus has 136 definitions");
    let translated = outcomes.iter().filter(|o| o.result.is_ok()).count();
    assert!(
        translated >= AT_LEAST_TRANSLATED,
        "only {translated} translated"
    );
    for o in &outcomes {
        if let Err(reason) = &o.result {
            assert!(!reason.is_empty(), "{} is skipped without a reason", o.name);
        }
    }

    let (packages, target) = scratch("corpus-handful");
    for slug in HANDFUL {
        let outcome = outcomes
            .iter()
            .find(|o| o.slug == *slug)
            .unwrap_or_else(|| panic!("no benchmark `{slug}`"));
        let package = outcome
            .result
            .as_ref()
            .unwrap_or_else(|e| panic!("`{slug}` is skipped: {e}"));
        write_package(&packages, package).expect("the package is written");
        let output = build_and_run_twice(&packages, &target, slug, options.samples)
            .unwrap_or_else(|e| panic!("`{slug}`: {e}"));
        println!("{slug}: {}", output.lines().collect::<Vec<_>>().join(" "));
    }
}

#[test]
fn the_sample_count_is_the_programs_constant() {
    let Some(dir) = corpus() else { return };
    let options = Options { samples: 3 };
    let outcomes = translate_all(&dir, &options);
    let package = outcomes
        .iter()
        .find(|o| o.slug == "doppler1")
        .and_then(|o| o.result.as_ref().ok())
        .expect("doppler1 translates");
    assert!(package.main_rs.contains("const SAMPLES: usize = 3;"));
}

/// Every translated benchmark builds, runs within a minute, and prints the same finite
/// numbers twice (a few minutes: `cargo test -p fptune-fpcore -- --ignored`).
#[test]
#[ignore = "builds every translated benchmark: minutes"]
fn every_translated_benchmark_builds_and_prints_the_same_finite_numbers() {
    let Some(dir) = corpus() else { return };
    let options = Options::default();
    let outcomes = translate_all(&dir, &options);
    let (packages, target) = scratch("corpus-all");
    let mut failures = Vec::new();
    let mut built = 0;
    for outcome in &outcomes {
        let Ok(package) = &outcome.result else {
            continue;
        };
        write_package(&packages, package).expect("the package is written");
        match build_and_run_twice(&packages, &target, &package.slug, options.samples) {
            Ok(_) => built += 1,
            Err(e) => failures.push(format!("{}: {e}", package.slug)),
        }
    }
    println!(
        "{built} of {} translated benchmarks build and pass",
        outcomes.iter().filter(|o| o.result.is_ok()).count()
    );
    assert!(failures.is_empty(), "failures:\n{}", failures.join("\n"));
}
