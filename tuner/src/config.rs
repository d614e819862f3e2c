//! Settings: the command line over `[package.metadata.fptune]` over defaults.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use serde::Deserialize;

use crate::cli::{parse_digits_for, TuneArgs, When};
use crate::model::{FloatFormat, Ladder};

/// `[package.metadata.fptune]` in the user's Cargo.toml.
#[derive(Debug, Default, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Metadata {
    /// Required digits of every checked result.
    pub digits: Option<f64>,
    /// Required digits per checked result name.
    #[serde(default)]
    pub digits_for: BTreeMap<String, f64>,
    /// Binary to run.
    pub bin: Option<String>,
    /// Example to run.
    pub example: Option<String>,
    /// Program arguments.
    pub args: Option<Vec<String>>,
    /// Precision ladder (`ieee`, `bf16`, or a file relative to the package).
    pub target: Option<String>,
    /// Parallel candidates.
    pub jobs: Option<usize>,
    /// Seconds before a candidate is killed.
    pub timeout: Option<f64>,
    /// Seed of the stochastic arithmetic.
    pub seed: Option<u64>,
    /// Output directory, relative to the package.
    pub out: Option<PathBuf>,
    /// Zero-touch: every float declaration is a knob (where no `#[tune]` narrows them).
    pub auto: Option<bool>,
    /// With `auto`, only the declarations in these files or directories (relative to the
    /// package).
    pub auto_in: Option<Vec<String>>,
    /// Every float the program prints is a checked result (also without `auto`).
    pub check_printed: Option<bool>,
    /// Tune knobs that no checked result depends on too.
    pub lower_unchecked: Option<bool>,
    /// The rule of a check by name (`[package.metadata.fptune.checks.energy]`): over the one its
    /// `check!` gives.
    #[serde(default)]
    pub checks: BTreeMap<String, CheckMetadata>,
}

/// `[package.metadata.fptune.checks.NAME]`: the rule the values checked under `NAME` are judged
/// by (`crate::validate::Rule::parse` says what is valid).
#[derive(Debug, Default, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CheckMetadata {
    /// `digits`, `max_rel`, `max_eps_diff` or `rms`.
    pub metric: Option<String>,
    /// The metric's bound (the tolerance of `rms`).
    pub bound: Option<f64>,
    /// `max_rel`'s floor.
    pub floor: Option<f64>,
    /// Whether the DSA digits are required too (default: yes).
    pub dsa_digits: Option<bool>,
}

impl Metadata {
    /// Reads the `fptune` table of a package's metadata (`null` when absent).
    pub fn from_package_metadata(value: &serde_json::Value) -> Result<Metadata> {
        match value.get("fptune") {
            None | Some(serde_json::Value::Null) => Ok(Metadata::default()),
            Some(v) => {
                // Cargo writes a TOML `inf` or `nan` as JSON `null`, which would read as unset.
                let nulls = |v: &serde_json::Value, prefix: &str| -> Vec<String> {
                    v.as_object()
                        .map(|o| o.iter().filter(|(_, x)| x.is_null()).map(|(k, _)| format!("{prefix}{k}")).collect())
                        .unwrap_or_default()
                };
                let mut bad = nulls(v, "");
                if let Some(per) = v.get("digits-for") {
                    bad.extend(nulls(per, "digits-for."));
                }
                if let Some(checks) = v.get("checks").and_then(|c| c.as_object()) {
                    for (name, table) in checks {
                        bad.extend(nulls(table, &format!("checks.{name}.")));
                    }
                }
                if !bad.is_empty() {
                    bail!(
                        "[package.metadata.fptune] in Cargo.toml: `{}` is not a finite number (`inf` and `nan` are not \
                         settings): give a number, or remove the key",
                        bad.join("`, `")
                    );
                }
                serde_json::from_value(v.clone()).context(
                "[package.metadata.fptune] in Cargo.toml is not valid: its keys are digits, digits-for, \
                 bin, example, args, target, jobs, timeout, seed, out, auto, auto-in, check-printed, lower-unchecked, \
                 and the tables checks.NAME (keys metric, bound, floor, dsa-digits)",
                )
            }
        }
    }
}

/// The required digits: one default, and per checked name.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Digits {
    /// For every checked value without its own requirement.
    pub default: f64,
    /// Per `check!` name.
    pub per_name: BTreeMap<String, f64>,
    /// Rules per `check!` name from `[package.metadata.fptune.checks.NAME]`.
    pub checks: BTreeMap<String, crate::validate::Rule>,
}

