//! `cargo fptune apply`: writes a tuning run's tuned sources into the user's tree, all files or
//! none, and only onto the code the result was found for ([`write_all`], which `cargo fptune
//! mark --write` shares).
//!
//! `report.json` records, for each file tuning changed, the SHA-256 of its original text and of
//! its tuned text (kept under `fptune.out/tuned/`), and the SHA-256 of every input the result
//! depends on: each source file of the package and its manifest (whose
//! `[package.metadata.fptune]` holds settings such as the program's arguments). Apply refuses,
//! naming the files, when an input changed since tuning or a tuned text is not the one tuning
//! wrote; it says "already applied" when every file already holds its tuned text. Writing is
//! staged: every tuned text goes to a temporary file beside its destination (with the
//! destination's permissions) before the first is renamed over its file; should a rename fail,
//! the files already replaced get their original text back, and the error says whether that
//! worked.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// A file tuning changed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileChange {
    /// Relative path.
    pub path: String,
    /// SHA-256 of the text tuning started from.
    pub original_sha256: String,
    /// Where the tuned text is kept, relative to the output directory.
    pub tuned: String,
    /// SHA-256 of the tuned text.
    pub tuned_sha256: String,
}

/// An input of the result: a source file or the manifest, as tuning read it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Input {
    /// Relative path.
    pub path: String,
    /// SHA-256 of its text.
    pub sha256: String,
}

/// SHA-256 of a text, in hex.
pub fn sha256(text: &str) -> String {
    Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// What `apply` did.
#[derive(Debug, PartialEq, Eq)]
pub enum Applied {
    /// These files now hold their tuned text (none: the tuned configuration is the original).
    Wrote(Vec<String>),
    /// Every changed file held its tuned text already.
    Already(Vec<String>),
}

/// Applies the tuning results in `out` to the package at `root`.
///
/// # Errors
///
/// When there are no results, an input changed since tuning, a tuned text is not the one tuning
/// wrote, or a file cannot be written (then no file is left changed, or the error names those
/// that could not be restored).
pub fn apply(root: &Path, out: &Path) -> Result<Applied> {
    let text = std::fs::read_to_string(crate::outdir::RunLayout(out).report_json())
        .with_context(|| format!("no tuning results in {}: run `cargo fptune --digits N` first", out.display()))?;
    // What applying needs, and nothing else: a value the report could not write as a number
    // (an infinite printed float, written `null`) does not stand in the way.
    #[derive(Deserialize)]
    struct ToApply {
        digits: f64,
        files: Vec<FileChange>,
        inputs: Vec<Input>,
    }
    let schema = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v.get("schema").and_then(serde_json::Value::as_u64));
    if let Some(s) = schema.filter(|&s| s != u64::from(crate::report::SCHEMA)) {
        bail!("{}/report.json has schema {s}, this fptune reads {}: tune again", out.display(), crate::report::SCHEMA);
    }
    let report: ToApply = serde_json::from_str(&text).with_context(|| format!("{}/report.json is not one this fptune wrote: tune again", out.display()))?;
    let again = format!("tune again (cargo fptune --digits {})", report.digits);

    // Where each input stands now.
    let read = |rel: &str| std::fs::read_to_string(root.join(rel)).ok();
    let mut changed = Vec::new();
    for input in report.inputs.iter().filter(|i| !report.files.iter().any(|f| f.path == i.path)) {
        if read(&input.path).map(|t| sha256(&t)).as_deref() != Some(input.sha256.as_str()) {
            changed.push(input.path.clone());
        }
    }
    let (mut originals, mut applied) = (Vec::new(), 0);
    for f in &report.files {
        let current = read(&f.path);
        match current.as_deref().map(sha256) {
            Some(h) if h == f.original_sha256 => originals.push(current.unwrap_or_default()),
            Some(h) if h == f.tuned_sha256 => applied += 1,
            _ => changed.push(f.path.clone()),
        }
    }
    if !changed.is_empty() {
        bail!(
            "refusing to apply: {} changed since tuning, and the result was found for the code as it was; {again}",
            changed.join(", ")
        );
    }
    let paths = || report.files.iter().map(|f| f.path.clone()).collect::<Vec<_>>();
    if applied == report.files.len() && !report.files.is_empty() {
        return Ok(Applied::Already(paths()));
    }
    if applied > 0 {
        bail!(
            "refusing to apply: some of {} hold the tuned text and others the original (edited by hand?); restore them, then apply, or {again}",
            paths().join(", ")
        );
    }

    // The tuned texts, as tuning wrote them.
    let mut tuned = Vec::new();
    for f in &report.files {
        let path = out.join(&f.tuned);
        let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}: {again}", path.display()))?;
        if sha256(&text) != f.tuned_sha256 {
            bail!("refusing to apply: {} is not the text tuning wrote (it changed since); {again}", path.display());
        }
        tuned.push(text);
    }
    let files: Vec<Staged> = report
        .files
        .iter()
        .zip(tuned)
        .zip(originals)
        .map(|((f, text), original)| Staged { target: root.join(&f.path), text, original })
        .collect();
    write_all(&files)?;
    Ok(Applied::Wrote(paths()))
}

