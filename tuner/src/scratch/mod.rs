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
use toml_edit::DocumentMut;

mod live;
mod manifest;

use self::live::live;
pub use self::live::{remove_all_live, remove_stale};
use self::manifest::{find_workspace, fix_manifest};
pub(crate) use self::manifest::with_fptune;

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
const ROOT_SKIPS: [&str; 2] = ["target", crate::outdir::RUN_DEFAULT];

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
