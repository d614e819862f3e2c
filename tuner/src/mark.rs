//! `cargo fptune mark`: writes into the user's sources the markers zero-touch tuning infers
//! (`--auto`, [`crate::auto`]), so that a crate tuned zero-touch can go on with explicit markers
//! (docs/zero-touch.md, "From zero-touch to markers").
//!
//! ```text
//! user's tree --scratch copy (fptune dependency added)--> cargo check: the crate must build
//!   sources::prepare, the program files marked as --auto marks them
//!     (typing build -> elaboration -> markers; native check, edits rustc refuses dropped)
//!   of what it wrote, on the user's text:      kept                           left out
//!     markers                                  `#[fptune::tune]`, `#[tune]`,  `(printed)`
//!                                              `::fptune::knob!(f64)`
//!     a knob's type rustc inferred             `#[tune] let mut s: f64 = 0.0;`
//!     a foreign alias holding a knob's float   `::num_complex::Complex<f64>`
//!     `extern crate fptune;` (2015 roots)      where a marker is written
//!     literals, closure parameters, fields, other bindings' types            the builds' own
//!   native check of the marked texts: where rustc refuses them, a file keeps the other
//!     bindings' types and alias paths too (Keep::Bindings, what apply writes); then it is left
//!     unmarked
//!   + Cargo.toml: the fptune dependency (as tuned.patch writes it), if it has none
//! -> mark.patch in the output directory (nothing else changed); --write: the files, all or none
//! ```
//!
//! `printed` (which records what an item prints, for the tuner's runs with `--check-printed`) is
//! left out as `apply` leaves it out: the user-facing marker is `#[fptune::tune]`. Types written
//! only so that fptune's builds infer nothing are left out too: the native expansion of a marker
//! leaves the user's inference as it was (a float rustc has not typed yet takes the type of the
//! one it meets, `fptune::__rt::Native`; an integer cast to a float is a literal whatever its
//! type, `fptune::__rt::Integer`), so marked code compiles where the unmarked code does
//! (docs/promises.md); the native check of the marked texts is what says so for this crate. The
//! markers are checked to parse and to mark the knobs `--auto` tunes.
//!
//! What is written goes through [`crate::apply::write_all`]: staged beside each file, then
//! renamed, all or none, and refused when a file changed while fptune was marking.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};

use crate::cargo::{self, BuildOptions, Target};
use crate::cli::MarkArgs;
use crate::elaborate::Written;
use crate::exit::ExitCode;
use crate::knobs::{self, Inventory};
use crate::model::Knob;
use crate::outdir::RunLayout;
use crate::scratch::{Scratch, ScratchOptions};
use crate::sources::{self, Marking, Sources};
use crate::splice::{self, splice, Edit};
use crate::workspace::Workspace;

/// The name of the preview in the output directory.
pub const PATCH: &str = crate::outdir::MARK_PATCH;

/// What `mark` found, and where its patch is.
#[derive(Debug)]
pub struct Marked {
    /// The files that change (relative to the package root), with their new text; the manifest
    /// among them when it gets the fptune dependency.
    pub files: Vec<(String, String)>,
    /// Knobs marked, per file.
    pub knobs: BTreeMap<String, usize>,
    /// What the manifest gets, when it changes: the dependency as written.
    pub dependency: Option<String>,
    /// The unified diff (`a/` and `b/` paths).
    pub patch: String,
    /// Where the patch was written.
    pub patch_path: PathBuf,
    /// What fptune could not write (an edit rustc refused), said to the user.
    pub warnings: Vec<String>,
}

/// How `mark` ended.
#[derive(Debug)]
pub enum Outcome {
    /// The preview: `mark.patch` written, the tree untouched.
    Preview(Marked),
    /// The files written.
    Wrote(Marked),
    /// Nothing to mark, and why.
    Nothing(String),
}

/// A failure, with the exit code it ends the program with.
#[derive(Debug)]
pub struct MarkError {
    /// The code.
    pub code: ExitCode,
    /// What happened and what to do.
    pub error: anyhow::Error,
}

fn usage(error: anyhow::Error) -> MarkError {
    MarkError { code: ExitCode::Usage, error }
}