/// A file to write: its path, its new text, and the text it holds now (put back should a later
/// file of the same [`write_all`] fail).
#[derive(Debug, Clone)]
pub struct Staged {
    /// The file.
    pub target: PathBuf,
    /// Its new text.
    pub text: String,
    /// Its text now.
    pub original: String,
}

/// Writes every file its new text, all or none: each text is staged beside its file first, then
/// the staged files are renamed over theirs; a failed rename puts back the files renamed before
/// it (see the module's doc). `apply` and `mark --write` write the user's tree so.
///
/// # Errors
///
/// When a text cannot be staged (nothing was changed), or a rename fails (the error says whether
/// the files written before it hold their original text again).
pub fn write_all(files: &[Staged]) -> Result<()> {
    let staged = files.iter().map(|f| stage(&f.target, &f.text)).collect::<Result<Vec<_>>>()?;
    commit(files.iter().zip(staged).map(|(f, s)| (f.target.as_path(), s, f.original.as_str())).collect(), |s, t| {
        s.persist(t).map(drop).map_err(|e| e.error)
    })
}

/// A temporary file beside `target` holding `text`, with `target`'s permissions.
fn stage(target: &Path, text: &str) -> Result<tempfile::NamedTempFile> {
    use std::io::Write as _;
    let dir = target.parent().unwrap_or(Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(dir).with_context(|| format!("cannot write beside {}: nothing was changed", target.display()))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.as_file().sync_all())
        .with_context(|| format!("cannot write beside {}: nothing was changed", target.display()))?;
    if let Ok(meta) = std::fs::metadata(target) {
        let _ = file.as_file().set_permissions(meta.permissions());
    }
    Ok(file)
}

