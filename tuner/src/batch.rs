//! `cargo fptune batch`: tunes several crates, each for a range of digit requirements, and writes
//! a table and a chart per crate.
//!
//! Each crate is prepared once (original run, probe build, DSA reference: [`lab::prepare`]) and
//! then tuned for each requirement in increasing order ([`lab::tune_for`]) on the same warm
//! workers, with one cache of runs: a configuration run for one requirement is judged again, not
//! run again, for the next ones. A requirement above what the reference itself has is a row that
//! says so, not a failure.
//!
//! Output, under `--out` (default `fptune.batch/`):
//!
//! ```text
//! summary.md                        every crate's table
//! <package>/table.md .csv .json     the table: digits, #half-#single-#double, executions, ...
//! <package>/chart.svg .png          knobs per format (stacked bars) and tuning time (line)
//! <package>/digits-<d>/             the full report of one requirement (report.md, tuned.patch, ...)
//! <package>/logs/, cache.json       candidate logs and the cache of runs
//! ```

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::cli::{BatchArgs, PackageArgs, TuneArgs};
use crate::config::{self, Digits};
use crate::console::Console;
use crate::exit::ExitCode;
use crate::lab::{self, Lab, TuneError};
use crate::model::{census, FloatFormat};
use crate::outdir::BatchLayout;
use crate::report;
use crate::validate::Requirement;
use crate::workspace::Workspace;

/// Version of `table.json`'s layout.
pub const SCHEMA: u32 = 1;

/// Parses a list of digit requirements: numbers, inclusive ranges `a..=b`, half-open ranges
/// `a..b`, separated by commas (`1..=12`, `2,4,6`, `1..=4,8`). Sorted, without repeats.
///
/// # Errors
///
/// When a part is not a whole number of digits from 1 to 17 or a range is empty.
pub fn parse_digits(spec: &str) -> Result<Vec<f64>> {
    let number = |s: &str| -> Result<u32> {
        let n: u32 = s.trim().parse().map_err(|_| anyhow!("`{}` is not a whole number of digits", s.trim()))?;
        if !(1..=17).contains(&n) {
            bail!("{n} digits: give requirements between 1 and 17");
        }
        Ok(n)
    };
    let mut all = Vec::new();
    for part in spec.split(',').filter(|p| !p.trim().is_empty()) {
        let range = if let Some((a, b)) = part.split_once("..=") {
            number(a)?..=number(b)?
        } else if let Some((a, b)) = part.split_once("..") {
            let (a, b) = (number(a)?, number(b)?);
            if b <= a {
                bail!("`{}` is an empty range (did you mean {a}..={b}?)", part.trim());
            }
            a..=b - 1
        } else {
            let n = number(part)?;
            n..=n
        };
        if range.is_empty() {
            bail!("`{}` is an empty range", part.trim());
        }
        all.extend(range);
    }
    if all.is_empty() {
        bail!("--digits `{spec}` names no requirement: give e.g. 1..=12, or 2,4,6");
    }
    all.sort_unstable();
    all.dedup();
    Ok(all.into_iter().map(f64::from).collect())
}

/// One requirement of one crate.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Required digits.
    pub digits: f64,
    /// `tuned`, or why there is no configuration (the requirement exceeds the reference, an
    /// error).
    pub status: String,
    /// Knobs per format: (#half, #single, #double), half counting any 16-bit format.
    pub census: Option<(usize, usize, usize)>,
    /// The format found for each knob, in knob order.
    pub formats: Vec<FloatFormat>,
    /// Candidates built and run for this requirement.
    pub executions: usize,
    /// Candidates that crashed or timed out.
    pub executions_failed: usize,
    /// Candidates judged from runs of earlier requirements (or earlier batches), not run again.
    pub from_cache: usize,
    /// Candidate builds.
    pub compilations: usize,
    /// Of which failed.
    pub compilations_failed: usize,
    /// Wall time of this requirement: search and re-checks.
    pub seconds: Option<f64>,
    /// Configurations found that failed their re-check, so the search ran again.
    #[serde(default)]
    pub rejected: usize,
    /// Whether an independent DSA run (another seed) of the configuration is valid.
    pub dsa_recheck_valid: Option<bool>,
    /// Whether the native build of the configuration meets the requirement.
    pub native_valid: Option<bool>,
    /// Native run time of the original over the tuned one (> 1: the tuned one is faster).
    pub speedup: Option<f64>,
    /// The requirement's report directory, relative to the crate's batch directory.
    pub report: Option<String>,
}

