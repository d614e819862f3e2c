//! Scratch copies build where they are, rebuild incrementally and leave the user's tree alone.

mod common;

use std::fs;
use std::path::Path;
use std::time::Duration;

use cargo_fptune::cargo::{self, BuildOptions, BuildResult};
use cargo_fptune::process::{self, Command, Status};
use cargo_fptune::scratch::{Scratch, ScratchOptions};

fn build(scratch: &Scratch) -> BuildResult {
    let opts = BuildOptions::for_scratch(scratch);
    let log = scratch.dir().join("build.log");
    let result = cargo::build(&opts, &log).expect("cargo runs");
    assert!(result.success, "the scratch copy builds: {}\n{}", result.first_error(), result.stderr);
    result
}

fn run(exe: &Path) -> String {
    let log = exe.with_extension("log");
    let result = process::run(&Command::new(exe), Duration::from_secs(20), &log).expect("runs");
    assert_eq!(result.status, Status::Exited(0), "{}", result.stderr);
    result.stdout
}

fn fresh(result: &BuildResult) -> Vec<(&str, bool)> {
    result.artifacts.iter().map(|a| (a.target.as_str(), a.fresh)).collect()
}

#[test]
fn copying_a_package_with_a_relative_path_dependency_builds_in_the_scratch_dir() {
    let (_user, tree) = common::fixture("path_dep");
    let app = tree.join("app");
    let options = ScratchOptions { target_dir: Some(common::target_dir("path_dep")), ..Default::default() };
    let scratch = Scratch::create(&app, &options).expect("scratch");
    assert_ne!(scratch.root(), app);
    assert!(scratch.root().join("src/main.rs").is_file());
    let manifest = fs::read_to_string(scratch.manifest_path()).expect("manifest");
    let helper = format!("helper = {{ path = \"{}/../helper\" }} # must still resolve", app.display());
    assert!(manifest.contains(&helper), "{manifest}");

    let result = build(&scratch);
    let exe = result.executable.expect("an executable");
    assert!(exe.starts_with(common::target_dir("path_dep")), "{}", exe.display());
    assert_eq!(run(&exe), "1.5\n");
}

#[test]
fn a_workspace_member_copies_and_builds_standalone() {
    let (_user, tree) = common::fixture("workspace");
    let options = ScratchOptions { target_dir: Some(common::target_dir("workspace")), ..Default::default() };
    let scratch = Scratch::create(&tree.join("member"), &options).expect("scratch");
    assert_eq!(scratch.workspace_root(), Some(tree.as_path()));
    let manifest = fs::read_to_string(scratch.manifest_path()).expect("manifest");
    assert!(manifest.contains("version = \"0.2.0\""), "{manifest}");
    assert!(manifest.contains(&format!("util.path = \"{}/util\"", tree.display())), "{manifest}");
    assert!(!manifest.contains("workspace = true"), "{manifest}");
    assert!(manifest.contains("[profile.dev]\ndebug = 0"), "{manifest}");
    assert!(manifest.trim_end().ends_with("[workspace]\nresolver = \"2\""), "{manifest}");
    assert!(scratch.root().join("Cargo.lock").is_file(), "the workspace's lock file is copied");

    let result = build(&scratch);
    assert_eq!(run(&result.executable.expect("an executable")), "42\n");
}

#[test]
fn the_users_tree_is_unchanged_after_a_run() {
    let (_user, tree) = common::fixture("path_dep");
    let before = common::tree_hash(&tree);
    let scratch_top;
    {
        let scratch = Scratch::create(&tree.join("app"), &ScratchOptions::default()).expect("scratch");
        scratch_top = scratch.dir().to_path_buf();
        let main = fs::read_to_string(scratch.root().join("src/main.rs")).expect("main.rs");
        let lowered =
            main.replace("let x: f64", "let x: f32").replace("helper::half(3.0)", "helper::half(3.0) as f32");
        assert_eq!(scratch.write_sources(&[("src/main.rs".into(), lowered)]).expect("writes"), 1);
        let result = build(&scratch);
        assert_eq!(run(&result.executable.expect("an executable")), "1.5\n");
        assert!(scratch.restore("src/main.rs").expect("restores"));
        assert!(scratch.target_dir().starts_with(&scratch_top), "the target dir is the scratch's own");
    }
    assert_eq!(common::tree_hash(&tree), before, "the user's tree was written");
    assert!(!tree.join("app/target").exists() && !tree.join("helper/target").exists());
    assert!(!scratch_top.exists(), "a dropped scratch is deleted");
}

#[test]
fn rewriting_a_source_then_rebuilding_is_incremental() {
    let (_user, tree) = common::fixture("path_dep");
    let scratch = Scratch::create(&tree.join("app"), &ScratchOptions::default()).expect("scratch");
    let first = build(&scratch);
    assert_eq!(fresh(&first), [("helper", false), ("app", false)], "a new scratch starts cold");

    let main = fs::read_to_string(scratch.root().join("src/main.rs")).expect("main.rs");
    let candidate = main.replace("3.0", "5.0");
    let files = [("src/main.rs".to_string(), candidate)];
    assert_eq!(scratch.write_sources(&files).expect("writes"), 1);
    let second = build(&scratch);
    assert_eq!(fresh(&second), [("helper", true), ("app", false)], "only the rewritten crate recompiles");
    assert_eq!(run(second.executable.as_deref().expect("an executable")), "2.5\n");

    assert_eq!(scratch.write_sources(&files).expect("writes"), 0, "an unchanged text is not written");
    let third = build(&scratch);
    assert_eq!(fresh(&third), [("helper", true), ("app", true)], "nothing changed, nothing recompiles");

    assert_eq!(
        scratch.apply_sources(&files).expect("applies"),
        0,
        "applying the same candidate writes nothing"
    );
    assert!(scratch.restore("src/main.rs").expect("restores"));
    assert!(!scratch.restore("src/main.rs").expect("restores"), "restoring twice changes nothing");
    let fourth = build(&scratch);
    assert_eq!(fresh(&fourth), [("helper", true), ("app", false)]);
    assert_eq!(run(fourth.executable.as_deref().expect("an executable")), "1.5\n");
}