fn internal(error: anyhow::Error) -> MarkError {
    let code = if crate::process::is_interrupted(&error) || crate::process::interrupted() { ExitCode::Interrupted } else { ExitCode::Internal };
    MarkError { code, error }
}

/// `cargo fptune mark [--write]`.
///
/// # Errors
///
/// Bad input (no package, an unusable `--out`), a crate that does not build as it is, an
/// interruption, or a file that could not be written (then none was).
pub fn run(args: &MarkArgs) -> Result<Outcome, MarkError> {
    let ws = Workspace::locate(&args.package).map_err(usage)?;
    let out = match &args.out {
        Some(o) => std::path::absolute(o).with_context(|| format!("--out {}: not a usable path", o.display())).map_err(usage)?,
        None => ws.metadata.out.clone().map(|o| ws.root.join(o)).unwrap_or_else(|| RunLayout::default_dir(&ws.root)),
    };
    let inv = knobs::inventory(&ws.root, &ws.sources().map_err(usage)?).map_err(usage)?;
    if !inv.knobs.is_empty() || !inv.untyped.is_empty() {
        return Ok(Outcome::Nothing(format!(
            "nothing to mark: the crate marks {} knob(s) with #[tune] already (`cargo fptune list` shows them); \
             `cargo fptune mark` writes the markers of a crate that has none",
            inv.knobs.len() + inv.untyped.len()
        )));
    }
    let auto_in = if args.auto_in.is_empty() { ws.metadata.auto_in.clone().unwrap_or_default() } else { args.auto_in.clone() };
    let files = marked_files(&inv.sources, &auto_in, args.package.example.is_some());
    if files.is_empty() {
        return Ok(Outcome::Nothing(if auto_in.is_empty() {
            "nothing to mark: the crate has no program file (src/)".to_string()
        } else {
            format!("nothing to mark: no program file in --auto-in {}", auto_in.join(", "))
        }));
    }
    crate::outdir::claim(&out, crate::outdir::Kind::Run).map_err(usage)?;
    let logs = RunLayout(&out).logs().join("mark");
    std::fs::create_dir_all(&logs).with_context(|| format!("cannot create {}", logs.display())).map_err(usage)?;

    let prepared = prepare(&ws, &inv, &files, &args.package, &out)?;
    let mut warnings: Vec<String> =
        prepared.sources.dropped.iter().map(|d| format!("not marked, as rustc refused what fptune wrote: {d}")).collect();
    let (marked, more) = compiling(&prepared, &logs)?;
    warnings.extend(more);
    drop(prepared.scratch);
    let texts: BTreeMap<&str, &str> = marked.iter().map(|(r, t)| (r.as_str(), t.as_str())).collect();
    let after = knobs::inventory_of(
        prepared.sources.user.iter().map(|(r, t)| (r.clone(), texts.get(r.as_str()).map_or_else(|| t.clone(), |t| t.to_string()))).collect(),
    )
    .map_err(|e| internal(anyhow!("the markers fptune would write do not parse as markers ({e:#}): nothing was written")))?;
    if after.knobs.is_empty() {
        return Ok(Outcome::Nothing(match prepared.sources.dropped.first() {
            Some(d) => format!("nothing to mark: {d}"),
            None => "nothing to mark: --auto finds no float declaration in the crate's program files".to_string(),
        }));
    }
    if after.knobs.len() != prepared.knobs.len() {
        warnings.push(format!(
            "the markers written mark {} knob(s), --auto tunes {}: `cargo fptune list` shows those of the marked crate",
            after.knobs.len(),
            prepared.knobs.len()
        ));
    }
    let mut knobs_per_file = BTreeMap::new();
    for k in &after.knobs {
        *knobs_per_file.entry(k.file.clone()).or_insert(0) += 1;
    }

    let mut files: Vec<(String, String)> = marked;
    let mut dependency = None;
    if let Some(dep) = crate::setup::fptune_dependency(&ws).map_err(usage)? {
        let manifest = std::fs::read_to_string(&ws.manifest).with_context(|| format!("reading {}", ws.manifest.display())).map_err(usage)?;
        let with = crate::scratch::with_fptune(&manifest, &dep).map_err(usage)?;
        if with != manifest {
            let rel = relative(&ws.root, &ws.manifest);
            dependency = Some(dependency_line(&with));
            files.push((rel, with));
        }
    }
    let originals: BTreeMap<String, String> = files
        .iter()
        .map(|(rel, _)| {
            let text = prepared.sources.user.iter().find(|(r, _)| r == rel).map(|(_, t)| t.clone());
            let text = text.map_or_else(|| std::fs::read_to_string(ws.root.join(rel)), Ok).with_context(|| format!("reading {rel}"))?;
            Ok((rel.clone(), text))
        })
        .collect::<Result<_>>()
        .map_err(usage)?;
    let patch = unified_diff(&files, &originals);
    let patch_path = out.join(PATCH);
    std::fs::write(&patch_path, &patch).with_context(|| format!("writing {}", patch_path.display())).map_err(internal)?;
    let marked = Marked { files, knobs: knobs_per_file, dependency, patch, patch_path, warnings };
    if !args.write {
        return Ok(Outcome::Preview(marked));
    }
    // Onto the texts marked only: a file edited meanwhile is refused by name, and nothing written.
    let changed: Vec<String> = marked
        .files
        .iter()
        .filter(|(rel, _)| std::fs::read_to_string(ws.root.join(rel)).ok().as_deref() != originals.get(rel).map(String::as_str))
        .map(|(rel, _)| rel.clone())
        .collect();
    if !changed.is_empty() {
        return Err(usage(anyhow!(
            "refusing to write: {} changed while fptune was marking; nothing was written: run `cargo fptune mark` again",
            changed.join(", ")
        )));
    }
    let staged: Vec<crate::apply::Staged> = marked
        .files
        .iter()
        .map(|(rel, text)| crate::apply::Staged { target: ws.root.join(rel), text: text.clone(), original: originals[rel].clone() })
        .collect();
    crate::apply::write_all(&staged).map_err(usage)?;
    Ok(Outcome::Wrote(marked))
}