/// The table of one crate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CrateTable {
    /// Layout version ([`SCHEMA`]).
    pub schema: u32,
    /// Package name.
    pub package: String,
    /// Its manifest.
    pub manifest: PathBuf,
    /// Program arguments.
    pub args: Vec<String>,
    /// The ladder.
    pub ladder: Vec<FloatFormat>,
    /// Number of knobs.
    pub knobs: usize,
    /// Number of units (knobs rustc or the user grouped count once).
    pub units: usize,
    /// The fewest exact digits of a checked value of the DSA reference.
    pub reference_digits: Option<f64>,
    /// Seconds spent preparing (original run, probe build, reference, single build).
    pub prepare_seconds: f64,
    /// Builds spent preparing.
    pub prepare_builds: usize,
    /// One row per requirement, in increasing order.
    pub rows: Vec<Row>,
    /// Wall time for the crate.
    pub total_seconds: f64,
    /// Why the crate could not be tuned at all, if so.
    pub error: Option<String>,
}

impl CrateTable {
    fn empty(package: &str, manifest: &Path) -> CrateTable {
        CrateTable {
            schema: SCHEMA,
            package: package.to_string(),
            manifest: manifest.to_path_buf(),
            args: Vec::new(),
            ladder: Vec::new(),
            knobs: 0,
            units: 0,
            reference_digits: None,
            prepare_seconds: 0.0,
            prepare_builds: 0,
            rows: Vec::new(),
            total_seconds: 0.0,
            error: None,
        }
    }