#[test]
fn written_files_can_be_new_and_restoring_removes_them() {
    let (_user, tree) = common::fixture("path_dep");
    let scratch = Scratch::create(&tree.join("app"), &ScratchOptions::default()).expect("scratch");
    let files = [("src/fptune/target.rs".to_string(), "// rendered\n".to_string())];
    assert_eq!(scratch.write_sources(&files).expect("writes"), 1);
    assert!(scratch.root().join("src/fptune/target.rs").is_file());
    assert_eq!(
        scratch.path_of("./src/fptune/target.rs").expect("inside"),
        scratch.root().join("src/fptune/target.rs")
    );
    assert_eq!(scratch.restore_all().expect("restores"), 1);
    assert!(!scratch.root().join("src/fptune/target.rs").exists());

    let main = ("src/main.rs".to_string(), "fn main() {}\n".to_string());
    assert_eq!(scratch.apply_sources(&[files[0].clone(), main.clone()]).expect("applies"), 2);
    assert_eq!(
        scratch.apply_sources(&[main]).expect("applies"),
        1,
        "the rendered file is removed, main.rs kept"
    );
    assert!(!scratch.root().join("src/fptune/target.rs").exists());
    assert_eq!(fs::read_to_string(scratch.root().join("src/main.rs")).expect("main.rs"), "fn main() {}\n");
    assert_eq!(scratch.apply_sources(&[]).expect("applies"), 1, "applying nothing restores the original");
    assert!(fs::read_to_string(scratch.root().join("src/main.rs"))
        .expect("main.rs")
        .contains("helper::half"));
}

#[test]
fn writing_outside_the_copy_is_refused() {
    let (_user, tree) = common::fixture("path_dep");
    let scratch = Scratch::create(&tree.join("app"), &ScratchOptions::default()).expect("scratch");
    for rel in ["../helper/src/lib.rs", "src/../../helper/src/lib.rs", "/etc/passwd", "", "."] {
        let err = scratch.write_sources(&[(rel.to_string(), String::new())]).expect_err(rel);
        assert!(err.to_string().contains("is not a path inside the package"), "{err}");
    }
}

#[test]
fn a_leaked_scratch_survives_its_drop() {
    let (_user, tree) = common::fixture("path_dep");
    let options = ScratchOptions { leak: true, ..Default::default() };
    let scratch = Scratch::create(&tree.join("app"), &options).expect("scratch");
    let (kept, manifest) = (scratch.dir().to_path_buf(), scratch.manifest_path());
    assert!(manifest.starts_with(&kept));
    drop(scratch);
    assert!(manifest.is_file());
    fs::remove_dir_all(&kept).expect("clean up");
}

#[test]
fn target_and_version_control_dirs_are_not_copied() {
    let (_user, tree) = common::fixture("path_dep");
    let app = tree.join("app");
    for dir in ["target/debug", ".git/objects", "fptune.out", "custom-target", "src/nested/.git"] {
        fs::create_dir_all(app.join(dir)).expect("mkdir");
    }
    fs::write(app.join("custom-target/CACHEDIR.TAG"), "Signature: 8a477f597d28d172789f06886806bc55")
        .expect("tag");
    fs::write(app.join("target/debug/app"), "binary").expect("write");
    let scratch = Scratch::create(&app, &ScratchOptions::default()).expect("scratch");
    for dir in ["target", ".git", "fptune.out", "custom-target", "src/nested/.git"] {
        assert!(!scratch.root().join(dir).exists(), "{dir} was copied");
    }
    assert!(scratch.root().join("src/nested").is_dir());
}

#[test]
fn a_run_removes_the_scratch_directories_of_runs_that_were_killed_and_no_others() {
    let (_user, tree) = common::fixture("path_dep");
    let parent = tempfile::tempdir().expect("a temporary directory");
    let dead = {
        let mut child = std::process::Command::new("true").spawn().expect("true runs");
        child.wait().expect("reaped");
        child.id()
    };
    let make = |name: &str, owner: Option<u32>| {
        let dir = parent.path().join(name);
        fs::create_dir_all(dir.join("copy/src")).expect("created");
        if let Some(pid) = owner {
            fs::write(dir.join(cargo_fptune::scratch::OWNER), pid.to_string()).expect("written");
        }
        dir
    };
    let killed = make("fptune-app-killed", Some(dead));
    let running = make("fptune-app-running", Some(std::process::id()));
    let unowned = make("fptune-app-leaked", None);
    let other = make("someone-else", Some(dead));
    let options = ScratchOptions { parent: Some(parent.path().to_path_buf()), ..Default::default() };
    let scratch = Scratch::create(&tree.join("app"), &options).expect("scratch");
    assert!(!killed.exists(), "the killed run's scratch is removed");
    assert!(running.exists() && unowned.exists() && other.exists());
    let owner = fs::read_to_string(scratch.dir().join(cargo_fptune::scratch::OWNER)).expect("an owner file");
    assert_eq!(owner, std::process::id().to_string());
}
