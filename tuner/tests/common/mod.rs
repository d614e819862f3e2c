//! Helpers shared by the integration tests: fixture copies, target dirs, tree hashes.

#![allow(dead_code)] // each test binary uses its own part

pub mod applied;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use cargo_fptune::cargo::{self, BuildOptions};
use sha2::{Digest, Sha256};
use tempfile::TempDir;

/// The fixture crates' directory in the source tree (never built in place: it lies inside
/// fptune's own workspace).
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// A copy of fixture `name` in a fresh temporary directory outside any workspace, standing for a
/// user's tree: returns the guard and the copy's path.
pub fn fixture(name: &str) -> (TempDir, PathBuf) {
    let dir = tempfile::Builder::new().prefix("fptune-test-user-").tempdir().expect("temp dir");
    let to = dir.path().canonicalize().expect("canonical temp dir").join(name);
    copy_dir(&fixtures_dir().join(name), &to);
    (dir, to)
}

/// [`fixture`], with every manifest's path dependency on fptune (`../../../../stochastic`, from
/// `tests/fixtures/NAME`) pointing at this checkout's runtime: a crate the tuner can build.
pub fn fixture_using_this_fptune(name: &str) -> (TempDir, PathBuf) {
    let (dir, to) = fixture(name);
    for entry in walkdir::WalkDir::new(&to).into_iter().map(|e| e.expect("walk the copy")) {
        if entry.file_name() == "Cargo.toml" {
            let manifest = fs::read_to_string(entry.path()).expect("manifest");
            fs::write(entry.path(), manifest.replace("path = \"../../../../stochastic\"", &format!("path = {:?}", fptune_dir().display().to_string())))
                .expect("write manifest");
        }
    }
    (dir, to)
}

/// A copy of the bundled sample `samples/NAME` (its manifest and `src/main.rs`) in a temporary
/// directory, its own workspace, its path dependency on fptune pointing at this checkout's.
pub fn sample(name: &str) -> (TempDir, PathBuf) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples").join(name);
    let dir = tempfile::tempdir().expect("temp dir");
    let dest = dir.path().join(name);
    fs::create_dir_all(dest.join("src")).expect("src");
    let manifest = fs::read_to_string(src.join("Cargo.toml"))
        .expect("manifest")
        .replace("path = \"../../stochastic\"", &format!("path = {:?}", fptune_dir().display().to_string()));
    fs::write(dest.join("Cargo.toml"), format!("{manifest}\n[workspace]\n")).expect("manifest");
    fs::copy(src.join("src/main.rs"), dest.join("src/main.rs")).expect("main.rs");
    (dir, dest)
}

/// This checkout's runtime crate (`stochastic/`), absolute.
pub fn fptune_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../stochastic").canonicalize().expect("fptune")
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("create fixture dir");
    for entry in fs::read_dir(from).expect("read fixture dir") {
        let entry = entry.expect("fixture entry");
        let dest = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_dir(&entry.path(), &dest);
        } else {
            fs::copy(entry.path(), &dest).expect("copy fixture file");
        }
    }
}

/// A target directory under cargo's per-package temporary directory, shared by tests that build
/// the same thing (kept across test runs, so rebuilds are quick).
pub fn target_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("fptune-fixtures").join(name)
}

/// Hash of every path, content, permission and modification time under `root`.
pub fn tree_hash(root: &Path) -> String {
    let mut hasher = Sha256::new();
    let mut entries: Vec<_> =
        walkdir::WalkDir::new(root).into_iter().map(|e| e.expect("walk the tree")).collect();
    entries.sort_by(|a, b| a.path().cmp(b.path()));
    for entry in entries {
        let meta = fs::symlink_metadata(entry.path()).expect("metadata");
        hasher.update(entry.path().to_string_lossy().as_bytes());
        hasher.update(format!("{:?}{:?}", meta.permissions(), meta.modified().expect("mtime")).as_bytes());
        if meta.is_file() {
            hasher.update(fs::read(entry.path()).expect("read file"));
        }
    }
    format!("{:x}", hasher.finalize())
}

/// The `programs` fixture's executable, built once per test binary.
pub fn programs() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let (_user, tree) = fixture("programs");
        let opts = BuildOptions {
            target_dir: Some(target_dir("programs")),
            ..BuildOptions::new(tree.join("Cargo.toml"))
        };
        let result = cargo::build(&opts, &tree.join("build.log")).expect("cargo runs");
        assert!(result.success, "the programs fixture builds: {}", result.first_error());
        result.executable.expect("the programs fixture has one binary")
    })
}

/// Whether process `pid` is gone (or a zombie nobody reaped yet: it no longer runs), waiting up
/// to two seconds for it to go.
pub fn process_is_gone(pid: u32) -> bool {
    for _ in 0..100 {
        match fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return true,
            Ok(stat) => {
                // The state follows the parenthesised command name.
                let state = stat.rsplit(')').next().and_then(|rest| rest.split_whitespace().next());
                if matches!(state, Some("Z" | "X")) {
                    return true;
                }
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    false
}