    /// The table in Markdown, with the paper's columns first.
    pub fn markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "### `{}`\n", self.package);
        if let Some(e) = &self.error {
            let _ = writeln!(s, "Not tuned: {e}\n");
            return s;
        }
        let ladder = self.ladder.iter().map(|f| f.short()).collect::<Vec<_>>().join(" -> ");
        let reference = self.reference_digits.map(|d| format!("{d:.1}")).unwrap_or_else(|| "?".into());
        let _ = writeln!(
            s,
            "{} knobs ({} units), ladder {ladder}, arguments {:?}; the DSA reference's least accurate checked value has {reference} exact digits. \
             Preparation (original run, probe build, reference, single build if any): {:.1} s, {} builds.\n",
            self.knobs, self.units, self.args, self.prepare_seconds, self.prepare_builds
        );
        let _ = writeln!(
            s,
            "| digits | #half-#single-#double | executions | from cache | compilations (failed) | time (s) | re-checked: DSA, native | native speedup |"
        );
        let _ = writeln!(s, "|---:|:---:|---:|---:|---:|---:|:---:|---:|");
        for r in &self.rows {
            match r.census {
                Some((h, si, d)) => {
                    let yes = |b: Option<bool>| match b {
                        Some(true) => "yes",
                        Some(false) => "NO",
                        None => "-",
                    };
                    let _ = writeln!(
                        s,
                        "| {} | {h}-{si}-{d} | {} | {} | {} ({}) | {:.1} | {}, {} | {} |",
                        r.digits,
                        r.executions,
                        r.from_cache,
                        r.compilations,
                        r.compilations_failed,
                        r.seconds.unwrap_or(f64::NAN),
                        yes(r.dsa_recheck_valid),
                        yes(r.native_valid),
                        r.speedup.map(|x| format!("{x:.2}x")).unwrap_or_else(|| "-".into()),
                    );
                }
                None => {
                    let _ = writeln!(s, "| {} | {} | | | | | | |", r.digits, r.status);
                }
            }
        }
        s
    }

    /// The table as CSV, one row per requirement.
    ///
    /// # Errors
    ///
    /// When the CSV writer fails.
    pub fn csv(&self) -> Result<String> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record([
            "package", "digits", "status", "half", "single", "double", "executions", "executions_failed", "from_cache",
            "compilations", "compilations_failed", "seconds", "dsa_recheck_valid", "native_valid", "speedup",
        ])?;
        let opt = |x: Option<String>| x.unwrap_or_default();
        for r in &self.rows {
            let (h, si, d) = r.census.map(|(h, s, d)| (h.to_string(), s.to_string(), d.to_string())).unwrap_or_default();
            w.write_record([
                self.package.clone(),
                r.digits.to_string(),
                r.status.clone(),
                h,
                si,
                d,
                r.executions.to_string(),
                r.executions_failed.to_string(),
                r.from_cache.to_string(),
                r.compilations.to_string(),
                r.compilations_failed.to_string(),
                opt(r.seconds.map(|x| format!("{x:.3}"))),
                opt(r.dsa_recheck_valid.map(|b| b.to_string())),
                opt(r.native_valid.map(|b| b.to_string())),
                opt(r.speedup.map(|x| format!("{x:.3}"))),
            ])?;
        }
        let bytes = w.into_inner().map_err(|e| anyhow!("{e}"))?;
        Ok(String::from_utf8(bytes)?)
    }

    /// Writes `table.md`, `table.csv`, `table.json`, `chart.svg` and `chart.png` into `dir`.
    ///
    /// # Errors
    ///
    /// When a file cannot be written.
    pub fn write(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let write = |ext: &str, text: String| {
            let path = BatchLayout::table(dir, ext);
            std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))
        };
        write("md", self.markdown())?;
        write("csv", self.csv()?)?;
        write("json", serde_json::to_string_pretty(self)? + "\n")?;
        if self.error.is_none() {
            crate::chart::draw(self, &BatchLayout::chart(dir, "svg"), &BatchLayout::chart(dir, "png"))?;
        }
        Ok(())
    }
}

/// What a batch produced, and its exit code.
#[derive(Debug)]
pub struct BatchOutcome {
    /// One table per crate, in the order given.
    pub tables: Vec<CrateTable>,
    /// Where they were written.
    pub out: PathBuf,
    /// [`ExitCode::Success`] when every crate was tuned, the code of the first crate's failure
    /// otherwise, [`ExitCode::Interrupted`] after Ctrl-C.
    pub code: ExitCode,
}

/// The manifest of a crate given as a directory or as its `Cargo.toml`.
fn manifest_of(path: &Path) -> PathBuf {
    // A path that is not a manifest names a crate's directory, there or not (a missing one is
    // then said as a missing Cargo.toml, and titled by its own name).
    if path.is_dir() || path.extension().is_none_or(|e| e != "toml") {
        path.join("Cargo.toml")
    } else {
        path.to_path_buf()
    }
}

