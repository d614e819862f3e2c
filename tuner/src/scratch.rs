//! Scratch copies of the user's package, where candidates are written and built.
//!
//! [`Scratch::create`] copies the package tree into a temporary directory (skipping version
//! control, `target/` and `fptune.out/`) and rewrites the copy's `Cargo.toml` so that it builds
//! there, standalone:
//!
//! - every relative `path` dependency points back at the user's tree, absolutely;
//! - the copy is its own workspace (an empty `[workspace]` is added), so it never joins a
//!   workspace it happens to sit under;
//! - a workspace member gets concrete values for what it inherited (`version.workspace = true`,
//!   `foo.workspace = true`), its workspace's `[profile]`, `[patch]` and `[replace]` tables (which
//!   cargo applied to it in the user's tree) and its workspace's `Cargo.lock`, so the same
//!   versions are used.
//!
//! The copy sits where the package's own parent and grandparent are mirrored
//! ([`mirror_ancestors`]): what the code reaches above the package by a relative path
//! (`include_str!("../../data.txt")`, `#[path = "../common/x.rs"]`, a build script reading
//! `../schema`, a program reading `../input`) is found there as in the user's tree.
//!
//! The user's tree is only ever read. Each scratch has its own target directory, kept for the
//! whole run, so the builds of successive candidates are incremental: [`Scratch::write_sources`]
//! writes only the files whose text changes, and cargo recompiles only what depends on them.
//!
//! A scratch is deleted when dropped, unless it was created with [`ScratchOptions::leak`]
//! (`--leak-dirs`). Live scratch directories are also listed globally so that the Ctrl-C handler
//! can delete them ([`remove_all_live`]). A run killed with `SIGKILL` cannot: each scratch names
//! its owner's process id in [`OWNER`], and the first scratch a run makes in a directory removes
//! the scratches there whose owner is gone ([`remove_stale`]).

use std::collections::{BTreeSet, HashMap};
use std::ffi::OsStr;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

use anyhow::{bail, Context, Result};
use tempfile::TempDir;
use toml_edit::{Array, DocumentMut, Item, Table, TableLike, Value};

/// How to make a scratch copy.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScratchOptions {
    /// Where the temporary directory is made (the system's temporary directory when `None`).
    pub parent: Option<PathBuf>,
    /// The scratch's target directory (`target/` next to the copy, inside the temporary
    /// directory, when `None`). Give each scratch its own: cargo's fingerprints depend on the
    /// source paths, so scratches sharing one would rebuild each other's work.
    pub target_dir: Option<PathBuf>,
    /// Keep the copy when the [`Scratch`] is dropped, and when Ctrl-C is pressed
    /// (`--leak-dirs`), to inspect it.
    pub leak: bool,
    /// More directories not to copy (absolute), e.g. the workspace's target directory as
    /// `cargo metadata` gives it when it lies inside the package.
    pub skip: Vec<PathBuf>,
    /// The `fptune` dependency the copy gets (a crate tuned without markers has none), and the
    /// runtime's features it needs; a dependency the package has already keeps its source.
    pub fptune: Option<FptuneDependency>,
}

/// The `fptune` runtime as a dependency of a scratch copy.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FptuneDependency {
    /// The runtime's package directory.
    pub path: PathBuf,
    /// Its features to turn on (`num-traits`, `simba`: the traits the crate's generic code
    /// asks of its floats).
    pub features: Vec<String>,
}

/// A scratch copy of a package, with its own target directory.
#[derive(Debug)]
pub struct Scratch {
    dir: TempDir,
    /// The temporary directory, canonical: holds the copy and, by default, the target dir.
    top: PathBuf,
    root: PathBuf,
    source_root: PathBuf,
    target_dir: PathBuf,
    workspace_root: Option<PathBuf>,
    leak: bool,
    /// Files changed by [`Scratch::write_sources`], with their text before the first change
    /// (`None` for files that did not exist).
    originals: Mutex<HashMap<String, Option<String>>>,
}

/// The file in a scratch's temporary directory that names the process that made it.
pub const OWNER: &str = ".fptune-owner";

/// Directories never copied, at any depth.
const VCS_DIRS: [&str; 4] = [".git", ".hg", ".svn", ".jj"];

/// Directories not copied from the package root.
const ROOT_SKIPS: [&str; 2] = ["target", "fptune.out"];

