//! The lab where a crate is tuned: what its preparation, its searches and their builds and runs
//! share (`Lab`: the settings, the workers' scratch copies, the cache of runs, how candidates are
//! built and run), set up once per crate, and how a tuning run fails ([`TuneError`]).
//!
//! The main loop of `cargo fptune` is in two halves: [`prepare()`] (once per crate: the original's
//! native run, the probe build, the DSA reference, the single builds, the unchecked knobs) and
//! [`tune_for`] (per requirement: the search, whose oracle runs rounds on the workers, then the
//! re-checks of the configuration found).

mod base;
mod cached;
mod counts;
mod judge;
mod plan;
mod prepare;
mod recheck;
mod run;
mod schedule;
mod single;
mod tune;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use sha2::{Digest, Sha256};

use crate::cache::Cache;
use crate::cargo;
use crate::config::Settings;
use crate::console::Console;
use crate::heal::Heal;
use crate::knobs::Inventory;
use crate::sources::Sources;
use crate::model::{Configuration, Unit};
use crate::process;
use crate::rundir::RunDirs;
use crate::scratch::{Scratch, ScratchOptions};
use crate::exit::ExitCode;
use crate::outdir::RunLayout;
use crate::screen::Screening;
use crate::workspace::{RunTarget, Workspace};

pub use counts::Counts;
pub use prepare::{prepare, Prepared};
pub use recheck::Recheck;
pub use tune::{tune, tune_for, Tuned};

use cached::cache_key;
use run::duration_ms;

/// How a tuning run failed, by exit code.
#[derive(Debug)]
pub enum TuneError {
    /// Bad input: options, configuration, markers, no knobs or checks.
    Usage(anyhow::Error),
    /// The requirement exceeds the reference's own digits.
    Requirement(anyhow::Error),
    /// The original crate does not build or run.
    Original(anyhow::Error),
    /// Code fptune cannot convert for its builds (said with the places and what to write).
    Conversion(anyhow::Error),
    /// Ctrl-C.
    Interrupted,
    /// Anything else.
    Internal(anyhow::Error),
}

impl TuneError {
    fn internal(e: anyhow::Error) -> TuneError {
        // After Ctrl-C the scratch dirs are gone: the error may be any I/O error.
        if process::is_interrupted(&e) || process::interrupted() {
            TuneError::Interrupted
        } else {
            TuneError::Internal(e)
        }
    }

    /// The exit code it ends the program with, and the error, if any (Ctrl-C has none to print).
    pub fn into_exit(self) -> (ExitCode, Option<anyhow::Error>) {
        match self {
            TuneError::Usage(e) => (ExitCode::Usage, Some(e)),
            TuneError::Requirement(e) => (ExitCode::Requirement, Some(e)),
            TuneError::Original(e) => (ExitCode::Original, Some(e)),
            TuneError::Conversion(e) => (ExitCode::Conversion, Some(e)),
            TuneError::Interrupted => (ExitCode::Interrupted, None),
            TuneError::Internal(e) => (ExitCode::Internal, Some(e)),
        }
    }
}

/// One parallel worker: a scratch copy with its own warm target directory.
#[derive(Debug)]
struct Worker {
    scratch: Scratch,
    /// The lock on its target directory, held while it lives.
    _lock: std::fs::File,
}

/// How a configuration is built and run, as preparation finds it out ([`prepare()`] makes it
/// stage by stage and passes it on in its [`Prepared`]): the base sources and their heals, the
/// units, and how candidates are built and run ([`plan::Plan`]).
#[derive(Debug)]
struct Recipe {
    /// The knobs and checks, found in the base sources ([`Lab::prepare_sources`]).
    inv: Inventory,
    /// Every build's starting sources: the user's, with the types rustc inferred written
    /// (and, with `--auto`, the markers).
    sources: Sources,
    /// Zero-touch: the knobs were marked by fptune.
    auto: bool,
    /// Runs record the floats the program prints ([`fptune::contract::PRINTED_ENV`]).
    printed: bool,
    /// Positions of printed values that change from run to run ([`Prepared::unsteady`]).
    unsteady: BTreeSet<usize>,
    /// The units (from the probe build).
    units: Vec<Unit>,
    /// Units that cannot be 16-bit ([`Prepared::capped`]).
    capped: Vec<usize>,
    /// The conversions the stochastic build needs where the crate's values meet code it does
    /// not convert ([`conversion::heal`](crate::conversion::heal)).
    heals: Vec<Heal>,
    /// DSA builds with the crate's own code unoptimised ([`cargo::candidate_overrides`]).
    quick: bool,
    /// The single build's program: every unit's format read when it starts, so DSA candidates
    /// are runs of it, not builds ([`convert::single_build_sources`](crate::convert::single_build_sources)).
    single: Option<PathBuf>,
    /// The native single build's program (knobs as `Knob<F, U, DynNative>`, built without the
    /// `stochastic` feature): candidates' native runs are runs of it, not builds
    /// ([`Lab::try_single_native`]).
    single_native: Option<PathBuf>,
    /// Candidates are built and run natively before their DSA run.
    native_first: bool,
    /// With `native_first` on `auto`: which candidates are, from what screening has paid so
    /// far ([`Screening`]); `None`: every one.
    screening: Option<Screening>,
    /// Candidates' runs end at their first 16-bit overflow (not the reference's): see
    /// [`Lab::stops_at_overflow`].
    stop_on_overflow: bool,
}

