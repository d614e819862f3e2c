//! fptune's output directories: their layout (every path under `fptune.out/` and a batch's
//! directory is named here, [`RunLayout`], [`BatchLayout`]) and whose they are: fptune writes,
//! replaces and cleans only a directory it made.
//!
//! A run replaces `tuned/`, `report.json` and the logs of its output directory, and a batch its
//! tables: pointed at a directory of the user's (`--out .` in a crate, `--out ~/results`) that
//! would delete or overwrite their files. So an output directory is *claimed* before anything is
//! written into it, and claimed only when it is new, empty, marked by an earlier run (the stamp
//! file [`STAMP`]), directly inside such a directory (a batch's per-crate folders), or holds nothing but
//! names fptune writes (a directory of a version before the stamp). Anything else is refused,
//! naming what is there, and the caller exits as for a usage error.
//!
//! ```text
//! fptune.out/                    a run's (RunLayout)
//!   report.json report.md        the report
//!   tuned.patch tuned/<file>     the tuned sources, as a patch and as files (what apply writes)
//!   mark.patch                   `cargo fptune mark`'s markers, as a patch (what mark --write writes)
//!   logs/<name>.log .jsonl       each build's and run's output, each run's checked values
//!   logs/mark/<name>.log         `cargo fptune mark`'s builds
//!   logs/sources/<file>          the texts every build starts from, where fptune wrote in them
//!   cache.json .lock             the cache of runs; held while a run writes here
//! fptune.batch/                  a batch's (BatchLayout)
//!   summary.md                   every crate's table
//!   <package>/                   the crate's run directory (its logs and cache), and:
//!     table.md .csv .json        its table
//!     chart.svg .png             its chart
//!     digits-<d>/                the run directory of one requirement (report, patch, tuned/)
//! ```

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// The file that marks a directory as fptune's own.
pub const STAMP: &str = ".fptune-output";

/// Which kind of output a directory holds: what an unstamped one may contain to be taken as an
/// earlier fptune run's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `cargo fptune`'s: report, patch, tuned sources, logs, cache.
    Run,
    /// `cargo fptune batch`'s: a summary and a folder per crate.
    Batch,
}

// ----------------------------------------------------------------------------------------------
// The layout
// ----------------------------------------------------------------------------------------------

/// A run's output directory unless `--out` says otherwise: this, next to the package's
/// `Cargo.toml` ([`RunLayout::default_dir`]).
pub const RUN_DEFAULT: &str = "fptune.out";
/// A batch's output directory unless `--out` says otherwise (relative to the working directory).
pub const BATCH_DEFAULT: &str = "fptune.batch";

const LOGS: &str = "logs";
const TUNED: &str = "tuned";
const REPORT_JSON: &str = "report.json";
const REPORT_MD: &str = "report.md";
const PATCH: &str = "tuned.patch";
/// `cargo fptune mark`'s preview.
pub const MARK_PATCH: &str = "mark.patch";
const CACHE: &str = "cache.json";
const LOCK: &str = ".lock";
const SUMMARY: &str = "summary.md";
const TABLE_JSON: &str = "table.json";

/// What a run writes at the top of its output directory.
const RUN_NAMES: &[&str] = &[LOGS, TUNED, REPORT_JSON, REPORT_MD, PATCH, MARK_PATCH, CACHE, LOCK];

/// Every path of a run's output directory (`fptune.out/`).
#[derive(Clone, Copy, Debug)]
pub struct RunLayout<'a>(pub &'a Path);

