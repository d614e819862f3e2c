//! Whose output directory it is: fptune writes, replaces and cleans only a directory it made.
//!
//! A run replaces `tuned/`, `report.json` and the logs of its output directory, and a batch its
//! tables: pointed at a directory of the user's (`--out .` in a crate, `--out ~/results`) that
//! would delete or overwrite their files. So an output directory is *claimed* before anything is
//! written into it, and claimed only when it is new, empty, marked by an earlier run (the stamp
//! file [`STAMP`]), directly inside such a directory (a batch's per-crate folders), or holds nothing but
//! names fptune writes (a directory of a version before the stamp). Anything else is refused,
//! naming what is there, and the caller exits as for a usage error.

use std::path::Path;

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

/// What a run writes at the top of its output directory.
const RUN_NAMES: &[&str] = &["logs", "tuned", "report.json", "report.md", "tuned.patch", "cache.json", ".lock"];

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
        Kind::Batch => name == "summary.md" || (path.is_dir() && (path.join("table.json").is_file() || path.join("report.json").is_file())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