impl Digits {
    /// The requirement of a checked name.
    pub fn of(&self, name: &str) -> f64 {
        self.per_name.get(name).copied().unwrap_or(self.default)
    }
}

/// Everything a run needs to know, resolved.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Required digits.
    pub digits: Digits,
    /// Precision ladder.
    pub ladder: Ladder,
    /// Parallel candidates.
    pub jobs: usize,
    /// Candidate timeout, if fixed; otherwise derived from the original's run time.
    pub timeout: Option<Duration>,
    /// Seed of the stochastic arithmetic.
    pub seed: u64,
    /// Output directory.
    pub out: PathBuf,
    /// Program arguments.
    pub args: Vec<String>,
    /// Binary to run (`None`: the only one).
    pub bin: Option<String>,
    /// Example to run instead.
    pub example: Option<String>,
    /// JSON output.
    pub json: bool,
    /// Keep scratch dirs.
    pub leak_dirs: bool,
    /// Whether DSA candidates are built with the crate's code unoptimised.
    pub quick_builds: When,
    /// Whether candidates run natively before they run under DSA.
    pub native_first: When,
    /// Whether DSA candidates are runs of one single build.
    pub single_build: When,
    /// The CPU DSA builds are compiled for (`-C target-cpu`); `None`: the target's default.
    pub dsa_cpu: Option<String>,
    /// Zero-touch (`--auto`): every float declaration a knob, where no `#[tune]` marks some.
    pub auto: bool,
    /// With `auto`, only declarations in these paths (files or directories, relative to the
    /// package, `/`-separated); every program file when empty.
    pub auto_in: Vec<String>,
    /// Every float the program prints (`print!`, `println!`, `write!`, `writeln!`) is a checked
    /// result: with `--check-printed`, or with `auto` when the crate has no `check!`.
    pub check_printed: bool,
    /// Knobs no checked result depends on are tuned too (otherwise they keep their declared type).
    pub lower_unchecked: bool,
}