impl RunLayout<'_> {
    /// The output directory of a run of the package at `package_root`, unless `--out` says
    /// otherwise.
    pub fn default_dir(package_root: &Path) -> PathBuf {
        package_root.join(RUN_DEFAULT)
    }

    /// `logs/`: a log per build and run.
    pub fn logs(self) -> PathBuf {
        self.0.join(LOGS)
    }

    /// `.lock`: held while a run writes into the directory.
    pub fn lock(self) -> PathBuf {
        self.0.join(LOCK)
    }

    /// `cache.json`: the cache of runs.
    pub fn cache(self) -> PathBuf {
        self.0.join(CACHE)
    }

    /// `tuned/`: the tuned sources, by path relative to the package root.
    pub fn tuned(self) -> PathBuf {
        self.0.join(TUNED)
    }

    /// `tuned.patch`.
    pub fn patch(self) -> PathBuf {
        self.0.join(PATCH)
    }

    /// `report.json`.
    pub fn report_json(self) -> PathBuf {
        self.0.join(REPORT_JSON)
    }

    /// `report.md`.
    pub fn report_md(self) -> PathBuf {
        self.0.join(REPORT_MD)
    }

    /// Where the tuned text of the package's file `rel` is, relative to the output directory
    /// (`tuned/<rel>`), as `report.json` records it for apply.
    pub fn tuned_file(rel: &str) -> String {
        format!("{TUNED}/{rel}")
    }

    /// The log named `name` in the logs directory `logs` ([`RunLayout::logs`]): `<name>.log`.
    pub fn log(logs: &Path, name: &str) -> PathBuf {
        logs.join(format!("{name}.log"))
    }

    /// The checked values of the run named `name` in the logs directory `logs`: `<name>.jsonl`.
    pub fn checked(logs: &Path, name: &str) -> PathBuf {
        logs.join(format!("{name}.jsonl"))
    }

    /// `sources/` of the logs directory `logs`: the texts every build starts from, where they
    /// are not the user's.
    pub fn base_sources(logs: &Path) -> PathBuf {
        logs.join("sources")
    }
}

/// Every path of a batch's output directory (`fptune.batch/`).
#[derive(Clone, Copy, Debug)]
pub struct BatchLayout<'a>(pub &'a Path);

impl BatchLayout<'_> {
    /// `summary.md`: every crate's table.
    pub fn summary(self) -> PathBuf {
        self.0.join(SUMMARY)
    }

    /// `<package>/`: a crate's folder, its run directory ([`RunLayout`]) too.
    pub fn crate_dir(self, package: &str) -> PathBuf {
        self.0.join(package)
    }

    /// The name of a crate's table as `ext` (`md`, `csv`, `json`) in its folder.
    pub fn table(crate_dir: &Path, ext: &str) -> PathBuf {
        crate_dir.join(format!("table.{ext}"))
    }

    /// A crate's chart as `ext` (`svg`, `png`) in its folder.
    pub fn chart(crate_dir: &Path, ext: &str) -> PathBuf {
        crate_dir.join(format!("chart.{ext}"))
    }

    /// The name of the folder of one requirement's run in a crate's folder: `digits-<d>`.
    pub fn requirement(digits: f64) -> String {
        format!("digits-{digits}")
    }
}

// ----------------------------------------------------------------------------------------------
// Whose it is
// ----------------------------------------------------------------------------------------------