impl Recipe {
    /// The recipe of the base sources, before the probe build: no units yet, every build its
    /// own and optimised.
    fn of(inv: Inventory, sources: Sources, auto: bool, printed: bool) -> Recipe {
        Recipe {
            inv,
            sources,
            auto,
            printed,
            unsteady: BTreeSet::new(),
            units: Vec::new(),
            capped: Vec::new(),
            heals: Vec::new(),
            quick: false,
            single: None,
            single_native: None,
            native_first: false,
            screening: None,
            stop_on_overflow: false,
        }
    }
}

/// What the orchestration shares with its workers, from the start: the settings, the workers'
/// scratch copies, the cache of runs, the logs.
#[derive(Debug)]
pub struct Lab<'a> {
    settings: &'a Settings,
    ws: &'a Workspace,
    /// The knobs and checks found in the user's sources, as given (those of the base sources
    /// every build starts from are the [`Recipe`]'s).
    user: Inventory,
    run: RunTarget,
    logs: PathBuf,
    workers: Vec<Mutex<Worker>>,
    /// How long a run may take, in milliseconds ([`Lab::timeout`]): set from the reference's
    /// run time once it is known ([`Lab::limit_runs`]), while another worker may be running.
    timeout_ms: AtomicU64,
    console: &'a Console,
    cache: Mutex<Cache>,
    warnings: Vec<String>,
    /// A configuration found failed its native re-check: from then on the search runs the
    /// candidates valid under DSA natively too.
    native_after: std::sync::atomic::AtomicBool,
    /// A configuration found failed its DSA re-check: from then on the search runs the
    /// candidates under DSA with two seeds, except those the searches had looked at already
    /// (with the search's seed), held here: their verdicts stand, so a search run again
    /// retraces its path to the configuration refused and only then meets new candidates.
    two_seeds: std::sync::OnceLock<HashSet<Configuration>>,
    /// Whether DSA runs decide order comparisons on numerical noise by the samples' mean
    /// ([`fptune::contract::NOISE_ORDER_ENV`]): set once the DSA reference has run
    /// ([`Lab::dsa_reference`]), which the single build made beside it waits for.
    noise_by_mean: std::sync::OnceLock<bool>,
    /// When the cache was last written.
    last_save: Mutex<Instant>,
    /// Successors run ahead of their round ([`crate::search::LookAhead`]) whose test ended, with its
    /// build and run seconds, until the search looks at them (or the requirement ends).
    speculated: Mutex<HashMap<Configuration, (f64, f64)>>,
    /// Held while this run writes into `settings.out` (its cache, logs and report).
    _out_lock: std::fs::File,
    /// Where programs run: copies of the package, one per job, reset before each run.
    run_dirs: RunDirs,
    /// Where fptune's builds go: `fptune/` in the workspace's target directory ([`build_dir`]).
    build_dir: PathBuf,
    /// The host's triple, which every build names (`--target`) when DSA builds are compiled for
    /// a CPU of their own: DSA and native builds, whose flags then differ, share their build
    /// scripts and proc macros (built without either's flags). Not when cargo is told a target
    /// already ([`cargo::target_configured`]), which it would replace.
    triple: Option<String>,
}

impl Drop for Lab<'_> {
    /// However the run ends (interrupted, an error), the runs it made are kept for the next.
    fn drop(&mut self) {
        let _ = self.save_cache();
    }
}

