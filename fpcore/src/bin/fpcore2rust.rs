//! The `fpcore2rust` command: translates FPCore files into one Cargo package per benchmark and
//! prints which were translated and why the others were skipped.

use std::fs;
use std::path::PathBuf;
use std::process::ExitCode;

use fptune_fpcore::{summary, translate_source, write_package, Options, Slugs};

const USAGE: &str = "\
usage: fpcore2rust <file.fpcore>... --out <dir> [--samples N]

Writes <dir>/<benchmark>/Cargo.toml and src/main.rs for each FPCore definition it can
translate, then prints a table of the definitions: translated, or skipped with the reason.

  --out <dir>     where the packages go (created if missing; existing packages are overwritten)
  --samples N     how many inputs each program evaluates its benchmark on (default 8)
  -h, --help      this text";

/// The command line, parsed.
#[derive(Debug)]
struct Args {
    files: Vec<PathBuf>,
    out: PathBuf,
    options: Options,
}

fn parse_args(argv: impl Iterator<Item = String>) -> Result<Option<Args>, String> {
    // `--out=dir` is `--out dir`.
    let mut argv = argv
        .flat_map(|arg| match arg.split_once('=') {
            Some((key, value)) if key.starts_with("--") => vec![key.to_string(), value.to_string()],
            _ => vec![arg],
        })
        .collect::<Vec<_>>()
        .into_iter();
    let mut files = Vec::new();
    let mut out = None;
    let mut options = Options::default();
    while let Some(arg) = argv.next() {
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--out" => out = Some(PathBuf::from(argv.next().ok_or("--out needs a directory")?)),
            "--samples" => {
                let n = argv.next().ok_or("--samples needs a number")?;
                options.samples = match n.parse() {
                    Ok(n) if n > 0 => n,
                    _ => return Err(format!("--samples takes a positive integer, not `{n}`")),
                };
            }
            flag if flag.starts_with('-') => return Err(format!("unknown option `{flag}`")),
            _ => files.push(PathBuf::from(arg)),
        }
    }
    if files.is_empty() {
        return Err("no FPCore file given".to_string());
    }
    let out = out.ok_or("--out <dir> is required")?;
    Ok(Some(Args {
        files,
        out,
        options,
    }))
}

fn run(args: Args) -> Result<(), String> {
    let mut slugs = Slugs::default();
    let mut outcomes = Vec::new();
    for file in &args.files {
        let text =
            fs::read_to_string(file).map_err(|e| format!("reading {}: {e}", file.display()))?;
        let origin = file.display().to_string();
        let mut these = translate_source(&origin, &text, &mut slugs, &args.options)
            .map_err(|e| format!("{}:{e}", file.display()))?;
        outcomes.append(&mut these);
    }
    fs::create_dir_all(&args.out).map_err(|e| format!("creating {}: {e}", args.out.display()))?;
    for outcome in &outcomes {
        if let Ok(package) = &outcome.result {
            write_package(&args.out, package)
                .map_err(|e| format!("writing {}: {e}", args.out.join(&package.slug).display()))?;
        }
    }
    print!("{}", summary(&outcomes));
    println!("packages written under {}", args.out.display());
    Ok(())
}

fn main() -> ExitCode {
    match parse_args(std::env::args().skip(1)) {
        Ok(None) => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Ok(Some(args)) => match run(args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("fpcore2rust: {message}");
                ExitCode::FAILURE
            }
        },
        Err(message) => {
            eprintln!("fpcore2rust: {message}\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Result<Option<Args>, String> {
        parse_args(line.split_whitespace().map(String::from))
    }

    #[test]
    fn files_an_output_directory_and_a_sample_count_are_read() {
        let a = args("a.fpcore --out gen b.fpcore --samples 3")
            .expect("valid")
            .expect("not help");
        assert_eq!(
            a.files,
            [PathBuf::from("a.fpcore"), PathBuf::from("b.fpcore")]
        );
        assert_eq!(a.out, PathBuf::from("gen"));
        assert_eq!(a.options.samples, 3);
        let a = args("--out=gen --samples=2 a.fpcore")
            .expect("valid")
            .expect("not help");
        assert_eq!((a.out, a.options.samples), (PathBuf::from("gen"), 2));
    }

    #[test]
    fn missing_or_bad_arguments_are_errors() {
        assert!(args("a.fpcore").expect_err("no --out").contains("--out"));
        assert!(args("--out gen")
            .expect_err("no file")
            .contains("no FPCore file"));
        assert!(args("a.fpcore --out gen --samples 0")
            .expect_err("zero")
            .contains("positive"));
        assert!(args("a.fpcore --out gen --frobnicate")
            .expect_err("unknown")
            .contains("unknown option"));
        assert!(args("--help").expect("valid").is_none());
    }
}