/// The program files `mark` marks, as `--auto` chooses them: `src/`, and `examples/` when an
/// example is what the crate's check builds (`--example`), within `auto_in` when it names any.
fn marked_files(sources: &[(String, String)], auto_in: &[String], example: bool) -> Vec<String> {
    sources
        .iter()
        .map(|(r, _)| r.clone())
        .filter(|r| crate::conversion::program_file(r) && (r.starts_with("src/") || example))
        .filter(|r| auto_in.is_empty() || auto_in.iter().any(|p| r == p || r.starts_with(&format!("{}/", p.trim_end_matches('/')))))
        .collect()
}

/// The sources `--auto` starts from, their knobs, and the scratch copy and native check that
/// made them.
struct Prepared {
    sources: Sources,
    knobs: Vec<Knob>,
    scratch: Scratch,
    check: BuildOptions,
}

/// In a scratch copy: the crate as it is must compile; then [`sources::prepare`] with `files`
/// marked as `--auto` marks them.
fn prepare(ws: &Workspace, inv: &Inventory, files: &[String], package: &crate::cli::PackageArgs, out: &Path) -> Result<Prepared, MarkError> {
    let logs = &RunLayout(out).logs().join("mark");
    // fptune's warm builds live in the workspace's target directory, as tuning's do.
    let builds = ws.target_dir.join("fptune");
    let warm = std::fs::create_dir_all(&builds).is_ok();
    let options = ScratchOptions {
        target_dir: warm.then(|| builds.join("mark")),
        skip: vec![ws.target_dir.clone(), out.to_path_buf()],
        fptune: crate::setup::fptune_dependency(ws).map_err(usage)?,
        ..ScratchOptions::default()
    };
    let scratch = Scratch::create(&ws.root, &options).map_err(internal)?;
    let mut check = BuildOptions::for_scratch(&scratch);
    check.check = true;
    check.target = match (&package.bin, &package.example) {
        (Some(b), _) => Target::Bin(b.clone()),
        (None, Some(e)) => Target::Example(e.clone()),
        (None, None) => Target::Default,
    };
    let log = RunLayout::log(logs, "original");
    let built = cargo::build(&check, &log).map_err(internal)?;
    if !built.success {
        return Err(MarkError {
            code: ExitCode::Original,
            error: anyhow!(
                "the crate does not build as it is ({}), so fptune cannot read the types rustc infers: make `cargo check` \
                 pass, then run `cargo fptune mark` again (full log: {})",
                built.first_error(),
                log.display()
            ),
        });
    }
    let marking = Marking {
        auto_files: files.to_vec(),
        extern_roots: if ws.edition == "2015" { ws.roots.clone() } else { Vec::new() },
    };
    let apart = scratch.target_dir().with_file_name("mark-typing");
    let sources = sources::prepare(&scratch, inv.sources.clone(), &ws.roots, &marking, &apart, &check, logs).map_err(internal)?;
    let base = knobs::inventory_of(sources.base.clone()).map_err(internal)?;
    Ok(Prepared { sources, knobs: base.knobs, scratch, check })
}