/// Runs the batch.
///
/// # Errors
///
/// Only for bad arguments (no crate, a bad digit list) and output that cannot be written; a crate
/// that cannot be tuned is a table with its error, and the batch goes on.
pub fn run(args: &BatchArgs) -> Result<BatchOutcome> {
    if args.crates.is_empty() {
        bail!("name the crates to tune: `cargo fptune batch samples/hilbert samples/control --digits 1..=8`");
    }
    let requirements = parse_digits(&args.digits)?;
    let out = std::path::absolute(args.out.clone().unwrap_or_else(|| PathBuf::from(crate::outdir::BATCH_DEFAULT)))
        .context("the output directory is not a usable path")?;
    crate::outdir::claim(&out, crate::outdir::Kind::Batch)?;
    let console = Console::new(args.run.json);
    let mut tables = Vec::new();
    let mut code = ExitCode::Success;
    for (i, path) in args.crates.iter().enumerate() {
        let manifest = manifest_of(path);
        let label = format!("crate {} of {} ({})", i + 1, args.crates.len(), path.display());
        console.stage(&format!("{label}: preparing"));
        let (table, crate_code) = tune_crate(args, &manifest, &out, &requirements, &console, &label);
        table.write(&BatchLayout(&out).crate_dir(&table.package))?;
        tables.push(table);
        if code == ExitCode::Success {
            code = crate_code;
        }
        if crate_code == ExitCode::Interrupted {
            code = ExitCode::Interrupted;
            break;
        }
    }
    std::fs::write(BatchLayout(&out).summary(), summary_markdown(&args.digits, &tables)).context("writing summary.md")?;
    Ok(BatchOutcome { tables, out, code })
}

/// `summary.md`: the requirements as given (`digits`), then every crate's table, each tuned
/// crate's with its chart.
fn summary_markdown(digits: &str, tables: &[CrateTable]) -> String {
    let mut summary = String::from("# fptune batch\n\n");
    let _ = writeln!(summary, "Requirements: {digits}.\n");
    for t in tables {
        summary.push_str(&t.markdown());
        if t.error.is_none() {
            let _ = writeln!(summary, "\n![{0}]({0}/chart.png)\n", t.package);
        }
    }
    summary
}

