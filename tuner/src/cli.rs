//! The command line, in cargo's habits: `cargo fptune [OPTIONS]`, `cargo fptune list`,
//! `cargo fptune apply`, `cargo fptune batch`, `cargo fptune mark`. Settings merge command line over
//! `[package.metadata.fptune]` over defaults ([`crate::config`]).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::exit::ExitCode;

/// What `--help` says after the options: the exit codes ([`ExitCode::help`]), where settings
/// come from, where results go.
fn after_help() -> String {
    format!(
        "{}\n{}",
        ExitCode::help(),
        "Settings come from the command line, then [package.metadata.fptune] in Cargo.toml, then defaults.\n\
Results go to fptune.out/ (report.json, report.md, tuned.patch, a log per candidate, the cache);\n\
`cargo fptune apply` applies tuned.patch to your sources."
    )
}

/// `cargo fptune`: finds the lowest precision of each knob (`#[tune]`) of a crate that keeps
/// its checked results (`fptune::check!`) to the required number of digits, validating every
/// candidate with discrete stochastic arithmetic.
#[derive(Debug, Parser)]
#[command(name = "cargo-fptune", bin_name = "cargo fptune", version, after_help = after_help())]
pub struct Cli {
    /// What to do (default: tune).
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Tuning options.
    #[command(flatten)]
    pub tune: TuneArgs,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Lists the knobs and checked results fptune sees.
    List(ListArgs),
    /// Applies `fptune.out/tuned.patch` to the sources (refused if they changed since tuning).
    Apply(ApplyArgs),
    /// Tunes several crates for a range of digit requirements; writes a table and a chart per
    /// crate.
    Batch(BatchArgs),
    /// Writes into the sources the markers `--auto` infers (`#[fptune::tune]`, `#[tune]`, the
    /// knobs' inferred types) and the fptune dependency: first as a patch, `fptune.out/mark.patch`;
    /// with `--write`, into the files, all or none.
    Mark(MarkArgs),
}

/// Which package and target.
#[derive(Debug, Args, Clone, Default)]
pub struct PackageArgs {
    /// Path to Cargo.toml.
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
    /// Package to tune (in a workspace).
    #[arg(short = 'p', long, value_name = "SPEC")]
    pub package: Option<String>,
    /// Binary to run (default: the package's only binary).
    #[arg(long, value_name = "NAME", conflicts_with = "example")]
    pub bin: Option<String>,
    /// Example to run instead of a binary.
    #[arg(long, value_name = "NAME")]
    pub example: Option<String>,
}

/// Options of a tuning run.
#[derive(Debug, Args, Clone, Default)]
pub struct TuneArgs {
    /// Which package and target.
    #[command(flatten)]
    pub package: PackageArgs,
    /// Required correct significant digits of every checked result.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = finite)]
    pub digits: Option<f64>,
    /// Required digits of one checked result (repeatable): `--digits-for energy=6`.
    #[arg(long = "digits-for", value_name = "NAME=D")]
    pub digits_for: Vec<String>,
    /// Arguments for the program (one string, split like a shell would).
    #[arg(long, value_name = "ARGS", allow_hyphen_values = true)]
    pub args: Option<String>,
    /// Output directory (default: `fptune.out` next to Cargo.toml).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// How candidates are run, and the output.
    #[command(flatten)]
    pub run: RunArgs,
}