/// Files' texts, by path relative to the package root.
type Texts = Vec<(String, String)>;

/// How much of what `--auto` wrote a file keeps ([`marked_texts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// The markers, and the types of their knobs.
    Knobs,
    /// Those, and every binding's type rustc inferred and every path through a foreign alias
    /// written in full (as `apply` writes them): inference in the marked code then waits for
    /// nothing the unmarked code did not.
    Bindings,
    /// Nothing: the file stays as it is.
    Nothing,
}

/// The marked texts, checked natively in the scratch copy: the markers and their knobs' types;
/// where that does not compile, every binding's type too; where that does not either, the files
/// rustc names are left unmarked (said). With the warnings.
fn compiling(prepared: &Prepared, logs: &Path) -> Result<(Texts, Vec<String>), MarkError> {
    let mut keep: BTreeMap<String, Keep> = BTreeMap::new();
    let mut warnings = Vec::new();
    for round in 1.. {
        let texts = marked_texts(&prepared.sources, &prepared.knobs, &|rel| keep.get(rel).copied().unwrap_or(Keep::Knobs)).map_err(internal)?;
        let log = RunLayout::log(logs, &format!("marked-{round}"));
        prepared.scratch.apply_sources(&texts).map_err(internal)?;
        let built = cargo::build(&prepared.check, &log);
        prepared.scratch.restore_all().map_err(internal)?;
        let built = built.map_err(internal)?;
        if built.success {
            return Ok((texts, warnings));
        }
        let named: Vec<String> = built
            .errors
            .iter()
            .filter_map(|e| e.primary())
            .map(|s| s.file.clone())
            .filter(|f| texts.iter().any(|(r, _)| r == f))
            .collect();
        // The files rustc names, else every marked file, one step further.
        let files: Vec<String> = if named.is_empty() { texts.iter().map(|(r, _)| r.clone()).collect() } else { named };
        let mut stepped = false;
        for f in files {
            let now = keep.get(&f).copied().unwrap_or(Keep::Knobs);
            let next = match now {
                Keep::Knobs => Keep::Bindings,
                Keep::Bindings => {
                    warnings.push(format!(
                        "{f}: marked, it did not compile ({}), so it is left unmarked (log: {})",
                        built.first_error(),
                        log.display()
                    ));
                    Keep::Nothing
                }
                Keep::Nothing => continue,
            };
            keep.insert(f, next);
            stepped = true;
        }
        if !stepped {
            return Err(MarkError {
                code: ExitCode::Conversion,
                error: anyhow!(
                    "the crate does not compile with the markers fptune would write, nor without them in the files rustc \
                     names ({}); nothing was written (full log: {})",
                    built.first_error(),
                    log.display()
                ),
            });
        }
    }
    unreachable!("the rounds end when every file is left unmarked")
}

