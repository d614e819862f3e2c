//! cargo builds: failures come back as diagnostics, with the rendered errors in the log.

mod common;

use std::fs;

use cargo_fptune::cargo::{self, BuildOptions, Target};
use cargo_fptune::process::Status;
use cargo_fptune::scratch::{Scratch, ScratchOptions};

#[test]
fn a_failing_build_yields_diagnostics_with_file_and_line_and_the_log_has_the_rendered_errors() {
    let (user, tree) = common::fixture("broken");
    let options = ScratchOptions { target_dir: Some(common::target_dir("broken")), ..Default::default() };
    let scratch = Scratch::create(&tree, &options).expect("scratch");
    let opts = BuildOptions {
        target: Target::Bin("broken".into()),
        target_dir: Some(scratch.target_dir().to_path_buf()),
        ..BuildOptions::new(scratch.manifest_path())
    };
    let log = user.path().join("logs/build.log");
    let result = cargo::build(&opts, &log).expect("cargo runs");

    assert!(!result.success);
    assert_eq!(result.status, Status::Exited(101));
    assert_eq!(result.executable, None);
    let error = result.errors.first().expect("an error diagnostic");
    assert_eq!(error.level, "error");
    assert_eq!(error.code.as_deref(), Some("E0308"));
    let primary = error.primary().expect("a primary span");
    assert_eq!((primary.file.as_str(), primary.line, primary.column), ("src/main.rs", 4, 18));
    assert!(
        primary.label.as_deref().is_some_and(|l| l.contains("expected `f64`, found `f32`")),
        "{primary:?}"
    );
    assert!(error.spans.iter().any(|s| !s.primary && s.line == 4), "the annotation's span is kept");
    assert_eq!(result.first_error(), "error[E0308]: mismatched types at src/main.rs:4:18");

    let text = fs::read_to_string(&log).expect("the log exists");
    assert!(text.starts_with("$ "), "the log starts with the command: {text}");
    assert!(text.contains("error[E0308]: mismatched types"), "{text}");
    assert!(text.contains("--> src/main.rs:4:18"), "{text}");
    assert!(text.contains("# exited with code 101"), "{text}");
    assert!(!text.contains("\"reason\":"), "the log has rendered text, not JSON");
}

#[test]
fn a_broken_manifest_is_reported_from_cargos_own_errors() {
    let (user, tree) = common::fixture("broken");
    fs::write(tree.join("Cargo.toml"), "[package]\nname = \"broken\"\nversion = \"0.1.0\"\n[dependencies]\nnowhere = { path = \"../nowhere\" }\n")
        .expect("write manifest");
    let opts = BuildOptions { offline: true, ..BuildOptions::new(tree.join("Cargo.toml")) };
    let result = cargo::build(&opts, &user.path().join("build.log")).expect("cargo runs");
    assert!(!result.success);
    assert!(result.errors.is_empty());
    assert!(result.first_error().starts_with("error"), "{}", result.first_error());
}
