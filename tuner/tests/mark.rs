//! `cargo fptune mark` end to end, on copies of fixtures: the preview changes nothing and says
//! where its patch is; `--write` writes the markers `--auto` infers (the user's forms, none of
//! fptune's elaboration) and the fptune dependency; the marked crate builds and prints natively
//! what the unmarked one printed (issue 44: markers never break a native build); no scratch
//! directory is left behind; bad input is refused with what to do.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::fixture;

/// One target directory for every test here: the fptune runtime and the fixtures' dependencies
/// are built once.
fn target() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("mark-target")
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// `cargo fptune mark ARGS` on the crate at `krate`, its temporary directories in `tmp`.
fn mark(krate: &Path, args: &[&str], tmp: &Path) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-fptune"))
        .args(["fptune", "mark"])
        .args(args)
        .arg("--manifest-path")
        .arg(krate.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", target())
        .env("TMPDIR", tmp)
        .output()
        .expect("cargo-fptune runs");
    Run { code: out.status.code().unwrap_or(-1), stdout: String::from_utf8_lossy(&out.stdout).into_owned(), stderr: String::from_utf8_lossy(&out.stderr).into_owned() }
}

/// What the crate at `krate` prints, built and run natively.
fn native_output(krate: &Path) -> String {
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["run", "--quiet", "--manifest-path"])
        .arg(krate.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", target())
        .output()
        .expect("cargo runs");
    assert!(out.status.success(), "{} does not build or run: {}", krate.display(), String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The crate's manifest and sources, by path.
fn texts(krate: &Path) -> BTreeMap<String, String> {
    walkdir::WalkDir::new(krate)
        .into_iter()
        .filter_entry(|e| !matches!(e.file_name().to_str(), Some("fptune.out" | "target")))
        .map(|e| e.expect("walk the crate"))
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs") || e.file_name() == "Cargo.toml")
        .map(|e| {
            let rel = e.path().strip_prefix(krate).expect("inside").to_string_lossy().into_owned();
            (rel, std::fs::read_to_string(e.path()).expect("readable"))
        })
        .collect()
}

/// Marks fixture `name` (previewing first when `preview`), then checks the marked crate.
fn marked_prints_what_unmarked_printed(name: &str, preview: bool) {
    let (_dir, krate) = fixture(name);
    let tmp = tempfile::tempdir().expect("temp dir");
    let unmarked = native_output(&krate);
    let before = texts(&krate);
    let patch_path = krate.join("fptune.out/mark.patch");
    if preview {
        let run = mark(&krate, &[], tmp.path());
        assert_eq!(run.code, 0, "{name}: {}{}", run.stdout, run.stderr);
        assert_eq!(texts(&krate), before, "{name}: the preview changes nothing");
        assert!(run.stdout.contains(&patch_path.display().to_string()) && run.stdout.contains("cargo fptune mark --write"), "{}", run.stdout);
        let patch = std::fs::read_to_string(&patch_path).expect("the preview writes its patch");
        assert!(patch.contains("+#[fptune::tune] ") && patch.contains("#[tune] let"), "{name}: {patch}");
        assert!(patch.contains("+fptune = { path = "), "{name}: the dependency is in the patch: {patch}");
    }
    let run = mark(&krate, &["--write"], tmp.path());
    assert_eq!(run.code, 0, "{name}: {}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("marked ") && run.stdout.contains("added to Cargo.toml"), "{name}: {}", run.stdout);
    let after = texts(&krate);
    let changed: Vec<&String> = after.keys().filter(|f| after[*f] != before[*f]).collect();
    assert!(changed.iter().any(|f| f.starts_with("src/")) && changed.iter().any(|f| *f == "Cargo.toml"), "{name}: {changed:?}");
    for f in &changed {
        let text = &after[*f];
        // The user's forms only: no fptune-internal elaboration, no internal marker argument.
        assert!(!text.contains("__rt") && !text.contains("(printed)") && !text.contains("elaborated!"), "{name}: {f}:\n{text}");
    }
    assert!(std::fs::read_to_string(&patch_path).expect("the patch").contains("+#[fptune::tune] "), "{name}");
    assert_eq!(native_output(&krate), unmarked, "{name}: marked, the crate prints what it printed unmarked");
    let left: Vec<_> = std::fs::read_dir(tmp.path()).expect("temp dir").map(|e| e.expect("entry").file_name()).collect();
    assert!(left.is_empty(), "{name}: scratch directories left behind: {left:?}");
    // Marked now: a second mark has nothing to do.
    let again = mark(&krate, &["--write"], tmp.path());
    assert_eq!(again.code, 0, "{name}: {}", again.stderr);
    assert!(again.stdout.contains("nothing to mark"), "{name}: {}", again.stdout);
    assert_eq!(texts(&krate), after, "{name}");
}

#[test]
fn floats_typed_by_a_later_use_keep_compiling_once_marked() {
    marked_prints_what_unmarked_printed("mark_inferred", true);
}

#[test]
fn closures_and_fn_pointers_keep_compiling_once_marked() {
    marked_prints_what_unmarked_printed("gallery/closures", true);
}

#[test]
fn iterator_chains_keep_compiling_once_marked() {
    marked_prints_what_unmarked_printed("gallery/iterator_chains", false);
}

#[test]
fn a_library_and_its_binary_keep_compiling_once_marked() {
    marked_prints_what_unmarked_printed("gallery/lib_and_bin", false);
}

#[test]
fn bad_input_is_refused_with_what_to_do_and_nothing_is_written() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = mark(&tmp.path().join("nowhere"), &[], tmp.path());
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("--manifest-path"), "{}", run.stderr);

    let (_dir, krate) = fixture("broken");
    let before = texts(&krate);
    let run = mark(&krate, &["--write"], tmp.path());
    assert_eq!(run.code, 4, "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("does not build as it is") && run.stderr.contains("cargo check"), "{}", run.stderr);
    assert_eq!(texts(&krate), before);
    let left: Vec<_> = std::fs::read_dir(tmp.path()).expect("temp dir").map(|e| e.expect("entry").file_name()).collect();
    assert!(left.is_empty(), "scratch directories left behind: {left:?}");
}