/// Tunes one crate for every requirement.
fn tune_crate(
    args: &BatchArgs,
    manifest: &Path,
    out: &Path,
    requirements: &[f64],
    console: &Console,
    label: &str,
) -> (CrateTable, ExitCode) {
    let started = Instant::now();
    let fallback_name = manifest
        .parent()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "crate".into());
    let mut table = CrateTable::empty(&fallback_name, manifest);
    let setup = (|| -> Result<_> {
        let package = PackageArgs { manifest_path: Some(manifest.to_path_buf()), ..PackageArgs::default() };
        let ws = Workspace::locate(&package)?;
        let tune_args = TuneArgs {
            package,
            digits: Some(requirements[0]),
            out: Some(BatchLayout(out).crate_dir(&ws.name)),
            run: args.run.clone(),
            ..TuneArgs::default()
        };
        crate::setup::setup_located(ws, &tune_args)
    })();
    let (ws, settings, inv) = match setup {
        Ok(s) => s,
        Err(e) => {
            table.error = Some(format!("{e:#}"));
            return (table, ExitCode::Usage);
        }
    };
    table.package = ws.name.clone();
    table.args = settings.args.clone();
    table.ladder = settings.ladder.formats.clone();
    table.knobs = inv.knobs.len();
    let fail = |table: &mut CrateTable, e: TuneError| -> ExitCode {
        let (code, message) = exit_code(e);
        table.error = Some(message);
        code
    };
    let mut lab = match Lab::new(&settings, &ws, &inv, console) {
        Ok(lab) => lab,
        Err(e) => {
            let code = fail(&mut table, e);
            return (table, code);
        }
    };
    let prepared = match lab::prepare(&mut lab) {
        Ok(p) => p,
        Err(e) => {
            let code = fail(&mut table, e);
            return (table, code);
        }
    };
    table.units = prepared.units.len();
    table.knobs = prepared.knobs;
    table.reference_digits = prepared.reference.iter().map(|r| r.digits).reduce(f64::min);
    table.prepare_seconds = prepared.counts.total_seconds;
    table.prepare_builds = prepared.counts.other_builds;
    for (k, &digits) in requirements.iter().enumerate() {
        console.stage(&format!("{label}: `{}`, {digits} digits ({} of {})", ws.name, k + 1, requirements.len()));
        // The crate's checks keep their own metrics (Cargo.toml's) at every requirement.
        let req = Requirement { checks: settings.digits.checks.clone(), ..Requirement::new(digits) };
        let mut row = Row { digits, ..Row::default() };
        match lab::tune_for(&lab, &prepared, &req) {
            Ok(tuned) => {
                let dir = BatchLayout::requirement(digits);
                let requirement_settings = config::Settings {
                    digits: Digits { default: digits, per_name: Default::default(), checks: req.checks.clone() },
                    out: settings.out.join(&dir),
                    ..settings.clone()
                };
                let written = std::fs::create_dir_all(&requirement_settings.out)
                    .map_err(anyhow::Error::from)
                    .and_then(|()| report::write(&requirement_settings, &ws, &tuned));
                let c = &tuned.counts;
                let f = &tuned.recheck;
                row.status = "tuned".into();
                row.formats = tuned.search.configuration.knob_formats(&tuned.units, tuned.inventory.knobs.len());
                row.census = Some(census(&row.formats));
                row.executions = c.executions;
                row.executions_failed = c.executions_failed;
                row.from_cache = c.cached;
                row.compilations = c.compilations;
                row.compilations_failed = c.compilations_failed;
                row.seconds = Some(c.total_seconds);
                row.rejected = c.rejected;
                row.dsa_recheck_valid = Some(f.dsa_recheck_valid);
                row.native_valid = Some(f.meets_requirement);
                row.speedup = f.tuned_seconds.filter(|&t| t > 0.0).map(|t| f.original_seconds / t);
                match written {
                    Ok(_) => row.report = Some(dir),
                    Err(e) => row.status = format!("tuned, but its report could not be written: {e:#}"),
                }
            }
            Err(TuneError::Requirement(_)) => {
                let best = table.reference_digits.map(|d| format!("{d:.1}")).unwrap_or_default();
                row.status = format!("exceeds the reference ({best} digits)");
            }
            Err(e) => {
                let (code, message) = exit_code(e);
                row.status = format!("failed: {message}");
                if code == ExitCode::Interrupted {
                    table.rows.push(row);
                    table.total_seconds = started.elapsed().as_secs_f64();
                    return (table, code);
                }
            }
        }
        table.rows.push(row);
        // Written after every requirement too, so a batch stopped by force leaves its rows
        // (the caller writes the finished table, and reports a failure to write it).
        table.total_seconds = started.elapsed().as_secs_f64();
        let _ = table.write(&BatchLayout(out).crate_dir(&table.package));
    }
    table.total_seconds = started.elapsed().as_secs_f64();
    (table, ExitCode::Success)
}

