//! Snapshots of `cargo fptune --help` and of its subcommands' (`list`, `apply`, `batch`, `mark`), so a
//! change of an option or of its wording shows in review. The help is rendered by clap from
//! `cli::Cli` at a fixed width of 100 columns (clap's own cap), whatever the terminal; a test checks
//! that the binary prints the same with `COLUMNS=100`.
//!
//! After an intended change of the output, `INSTA_UPDATE=always cargo test -p cargo-fptune --test
//! snapshots` rewrites `tests/snapshots/`; review their diff (`git diff tuner/tests/snapshots`)
//! before committing it. Under CI (`CI=true`) a missing or differing snapshot fails and nothing is
//! written. The snapshots of `report.md` and of the batch tables are beside their code, in
//! `src/report.rs` and `src/batch.rs` (`src/snapshots/`).

use cargo_fptune::cli::Cli;
use clap::CommandFactory;

/// The width the help is wrapped at.
const COLUMNS: usize = 100;

/// What `cargo fptune <args> --help` prints, rendered by clap at [`COLUMNS`] columns, as plain text.
fn help(args: &[&str]) -> String {
    let argv = std::iter::once("cargo-fptune").chain(args.iter().copied()).chain(["--help"]);
    let error = Cli::command().term_width(COLUMNS).max_term_width(COLUMNS).try_get_matches_from(argv).expect_err("--help stops parsing");
    assert_eq!(error.kind(), clap::error::ErrorKind::DisplayHelp, "{error}");
    error.render().to_string()
}

#[test]
fn help_of_cargo_fptune() {
    insta::assert_snapshot!("help", help(&[]));
}

#[test]
fn help_of_list() {
    insta::assert_snapshot!("help_list", help(&["list"]));
}

#[test]
fn help_of_apply() {
    insta::assert_snapshot!("help_apply", help(&["apply"]));
}

#[test]
fn help_of_batch() {
    insta::assert_snapshot!("help_batch", help(&["batch"]));
}

#[test]
fn help_of_mark() {
    insta::assert_snapshot!("help_mark", help(&["mark"]));
}

/// The snapshots are what a user sees: the binary (as cargo runs it, `fptune` its first argument)
/// prints the same help at the same width, and exits with 0.
#[test]
fn the_binary_prints_the_help_the_snapshots_hold() {
    for args in [&[][..], &["list"], &["apply"], &["batch"], &["mark"]] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-fptune"))
            .arg("fptune")
            .args(args)
            .arg("--help")
            .env("COLUMNS", COLUMNS.to_string())
            .env_remove("CLICOLOR_FORCE")
            .output()
            .expect("cargo-fptune runs");
        assert_eq!(output.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
        assert_eq!(String::from_utf8_lossy(&output.stdout), help(args), "{args:?}");
    }
}
