//! Where the programs fptune runs run: a copy of the package's files, put back as it was after
//! each run, so that a program writing files relative to its working directory (a history
//! appended to, an output image) never writes the user's tree, and no run sees what another left.
//!
//! A [`RunDir`] is a [`Scratch`] copy of the package (the same relative files as the package
//! root; never built in) and a snapshot of it: every path with its size and modification time.
//! [`RunDir::reset`], called before each run, removes what is not in the snapshot and copies back
//! from the user's tree what changed or went missing. Runs of one lab take any free run
//! directory of its pool ([`RunDirs`]), one per job.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::SystemTime;

use anyhow::{Context, Result};

use crate::scratch::{Scratch, ScratchOptions};

/// What a path was when the copy was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stamp {
    Dir,
    File { len: u64, modified: Option<SystemTime> },
    Link,
}

fn stamp(meta: &fs::Metadata) -> Stamp {
    if meta.file_type().is_symlink() {
        Stamp::Link
    } else if meta.is_dir() {
        Stamp::Dir
    } else {
        Stamp::File { len: meta.len(), modified: meta.modified().ok() }
    }
}

/// A copy of the package where programs run.
#[derive(Debug)]
pub struct RunDir {
    scratch: Scratch,
    /// Every path of the copy, relative, as it was made.
    snapshot: HashMap<PathBuf, Stamp>,
}

impl RunDir {
    /// Copies the package at `package_root` (with `options`' skips and leak setting).
    pub fn create(package_root: &Path, options: &ScratchOptions) -> Result<RunDir> {
        let scratch = Scratch::create(package_root, options)?;
        let snapshot = walk(scratch.root())?;
        Ok(RunDir { scratch, snapshot })
    }

    /// The working directory of a run: the copy's package root.
    pub fn root(&self) -> &Path {
        self.scratch.root()
    }

    /// Puts the copy back as it was made: removes what a run added, copies back from the user's
    /// tree what a run changed or removed. Returns how many paths it touched.
    pub fn reset(&mut self) -> Result<usize> {
        let root = self.scratch.root();
        let now = walk(root)?;
        let mut touched = 0;
        // Added: removed (a directory with what is under it; what is under a removed one is
        // skipped).
        let mut added: Vec<&PathBuf> = now.keys().filter(|p| !self.snapshot.contains_key(*p)).collect();
        added.sort();
        let mut removed_dirs: Vec<&PathBuf> = Vec::new();
        for rel in added {
            if removed_dirs.iter().any(|d| rel.starts_with(d)) {
                continue;
            }
            let path = root.join(rel);
            if now[rel] == Stamp::Dir {
                fs::remove_dir_all(&path).with_context(|| format!("cannot remove {}, which a run made", path.display()))?;
                removed_dirs.push(rel);
            } else {
                fs::remove_file(&path).with_context(|| format!("cannot remove {}, which a run made", path.display()))?;
            }
            touched += 1;
        }
        // Changed or missing: copied back from the user's tree, in path order (parents first).
        let mut stale: Vec<(&PathBuf, &Stamp)> = self.snapshot.iter().filter(|(p, s)| now.get(*p) != Some(*s)).collect();
        stale.sort_by(|a, b| a.0.cmp(b.0));
        for (rel, was) in stale {
            let (from, to) = (self.scratch.source_root().join(rel), root.join(rel));
            match was {
                Stamp::Dir => fs::create_dir_all(&to).with_context(|| format!("cannot create {}", to.display()))?,
                Stamp::Link => {
                    let _ = fs::remove_file(&to);
                    let target = fs::read_link(&from).with_context(|| format!("cannot read the link {}", from.display()))?;
                    std::os::unix::fs::symlink(target, &to).with_context(|| format!("cannot create the link {}", to.display()))?;
                }
                Stamp::File { .. } => {
                    if now.get(rel) == Some(&Stamp::Dir) {
                        fs::remove_dir_all(&to).with_context(|| format!("cannot remove {}", to.display()))?;
                    }
                    fs::copy(&from, &to).with_context(|| format!("cannot copy {} to {}", from.display(), to.display()))?;
                }
            }
            touched += 1;
        }
        if touched > 0 {
            // The copies have new times: the next reset compares against these.
            self.snapshot = walk(root)?;
        }
        Ok(touched)
    }
}