/// The user's files with the markers `--auto` wrote in `sources` (on its base, whose knobs are
/// `knobs`), and the types that make them meaningful: a knob's type rustc inferred, a foreign
/// alias written in full where it holds a knob's float, with [`Keep::Bindings`] every binding's
/// inferred type and alias path, and, where any marker is written, `extern crate fptune;` at the roots of a
/// 2015-edition crate. `keep` says how much each file keeps. Only files that change.
///
/// # Errors
///
/// When an edit does not apply to its file (fptune's bug).
pub fn marked_texts(sources: &Sources, knobs: &[Knob], keep: &dyn Fn(&str) -> Keep) -> Result<Vec<(String, String)>> {
    let mut edits: BTreeMap<&str, Vec<Edit>> = BTreeMap::new();
    for (rel, _) in &sources.user {
        let keep = keep(rel);
        if keep == Keep::Nothing {
            continue;
        }
        let base = sources.base.iter().find(|(r, _)| r == rel).map_or("", |(_, t)| t.as_str());
        let written = sources.written.get(rel).map(Vec::as_slice).unwrap_or_default();
        let placed = sources.splices.get(rel).map(|s| s.placed.clone()).unwrap_or_default();
        // Each knob's floats, by their range in the base.
        let leaves: Vec<(usize, usize)> = knobs
            .iter()
            .filter(|k| &k.file == rel)
            .flat_map(|k| &k.leaves)
            .filter_map(|l| Some((splice::offset(base, l.start.0, l.start.1)?, splice::offset(base, l.end.0, l.end.1)?)))
            .collect();
        let holds_knob = |i: usize| placed.get(i).is_some_and(|&(ps, pe)| leaves.iter().any(|&(a, b)| ps <= a && b <= pe));
        for (i, (edit, kind)) in written.iter().enumerate() {
            let kept = match kind {
                Written::Marker => Some(Edit { text: edit.text.replace("#[fptune::tune(printed)]", "#[fptune::tune]"), ..edit.clone() }),
                Written::PlaceTyped => Some(edit.clone()),
                Written::Annotation { .. } if keep == Keep::Bindings || holds_knob(i) => Some(edit.clone()),
                Written::Alias if holds_knob(i) => Some(edit.clone()),
                Written::AliasExpr if keep == Keep::Bindings => Some(edit.clone()),
                _ => None,
            };
            edits.entry(rel.as_str()).or_default().extend(kept);
        }
    }
    if edits.values().any(|e| !e.is_empty()) {
        for (rel, written) in &sources.written {
            let externs = written.iter().filter(|(_, k)| *k == Written::Extern).map(|(e, _)| e.clone());
            edits.entry(rel.as_str()).or_default().extend(externs);
        }
    }
    let mut out = Vec::new();
    for (rel, user) in &sources.user {
        let Some(list) = edits.get(rel.as_str()).filter(|l| !l.is_empty()) else { continue };
        let text = splice(user, list).with_context(|| format!("marking {rel}"))?.text;
        if &text != user {
            out.push((rel.clone(), text));
        }
    }
    Ok(out)
}

/// The unified diff of `files` against their `originals`, file by file (`a/` and `b/` paths, as
/// `git apply` and `patch -p1` read them).
pub fn unified_diff(files: &[(String, String)], originals: &BTreeMap<String, String>) -> String {
    let mut patch = String::new();
    for (rel, text) in files {
        let original = originals.get(rel).map_or("", String::as_str);
        let diff = similar::TextDiff::from_lines(original, text.as_str());
        let _ = write!(patch, "{}", diff.unified_diff().context_radius(3).header(&format!("a/{rel}"), &format!("b/{rel}")));
    }
    patch
}

/// `fptune = ...` as the manifest `text` writes it, for the user.
fn dependency_line(text: &str) -> String {
    let doc: Option<toml_edit::DocumentMut> = text.parse().ok();
    let dep = doc.as_ref().and_then(|d| d.get("dependencies")).and_then(|d| d.get("fptune")).map(|d| d.to_string());
    format!("fptune = {}", dep.unwrap_or_default().trim())
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root).unwrap_or(Path::new("Cargo.toml")).to_string_lossy().replace('\\', "/")
}

