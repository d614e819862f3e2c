//! `cargo fptune`: see `cargo fptune --help`.

use cargo_fptune::apply::Applied;
use cargo_fptune::batch;
use cargo_fptune::cli::{Cli, Command, TuneArgs};
use cargo_fptune::console::Console;
use cargo_fptune::exit::ExitCode;
use cargo_fptune::knobs;
use cargo_fptune::lab;
use cargo_fptune::outdir::RunLayout;
use cargo_fptune::process;
use cargo_fptune::report;
use cargo_fptune::scratch;
use cargo_fptune::workspace::Workspace;

fn main() {
    let cli = match Cli::from_env() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { ExitCode::Usage } else { ExitCode::Success };
            let _ = e.print();
            code.exit();
        }
    };
    let code = match cli.command {
        Some(Command::List(args)) => list(&args),
        Some(Command::Apply(args)) => apply(&args),
        Some(Command::Batch(args)) => batch(&args),
        Some(Command::Mark(args)) => mark(&args),
        None => tune(&cli.tune),
    };
    code.exit();
}

fn fail(code: ExitCode, e: &anyhow::Error) -> ExitCode {
    eprintln!("error: {e:#}");
    code
}

fn list(args: &cargo_fptune::cli::ListArgs) -> ExitCode {
    let run = || -> anyhow::Result<()> {
        let ws = Workspace::locate(&args.package)?;
        let inv = knobs::inventory(&ws.root, &ws.sources()?)?;
        if args.json {
            println!("{}", serde_json::to_string_pretty(&inv)?);
        } else {
            print!("{}", inv.table());
        }
        Ok(())
    };
    match run() {
        Ok(()) => ExitCode::Success,
        Err(e) => fail(ExitCode::Usage, &e),
    }
}

fn apply(args: &cargo_fptune::cli::ApplyArgs) -> ExitCode {
    let run = || -> anyhow::Result<cargo_fptune::apply::Applied> {
        let ws = Workspace::locate(&args.package)?;
        let out = args.out.clone().unwrap_or_else(|| RunLayout::default_dir(&ws.root));
        cargo_fptune::apply::apply(&ws.root, &out)
    };
    match run() {
        Ok(Applied::Wrote(files)) if files.is_empty() => {
            println!("nothing to apply: the tuned configuration is the original");
            ExitCode::Success
        }
        Ok(Applied::Wrote(files)) => {
            println!("applied the tuned configuration to {}", files.join(", "));
            ExitCode::Success
        }
        Ok(Applied::Already(files)) => {
            println!("already applied: {} hold the tuned configuration", files.join(", "));
            ExitCode::Success
        }
        Err(e) => fail(ExitCode::Usage, &e),
    }
}

fn mark(args: &cargo_fptune::cli::MarkArgs) -> ExitCode {
    use cargo_fptune::mark::{self, Outcome};
    if let Err(e) = process::install_ctrlc_handler() {
        return fail(ExitCode::Internal, &e);
    }
    let result = mark::run(args);
    scratch::remove_all_live();
    match result {
        Ok(Outcome::Preview(m)) => {
            print!("{}", mark::summary(&m, false));
            ExitCode::Success
        }
        Ok(Outcome::Wrote(m)) => {
            print!("{}", mark::summary(&m, true));
            ExitCode::Success
        }
        Ok(Outcome::Nothing(why)) => {
            println!("{why}");
            ExitCode::Success
        }
        Err(e) if e.code == ExitCode::Interrupted => {
            eprintln!("interrupted: scratch directories removed, nothing was written");
            e.code
        }
        Err(e) => fail(e.code, &e.error),
    }
}

fn batch(args: &cargo_fptune::cli::BatchArgs) -> ExitCode {
    if let Err(e) = process::install_ctrlc_handler() {
        return fail(ExitCode::Internal, &e);
    }
    let result = batch::run(args);
    scratch::remove_all_live();
    match result {
        Ok(outcome) => {
            if args.run.json {
                match serde_json::to_string_pretty(&outcome.tables) {
                    Ok(j) => println!("{j}"),
                    Err(e) => return fail(ExitCode::Internal, &e.into()),
                }
            } else {
                for t in &outcome.tables {
                    println!("{}", t.markdown());
                }
                println!("tables and charts in {} (summary.md)", outcome.out.display());
            }
            if outcome.code == ExitCode::Interrupted {
                eprintln!("interrupted: scratch directories removed");
            }
            outcome.code
        }
        Err(e) => fail(ExitCode::Usage, &e),
    }
}

fn tune(args: &TuneArgs) -> ExitCode {
    if let Err(e) = process::install_ctrlc_handler() {
        return fail(ExitCode::Internal, &e);
    }
    let prepared = cargo_fptune::setup::setup(args);
    let (ws, settings, inv) = match prepared {
        Ok(p) => p,
        Err(e) => return fail(ExitCode::Usage, &e),
    };
    let console = Console::new(settings.json);
    let result = lab::tune(&settings, &ws, &inv, &console);
    scratch::remove_all_live();
    match result {
        Ok(tuned) => match report::write(&settings, &ws, &tuned) {
            Ok(r) => {
                if settings.json {
                    match serde_json::to_string_pretty(&r) {
                        Ok(j) => println!("{j}"),
                        Err(e) => return fail(ExitCode::Internal, &e.into()),
                    }
                } else {
                    println!("{}", report::table(&r));
                    println!("{}", report::summary(&r));
                    let mut apply = "cargo fptune apply".to_string();
                    if settings.out != RunLayout::default_dir(&ws.root) {
                        apply.push_str(&format!(" --out {}", settings.out.display()));
                    }
                    // Run from elsewhere, apply must be told the crate too.
                    let here = std::env::current_dir().ok().and_then(|d| d.canonicalize().ok());
                    if here.as_deref() != ws.root.canonicalize().ok().as_deref() {
                        apply.push_str(&format!(" --manifest-path {}", ws.manifest.display()));
                    }
                    println!("results in {} (apply with `{apply}`)", settings.out.display());
                }
                ExitCode::Success
            }
            Err(e) => fail(ExitCode::Internal, &e),
        },
        Err(e) => match e.into_exit() {
            (code, Some(e)) => fail(code, &e),
            (code, None) => {
                eprintln!("interrupted: scratch directories removed");
                code
            }
        },
    }
}