/// A built-in target by name.
fn builtin_target(name: &str) -> Option<&'static str> {
    match name {
        "ieee" => Some(include_str!("../../target-templates/ieee.toml")),
        "bf16" => Some(include_str!("../../target-templates/bf16.toml")),
        "fp8" => Some(include_str!("../../target-templates/fp8.toml")),
        "fp8-e5m2" => Some(include_str!("../../target-templates/fp8-e5m2.toml")),
        "bits" => Some(include_str!("../../target-templates/bits.toml")),
        "bits32" => Some(include_str!("../../target-templates/bits32.toml")),
        "ftz" => Some(include_str!("../../target-templates/ftz.toml")),
        "fp8-h200" => Some(include_str!("../../target-templates/fp8-h200.toml")),
        _ => None,
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TargetFile {
    name: Option<String>,
    formats: Vec<String>,
    /// Every format below the top flushes subnormals (its `-ftz` variant).
    #[serde(default)]
    ftz: bool,
    /// The machine whose matrix units `fptune::dot` models (`h200`, `a100`, ...).
    machine: Option<String>,
}

/// The built-in targets' names, for messages.
const BUILTIN: &str = "ieee, bf16, fp8, fp8-e5m2, fp8-h200, bits, bits32, ftz";

/// Reads a precision ladder: a built-in name or a target file.
pub fn ladder(spec: &str, base: &Path) -> Result<Ladder> {
    let (text, origin) = match builtin_target(spec) {
        Some(t) => (t.to_string(), spec.to_string()),
        None => {
            let path = base.join(spec);
            let text = std::fs::read_to_string(&path).with_context(|| {
                format!("--target {spec}: not a built-in target ({BUILTIN}) and no file {}", path.display())
            })?;
            (text, path.display().to_string())
        }
    };
    let file: TargetFile = toml_edit::de::from_str(&text)
        .with_context(|| format!("target {origin}: expected `formats = [\"f64\", \"f32\", \"f16\"]`"))?;
    let mut formats = Vec::new();
    for (i, f) in file.formats.iter().enumerate() {
        let format = FloatFormat::parse(f).map_err(|e| anyhow!("target {origin}: {e}"))?;
        let format = if file.ftz && i > 0 { FloatFormat::of(format.spec().flushing()) } else { format };
        if !fptune_spec::mixable(format.spec()) {
            bail!(
                "target {origin}: fptune can give a knob `{format}` (fptune::Fx), but a value of it could not meet a value of another format: \
                 use one of f64, f32, f16, bf16, {} (see target-templates/README.md)",
                fptune_spec::MIXABLE.join(", ")
            );
        }
        formats.push(format);
    }
    if formats.len() < 2 {
        bail!("target {origin}: a ladder needs at least two formats, widest first");
    }
    for pair in formats.windows(2) {
        if pair[1].precision() >= pair[0].precision() {
            bail!("target {origin}: formats must get narrower down the ladder ({} then {})", pair[0], pair[1]);
        }
    }
    if let Some(m) = &file.machine {
        if fptune::accel::Machine::parse(m).is_none() {
            bail!("target {origin}: `machine = \"{m}\"` is no machine fptune models: h100, h200, a100, v100 or mi200");
        }
    }
    Ok(Ladder { name: file.name.unwrap_or_else(|| spec.to_string()), formats, machine: file.machine })
}

/// The longest `--timeout`: a week.
const MAX_TIMEOUT: f64 = 7.0 * 24.0 * 3600.0;

/// Merges the command line, the package's metadata and the defaults.
pub fn resolve(cli: &TuneArgs, meta: &Metadata, package_root: &Path) -> Result<Settings> {
    let default = match (cli.digits, meta.digits) {
        (Some(d), _) | (None, Some(d)) => d,
        (None, None) => bail!(
            "how many correct digits must the checked results keep? Give --digits N \
             (or `digits = N` in [package.metadata.fptune])"
        ),
    };
    let digits = |what: String, d: f64| -> Result<()> {
        if !(1.0..=17.0).contains(&d) {
            bail!("{what}: give a number of significant decimal digits between 1 and 17");
        }
        Ok(())
    };
    digits(format!("--digits {default}"), default)?;
    let mut per_name = meta.digits_for.clone();
    for spec in &cli.digits_for {
        let (name, d) = parse_digits_for(spec)?;
        per_name.insert(name, d);
    }
    for (name, &d) in &per_name {
        digits(format!("--digits-for {name}={d}"), d)?;
    }
    let mut checks = BTreeMap::new();
    for (name, c) in &meta.checks {
        let rule = crate::validate::Rule::parse(c.metric.as_deref(), c.bound, c.floor, c.dsa_digits)
            .map_err(|e| anyhow::anyhow!("[package.metadata.fptune.checks.{name}] in Cargo.toml: {e}"))?;
        checks.insert(name.clone(), rule);
    }
    let target = cli.run.target.clone().or_else(|| meta.target.clone()).unwrap_or_else(|| "ieee".into());
    let ladder = ladder(&target, package_root)?;
    let jobs = cli
        .run
        .jobs
        .or(meta.jobs)
        .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    if jobs == 0 {
        bail!("--jobs 0: give at least one job");
    }
    let timeout = cli.run.timeout.or(meta.timeout);
    if let Some(t) = timeout {
        if !(t > 0.0 && t <= MAX_TIMEOUT) {
            bail!("--timeout {t}: give a positive number of seconds, at most {MAX_TIMEOUT} (a week)");
        }
    }
    let args = match (&cli.args, &meta.args) {
        (Some(a), _) => split_args(a)?,
        (None, Some(a)) => a.clone(),
        (None, None) => Vec::new(),
    };
    // Absolute, because the program runs in the package root, not where fptune was started.
    let out = match &cli.out {
        Some(o) => std::path::absolute(o).with_context(|| format!("--out {}: not a usable path", o.display()))?,
        None => meta.out.clone().map(|o| package_root.join(o)).unwrap_or_else(|| crate::outdir::RunLayout::default_dir(package_root)),
    };
    Ok(Settings {
        digits: Digits { default, per_name, checks },
        ladder,
        jobs,
        timeout: timeout.map(Duration::from_secs_f64),
        seed: cli.run.seed.or(meta.seed).unwrap_or(1),
        out,
        args,
        bin: cli.package.bin.clone().or_else(|| meta.bin.clone()),
        example: cli.package.example.clone().or_else(|| meta.example.clone()),
        json: cli.run.json,
        leak_dirs: cli.run.leak_dirs,
        quick_builds: cli.run.quick_builds,
        native_first: cli.run.native_first,
        single_build: cli.run.single_build,
        dsa_cpu: dsa_cpu(cli.run.dsa_cpu.as_deref().unwrap_or("native"))?,
        auto: cli.run.auto || !cli.run.auto_in.is_empty() || meta.auto.unwrap_or(false) || meta.auto_in.is_some(),
        auto_in: if cli.run.auto_in.is_empty() { meta.auto_in.clone().unwrap_or_default() } else { cli.run.auto_in.clone() }
            .into_iter()
            .map(|p| p.trim_start_matches("./").trim_end_matches('/').replace('\\', "/"))
            .collect(),
        check_printed: cli.run.check_printed || meta.check_printed.unwrap_or(false),
        lower_unchecked: cli.run.lower_unchecked || meta.lower_unchecked.unwrap_or(false),
    })
}

/// `--dsa-cpu`: `baseline` is the target's default CPU (no flag); any other name must be one
/// `rustc --print target-cpus` lists (otherwise the first build would fail far from the cause).
fn dsa_cpu(cpu: &str) -> Result<Option<String>> {
    let cpu = cpu.trim();
    if cpu.is_empty() || cpu.contains(char::is_whitespace) {
        bail!("--dsa-cpu {cpu:?}: give `native`, `baseline`, or one CPU name from `rustc --print target-cpus`");
    }
    if cpu != "baseline" && cpu != "native" {
        if let Some(known) = target_cpus() {
            if !known.iter().any(|k| k == cpu) {
                let near: Vec<&str> = known.iter().map(String::as_str).filter(|k| k.starts_with(&cpu[..cpu.len().min(3)])).take(6).collect();
                let hint = if near.is_empty() { String::new() } else { format!(" (some it knows: {})", near.join(", ")) };
                bail!("--dsa-cpu {cpu}: rustc knows no such CPU{hint}; give `native`, `baseline`, or a name from `rustc --print target-cpus`");
            }
        }
    }
    Ok((cpu != "baseline").then(|| cpu.to_string()))
}

/// The CPU names rustc knows for the host target (None when rustc cannot say).
fn target_cpus() -> Option<Vec<String>> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = std::process::Command::new(rustc).args(["--print", "target-cpus"]).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with(char::is_whitespace))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect();
    (!names.is_empty()).then_some(names)
}