impl Scratch {
    /// Copies the package at `package_root` (the directory of its `Cargo.toml`) into a new
    /// temporary directory and makes the copy build standalone (see the module's docs).
    pub fn create(package_root: &Path, options: &ScratchOptions) -> Result<Scratch> {
        let source_root = package_root
            .canonicalize()
            .with_context(|| format!("the package directory {} cannot be read", package_root.display()))?;
        let manifest_path = source_root.join("Cargo.toml");
        let manifest_text = fs::read_to_string(&manifest_path)
            .with_context(|| format!("cannot read {}: is this a cargo package?", manifest_path.display()))?;
        let manifest: DocumentMut = manifest_text
            .parse()
            .with_context(|| format!("{} is not valid TOML", manifest_path.display()))?;
        let workspace = find_workspace(&source_root, &manifest)?;

        let dir_name = source_root.file_name().unwrap_or(OsStr::new("package")).to_owned();
        let prefix = format!("fptune-{}-", dir_name.to_string_lossy());
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix);
        let dir = match &options.parent {
            Some(parent) => {
                fs::create_dir_all(parent).with_context(|| {
                    format!("cannot create the scratch parent directory {}", parent.display())
                })?;
                builder.tempdir_in(parent)
            }
            None => builder.tempdir(),
        }
        .context("cannot create a temporary directory for a scratch copy (is the disk full?)")?;
        let top = dir.path().canonicalize().context("cannot resolve the scratch directory")?;
        let root = mirror_ancestors(&source_root, &top)?.join(&dir_name);
        let target_dir = options.target_dir.clone().unwrap_or_else(|| top.join("target"));

        let mut scratch = Scratch {
            dir,
            top: top.clone(),
            root,
            source_root,
            target_dir,
            workspace_root: workspace.as_ref().map(|w| w.root.clone()),
            leak: options.leak,
            originals: Mutex::new(HashMap::new()),
        };
        if scratch.leak {
            scratch.dir.disable_cleanup(true);
        } else {
            live().insert(top.clone());
            let owner = top.join(OWNER);
            fs::write(&owner, std::process::id().to_string()).with_context(|| format!("cannot write {}", owner.display()))?;
            if let Some(parent) = top.parent() {
                static CLEANED: OnceLock<Mutex<BTreeSet<PathBuf>>> = OnceLock::new();
                let first = CLEANED.get_or_init(Default::default).lock().unwrap_or_else(PoisonError::into_inner).insert(parent.to_path_buf());
                if first {
                    remove_stale(parent);
                }
            }
        }

        let mut skip: Vec<PathBuf> = options.skip.iter().filter_map(|p| p.canonicalize().ok()).collect();
        skip.push(top);
        // A target dir (or the scratch itself) placed inside the package must not be copied.
        skip.extend(options.target_dir.iter().filter_map(|p| p.canonicalize().ok()));
        copy_tree(&scratch.source_root, &scratch.root, &skip)?;

        let fixed = fix_manifest(&manifest_text, &scratch.source_root, workspace.as_ref())
            .with_context(|| format!("cannot make a standalone copy of {}", manifest_path.display()))?;
        let fixed = match &options.fptune {
            Some(dep) => with_fptune(&fixed, dep).with_context(|| format!("cannot add fptune to a copy of {}", manifest_path.display()))?,
            None => fixed,
        };
        let copy = scratch.manifest_path();
        fs::write(&copy, fixed).with_context(|| format!("cannot write {}", copy.display()))?;
        let lock = scratch.root.join("Cargo.lock");
        if let (Some(ws), false) = (&workspace, lock.exists()) {
            let ws_lock = ws.root.join("Cargo.lock");
            if ws_lock.exists() {
                fs::copy(&ws_lock, &lock)
                    .with_context(|| format!("cannot copy {} to {}", ws_lock.display(), lock.display()))?;
            }
        }
        Ok(scratch)
    }

    /// The copy's package root (where its `Cargo.toml` is).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The copy's `Cargo.toml`.
    pub fn manifest_path(&self) -> PathBuf {
        self.root.join("Cargo.toml")
    }

    /// The user's package root it was copied from (canonical). cargo should run there
    /// ([`crate::cargo::BuildOptions::cwd`]) to read the user's `.cargo/config.toml` files.
    pub fn source_root(&self) -> &Path {
        &self.source_root
    }

    /// The root of the user's workspace the package is a member of, if it is one.
    pub fn workspace_root(&self) -> Option<&Path> {
        self.workspace_root.as_deref()
    }

    /// The scratch's own target directory, kept across builds.
    pub fn target_dir(&self) -> &Path {
        &self.target_dir
    }

    /// Whether the copy is kept after the run (`--leak-dirs`).
    pub fn is_leaked(&self) -> bool {
        self.leak
    }

    /// The temporary directory holding the copy (and, by default, its target dir): what
    /// `--leak-dirs` leaves behind.
    pub fn dir(&self) -> &Path {
        &self.top
    }

    /// The path in the copy of a file given relative to the package root (`/`-separated).
    /// Refuses absolute paths and paths that climb out of the copy.
    pub fn path_of(&self, rel: &str) -> Result<PathBuf> {
        Ok(self.root.join(normalize(rel)?))
    }

    /// Writes `files` (path relative to the package root, new text) into the copy, creating
    /// files and directories as needed. A file whose text is already the given one is not
    /// touched, so cargo's fingerprints of what depends on it stay fresh. Returns how many
    /// files were written.
    pub fn write_sources(&self, files: &[(String, String)]) -> Result<usize> {
        let mut written = 0;
        let mut originals = self.originals();
        for (rel, text) in files {
            let rel = normalize(rel)?;
            let path = self.root.join(&rel);
            let current = read_if_exists(&path)?;
            if current.as_deref() == Some(text.as_str()) {
                continue;
            }
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent)
                    .with_context(|| format!("cannot create {} in the scratch copy", parent.display()))?;
            }
            fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
            originals.entry(rel).or_insert(current);
            written += 1;
        }
        Ok(written)
    }

    /// Puts back the text `rel` had when the copy was made (deletes it if
    /// [`Scratch::write_sources`] created it). Returns whether the file changed.
    pub fn restore(&self, rel: &str) -> Result<bool> {
        let rel = normalize(rel)?;
        let path = self.root.join(&rel);
        let Some(original) = self.originals().remove(&rel) else {
            return Ok(false);
        };
        let current = read_if_exists(&path)?;
        if current == original {
            return Ok(false);
        }
        match original {
            Some(text) => {
                fs::write(&path, text).with_context(|| format!("cannot restore {}", path.display()))?
            }
            None => fs::remove_file(&path).with_context(|| format!("cannot remove {}", path.display()))?,
        }
        Ok(true)
    }

    /// Makes the copy's sources exactly `files` over the original tree: writes `files` as
    /// [`Scratch::write_sources`] does and restores every file written before that is not among
    /// them. Only files whose text differs are touched, so switching from one candidate to the
    /// next (or building the same one again) keeps everything else fresh, which
    /// [`Scratch::restore_all`] followed by [`Scratch::write_sources`] would not. Returns how
    /// many files were written or restored.
    pub fn apply_sources(&self, files: &[(String, String)]) -> Result<usize> {
        let wanted = files.iter().map(|(rel, _)| normalize(rel)).collect::<Result<BTreeSet<_>>>()?;
        let stale: Vec<String> =
            self.originals().keys().filter(|rel| !wanted.contains(*rel)).cloned().collect();
        let mut changed = 0;
        for rel in stale {
            changed += usize::from(self.restore(&rel)?);
        }
        Ok(changed + self.write_sources(files)?)
    }

    /// [`Scratch::restore`]s every file written so far. Returns how many changed.
    pub fn restore_all(&self) -> Result<usize> {
        let files: Vec<String> = self.originals().keys().cloned().collect();
        let mut changed = 0;
        for rel in files {
            changed += usize::from(self.restore(&rel)?);
        }
        Ok(changed)
    }

    fn originals(&self) -> MutexGuard<'_, HashMap<String, Option<String>>> {
        self.originals.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !self.leak {
            // The TempDir deletes the directory right after this.
            live().remove(&self.top);
        }
    }
}