/// Makes `dir` fptune's output directory, or says why it is not (files of someone else's are in
/// it). Creates it when missing.
///
/// # Errors
///
/// When `dir` holds anything fptune did not write, or it cannot be created or stamped.
pub fn claim(dir: &Path, kind: Kind) -> Result<()> {
    if dir.exists() && !dir.is_dir() {
        bail!("--out {}: this is a file, not a directory; give a directory for fptune's results", dir.display());
    }
    // Its parent too: a batch's folder per crate, inside the batch's directory.
    if dir.ancestors().take(2).any(|d| d.join(STAMP).is_file()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create the output directory {}", dir.display()))?;
        return Ok(());
    }
    if dir.is_dir() {
        let entries = std::fs::read_dir(dir).with_context(|| format!("cannot read the output directory {}", dir.display()))?;
        let mut foreign = Vec::new();
        for entry in entries {
            let entry = entry.with_context(|| format!("cannot read the output directory {}", dir.display()))?;
            if !fptunes(&entry.path(), kind) {
                foreign.push(entry.file_name().to_string_lossy().into_owned());
            }
        }
        if !foreign.is_empty() {
            foreign.sort();
            let shown = foreign.iter().take(4).map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
            let more = if foreign.len() > 4 { format!(" and {} more", foreign.len() - 4) } else { String::new() };
            bail!(
                "--out {}: this directory holds files fptune did not write ({shown}{more}), which its results would \
                 replace or delete; give a new or empty directory (or one an earlier fptune run wrote)",
                dir.display()
            );
        }
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create the output directory {}", dir.display()))?;
    let stamp = dir.join(STAMP);
    std::fs::write(&stamp, "This directory holds fptune's results: fptune may replace and delete what is in it.\n")
        .with_context(|| format!("cannot write {}", stamp.display()))
}

/// Whether an entry of an unstamped output directory is something fptune writes there.
fn fptunes(path: &Path, kind: Kind) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    match kind {
        // `.tmp…`: the cache's temporary file, left by a run that was killed while writing it.
        Kind::Run => RUN_NAMES.contains(&name.as_str()) || name.starts_with(".tmp"),
        // A crate's folder: its tables, or a run's output per requirement.
        Kind::Batch => name == SUMMARY || (path.is_dir() && (path.join(TABLE_JSON).is_file() || path.join(REPORT_JSON).is_file())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runs_layout_is_what_an_unstamped_directory_may_hold() {
        let out = Path::new("/p/fptune.out");
        let layout = RunLayout(out);
        for path in [layout.logs(), layout.lock(), layout.cache(), layout.tuned(), layout.patch(), layout.report_json(), layout.report_md()] {
            assert_eq!(path.parent(), Some(out));
            let name = path.file_name().and_then(|n| n.to_str()).expect("a name");
            assert!(RUN_NAMES.contains(&name), "{name}");
        }
        assert_eq!(RunLayout::default_dir(Path::new("/p")), out);
        assert_eq!(RunLayout::tuned_file("src/a.rs"), "tuned/src/a.rs");
        assert_eq!(RunLayout::log(&layout.logs(), "original"), Path::new("/p/fptune.out/logs/original.log"));
        assert_eq!(BatchLayout::requirement(2.5), "digits-2.5");
    }

    #[test]
    fn a_new_or_empty_directory_is_claimed_and_stamped() {
        let tmp = tempfile::tempdir().expect("a temporary directory");
        let new = tmp.path().join("a/b");
        claim(&new, Kind::Run).expect("a new directory is fptune's");
        assert!(new.join(STAMP).is_file());
        let empty = tmp.path().join("empty");
        std::fs::create_dir(&empty).expect("created");
        claim(&empty, Kind::Batch).expect("an empty directory is fptune's");
        assert!(empty.join(STAMP).is_file());
    }

    #[test]
    fn a_directory_with_the_users_files_is_refused_and_left_as_it_was() {
        let tmp = tempfile::tempdir().expect("a temporary directory");
        std::fs::write(tmp.path().join("Cargo.toml"), "[package]").expect("written");
        std::fs::create_dir(tmp.path().join("src")).expect("created");
        std::fs::write(tmp.path().join("report.md"), "mine").expect("written");
        let error = claim(tmp.path(), Kind::Run).expect_err("refused").to_string();
        assert!(error.contains("`Cargo.toml`, `src`") && error.contains("new or empty directory"), "{error}");
        assert!(!tmp.path().join(STAMP).exists());
        assert_eq!(std::fs::read_to_string(tmp.path().join("report.md")).expect("kept"), "mine");
        let file = tmp.path().join("Cargo.toml");
        assert!(claim(&file, Kind::Run).expect_err("refused").to_string().contains("not a directory"));
    }

    #[test]
    fn an_earlier_runs_directory_and_folders_inside_a_stamped_one_are_claimed() {
        let tmp = tempfile::tempdir().expect("a temporary directory");
        let old = tmp.path().join("fptune.out");
        std::fs::create_dir_all(old.join("logs")).expect("created");
        std::fs::write(old.join("report.json"), "{}").expect("written");
        claim(&old, Kind::Run).expect("what fptune writes, without a stamp");
        std::fs::write(old.join("notes.txt"), "mine").expect("written");
        claim(&old, Kind::Run).expect("stamped now: fptune's");
        claim(&old.join("logs"), Kind::Run).expect("inside fptune's directory");
        std::fs::create_dir_all(old.join("a/b")).expect("created");
        std::fs::write(old.join("a/b/mine.txt"), "").expect("written");
        assert!(claim(&old.join("a/b"), Kind::Run).is_err(), "only a stamped directory's own folders");

        let batch = tmp.path().join("fptune.batch");
        std::fs::create_dir_all(batch.join("hilbert")).expect("created");
        std::fs::write(batch.join("hilbert/table.json"), "{}").expect("written");
        std::fs::write(batch.join("summary.md"), "").expect("written");
        claim(&batch, Kind::Batch).expect("an earlier batch's");
        let other = tmp.path().join("other");
        std::fs::create_dir_all(other.join("data")).expect("created");
        assert!(claim(&other, Kind::Batch).is_err());
    }
}
