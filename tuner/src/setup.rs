//! The crate a run tunes, found and checked before any build: its package, its settings (the
//! command line over `[package.metadata.fptune]`), its knobs and checks, its output directory
//! claimed, the `fptune` dependency its scratch copies get. `cargo fptune` and `cargo fptune
//! batch` set a crate up here alike.

use anyhow::{bail, Result};

use crate::cli::TuneArgs;
use crate::config::{self, Settings};
use crate::knobs::{self, Inventory};
use crate::scratch::FptuneDependency;
use crate::workspace::Workspace;

/// The package, settings and inventory of a tuning run; refused when the crate cannot be tuned
/// as asked (no fptune and no `--auto`, no knobs, no checks).
pub fn setup(args: &TuneArgs) -> Result<(Workspace, Settings, Inventory)> {
    setup_located(Workspace::locate(&args.package)?, args)
}

/// [`setup`] of a package located already: `cargo fptune batch` locates each crate first, to
/// name its output directory after the package.
pub fn setup_located(ws: Workspace, args: &TuneArgs) -> Result<(Workspace, Settings, Inventory)> {
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

/// The fptune dependency of every scratch copy: the runtime, for a crate without it (tuned with
/// `--auto`), and the runtime's features that implement the traits of crates it uses.
pub(crate) fn fptune_dependency(ws: &Workspace) -> Result<Option<FptuneDependency>> {
    if ws.depends_on_fptune && ws.float_trait_crates.is_empty() {
        return Ok(None);
    }
    let path = if ws.depends_on_fptune { ws.fptune_path.clone().unwrap_or_default() } else { crate::workspace::runtime_dir()? };
    Ok(Some(FptuneDependency { path, features: ws.float_trait_crates.clone() }))
}