/// How candidates are built and run, and how results are shown: the options `cargo fptune` and
/// `cargo fptune batch` share.
#[derive(Debug, Args, Clone, Default)]
pub struct RunArgs {
    /// Precision ladder: `ieee` (f64, f32, f16), `bf16`, `fp8` (.., bf16, e4m3), `fp8-e5m2`, `bits` (significand sweep),
    /// `bits32`, `ftz` (subnormals flushed), or a target file (target-templates/README.md).
    #[arg(long, value_name = "NAME|FILE")]
    pub target: Option<String>,
    /// Candidates built and run in parallel (default: the number of cores).
    #[arg(short = 'j', long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Seconds a candidate may run before it is killed (default: 10 x the DSA reference's run
    /// time, at least 20 s).
    #[arg(long, value_name = "SECS", allow_negative_numbers = true, value_parser = finite)]
    pub timeout: Option<f64>,
    /// Random seed of the stochastic arithmetic (default: 1), for repeatable runs.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Print the results as JSON on stdout (no progress bars).
    #[arg(long)]
    pub json: bool,
    /// Keep the scratch directories (for debugging).
    #[arg(long)]
    pub leak_dirs: bool,
    /// Build DSA candidates with the crate's own code unoptimised, which compiles about three
    /// times faster: `auto` does when the DSA reference runs in under a fortieth of its build
    /// time and gives the same results so built.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = When::Auto)]
    pub quick_builds: When,
    /// Run each candidate natively first, and under DSA only when its native results meet the
    /// requirement: `auto` does when a DSA run takes more than twice a native one (a run of the
    /// native single build, or else a build and a run).
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = When::Auto)]
    pub native_first: When,
    /// Build the crate once with every unit's format chosen when the program starts, and run
    /// that program for every DSA candidate instead of building each: `auto` does when it
    /// compiles and its runs give the records of the configurations' own builds (checked on the
    /// reference and one lowered configuration). The configuration found is still rebuilt.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = When::Auto)]
    pub single_build: When,
    /// The CPU the DSA builds are compiled for (`-C target-cpu`): `native` (the default), this
    /// machine's, the stochastic arithmetic's kernels compiled in; `baseline`, the target's
    /// default, kernels chosen at run time; or a name from `rustc --print target-cpus`. DSA
    /// builds are fptune's instrument and give the same results bit for bit whatever the CPU;
    /// native builds, whose results and times are the program's, keep the crate's own flags.
    #[arg(long, value_name = "CPU")]
    pub dsa_cpu: Option<String>,
    /// Zero-touch: every float declaration of the crate is a knob (lets, written or inferred,
    /// parameters, returns, fields, consts, statics, type aliases), and, where the crate has no
    /// `fptune::check!`, every float it prints is a checked result. Needs no marker and no
    /// fptune dependency; markers, where present, narrow the sets
    #[arg(long)]
    pub auto: bool,
    /// With --auto, only the declarations in this file or directory (repeatable; relative to the
    /// package)
    #[arg(long, value_name = "PATH")]
    pub auto_in: Vec<String>,
    /// Every float the program prints (`print!`, `println!`, `write!`, `writeln!`, in order) is
    /// a checked result, beside the `check!`s
    #[arg(long)]
    pub check_printed: bool,
    /// Tune unchecked knobs too (by default they keep their declared type: lowered alone, one
    /// changes what the program prints but no checked value, natively)
    #[arg(long)]
    pub lower_unchecked: bool,
}

/// When a cost-saving strategy is used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum When {
    /// When fptune's measurements say it saves time.
    #[default]
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// `cargo fptune list`.
#[derive(Debug, Args, Clone, Default)]
pub struct ListArgs {
    /// Which package.
    #[command(flatten)]
    pub package: PackageArgs,
    /// As JSON.
    #[arg(long)]
    pub json: bool,
}

/// `cargo fptune apply`.
#[derive(Debug, Args, Clone, Default)]
pub struct ApplyArgs {
    /// Which package.
    #[command(flatten)]
    pub package: PackageArgs,
    /// Output directory of the tuning run (default: `fptune.out` next to Cargo.toml).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// `cargo fptune mark`.
#[derive(Debug, Args, Clone, Default)]
pub struct MarkArgs {
    /// Which package (`--bin`/`--example`: the target whose build must compile; `--example` also
    /// marks `examples/`).
    #[command(flatten)]
    pub package: PackageArgs,
    /// Write the markers into the sources (all files or none); without it, only the patch.
    #[arg(long)]
    pub write: bool,
    /// Output directory, where `mark.patch` goes (default: `fptune.out` next to Cargo.toml).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Only the declarations in this file or directory (repeatable; relative to the package),
    /// as `--auto-in` for tuning.
    #[arg(long, value_name = "PATH")]
    pub auto_in: Vec<String>,
}

/// `cargo fptune batch`.
#[derive(Debug, Args, Clone, Default)]
pub struct BatchArgs {
    /// The crates: directories (or their Cargo.toml).
    #[arg(value_name = "CRATE")]
    pub crates: Vec<PathBuf>,
    /// Requirements: numbers and ranges, `1..=12`, `1..8` (8 excluded), `2,4,6`, `1..=4,8`.
    #[arg(long, value_name = "LIST", default_value = "1..=12")]
    pub digits: String,
    /// Output directory (default: `fptune.batch` in the current directory).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// How candidates are run, and the output.
    #[command(flatten)]
    pub run: RunArgs,
}

impl Cli {
    /// Parses the process arguments; as a cargo subcommand the second argument is `fptune`.
    pub fn from_env() -> Result<Cli, clap::Error> {
        let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
        if args.get(1).is_some_and(|a| a == "fptune") {
            args.remove(1);
        }
        Cli::try_parse_from(args)
    }
}

/// A finite number as written (`1e400` is refused as written, not read as infinity).
fn finite(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        Ok(_) => Err(format!("`{text}` is not a finite number")),
        Err(_) => Err(format!("`{text}` is not a number")),
    }
}