/// One run directory per job: a run takes a free one.
#[derive(Debug, Default)]
pub struct RunDirs {
    dirs: Vec<Mutex<RunDir>>,
}

impl RunDirs {
    /// `n` copies of the package at `package_root`.
    pub fn create(package_root: &Path, options: &ScratchOptions, n: usize) -> Result<RunDirs> {
        let dirs = (0..n.max(1)).map(|_| RunDir::create(package_root, options).map(Mutex::new)).collect::<Result<_>>()?;
        Ok(RunDirs { dirs })
    }

    /// A free run directory, reset (waits for the first when every one is in use).
    pub fn take(&self) -> Result<MutexGuard<'_, RunDir>> {
        let mut dir = self
            .dirs
            .iter()
            .find_map(|d| d.try_lock().ok())
            .map_or_else(|| self.dirs[0].lock().map_err(|_| anyhow::anyhow!("a run directory's lock is poisoned")), Ok)?;
        dir.reset()?;
        Ok(dir)
    }
}

/// Every path under `root`, relative, with its stamp.
fn walk(root: &Path) -> Result<HashMap<PathBuf, Stamp>> {
    let mut paths = HashMap::new();
    for entry in walkdir::WalkDir::new(root).min_depth(1).follow_links(false) {
        let entry = entry.with_context(|| format!("cannot read the run directory {}", root.display()))?;
        let meta = entry.path().symlink_metadata().with_context(|| format!("cannot read {}", entry.path().display()))?;
        let rel = entry.path().strip_prefix(root).context("walkdir left the run directory")?.to_path_buf();
        paths.insert(rel, stamp(&meta));
    }
    Ok(paths)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reset_takes_back_what_a_run_wrote_added_or_removed() {
        let user = tempfile::tempdir().expect("a temporary directory");
        let pkg = user.path().join("pkg");
        fs::create_dir_all(pkg.join("src")).expect("created");
        fs::create_dir_all(pkg.join("data")).expect("created");
        fs::write(pkg.join("Cargo.toml"), "[package]\nname = \"pkg\"\nversion = \"0.1.0\"\n").expect("written");
        fs::write(pkg.join("src/main.rs"), "fn main() {}\n").expect("written");
        fs::write(pkg.join("data/input.txt"), "1.5\n").expect("written");
        let scratch_parent = tempfile::tempdir().expect("a temporary directory");
        let options = ScratchOptions { parent: Some(scratch_parent.path().to_path_buf()), ..ScratchOptions::default() };
        let dirs = RunDirs::create(&pkg, &options, 2).expect("copied");
        let root = {
            let dir = dirs.take().expect("a free one");
            assert_eq!(fs::read_to_string(dir.root().join("data/input.txt")).expect("copied"), "1.5\n");
            // A run: appends to its input, writes results, removes a file, replaces one by a dir.
            fs::write(dir.root().join("data/input.txt"), "1.5\n2.5\n").expect("written");
            fs::create_dir_all(dir.root().join("results/deep")).expect("created");
            fs::write(dir.root().join("results/deep/history.txt"), "run 1\n").expect("written");
            fs::write(dir.root().join("out.png"), "image").expect("written");
            fs::remove_file(dir.root().join("src/main.rs")).expect("removed");
            dir.root().to_path_buf()
        };
        // The next run finds it as it was made.
        let mut dir = dirs.take().expect("the same one, free again");
        assert_eq!(dir.root(), root);
        assert_eq!(fs::read_to_string(root.join("data/input.txt")).expect("restored"), "1.5\n");
        assert_eq!(fs::read_to_string(root.join("src/main.rs")).expect("restored"), "fn main() {}\n");
        assert!(!root.join("results").exists() && !root.join("out.png").exists());
        assert_eq!(dir.reset().expect("resets"), 0, "nothing to do after a reset");
        // The user's tree saw none of it.
        assert_eq!(fs::read_to_string(pkg.join("data/input.txt")).expect("kept"), "1.5\n");
        assert!(!pkg.join("results").exists());
        // Two runs at once take two directories.
        let other = dirs.take().expect("the other one");
        assert_ne!(other.root(), dir.root());
    }
}