/// Splits `--args` like a POSIX shell (quotes and backslashes), without running one.
pub fn split_args(s: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => cur.push(c),
                        None => bail!("--args {s:?}: unclosed single quote"),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c) => cur.push(c),
                            None => bail!("--args {s:?}: trailing backslash"),
                        },
                        Some(c) => cur.push(c),
                        None => bail!("--args {s:?}: unclosed double quote"),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => cur.push(c),
                    None => bail!("--args {s:?}: trailing backslash"),
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_wins_over_the_metadata_which_wins_over_defaults() {
        let meta = Metadata { digits: Some(3.0), jobs: Some(4), seed: Some(9), ..Default::default() };
        let cli = TuneArgs { digits: Some(5.0), ..Default::default() };
        let s = resolve(&cli, &meta, Path::new("/p")).expect("resolves");
        assert_eq!(s.digits.default, 5.0);
        assert_eq!(s.jobs, 4);
        assert_eq!(s.seed, 9);
        assert_eq!(s.ladder, Ladder::ieee());
        assert_eq!(s.out, Path::new("/p/fptune.out"));
    }

    #[test]
    fn a_relative_out_is_taken_from_where_fptune_runs_not_the_package() {
        // The program runs in the package root and writes its checks under `out`: a relative
        // `--out` must not be resolved there.
        let cli = TuneArgs { digits: Some(2.0), out: Some("results/d2".into()), ..Default::default() };
        let s = resolve(&cli, &Metadata::default(), Path::new("/p")).expect("resolves");
        assert!(s.out.is_absolute(), "{}", s.out.display());
        assert_eq!(s.out, std::env::current_dir().expect("a cwd").join("results/d2"));
    }

    #[test]
    fn missing_digits_is_an_error_that_says_what_to_give() {
        let e = resolve(&TuneArgs::default(), &Metadata::default(), Path::new("/p")).expect_err("no digits");
        assert!(e.to_string().contains("--digits N"));
    }

    #[test]
    fn requirements_and_timeouts_out_of_range_are_refused_not_dropped() {
        use crate::cli::RunArgs;
        let refused = |cli: TuneArgs, meta: Metadata| resolve(&cli, &meta, Path::new("/p")).expect_err("refused").to_string();
        let digits = |d: f64| TuneArgs { digits: Some(d), ..Default::default() };
        for d in [0.0001, 0.0, -1.0, 17.5, f64::INFINITY, f64::NAN] {
            assert!(refused(digits(d), Metadata::default()).contains("between 1 and 17"), "{d}");
        }
        for spec in ["det=-5", "det=0", "det=40"] {
            let cli = TuneArgs { digits_for: vec![spec.into()], ..digits(3.0) };
            assert!(refused(cli, Metadata::default()).contains("between 1 and 17"), "{spec}");
        }
        let meta = Metadata { digits_for: [("det".to_string(), 0.0)].into(), ..Default::default() };
        assert!(refused(digits(3.0), meta).contains("--digits-for det=0"));
        for t in [f64::INFINITY, 1e300, f64::NAN, 0.0, -3.0] {
            let cli = TuneArgs { run: RunArgs { timeout: Some(t), ..Default::default() }, ..digits(3.0) };
            assert!(refused(cli, Metadata::default()).contains("give a positive number of seconds"), "{t}");
        }
        // TOML's `inf` and `nan` reach fptune as JSON `null`.
        let v = serde_json::json!({ "fptune": { "timeout": null, "digits-for": { "det": null } } });
        let e = Metadata::from_package_metadata(&v).expect_err("refused").to_string();
        assert!(e.contains("`timeout`, `digits-for.det` is not a finite number"), "{e}");
    }

    #[test]
    fn unknown_metadata_keys_are_refused() {
        let v = serde_json::json!({ "fptune": { "digits": 3, "precision": 2 } });
        let e = Metadata::from_package_metadata(&v).expect_err("unknown key");
        assert!(format!("{e:#}").contains("precision"));
        let v = serde_json::json!({ "fptune": { "digits": 3, "digits-for": { "energy": 5 } } });
        let m = Metadata::from_package_metadata(&v).expect("valid");
        assert_eq!(m.digits_for["energy"], 5.0);
    }

    #[test]
    fn checks_get_rules_in_the_metadata_and_bad_ones_are_refused_with_their_table() {
        let meta = |checks: serde_json::Value| Metadata::from_package_metadata(&serde_json::json!({ "fptune": { "digits": 3, "checks": checks } }));
        let resolved = |checks: serde_json::Value| resolve(&TuneArgs::default(), &meta(checks).expect("valid metadata"), Path::new("/p"));
        let s = resolved(serde_json::json!({
            "energy": { "metric": "max_rel", "bound": 1e-6, "floor": 1e-12, "dsa-digits": false },
            "field": { "metric": "rms", "bound": 1e-4 },
            "grid": { "dsa-digits": false }
        }))
        .expect("resolves");
        use crate::validate::{Metric, Rule};
        assert_eq!(s.digits.checks["energy"], Rule { metric: Metric::MaxRel { bound: 1e-6, floor: 1e-12 }, dsa_digits: false });
        assert_eq!(s.digits.checks["field"], Rule { metric: Metric::Rms { bound: 1e-4 }, dsa_digits: true });
        assert_eq!(s.digits.checks["grid"], Rule { metric: Metric::Digits, dsa_digits: false });
        assert_eq!(crate::validate::Requirement::from(&s.digits).checks, s.digits.checks);
        let refused = |checks: serde_json::Value| format!("{:#}", resolved(checks).expect_err("refused"));
        let e = refused(serde_json::json!({ "energy": { "metric": "relative", "bound": 1e-6 } }));
        assert!(e.starts_with("[package.metadata.fptune.checks.energy] in Cargo.toml: unknown metric `relative`: give `digits`"), "{e}");
        let e = refused(serde_json::json!({ "energy": { "metric": "max_rel" } }));
        assert!(e.contains("checks.energy] in Cargo.toml: `metric = \"max_rel\"` needs `bound = ...`"), "{e}");
        let e = refused(serde_json::json!({ "e": { "metric": "rms", "bound": -1 } }));
        assert!(e.contains("checks.e] in Cargo.toml: `bound = -1` is not a non-negative finite number"), "{e}");
        // An unknown key, and TOML's `nan` (JSON's `null`) in a check's table.
        let e = format!("{:#}", meta(serde_json::json!({ "e": { "metric": "rms", "tolerance": 1e-3 } })).expect_err("unknown key"));
        assert!(e.contains("checks.NAME (keys metric, bound, floor, dsa-digits)") && e.contains("tolerance"), "{e}");
        let e = meta(serde_json::json!({ "e": { "metric": "rms", "bound": null } })).expect_err("nan").to_string();
        assert!(e.contains("`checks.e.bound` is not a finite number"), "{e}");
    }

    #[test]
    fn targets_are_built_in_or_files_and_must_narrow() {
        assert_eq!(ladder("bf16", Path::new(".")).expect("bf16").formats.last(), Some(&FloatFormat::BF16));
        let dir = tempfile::tempdir().expect("dir");
        std::fs::write(dir.path().join("t.toml"), "formats = [\"f64\", \"f32\"]").expect("write");
        assert_eq!(ladder("t.toml", dir.path()).expect("file").formats.len(), 2);
        std::fs::write(dir.path().join("bad.toml"), "formats = [\"f32\", \"f64\"]").expect("write");
        assert!(ladder("bad.toml", dir.path()).is_err());
        assert!(ladder("nope", dir.path()).is_err());
    }

    #[test]
    fn targets_beyond_the_four_formats() {
        let names = |t: &str| ladder(t, Path::new(".")).expect(t).formats.iter().map(|f| f.to_string()).collect::<Vec<_>>().join(" ");
        assert_eq!(names("fp8"), "f64 f32 bf16 e4m3");
        assert_eq!(names("fp8-e5m2"), "f64 f32 bf16 e5m2");
        assert_eq!(names("bits"), "f64 e11m40 e11m30 e11m23 e11m16 e11m10 e11m7 e11m3");
        assert_eq!(names("bits32"), "f64 f32 e8m16 tf32 bf16 e8m3");
        assert_eq!(names("ftz"), "f64 f32-ftz f16-ftz");
        let fp8 = ladder("fp8", Path::new(".")).expect("fp8");
        assert_eq!(fp8.formats[3].rust(), "fptune::E4M3");
        assert_eq!(fp8.formats[3].stochastic(), "::fptune::Stochastic<::fptune::Fx<4, 3, 4>>");
        let dir = tempfile::tempdir().expect("dir");
        std::fs::write(dir.path().join("odd.toml"), "formats = [\"f64\", \"e7m9\"]").expect("write");
        let e = format!("{:#}", ladder("odd.toml", dir.path()).expect_err("not mixable"));
        assert!(e.contains("e7m9") && e.contains("e4m3") && e.contains("could not meet"), "{e}");
        std::fs::write(dir.path().join("typo.toml"), "formats = [\"f64\", \"fp8\"]").expect("write");
        let e = format!("{:#}", ladder("typo.toml", dir.path()).expect_err("no such format"));
        assert!(e.contains("`fp8` is not a format") && e.contains("eXmY"), "{e}");
        std::fs::write(dir.path().join("sat.toml"), "formats = [\"f64\", \"e4m3-sat\"]").expect("write");
        assert_eq!(ladder("sat.toml", dir.path()).expect("saturating").formats[1].rust(), "fptune::Fx<4, 3, 5>");
    }

    #[test]
    fn dsa_builds_are_for_this_machines_cpu_unless_told_otherwise() {
        let with = |cpu: Option<&str>| {
            let mut cli = TuneArgs { digits: Some(2.0), ..Default::default() };
            cli.run.dsa_cpu = cpu.map(str::to_string);
            resolve(&cli, &Metadata::default(), Path::new("/p"))
        };
        assert_eq!(with(None).expect("default").dsa_cpu.as_deref(), Some("native"));
        assert_eq!(with(Some("baseline")).expect("baseline").dsa_cpu, None);
        assert_eq!(with(Some(" znver4 ")).expect("a name").dsa_cpu.as_deref(), Some("znver4"));
        let e = with(Some("nosuchcpu")).expect_err("unknown").to_string();
        assert!(e.contains("rustc knows no such CPU"), "{e}");
        for bad in ["", "-C opt-level=0"] {
            let e = with(Some(bad)).expect_err("not one name");
            assert!(e.to_string().contains("rustc --print target-cpus"), "{e}");
        }
    }

    #[test]
    fn args_split_like_a_shell() {
        assert_eq!(split_args("-n 3 'a b' \"c\\\"d\"").expect("ok"), vec!["-n", "3", "a b", "c\"d"]);
        assert!(split_args("'open").is_err());
    }
}
