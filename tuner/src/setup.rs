//! The crate a run tunes, found and checked before any build: its package, its settings (the
//! command line over `[package.metadata.fptune]`), its knobs and checks. `cargo fptune` and
//! `cargo fptune batch` set a crate up alike.

use anyhow::{bail, Result};

use crate::cli::TuneArgs;
use crate::config::{self, Settings};
use crate::knobs::{self, Inventory};
use crate::workspace::Workspace;

/// The package, settings and inventory of a tuning run; refused when the crate cannot be tuned
/// as asked (no fptune and no `--auto`, no knobs, no checks).
pub fn setup(args: &TuneArgs) -> Result<(Workspace, Settings, Inventory)> {
    let ws = Workspace::locate(&args.package)?;
    let settings = config::resolve(args, &ws.metadata, &ws.root)?;
    if !ws.depends_on_fptune && !settings.auto {
        bail!(
            "package `{}` does not depend on fptune: tune it as it is with --auto (every float declaration a \
             knob, every printed float a checked result), or add `fptune = ...` to its [dependencies] and mark \
             its knobs",
            ws.name
        );
    }
    let inv = knobs::inventory(&ws.root, &ws.sources()?)?;
    crate::outdir::claim(&settings.out, crate::outdir::Kind::Run)?;
    if !settings.auto {
        inv.require_knobs_and_checks(settings.check_printed)?;
    }
    Ok((ws, settings, inv))
}