/// `rel` as a `/`-separated relative path without `.` (the key of [`Scratch::originals`]), or an
/// error when it is absolute, empty or climbs out.
fn normalize(rel: &str) -> Result<String> {
    let mut parts = Vec::new();
    for component in Path::new(rel).components() {
        match component {
            Component::Normal(part) => parts.push(part.to_string_lossy()),
            Component::CurDir => {}
            _ => bail!("`{rel}` is not a path inside the package (relative, without `..`)"),
        }
    }
    if parts.is_empty() {
        bail!("`{rel}` is not a path inside the package (relative, without `..`)");
    }
    Ok(parts.join("/"))
}

fn read_if_exists(path: &Path) -> Result<Option<String>> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// Scratch directories that exist now and are to be deleted.
fn live() -> MutexGuard<'static, BTreeSet<PathBuf>> {
    static LIVE: OnceLock<Mutex<BTreeSet<PathBuf>>> = OnceLock::new();
    LIVE.get_or_init(Default::default).lock().unwrap_or_else(PoisonError::into_inner)
}

/// Deletes every live scratch directory now (not the leaked ones), for the Ctrl-C handler; the
/// [`Scratch`] values stay but their directories are gone. Returns how many were deleted.
pub fn remove_all_live() -> usize {
    let dirs = std::mem::take(&mut *live());
    let mut removed = 0;
    for dir in dirs {
        // A build being killed may still write for a moment: try again briefly.
        for attempt in 0..5 {
            match fs::remove_dir_all(&dir) {
                Ok(()) => {
                    removed += 1;
                    break;
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => break,
                Err(_) if attempt < 4 => std::thread::sleep(std::time::Duration::from_millis(50)),
                Err(_) => {}
            }
        }
    }
    removed
}

/// How many of the package's ancestors a scratch mirrors.
const MIRRORED_ANCESTORS: usize = 2;

/// Makes under `top/tree` the directories standing for the package's parent and grandparent (named
/// as they are), each holding a symbolic link to every entry of the directory it stands for but
/// the one on the way down to the package; returns the one standing for the parent, where the
/// copy goes. Best effort: an entry that cannot be linked is left out (said nowhere: a build
/// that needed it fails with its own error).
fn mirror_ancestors(source_root: &Path, top: &Path) -> Result<PathBuf> {
    // Outermost first, each with the name of its child on the way down.
    let mut levels: Vec<(&Path, &OsStr)> = Vec::new();
    let mut child = source_root;
    for ancestor in source_root.ancestors().skip(1).take(MIRRORED_ANCESTORS) {
        let (Some(name), Some(_)) = (child.file_name(), ancestor.parent()) else { break };
        levels.push((ancestor, name));
        child = ancestor;
    }
    levels.reverse();
    // Apart from what the scratch keeps at its top (its default target directory, its owner).
    let mut mirror = top.join("tree");
    for (i, (dir, on_the_way)) in levels.iter().enumerate() {
        if i > 0 {
            mirror.push(dir.file_name().unwrap_or(OsStr::new("up")));
        }
        fs::create_dir_all(&mirror).with_context(|| format!("cannot create {}", mirror.display()))?;
        let Ok(entries) = fs::read_dir(dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            // The scratch itself, when it lies in the package's surroundings, is not linked.
            if entry.file_name() == **on_the_way || top.starts_with(&path) {
                continue;
            }
            let _ = std::os::unix::fs::symlink(&path, mirror.join(entry.file_name()));
        }
    }
    Ok(mirror)
}

/// Removes the scratch directories in `parent` left by runs that were killed: those whose
/// [`OWNER`] file names a process that no longer exists. Returns how many it removed.
pub fn remove_stale(parent: &Path) -> usize {
    let Ok(entries) = fs::read_dir(parent) else { return 0 };
    let mut removed = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        if !entry.file_name().to_string_lossy().starts_with("fptune-") {
            continue;
        }
        let Some(pid) = fs::read_to_string(path.join(OWNER)).ok().and_then(|t| t.trim().parse::<libc::pid_t>().ok()) else {
            continue;
        };
        // SAFETY: signal 0 only asks whether the process exists.
        let gone = pid > 0 && unsafe { libc::kill(pid, 0) } != 0 && io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        if gone && fs::remove_dir_all(&path).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// Copies the tree at `from` into `to` (which must not exist), symlinks as symlinks, skipping
/// version control directories, `target/` and `fptune.out/` at the root, cargo target
/// directories anywhere (they hold a `CACHEDIR.TAG`), and the directories in `skip`.
fn copy_tree(from: &Path, to: &Path, skip: &[PathBuf]) -> Result<()> {
    let walk = walkdir::WalkDir::new(from).follow_links(false).into_iter().filter_entry(|entry| {
        let name = entry.file_name().to_string_lossy();
        let skipped = entry.depth() > 0
            && (VCS_DIRS.contains(&name.as_ref())
                || (entry.depth() == 1 && ROOT_SKIPS.contains(&name.as_ref()))
                || (entry.file_type().is_dir()
                    && (entry.path().join("CACHEDIR.TAG").exists()
                        || skip.iter().any(|s| s == entry.path()))));
        !skipped
    });
    for entry in walk {
        let entry = entry.with_context(|| format!("cannot read the package tree {}", from.display()))?;
        let rel = entry.path().strip_prefix(from).context("walkdir left the package tree")?;
        let dest = to.join(rel);
        let kind = entry.file_type();
        if kind.is_dir() {
            fs::create_dir_all(&dest).with_context(|| format!("cannot create {}", dest.display()))?;
        } else if kind.is_symlink() {
            let target = fs::read_link(entry.path())
                .with_context(|| format!("cannot read the link {}", entry.path().display()))?;
            std::os::unix::fs::symlink(&target, &dest)
                .with_context(|| format!("cannot create the link {}", dest.display()))?;
        } else {
            fs::copy(entry.path(), &dest)
                .with_context(|| format!("cannot copy {} to {}", entry.path().display(), dest.display()))?;
        }
    }
    Ok(())
}

/// The workspace a package is a member of.
#[derive(Debug)]
struct Workspace {
    /// Its root directory.
    root: PathBuf,
    /// Its root manifest.
    manifest: DocumentMut,
}

/// Finds the workspace the package at `package_root` (canonical) is a member of: the one named
/// by `package.workspace`, else the nearest ancestor whose manifest has `[workspace]` (unless it
/// excludes the package). `None` when the package is its own workspace root or standalone.
fn find_workspace(package_root: &Path, manifest: &DocumentMut) -> Result<Option<Workspace>> {
    if manifest.contains_key("workspace") {
        return Ok(None);
    }
    let explicit = manifest.get("package").and_then(|p| p.get("workspace")).and_then(Item::as_str);
    let candidates: Vec<PathBuf> = match explicit {
        Some(dir) => vec![package_root.join(dir)],
        None => package_root.ancestors().skip(1).map(Path::to_path_buf).collect(),
    };
    for dir in candidates {
        let path = dir.join("Cargo.toml");
        let text = match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(_) if explicit.is_none() => continue,
            Err(e) => {
                return Err(e)
                    .with_context(|| format!("cannot read the workspace manifest {}", path.display()))
            }
        };
        let doc: DocumentMut = text
            .parse()
            .with_context(|| format!("the workspace manifest {} is not valid TOML", path.display()))?;
        let Some(ws) = doc.get("workspace") else {
            if explicit.is_some() {
                bail!("{} has no [workspace], yet package.workspace names it", path.display());
            }
            continue;
        };
        let excluded = ws.get("exclude").and_then(Item::as_array).is_some_and(|paths| {
            paths.iter().filter_map(Value::as_str).any(|p| package_root.starts_with(dir.join(p)))
        });
        if excluded {
            return Ok(None);
        }
        let root = dir.canonicalize().with_context(|| format!("cannot resolve {}", dir.display()))?;
        return Ok(Some(Workspace { root, manifest: doc }));
    }
    Ok(None)
}

/// The dependency tables of a manifest (also found under `target.<cfg>`).
const DEPENDENCY_TABLES: [&str; 5] =
    ["dependencies", "dev-dependencies", "dev_dependencies", "build-dependencies", "build_dependencies"];

/// The target tables whose `path` may point out of the package.
const TARGET_ARRAYS: [&str; 4] = ["bin", "example", "test", "bench"];

/// `text` (a manifest) depending on the fptune runtime with `dep`'s features: a new `fptune`
/// dependency at `dep.path`, or the package's own with the features added.
pub(crate) fn with_fptune(text: &str, dep: &FptuneDependency) -> Result<String> {
    let mut doc: DocumentMut = text.parse().context("the manifest is not valid TOML")?;
    let deps = doc
        .entry("dependencies")
        .or_insert_with(|| Item::Table(Table::new()))
        .as_table_like_mut()
        .context("`dependencies` is not a table")?;
    if deps.get("fptune").is_none() {
        let mut t = toml_edit::InlineTable::new();
        t.insert("path", Value::from(dep.path.display().to_string()));
        deps.insert("fptune", Item::Value(Value::InlineTable(t)));
    }
    if !dep.features.is_empty() {
        let entry = deps.get_mut("fptune").context("no fptune dependency")?;
        if entry.is_str() {
            let version = entry.as_str().unwrap_or_default().to_string();
            let mut t = toml_edit::InlineTable::new();
            t.insert("version", Value::from(version));
            *entry = Item::Value(Value::InlineTable(t));
        }
        let table = entry.as_table_like_mut().context("the fptune dependency is not a table")?;
        let features = table.entry("features").or_insert(Item::Value(Value::Array(Array::new())));
        let array = features.as_array_mut().context("fptune's `features` is not an array")?;
        for f in &dep.features {
            if !array.iter().any(|v| v.as_str() == Some(f)) {
                array.push(f.as_str());
            }
        }
    }
    Ok(doc.to_string())
}

/// `Cargo.toml`'s text as the scratch copy needs it (formatting and comments kept):
///
/// - relative `path`s of dependencies, `[patch]` and `[replace]` made absolute (relative to
///   `package_root`); when the package is its own workspace root, paths inside the package stay
///   relative (they are copied with it and may be members);
/// - target paths (`[lib]`, `[[bin]]`, ..., `package.build`) that leave the package made absolute;
/// - an empty `[workspace]` added unless there is one;
/// - for a member of `workspace`: inherited fields and dependencies made concrete, its
///   `[profile]`, `[patch]` and `[replace]` copied, `package.workspace` and
///   `lints.workspace = true` removed. The workspace's lints are not copied: lints only warn or
///   refuse code, and a scratch build is there to test numbers, not style.
fn fix_manifest(text: &str, package_root: &Path, workspace: Option<&Workspace>) -> Result<String> {
    let mut doc: DocumentMut = text.parse().context("the manifest is not valid TOML")?;
    let own_workspace = doc.contains_key("workspace");

    for_each_dependency_table(&mut doc, &mut |deps| {
        absolutize_dependency_paths(deps, package_root, own_workspace);
        Ok(())
    })?;
    for key in ["patch", "replace"] {
        absolutize_overrides(&mut doc, key, package_root, own_workspace);
    }
    absolutize_target_paths(&mut doc, package_root);

    if let Some(ws) = workspace {
        inherit_from_workspace(&mut doc, ws)?;
    }
    if !own_workspace {
        let mut table = Table::new();
        table.decor_mut().set_prefix("\n# Added by cargo-fptune: this scratch copy is its own workspace.\n");
        let resolver = workspace.and_then(|ws| {
            let w = ws.manifest.get("workspace")?;
            match w.get("resolver") {
                Some(r) => r.as_str().map(str::to_string),
                // A virtual workspace without `resolver` uses resolver 1; a root package's
                // edition decides otherwise, and the member's edition decides here.
                None if !ws.manifest.contains_key("package") => Some("1".to_string()),
                None => None,
            }
        });
        if let Some(resolver) = resolver {
            table.insert("resolver", toml_edit::value(resolver));
        }
        doc.insert("workspace", Item::Table(table));
    }
    Ok(doc.to_string())
}

/// Calls `f` on every dependency table: `[dependencies]` and friends, and
/// `[target.<cfg>.dependencies]` and friends.
fn for_each_dependency_table(
    doc: &mut DocumentMut,
    f: &mut dyn FnMut(&mut dyn TableLike) -> Result<()>,
) -> Result<()> {
    for key in DEPENDENCY_TABLES {
        if let Some(deps) = doc.get_mut(key).and_then(Item::as_table_like_mut) {
            f(deps)?;
        }
    }
    if let Some(targets) = doc.get_mut("target").and_then(Item::as_table_like_mut) {
        for (_, target) in targets.iter_mut() {
            let Some(target) = target.as_table_like_mut() else { continue };
            for key in DEPENDENCY_TABLES {
                if let Some(deps) = target.get_mut(key).and_then(Item::as_table_like_mut) {
                    f(deps)?;
                }
            }
        }
    }
    Ok(())
}

/// How far a relative path climbs above its base: > 0 when it leaves it.
fn ascent(path: &Path) -> usize {
    let (mut depth, mut max_ascent) = (0isize, 0isize);
    for component in path.components() {
        match component {
            Component::ParentDir => {
                depth -= 1;
                max_ascent = max_ascent.max(-depth);
            }
            Component::Normal(_) => depth += 1,
            _ => {}
        }
    }
    max_ascent.max(0) as usize
}

/// `path` made absolute against `base` when it is relative (and, when `only_leaving`, when it
/// leaves `base`); `None` when it stays as it is.
fn absolute(path: &str, base: &Path, only_leaving: bool) -> Option<String> {
    let p = Path::new(path);
    if p.is_absolute() || (only_leaving && ascent(p) == 0) {
        return None;
    }
    Some(base.join(p).display().to_string())
}

/// Replaces the string in `item` by `text`, keeping its decoration (spaces, comments).
fn set_string(item: &mut Item, text: String) {
    if let Some(value) = item.as_value_mut() {
        let decor = value.decor().clone();
        *value = Value::from(text);
        *value.decor_mut() = decor;
    }
}

/// Makes the relative `path`s of the entries of a dependency-like table absolute.
fn absolutize_dependency_paths(deps: &mut dyn TableLike, base: &Path, only_leaving: bool) {
    for (_, dep) in deps.iter_mut() {
        let Some(dep) = dep.as_table_like_mut() else { continue };
        if let Some(path) = dep.get_mut("path") {
            if let Some(fixed) = path.as_str().and_then(|p| absolute(p, base, only_leaving)) {
                set_string(path, fixed);
            }
        }
    }
}

/// Makes the paths of `[patch.<source>]` (or `[replace]`) absolute.
fn absolutize_overrides(doc: &mut Table, key: &str, base: &Path, only_leaving: bool) {
    let Some(table) = doc.get_mut(key).and_then(Item::as_table_like_mut) else { return };
    if key == "replace" {
        absolutize_dependency_paths(table, base, only_leaving);
        return;
    }
    for (_, source) in table.iter_mut() {
        if let Some(source) = source.as_table_like_mut() {
            absolutize_dependency_paths(source, base, only_leaving);
        }
    }
}

/// Makes target paths that leave the package absolute (those inside are copied with it).
fn absolutize_target_paths(doc: &mut DocumentMut, base: &Path) {
    let fix = |item: Option<&mut Item>| {
        if let Some(item) = item {
            if let Some(fixed) = item.as_str().and_then(|p| absolute(p, base, true)) {
                set_string(item, fixed);
            }
        }
    };
    if let Some(package) = doc.get_mut("package").and_then(Item::as_table_like_mut) {
        for key in ["build", "readme", "license-file"] {
            fix(package.get_mut(key));
        }
    }
    if let Some(lib) = doc.get_mut("lib").and_then(Item::as_table_like_mut) {
        fix(lib.get_mut("path"));
    }
    for key in TARGET_ARRAYS {
        if let Some(targets) = doc.get_mut(key).and_then(Item::as_array_of_tables_mut) {
            for target in targets.iter_mut() {
                fix(target.get_mut("path"));
            }
        }
    }
}

/// Whether `item` is `{ workspace = true }` (or `x.workspace = true`).
fn inherits(item: &Item) -> bool {
    item.as_table_like().and_then(|t| t.get("workspace")).and_then(Item::as_bool) == Some(true)
}

/// Makes a member's manifest independent of its workspace (see [`fix_manifest`]).
fn inherit_from_workspace(doc: &mut DocumentMut, ws: &Workspace) -> Result<()> {
    let root_manifest = ws.root.join("Cargo.toml");
    let shared = ws.manifest.get("workspace").and_then(Item::as_table_like);
    let shared_package = shared.and_then(|w| w.get("package")).and_then(Item::as_table_like);
    let shared_deps = shared.and_then(|w| w.get("dependencies")).and_then(Item::as_table_like);

    if let Some(package) = doc.get_mut("package").and_then(Item::as_table_like_mut) {
        package.remove("workspace");
        let inherited: Vec<String> =
            package.iter().filter(|(_, item)| inherits(item)).map(|(key, _)| key.to_string()).collect();
        for key in inherited {
            let Some(value) = shared_package.and_then(|p| p.get(&key)).and_then(Item::as_value) else {
                bail!(
                    "package.{key} inherits from the workspace, but {} has no [workspace.package] {key}",
                    root_manifest.display()
                );
            };
            let mut value = value.clone();
            value.decor_mut().clear();
            let mut item = Item::Value(value);
            if key == "readme" || key == "license-file" {
                if let Some(fixed) = item.as_str().and_then(|p| absolute(p, &ws.root, false)) {
                    set_string(&mut item, fixed);
                }
            }
            package.insert(&key, item);
        }
    }

    for_each_dependency_table(doc, &mut |deps| {
        let inherited: Vec<String> =
            deps.iter().filter(|(_, item)| inherits(item)).map(|(key, _)| key.to_string()).collect();
        for name in inherited {
            let Some(shared) = shared_deps.and_then(|d| d.get(&name)) else {
                bail!(
                    "dependency `{name}` inherits from the workspace, but {} has no \
                     [workspace.dependencies] {name}",
                    root_manifest.display()
                );
            };
            if let Some(dep) = deps.get_mut(&name).and_then(Item::as_table_like_mut) {
                inherit_dependency(dep, shared, &ws.root);
            }
        }
        Ok(())
    })?;

    if doc.get("lints").is_some_and(inherits) {
        doc.remove("lints");
    }
    // cargo applies the root's profiles and overrides to members and ignores theirs.
    let mut next_position =
        doc.iter().filter_map(|(_, item)| item.as_table()?.position()).max().unwrap_or(0) + 1;
    for key in ["profile", "patch", "replace"] {
        doc.remove(key);
        if let Some(item) = ws.manifest.get(key) {
            doc.insert(key, item.clone());
            if key != "profile" {
                absolutize_overrides(doc, key, &ws.root, false);
            }
            if let Some(table) = doc.get_mut(key).and_then(Item::as_table_mut) {
                move_to_end(table, &mut next_position);
            }
        }
    }
    Ok(())
}

/// Gives `table` and its subtables positions from `next` on, so a table copied from another
/// document prints after this one's tables.
fn move_to_end(table: &mut Table, next: &mut usize) {
    table.set_position(*next);
    *next += 1;
    for (_, item) in table.iter_mut() {
        match item {
            Item::Table(sub) => move_to_end(sub, next),
            Item::ArrayOfTables(array) => {
                for sub in array.iter_mut() {
                    move_to_end(sub, next);
                }
            }
            _ => {}
        }
    }
}

/// Turns a member's `{ workspace = true, features = [..], optional = .. }` into the workspace's
/// entry (a version string or a table, its `path` made absolute) with the member's additions:
/// features are the union, other keys the member's.
fn inherit_dependency(dep: &mut dyn TableLike, shared: &Item, ws_root: &Path) {
    dep.remove("workspace");
    let strings = |item: Option<&Item>| -> Vec<String> {
        item.and_then(Item::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default()
    };
    let mut features = Vec::new();
    if let Some(version) = shared.as_str() {
        dep.insert("version", toml_edit::value(version));
    } else if let Some(table) = shared.as_table_like() {
        features = strings(table.get("features"));
        for (key, item) in table.iter() {
            if key == "features" || dep.contains_key(key) {
                continue;
            }
            let Some(value) = item.as_value() else { continue };
            let mut value = value.clone();
            value.decor_mut().clear();
            let mut item = Item::Value(value);
            if key == "path" {
                if let Some(fixed) = item.as_str().and_then(|p| absolute(p, ws_root, false)) {
                    set_string(&mut item, fixed);
                }
            }
            dep.insert(key, item);
        }
    }
    for feature in strings(dep.get("features")) {
        if !features.contains(&feature) {
            features.push(feature);
        }
    }
    if features.is_empty() {
        dep.remove("features");
    } else {
        dep.insert(
            "features",
            Item::Value(Value::Array(features.iter().map(String::as_str).collect::<Array>())),
        );
    }
    dep.fmt();
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn workspace(root: &str, manifest: &str) -> Workspace {
        Workspace { root: PathBuf::from(root), manifest: manifest.parse().expect("test manifest") }
    }

    #[test]
    fn relative_dependency_paths_become_absolute_and_formatting_stays() {
        let text = r#"[package]
name = "app" # the app
version = "0.1.0"

[dependencies]
helper = { path = "../helper" } # a sibling
inner = { path = "inner" }
far = { path = "/abs/far" }
plain = "1"

[dependencies.table]
path = "../table"

[target.'cfg(unix)'.dev-dependencies]
unixy = { path = "../unixy", version = "0.1" }

[build-dependencies]
gen.path = "../gen"

[patch.crates-io]
half = { path = "../half" }
"#;
        let fixed = fix_manifest(text, Path::new("/u/app"), None).expect("fixes");
        assert_eq!(
            fixed,
            r#"[package]
name = "app" # the app
version = "0.1.0"

[dependencies]
helper = { path = "/u/app/../helper" } # a sibling
inner = { path = "/u/app/inner" }
far = { path = "/abs/far" }
plain = "1"

[dependencies.table]
path = "/u/app/../table"

[target.'cfg(unix)'.dev-dependencies]
unixy = { path = "/u/app/../unixy", version = "0.1" }

[build-dependencies]
gen.path = "/u/app/../gen"

[patch.crates-io]
half = { path = "/u/app/../half" }

# Added by cargo-fptune: this scratch copy is its own workspace.
[workspace]
"#
        );
    }

    #[test]
    fn a_workspace_root_package_keeps_paths_to_its_members() {
        let text = "[package]\nname = \"root\"\n[workspace]\nmembers = [\"sub\"]\n[dependencies]\nsub = { path = \"sub\" }\nout = { path = \"../out\" }\n";
        let fixed = fix_manifest(text, Path::new("/u/root"), None).expect("fixes");
        assert!(fixed.contains("sub = { path = \"sub\" }"), "{fixed}");
        assert!(fixed.contains("out = { path = \"/u/root/../out\" }"), "{fixed}");
        assert_eq!(fixed.matches("[workspace]").count(), 1);
    }

    #[test]
    fn target_paths_leaving_the_package_become_absolute() {
        let text = "[package]\nname = \"a\"\nbuild = \"../build.rs\"\n[lib]\npath = \"src/lib.rs\"\n[[bin]]\nname = \"b\"\npath = \"../shared/b.rs\"\n";
        let fixed = fix_manifest(text, Path::new("/u/a"), None).expect("fixes");
        assert!(fixed.contains("build = \"/u/a/../build.rs\""), "{fixed}");
        assert!(fixed.contains("path = \"src/lib.rs\""), "{fixed}");
        assert!(fixed.contains("path = \"/u/a/../shared/b.rs\""), "{fixed}");
    }

    const ROOT: &str = r#"[workspace]
members = ["member", "util"]
resolver = "2"

[workspace.package]
version = "0.3.1" # shared
edition = "2021"
license = "MIT"
readme = "README.md"

[workspace.dependencies]
util = { path = "util", features = ["fast"] }
serde = "1"
rand = { version = "0.8", default-features = false }

[workspace.lints.rust]
unsafe_code = "forbid"

[profile.release]
debug = 1

[patch.crates-io]
half = { path = "vendor/half" }
"#;

    #[test]
    fn a_members_inherited_fields_and_dependencies_become_concrete() {
        let member = r#"[package]
name = "member"
version.workspace = true
edition = { workspace = true }
license.workspace = true
readme.workspace = true
workspace = ".."

[dependencies]
util = { workspace = true, features = ["extra"], optional = true }
serde.workspace = true
local = { path = "../local" }

[dev-dependencies.rand]
workspace = true
features = ["std"]

[lints]
workspace = true

[profile.release]
debug = 0
"#;
        let fixed =
            fix_manifest(member, Path::new("/w/member"), Some(&workspace("/w", ROOT))).expect("fixes");
        assert_eq!(
            fixed,
            r#"[package]
name = "member"
version = "0.3.1"
edition = "2021"
license = "MIT"
readme = "/w/README.md"

[dependencies]
util = { features = ["fast", "extra"], optional = true, path = "/w/util" }
serde.version = "1"
local = { path = "/w/member/../local" }

[dev-dependencies.rand]
features = ["std"]
version = "0.8"
default-features = false

[profile.release]
debug = 1

[patch.crates-io]
half = { path = "/w/vendor/half" }

# Added by cargo-fptune: this scratch copy is its own workspace.
[workspace]
resolver = "2"
"#
        );
    }

    #[test]
    fn a_field_missing_from_the_workspace_is_an_error_naming_it() {
        let member = "[package]\nname = \"m\"\nauthors.workspace = true\n";
        let err = fix_manifest(member, Path::new("/w/m"), Some(&workspace("/w", ROOT))).expect_err("fails");
        assert!(err.to_string().contains("package.authors inherits from the workspace"), "{err}");
    }

    #[test]
    fn a_virtual_workspace_without_a_resolver_keeps_resolver_1() {
        let root = "[workspace]\nmembers = [\"m\"]\n";
        let fixed =
            fix_manifest("[package]\nname = \"m\"\n", Path::new("/w/m"), Some(&workspace("/w", root)))
                .expect("fixes");
        assert!(fixed.ends_with("[workspace]\nresolver = \"1\"\n"), "{fixed}");
    }

    #[test]
    fn ascent_counts_how_far_a_path_climbs() {
        assert_eq!(ascent(Path::new("src/lib.rs")), 0);
        assert_eq!(ascent(Path::new("./a/../b")), 0);
        assert_eq!(ascent(Path::new("../x")), 1);
        assert_eq!(ascent(Path::new("a/../../../x")), 2);
    }
}