impl<'a> Lab<'a> {
    /// Prepares the scratch copies (one per job), under `target/fptune/` of the workspace so
    /// that builds stay warm across runs, and loads the cache of runs from `settings.out`.
    pub fn new(settings: &'a Settings, ws: &'a Workspace, inv: &'a Inventory, console: &'a Console) -> Result<Lab<'a>, TuneError> {
        let run = ws
            .run_target(settings.bin.as_deref(), settings.example.as_deref())
            .map_err(TuneError::Usage)?;
        let logs = RunLayout(&settings.out).logs();
        std::fs::create_dir_all(&logs)
            .with_context(|| format!("cannot create the output directory {}", logs.display()))
            .map_err(TuneError::Usage)?;
        // One run at a time writes into an output directory: two would overwrite each other's
        // cache and logs.
        let out_lock_path = RunLayout(&settings.out).lock();
        let out_lock = std::fs::File::create(&out_lock_path)
            .with_context(|| format!("cannot create {}", out_lock_path.display()))
            .map_err(TuneError::Usage)?;
        if out_lock.try_lock().is_err() {
            return Err(TuneError::Usage(anyhow!(
                "another fptune run is writing into {}: wait for it to end, or give this one another directory with --out DIR",
                settings.out.display()
            )));
        }
        let key = cache_key(ws, inv, settings, &run);
        let (cache, warning) = Cache::load(RunLayout(&settings.out).cache(), key).map_err(TuneError::internal)?;
        if let Some(w) = &warning {
            // Said now, not only in the report: the runs it held will be made again.
            console.stage(&format!("warning: {w}"));
        }
        let mut workers = Vec::new();
        let dirs = build_dir(ws, console).map_err(TuneError::Usage)?;
        // Each worker target directory is locked while in use, so that two fptune runs in one
        // workspace (two requirements, two terminals) never build into the same directory: the
        // second takes the next free ones.
        let (mut slot, mut triple) = (0, None);
        while workers.len() < settings.jobs {
            let lock_path = dirs.join(format!("worker{slot}.lock"));
            let lock = std::fs::File::create(&lock_path)
                .with_context(|| format!("cannot create {}", lock_path.display()))
                .map_err(TuneError::internal)?;
            let free = lock.try_lock().is_ok();
            if free {
                let options = ScratchOptions {
                    target_dir: Some(dirs.join(format!("worker{slot}"))),
                    leak: settings.leak_dirs,
                    skip: vec![ws.target_dir.clone(), settings.out.clone()],
                    fptune: crate::setup::fptune_dependency(ws).map_err(TuneError::Usage)?,
                    ..ScratchOptions::default()
                };
                let scratch = Scratch::create(&ws.root, &options).map_err(TuneError::internal)?;
                if workers.is_empty() && settings.dsa_cpu.is_some() && !cargo::target_configured_here(scratch.source_root()) {
                    triple = cargo::host_triple().map(str::to_string);
                }
                workers.push(Mutex::new(Worker { scratch, _lock: lock }));
            }
            slot += 1;
        }
        let run_dirs = RunDirs::create(
            &ws.root,
            &ScratchOptions { leak: settings.leak_dirs, skip: vec![ws.target_dir.clone(), settings.out.clone()], ..ScratchOptions::default() },
            settings.jobs,
        )
        .map_err(TuneError::internal)?;
        Ok(Lab {
            build_dir: dirs,
            run_dirs,
            settings,
            ws,
            user: inv.clone(),
            run,
            logs,
            workers,
            timeout_ms: AtomicU64::new(duration_ms(settings.timeout.unwrap_or(Duration::from_secs(600)))),
            console,
            cache: Mutex::new(cache),
            warnings: warning.into_iter().collect(),
            native_after: std::sync::atomic::AtomicBool::new(false),
            two_seeds: std::sync::OnceLock::new(),
            noise_by_mean: std::sync::OnceLock::new(),
            last_save: Mutex::new(Instant::now()),
            speculated: Mutex::new(HashMap::new()),
            _out_lock: out_lock,
            triple,
        })
    }
}

/// Where fptune's builds go: `fptune/` in the workspace's target directory, so that they stay
/// warm from run to run; where that cannot be written (a read-only checkout), a directory of
/// the system's temporary directory named after the package's path, said on the terminal.
fn build_dir(ws: &Workspace, console: &Console) -> Result<PathBuf> {
    let dirs = ws.target_dir.join("fptune");
    let writable = |d: &Path| std::fs::create_dir_all(d).and_then(|()| tempfile::tempfile_in(d).map(drop));
    let Err(e) = writable(&dirs) else { return Ok(dirs) };
    let key: String = Sha256::digest(ws.root.to_string_lossy().as_bytes()).iter().take(8).map(|b| format!("{b:02x}")).collect();
    let other = std::env::temp_dir().join(format!("fptune-target-{key}"));
    writable(&other).with_context(|| {
        format!("cannot write {} ({e}) nor {}: set CARGO_TARGET_DIR to a directory fptune can build in", dirs.display(), other.display())
    })?;
    console.stage(&format!(
        "cannot write {} ({e}): building in {} instead (set CARGO_TARGET_DIR to choose)",
        dirs.display(),
        other.display()
    ));
    Ok(other)
}

fn lock<'w>(lab: &'w Lab<'_>, i: usize) -> Result<std::sync::MutexGuard<'w, Worker>, TuneError> {
    lab.workers[i].lock().map_err(|_| TuneError::Internal(anyhow!("a worker's lock is poisoned")))
}