/// Renames each staged file over its target (with `persist`); when one fails, puts the original
/// text back into those already replaced.
fn commit(
    files: Vec<(&Path, tempfile::NamedTempFile, &str)>,
    mut persist: impl FnMut(tempfile::NamedTempFile, &Path) -> std::io::Result<()>,
) -> Result<()> {
    let mut done: Vec<(&Path, &str)> = Vec::new();
    for (target, staged, original) in files {
        if let Err(e) = persist(staged, target) {
            let lost: Vec<String> = done
                .iter()
                .filter(|(t, o)| stage(t, o).and_then(|s| persist(s, t).map_err(anyhow::Error::from)).is_err())
                .map(|(t, _)| t.display().to_string())
                .collect();
            let state = if lost.is_empty() {
                "nothing was changed (the files written before it hold their original text again)".to_string()
            } else {
                format!("{} could not be restored and hold the tuned text: `git checkout` them, or apply tuned.patch by hand", lost.join(", "))
            };
            bail!("cannot write {}: {e}; {state}", target.display());
        }
        done.push((target, original));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A package with two source files and a manifest, and an output directory whose report
    /// changes both files.
    fn tuned_package() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let tmp = tempfile::tempdir().expect("a temporary directory");
        let (root, out) = (tmp.path().join("p"), tmp.path().join("p/fptune.out"));
        std::fs::create_dir_all(root.join("src")).expect("created");
        std::fs::create_dir_all(out.join("tuned/src")).expect("created");
        let mut files = Vec::new();
        let mut inputs = Vec::new();
        for (rel, text) in [("Cargo.toml", "[package]\n"), ("src/main.rs", "let x: f64;\n"), ("src/a.rs", "let y: f64;\n"), ("src/b.rs", "mod b;\n")] {
            std::fs::write(root.join(rel), text).expect("written");
            inputs.push(serde_json::json!({ "path": rel, "sha256": sha256(text) }));
            if rel.ends_with(".rs") && rel != "src/b.rs" {
                let t = text.replace("f64", "f32");
                std::fs::write(out.join("tuned").join(rel), &t).expect("written");
                files.push(serde_json::json!({ "path": rel, "original_sha256": sha256(text), "tuned": format!("tuned/{rel}"), "tuned_sha256": sha256(&t) }));
            }
        }
        let report = serde_json::json!({ "schema": crate::report::SCHEMA, "digits": 3.0, "files": files, "inputs": inputs });
        std::fs::write(out.join("report.json"), report.to_string()).expect("written");
        (tmp, root, out)
    }

    fn read(root: &Path, rel: &str) -> String {
        std::fs::read_to_string(root.join(rel)).expect("readable")
    }

    #[test]
    fn apply_writes_every_file_and_a_second_apply_says_it_is_done() {
        let (_tmp, root, out) = tuned_package();
        assert_eq!(apply(&root, &out).expect("applies"), Applied::Wrote(vec!["src/main.rs".into(), "src/a.rs".into()]));
        assert_eq!(read(&root, "src/main.rs"), "let x: f32;\n");
        assert_eq!(read(&root, "src/a.rs"), "let y: f32;\n");
        assert_eq!(apply(&root, &out).expect("nothing to do"), Applied::Already(vec!["src/main.rs".into(), "src/a.rs".into()]));
        let left: Vec<_> = std::fs::read_dir(root.join("src")).expect("src").map(|e| e.expect("entry").file_name()).collect();
        assert_eq!(left.len(), 3, "no temporary file left: {left:?}");
    }

    #[test]
    fn an_input_changed_since_tuning_is_named_and_nothing_is_written() {
        let (_tmp, root, out) = tuned_package();
        std::fs::write(root.join("src/b.rs"), "mod b; // edited\n").expect("written");
        std::fs::write(root.join("Cargo.toml"), "[package]\n[package.metadata.fptune]\nargs = \"9\"\n").expect("written");
        let error = apply(&root, &out).expect_err("refused").to_string();
        assert!(error.contains("Cargo.toml, src/b.rs changed since tuning") && error.contains("tune again"), "{error}");
        assert_eq!(read(&root, "src/main.rs"), "let x: f64;\n");
    }

    #[test]
    fn a_tuned_text_that_is_not_the_one_tuning_wrote_is_refused() {
        let (_tmp, root, out) = tuned_package();
        std::fs::write(out.join("tuned/src/a.rs"), "").expect("emptied");
        let error = apply(&root, &out).expect_err("refused").to_string();
        assert!(error.contains("tuned/src/a.rs is not the text tuning wrote"), "{error}");
        assert_eq!(read(&root, "src/main.rs"), "let x: f64;\n");
        assert_eq!(read(&root, "src/a.rs"), "let y: f64;\n");
    }

    #[test]
    fn a_half_applied_tree_is_refused_with_what_to_do() {
        let (_tmp, root, out) = tuned_package();
        std::fs::write(root.join("src/a.rs"), "let y: f32;\n").expect("written");
        let error = apply(&root, &out).expect_err("refused").to_string();
        assert!(error.contains("hold the tuned text and others the original"), "{error}");
    }

    #[test]
    fn a_failed_rename_puts_back_the_files_written_before_it() {
        let tmp = tempfile::tempdir().expect("a temporary directory");
        let (a, b) = (tmp.path().join("a.rs"), tmp.path().join("b.rs"));
        std::fs::write(&a, "a original").expect("written");
        std::fs::write(&b, "b original").expect("written");
        let staged = vec![(a.as_path(), stage(&a, "a tuned").expect("staged"), "a original"), (b.as_path(), stage(&b, "b tuned").expect("staged"), "b original")];
        let mut calls = 0;
        let error = commit(staged, |s, t| {
            calls += 1;
            if calls == 2 {
                return Err(std::io::Error::other("disk full"));
            }
            s.persist(t).map(drop).map_err(|e| e.error)
        })
        .expect_err("the second rename fails")
        .to_string();
        assert!(error.contains("b.rs: disk full") && error.contains("nothing was changed"), "{error}");
        assert_eq!(std::fs::read_to_string(&a).expect("a"), "a original");
        assert_eq!(std::fs::read_to_string(&b).expect("b"), "b original");
        assert_eq!(std::fs::read_dir(tmp.path()).expect("dir").count(), 2, "no temporary file left");
    }
}