/// Parses `NAME=D` of `--digits-for`.
pub fn parse_digits_for(spec: &str) -> anyhow::Result<(String, f64)> {
    let (name, digits) = spec
        .split_once('=')
        .ok_or_else(|| anyhow::anyhow!("--digits-for takes NAME=DIGITS (the name given to check!), not `{spec}`"))?;
    let digits: f64 = digits
        .trim()
        .parse()
        .map_err(|_| anyhow::anyhow!("--digits-for {spec}: `{digits}` is not a number of digits"))?;
    if name.trim().is_empty() {
        anyhow::bail!("--digits-for {spec}: the name is empty");
    }
    Ok((name.trim().to_string(), digits))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Cli {
        Cli::try_parse_from(args).expect("parses")
    }

    #[test]
    fn tuning_options_parse_as_cargo_passes_them() {
        let cli = parse(&[
            "cargo-fptune", "--digits", "6", "--digits-for", "energy=4", "--bin", "sim", "--args", "-n 3",
            "-j", "2", "--timeout", "30", "--seed", "7", "--json",
        ]);
        assert!(cli.command.is_none());
        assert_eq!(cli.tune.digits, Some(6.0));
        assert_eq!(cli.tune.digits_for, vec!["energy=4"]);
        assert_eq!(cli.tune.package.bin.as_deref(), Some("sim"));
        assert_eq!(cli.tune.args.as_deref(), Some("-n 3"));
        assert_eq!(cli.tune.run.jobs, Some(2));
        assert!(cli.tune.run.json);
    }

    #[test]
    fn a_number_too_large_to_be_finite_is_refused_as_written() {
        let error = Cli::try_parse_from(["cargo-fptune", "--digits", "1e400"]).expect_err("refused").to_string();
        assert!(error.contains("`1e400` is not a finite number"), "{error}");
        assert!(Cli::try_parse_from(["cargo-fptune", "--timeout", "inf"]).is_err());
    }

    #[test]
    fn a_negative_requirement_or_timeout_is_a_value_to_refuse_not_a_flag() {
        let cli = parse(&["cargo-fptune", "--digits", "-1", "--timeout", "-2"]);
        assert_eq!((cli.tune.digits, cli.tune.run.timeout), (Some(-1.0), Some(-2.0)));
    }

    #[test]
    fn list_and_apply_are_subcommands() {
        assert!(matches!(parse(&["cargo-fptune", "list"]).command, Some(Command::List(_))));
        assert!(matches!(parse(&["cargo-fptune", "apply", "--out", "x"]).command, Some(Command::Apply(_))));
    }

    #[test]
    fn batch_takes_crates_and_a_digit_list() {
        let cli = parse(&["cargo-fptune", "batch", "samples/a", "samples/b", "--digits", "1..=8", "-j", "1"]);
        let Some(Command::Batch(b)) = cli.command else { panic!("not batch") };
        assert_eq!(b.crates, vec![PathBuf::from("samples/a"), PathBuf::from("samples/b")]);
        assert_eq!((b.digits.as_str(), b.run.jobs), ("1..=8", Some(1)));
        let Some(Command::Batch(b)) = parse(&["cargo-fptune", "batch", "x"]).command else { panic!("not batch") };
        assert_eq!(b.digits, "1..=12");
    }

    #[test]
    fn mark_previews_unless_told_to_write() {
        let Some(Command::Mark(m)) = parse(&["cargo-fptune", "mark", "--manifest-path", "x/Cargo.toml"]).command else { panic!("not mark") };
        assert!(!m.write);
        assert_eq!(m.package.manifest_path, Some(PathBuf::from("x/Cargo.toml")));
        let Some(Command::Mark(m)) = parse(&["cargo-fptune", "mark", "--write", "--auto-in", "src/a.rs", "--out", "o"]).command else { panic!("not mark") };
        assert!(m.write);
        assert_eq!((m.auto_in, m.out), (vec!["src/a.rs".to_string()], Some(PathBuf::from("o"))));
    }

    #[test]
    fn bin_and_example_conflict() {
        assert!(Cli::try_parse_from(["cargo-fptune", "--bin", "a", "--example", "b"]).is_err());
    }

    #[test]
    fn digits_for_takes_name_equals_digits() {
        assert_eq!(parse_digits_for("d=3").expect("ok"), ("d".to_string(), 3.0));
        assert!(parse_digits_for("d").is_err());
        assert!(parse_digits_for("d=x").is_err());
    }

    #[test]
    fn help_documents_the_exit_codes() {
        use clap::CommandFactory;
        let help = Cli::command().render_long_help().to_string();
        for code in ["0 ", "2 ", "3 ", "4 ", "70 "] {
            assert!(help.contains(code), "{code} missing from --help");
        }
    }
}