/// The exit code and message of a failed tuning.
fn exit_code(e: TuneError) -> (ExitCode, String) {
    match e.into_exit() {
        (code, Some(e)) => (code, format!("{e:#}")),
        (code, None) => (code, "interrupted".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digit_lists_take_ranges_and_lists() {
        assert_eq!(parse_digits("1..=4").expect("ok"), vec![1.0, 2.0, 3.0, 4.0]);
        assert_eq!(parse_digits("1..4").expect("ok"), vec![1.0, 2.0, 3.0]);
        assert_eq!(parse_digits("6,2,4").expect("ok"), vec![2.0, 4.0, 6.0]);
        assert_eq!(parse_digits("1..=3, 8,2").expect("ok"), vec![1.0, 2.0, 3.0, 8.0]);
        assert_eq!(parse_digits("5").expect("ok"), vec![5.0]);
    }

    #[test]
    fn bad_digit_lists_say_what_to_write() {
        let e = |s: &str| parse_digits(s).expect_err("refused").to_string();
        assert!(e("").contains("names no requirement"));
        assert!(e("4..2").contains("empty range"));
        assert!(e("3..3").contains("did you mean 3..=3"));
        assert!(e("0..=3").contains("between 1 and 17"));
        assert!(e("1..=x").contains("`x` is not a whole number"));
        assert!(e("2.5").contains("not a whole number"));
    }

    fn row(digits: f64, census: Option<(usize, usize, usize)>) -> Row {
        Row {
            digits,
            status: if census.is_some() { "tuned".into() } else { "exceeds the reference (3.3 digits)".into() },
            census,
            formats: Vec::new(),
            executions: 7,
            executions_failed: 1,
            from_cache: 2,
            compilations: 7,
            compilations_failed: 0,
            seconds: census.map(|_| 12.25),
            rejected: 0,
            dsa_recheck_valid: census.map(|_| true),
            native_valid: census.map(|_| true),
            speedup: census.map(|_| 1.5),
            report: None,
        }
    }

    fn table() -> CrateTable {
        CrateTable {
            knobs: 5,
            units: 4,
            ladder: vec![FloatFormat::F64, FloatFormat::F32, FloatFormat::F16],
            reference_digits: Some(3.3),
            rows: vec![row(1.0, Some((2, 2, 1))), row(4.0, None)],
            ..CrateTable::empty("kernel", Path::new("kernel/Cargo.toml"))
        }
    }

    #[test]
    fn the_markdown_table_has_the_papers_columns() {
        let md = table().markdown();
        assert!(md.contains("| digits | #half-#single-#double | executions |"), "{md}");
        assert!(md.contains("| 1 | 2-2-1 | 7 | 2 | 7 (0) | 12.2 | yes, yes | 1.50x |"), "{md}");
        assert!(md.contains("| 4 | exceeds the reference (3.3 digits) |"), "{md}");
    }

    #[test]
    fn the_csv_has_a_header_and_a_line_per_requirement() -> Result<()> {
        let csv = table().csv()?;
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with("package,digits,status,half,single,double,executions"));
        assert!(lines[1].starts_with("kernel,1,tuned,2,2,1,7,1,2,7,0,12.250,true,true,1.500"), "{}", lines[1]);
        assert!(lines[2].starts_with("kernel,4,exceeds the reference (3.3 digits),,,"), "{}", lines[2]);
        Ok(())
    }

    #[test]
    fn the_chart_is_written_as_svg_and_a_png_of_its_size() -> Result<()> {
        let dir = tempfile::tempdir()?;
        table().write(dir.path())?;
        let svg = std::fs::read_to_string(dir.path().join("chart.svg"))?;
        assert!(svg.contains("<svg") && svg.contains("required correct digits"), "{svg}");
        let png = std::fs::read(dir.path().join("chart.png"))?;
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        // IHDR: width and height, big-endian, at bytes 16..24.
        let width = u32::from_be_bytes([png[16], png[17], png[18], png[19]]);
        let height = u32::from_be_bytes([png[20], png[21], png[22], png[23]]);
        assert_eq!((width, height), (960, 600));
        for name in ["table.md", "table.csv", "table.json"] {
            assert!(dir.path().join(name).is_file(), "{name}");
        }
        let back: CrateTable = serde_json::from_str(&std::fs::read_to_string(dir.path().join("table.json"))?)?;
        assert_eq!(back, table());
        Ok(())
    }
}

#[cfg(test)]
mod snapshots {
    //! Snapshots of the batch's tables (`table.md`, which the terminal and `summary.md` show too,
    //! and `table.csv`) from a fixed table of samples/hilbert, and of a crate that could not be
    //! tuned, so a change of either shows in review (`src/snapshots/cargo_fptune__batch__snapshots__*.snap`).
    //!
    //! After an intended change of the output, `INSTA_UPDATE=always cargo test -p cargo-fptune --lib
    //! batch::` rewrites the snapshots; review their diff (`git diff tuner/src/snapshots`) before
    //! committing it. Under CI (`CI=true`) a missing or differing snapshot fails and nothing is written.

    use super::*;

    /// A requirement tuned: its census, counts and re-checks.
    fn tuned(digits: f64, census: (usize, usize, usize), executions: usize, from_cache: usize, seconds: f64, speedup: f64) -> Row {
        let (h, s, d) = census;
        let formats = [(h, FloatFormat::F16), (s, FloatFormat::F32), (d, FloatFormat::F64)].iter().flat_map(|&(n, f)| vec![f; n]).collect();
        Row {
            digits,
            status: "tuned".into(),
            census: Some(census),
            formats,
            executions,
            executions_failed: 0,
            from_cache,
            compilations: 0,
            compilations_failed: 0,
            seconds: Some(seconds),
            rejected: 0,
            dsa_recheck_valid: Some(true),
            native_valid: Some(true),
            speedup: Some(speedup),
            report: Some(format!("digits-{digits}")),
        }
    }

    /// `cargo fptune batch samples/hilbert --digits 1..=6,16`: every kind of row (tuned, a
    /// configuration rejected then found again, a native re-check that fails, a failure, a
    /// requirement above the reference). Fixed times, no dates; the manifest's path is relative.
    fn hilbert() -> CrateTable {
        let rejected = Row { rejected: 1, compilations: 4, compilations_failed: 1, executions_failed: 1, ..tuned(4.0, (0, 3, 2), 11, 9, 18.375, 0.97) };
        let native_fails = Row { native_valid: Some(false), speedup: None, ..tuned(5.0, (0, 2, 3), 6, 14, 9.5, 1.0) };
        let failed = Row {
            digits: 6.0,
            status: "failed: the configuration found does not build natively: error[E0308]: mismatched types at src/main.rs:26".into(),
            executions: 3,
            from_cache: 12,
            seconds: Some(7.25),
            ..Row::default()
        };
        let exceeds = Row { digits: 16.0, status: "exceeds the reference (14.0 digits)".into(), ..Row::default() };
        CrateTable {
            args: vec!["3".into()],
            ladder: vec![FloatFormat::F64, FloatFormat::F32, FloatFormat::F16],
            knobs: 5,
            units: 4,
            reference_digits: Some(14.0),
            prepare_seconds: 21.5,
            prepare_builds: 10,
            rows: vec![
                tuned(1.0, (3, 1, 1), 13, 0, 36.6, 1.05),
                tuned(2.0, (1, 3, 1), 4, 11, 3.1, 1.02),
                tuned(3.0, (1, 3, 1), 2, 13, 1.75, 1.05),
                rejected,
                native_fails,
                failed,
                exceeds,
            ],
            total_seconds: 98.4,
            ..CrateTable::empty("hilbert", Path::new("samples/hilbert/Cargo.toml"))
        }
    }

    #[test]
    fn table_md_of_a_crate() {
        insta::assert_snapshot!("table_md", hilbert().markdown());
    }

    #[test]
    fn table_csv_of_a_crate() -> Result<()> {
        insta::assert_snapshot!("table_csv", hilbert().csv()?);
        Ok(())
    }

    /// A crate whose `cargo metadata` failed.
    fn not_tuned() -> CrateTable {
        CrateTable {
            error: Some(
                "cannot read the crate with `cargo metadata`: run cargo fptune in a crate's directory, or give --manifest-path \
                 path/to/Cargo.toml: `cargo metadata` exited with an error: error: manifest path `samples/missing/Cargo.toml` does not exist"
                    .into(),
            ),
            ..CrateTable::empty("missing", Path::new("samples/missing/Cargo.toml"))
        }
    }

    #[test]
    fn table_md_of_a_crate_not_tuned() {
        insta::assert_snapshot!("table_md_not_tuned", not_tuned().markdown());
    }

    #[test]
    fn summary_md() {
        insta::assert_snapshot!("summary_md", summary_markdown("1..=6,16", &[hilbert(), not_tuned()]));
    }
}