/// What the terminal says of a preview or a write.
pub fn summary(marked: &Marked, wrote: bool) -> String {
    let mut s = String::new();
    let total: usize = marked.knobs.values().sum();
    let per_file: Vec<String> = marked.knobs.iter().map(|(f, n)| format!("{f} ({n})")).collect();
    let _ = writeln!(s, "{} {total} knob(s), as --auto infers them: {}", if wrote { "marked" } else { "would mark" }, per_file.join(", "));
    if let Some(dep) = &marked.dependency {
        let _ = writeln!(
            s,
            "{} Cargo.toml's [dependencies]: {dep} (the runtime of the checkout cargo-fptune was built from, or \
             FPTUNE_RUNTIME; the markers need it)",
            if wrote { "added to" } else { "would add to" }
        );
    }
    for w in &marked.warnings {
        let _ = writeln!(s, "warning: {w}");
    }
    let files: Vec<&str> = marked.files.iter().map(|(f, _)| f.as_str()).collect();
    if wrote {
        let _ = writeln!(s, "wrote {} (the patch: {})", files.join(", "), marked.patch_path.display());
    } else {
        let _ = writeln!(
            s,
            "the patch: {} (nothing was changed); write it with `cargo fptune mark --write`",
            marked.patch_path.display()
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sources as `prepare` leaves them: `user` with `written` (edits on the user's text, in
    /// order) spliced into the base.
    /// A file: its path, its user text, and what fptune wrote in it.
    type File<'a> = (&'a str, &'a str, Vec<(Edit, Written)>);

    fn sources(files: &[File<'_>]) -> Sources {
        let mut s = Sources::default();
        for (rel, user, written) in files {
            let spliced = splice(user, &written.iter().map(|(e, _)| e.clone()).collect::<Vec<_>>()).expect("edits apply");
            s.user.push((rel.to_string(), user.to_string()));
            s.base.push((rel.to_string(), spliced.text.clone()));
            if !written.is_empty() {
                s.written.insert(rel.to_string(), written.clone());
                s.splices.insert(rel.to_string(), spliced);
            }
        }
        s
    }

    fn at(text: &str, what: &str) -> usize {
        text.find(what).unwrap_or_else(|| panic!("`{what}` in {text}"))
    }

    const MAIN: &str = "fn main() {\n    let mut s = 0.0;\n    let n = 3;\n    for i in 0..n {\n        s += 0.5 * i as f64;\n    }\n    println!(\"{}\", s.sqrt());\n}\n";

    /// What the elaboration and `--auto` write in [`MAIN`]: the item's marker, `s`'s and `n`'s
    /// types, a knob marker on `s`, fptune's literal.
    fn main_written() -> Vec<(Edit, Written)> {
        let s = at(MAIN, "s = 0.0");
        let n = at(MAIN, "n = 3");
        let lit = at(MAIN, "0.5");
        vec![
            (Edit::insert(0, "#[fptune::tune(printed)] "), Written::Marker),
            (Edit::insert(at(MAIN, "let mut s"), "#[tune] "), Written::Marker),
            (Edit::insert(s + 1, ": f64"), Written::Annotation { binding: (s, s + 1), ty: "f64".into() }),
            (Edit::insert(n + 1, ": usize"), Written::Annotation { binding: (n, n + 1), ty: "usize".into() }),
            (Edit::replace(lit, lit + 3, "::fptune::__rt::lit::<f64>(0.5f64, 0.5f32)"), Written::Literal),
        ]
    }

    fn knobs_of(s: &Sources) -> Vec<Knob> {
        knobs::inventory_of(s.base.clone()).expect("the base's markers parse").knobs
    }

    #[test]
    fn markers_and_their_knobs_types_are_written_as_a_user_writes_them_and_nothing_of_fptunes_own() {
        let s = sources(&[("src/main.rs", MAIN, main_written())]);
        let knobs = knobs_of(&s);
        assert_eq!(knobs.len(), 1, "{knobs:?}");
        let out = marked_texts(&s, &knobs, &|_| Keep::Knobs).expect("marks");
        assert_eq!(out.len(), 1);
        let text = &out[0].1;
        assert!(text.starts_with("#[fptune::tune] fn main() {\n    #[tune] let mut s: f64 = 0.0;\n    let n = 3;\n"), "{text}");
        assert!(text.contains("s += 0.5 * i as f64;") && !text.contains("__rt") && !text.contains("printed"), "{text}");
        // What it marks is the knob --auto tunes.
        let marked = knobs::inventory_of(out.clone()).expect("parses").knobs;
        assert_eq!((marked.len(), marked[0].name.as_str(), marked[0].ty.as_str()), (1, "s", "f64"));
    }

    #[test]
    fn bindings_keep_their_inferred_types_when_asked_and_a_file_left_alone_is_not_written() {
        let s = sources(&[("src/main.rs", MAIN, main_written())]);
        let knobs = knobs_of(&s);
        let out = marked_texts(&s, &knobs, &|_| Keep::Bindings).expect("marks");
        assert!(out[0].1.contains("    let n: usize = 3;\n") && !out[0].1.contains("__rt"), "{}", out[0].1);
        assert!(marked_texts(&s, &knobs, &|_| Keep::Nothing).expect("marks").is_empty());
    }

    #[test]
    fn a_2015_root_gets_extern_crate_only_where_some_marker_is_written() {
        let lib = "pub mod k;\n";
        let written = |text: &str| vec![(Edit::insert(text.len(), "\nextern crate fptune;\n"), Written::Extern)];
        let s = sources(&[("src/lib.rs", lib, written(lib)), ("src/main.rs", MAIN, main_written())]);
        let knobs = knobs_of(&s);
        let out = marked_texts(&s, &knobs, &|_| Keep::Knobs).expect("marks");
        let files: Vec<&str> = out.iter().map(|(r, _)| r.as_str()).collect();
        assert_eq!(files, ["src/lib.rs", "src/main.rs"]);
        assert_eq!(out[0].1, "pub mod k;\n\nextern crate fptune;\n");
        // No marker written (main.rs left alone): no `extern crate` either.
        let out = marked_texts(&s, &knobs, &|r| if r == "src/main.rs" { Keep::Nothing } else { Keep::Knobs }).expect("marks");
        assert!(out.is_empty(), "{out:?}");
    }

    #[test]
    fn a_foreign_alias_is_written_in_full_only_where_it_holds_a_knob() {
        let text = "use num_complex::Complex64;\nfn f(x: Complex64) -> f64 {\n    let z: Complex64 = x;\n    z.re\n}\n";
        let full = "::num_complex::Complex<f64>";
        let x = at(text, "Complex64) ->");
        let z = at(text, "Complex64 = x");
        let written = vec![
            (Edit::insert(at(text, "fn f"), "#[fptune::tune(printed)] "), Written::Marker),
            (Edit::insert(at(text, "x: C"), "#[tune] "), Written::Marker),
            (Edit::replace(x, x + 9, full), Written::Alias),
            (Edit::replace(z, z + 9, full), Written::Alias),
        ];
        let s = sources(&[("src/lib.rs", text, written)]);
        let knobs = knobs_of(&s);
        let out = marked_texts(&s, &knobs, &|_| Keep::Knobs).expect("marks");
        assert!(out[0].1.contains("fn f(#[tune] x: ::num_complex::Complex<f64>) -> f64"), "{}", out[0].1);
        assert!(out[0].1.contains("let z: Complex64 = x;"), "{}", out[0].1);
    }

    #[test]
    fn the_patch_names_each_file_as_git_apply_reads_it() {
        let originals = BTreeMap::from([("src/main.rs".to_string(), "fn main() {}\n".to_string())]);
        let patch = unified_diff(&[("src/main.rs".to_string(), "#[fptune::tune] fn main() {}\n".to_string())], &originals);
        assert_eq!(patch, "--- a/src/main.rs\n+++ b/src/main.rs\n@@ -1 +1 @@\n-fn main() {}\n+#[fptune::tune] fn main() {}\n");
    }

    #[test]
    fn program_files_are_marked_as_auto_chooses_them() {
        let files: Vec<(String, String)> =
            ["build.rs", "examples/e.rs", "src/a/b.rs", "src/main.rs", "tests/t.rs"].iter().map(|f| (f.to_string(), String::new())).collect();
        assert_eq!(marked_files(&files, &[], false), ["src/a/b.rs", "src/main.rs"]);
        assert_eq!(marked_files(&files, &[], true), ["examples/e.rs", "src/a/b.rs", "src/main.rs"]);
        assert_eq!(marked_files(&files, &["src/a/".to_string()], false), ["src/a/b.rs"]);
        assert_eq!(marked_files(&files, &["src/main.rs".to_string()], false), ["src/main.rs"]);
    }

    #[test]
    fn the_dependency_is_said_as_the_manifest_writes_it() {
        let manifest = "[package]\nname = \"p\"\n\n[dependencies]\nfptune = { path = \"/x/stochastic\", features = [\"approx\"] }\n";
        assert_eq!(dependency_line(manifest), "fptune = { path = \"/x/stochastic\", features = [\"approx\"] }");
    }
}
