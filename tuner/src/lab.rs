//! The main loop of `cargo fptune`: the original's native run, the probe build (units), the DSA
//! reference, Delta Debugging over candidates built and run in parallel scratch copies, the final
//! native check, and the report.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use sha2::{Digest, Sha256};

use crate::cache::Cache;
use crate::cargo::{self, BuildOptions, BuildResult, Target};
use crate::cli::When;
use crate::config::Settings;
use crate::console::Console;
use crate::conversion;
use crate::convert;
use crate::heal::Heal;
use crate::knobs::Inventory;
use crate::sources::{self, Marking, Sources};
use crate::model::{Arithmetic, CandidateRun, Configuration, FloatFormat, Knob, Outcome, Reason, Record, RunResult, Unit};
use crate::probe::{self, DiagnosticLike, Probing, Round};
use crate::process::{self, Command, Status};
use crate::exit::ExitCode;
use crate::outdir::RunLayout;
use crate::rundir::RunDirs;
use crate::scratch::{Scratch, ScratchOptions};
use crate::screen::Screening;
use crate::search::{self, Oracle, Problem, SearchOptions, SearchResult};
use crate::validate::{self, Reference, Requirement};
use crate::workspace::{RunTarget, Workspace};

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

/// Counts kept as PROMISE prints them.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Counts {
    /// Builds of search candidates.
    pub compilations: usize,
    /// Of which failed.
    pub compilations_failed: usize,
    /// Seconds spent building candidates.
    pub compile_seconds: f64,
    /// Runs of search candidates.
    pub executions: usize,
    /// Of which crashed or timed out.
    pub executions_failed: usize,
    /// Seconds spent running candidates.
    pub run_seconds: f64,
    /// Candidates answered from the cache.
    pub cached: usize,
    /// Builds before the search (original, probe rounds, reference) and after (final check).
    pub other_builds: usize,
    /// Wall time of the whole run.
    pub total_seconds: f64,
    /// Configurations the search found that failed their re-check, so it searched again.
    #[serde(default)]
    pub rejected: usize,
    /// Candidates whose native run failed the requirement (run first with `native_first`, or
    /// after a valid DSA run with `native_after`).
    #[serde(default)]
    pub native_rejected: usize,
    /// Whether DSA candidates were built with the crate's own code unoptimised.
    #[serde(default)]
    pub quick_builds: bool,
    /// Whether DSA candidates were runs of the single build (no build each).
    #[serde(default)]
    pub single_build: bool,
    /// Whether candidates' native runs in the search were runs of the native single build
    /// (no build each).
    #[serde(default)]
    pub single_native: bool,
    /// Whether candidates were built and run natively before their DSA run.
    #[serde(default)]
    pub native_first: bool,
    /// With `native_first` on `auto`, candidates sent to DSA directly, their stratum's native
    /// runs refusing too few to pay ([`crate::screen`]).
    #[serde(default)]
    pub native_unscreened: usize,
    /// Whether candidates valid under DSA were run natively too (after a configuration found
    /// failed its native re-check).
    #[serde(default)]
    pub native_after: bool,
    /// Whether candidates ran under DSA with two seeds (after a configuration found failed its
    /// re-check with another seed).
    #[serde(default)]
    pub two_seeds: bool,
    /// Candidates run ahead of their round by a free worker, on the bet that the candidate the
    /// round waited for is valid (counted in the compilations and executions).
    #[serde(default)]
    pub speculated: usize,
    /// Of which the search then looked at.
    #[serde(default)]
    pub speculated_used: usize,
}

/// The final configuration re-verified: an independent DSA run (another seed), then rebuilt
/// natively and run.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct FinalCheck {
    /// Whether an independent DSA run of the configuration (seed + 1) is valid too.
    pub dsa_recheck_valid: bool,
    /// Why not, if not.
    pub dsa_recheck_reason: Option<String>,
    /// The seed of that run (`None` in reports written before it was recorded: the search's
    /// seed + 1).
    #[serde(default)]
    pub dsa_recheck_seed: Option<u64>,
    /// Whether its checked results meet the requirement against the reference.
    pub meets_requirement: bool,
    /// Why not, if not.
    pub reason: Option<String>,
    /// The tightest value: (`name[index]`, digits in common with the reference, required).
    pub tightest: Option<(String, f64, f64)>,
    /// Best native run time of the original, seconds.
    pub original_seconds: f64,
    /// Best native run time of the tuned configuration, seconds.
    /// (`None` where the tuned configuration's native build did not run.)
    pub tuned_seconds: Option<f64>,
}

/// Everything a tuning run found.
#[derive(Debug)]
pub struct Tuned {
    /// The units searched.
    pub units: Vec<Unit>,
    /// Units that cannot be 16-bit (they receive a float literal, or rustc refuses them there), with why.
    pub capped: Vec<(usize, String)>,
    /// Where the search started (each unit's declared format).
    pub start: Configuration,
    /// The search's result.
    pub search: SearchResult,
    /// The reference's checked values.
    pub reference: Vec<Record>,
    /// Positions in `reference` of the values not judged ([`Reference::unchecked`]).
    pub unchecked: Vec<usize>,
    /// Counts and times.
    pub counts: Counts,
    /// The native re-check.
    pub final_check: FinalCheck,
    /// Probe rounds and what rustc said that the probe could not read.
    pub probe_rounds: usize,
    /// Messages for the user (cache warnings, unexplained probe errors).
    pub warnings: Vec<String>,
    /// The knobs searched (found in the sources the builds start from).
    pub inventory: Inventory,
    /// The sources the builds start from, and the way back to the user's.
    pub sources: Sources,
    /// Zero-touch: the knobs' markers were fptune's.
    pub auto: bool,
}

/// What every requirement of a crate shares, found once: the units (from the probe build), the
/// start configuration and the DSA reference's checked values.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The units to search.
    pub units: Vec<Unit>,
    /// Units that cannot be 16-bit (they receive a float literal, or rustc refuses them there), with why.
    pub capped: Vec<(usize, String)>,
    /// Each unit's declared format.
    pub start: Configuration,
    /// The DSA reference's checked values (every knob at its declared format).
    pub reference: Vec<Record>,
    /// How many probe builds it took.
    pub probe_rounds: usize,
    /// Messages for the user.
    pub warnings: Vec<String>,
    /// Builds and time spent preparing.
    pub counts: Counts,
    /// Positions of the printed values that changed between two runs of the original (a clock, a
    /// random seed): not judged ([`validate::Reference::unchecked`]).
    pub unsteady: std::collections::BTreeSet<usize>,
    /// How many knobs there are (with `--auto`, found in the sources fptune marked).
    pub knobs: usize,
}

/// One parallel worker: a scratch copy with its own warm target directory.
#[derive(Debug)]
struct Worker {
    scratch: Scratch,
    /// The lock on its target directory, held while it lives.
    _lock: std::fs::File,
}

/// What the orchestration shares with its workers.
#[derive(Debug)]
pub struct Lab<'a> {
    settings: &'a Settings,
    ws: &'a Workspace,
    /// The knobs and checks, found in the base sources (after [`Lab::prepare_sources`]).
    inv: Inventory,
    /// Every build's starting sources: the user's, with the types rustc inferred written
    /// (and, with `--auto`, the markers).
    sources: Sources,
    /// The conversions the stochastic build needs where the crate's values meet code it does
    /// not convert ([`conversion::heal`]).
    heals: Vec<Heal>,
    /// Runs record the floats the program prints ([`fptune::__rt::PRINTED_ENV`]).
    printed: bool,
    /// Zero-touch: the knobs were marked by fptune.
    auto: bool,
    /// Positions of printed values that change from run to run ([`Prepared::unsteady`]).
    unsteady: BTreeSet<usize>,
    run: RunTarget,
    logs: PathBuf,
    workers: Vec<Mutex<Worker>>,
    /// How long a run may take, in milliseconds ([`Lab::timeout`]): set from the reference's
    /// run time once it is known, while another worker may be running.
    timeout_ms: AtomicU64,
    units: Vec<Unit>,
    capped: Vec<usize>,
    console: &'a Console,
    cache: Mutex<Cache>,
    warnings: Vec<String>,
    /// DSA builds with the crate's own code unoptimised ([`cargo::candidate_overrides`]).
    quick: bool,
    /// The single build's program: every unit's format read when it starts, so DSA candidates
    /// are runs of it, not builds ([`convert::single_build_sources`]).
    single: Option<PathBuf>,
    /// The native single build's program (knobs as `Knob<F, U, Ndyn>`, built without the
    /// `stochastic` feature): candidates' native runs are runs of it, not builds
    /// ([`Lab::try_single_native`]).
    single_native: Option<PathBuf>,
    /// Candidates are built and run natively before their DSA run.
    native_first: bool,
    /// With `native_first` on `auto`: which candidates are, from what screening has paid so
    /// far ([`Screening`]); `None`: every one.
    screening: Option<Screening>,
    /// A configuration found failed its native re-check: from then on the search runs the
    /// candidates valid under DSA natively too.
    native_after: std::sync::atomic::AtomicBool,
    /// A configuration found failed its DSA re-check: from then on the search runs the
    /// candidates under DSA with two seeds, except those the searches had looked at already
    /// (with the search's seed), held here: their verdicts stand, so a search run again
    /// retraces its path to the configuration refused and only then meets new candidates.
    two_seeds: std::sync::OnceLock<HashSet<Configuration>>,
    /// Candidates' runs end at their first 16-bit overflow (not the reference's): see
    /// [`Lab::stops_at_overflow`].
    stop_on_overflow: bool,
    /// Whether DSA runs decide order comparisons on numerical noise by the samples' mean
    /// ([`fptune::stochastic::NOISE_ORDER_ENV`]): set once the DSA reference has run
    /// ([`Lab::dsa_reference`]), which the single build made beside it waits for.
    noise_by_mean: std::sync::OnceLock<bool>,
    /// When the cache was last written.
    last_save: Mutex<Instant>,
    /// Successors run ahead of their round ([`Oracle::speculate`]) whose test ended, with its
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
            sources: Sources::plain(inv.sources.clone()),
            inv: inv.clone(),
            heals: Vec::new(),
            printed: false,
            auto: false,
            unsteady: BTreeSet::new(),
            run,
            logs,
            workers,
            timeout_ms: AtomicU64::new(duration_ms(settings.timeout.unwrap_or(Duration::from_secs(600)))),
            units: Vec::new(),
            capped: Vec::new(),
            console,
            cache: Mutex::new(cache),
            warnings: warning.into_iter().collect(),
            quick: false,
            single: None,
            single_native: None,
            native_first: false,
            screening: None,
            native_after: std::sync::atomic::AtomicBool::new(false),
            two_seeds: std::sync::OnceLock::new(),
            stop_on_overflow: false,
            noise_by_mean: std::sync::OnceLock::new(),
            last_save: Mutex::new(Instant::now()),
            speculated: Mutex::new(HashMap::new()),
            _out_lock: out_lock,
            triple,
        })
    }

    fn build_options(&self, scratch: &Scratch, stochastic: bool) -> BuildOptions {
        let mut opts = BuildOptions::for_scratch(scratch);
        // Parallel workers share the cores.
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        opts.jobs = Some((cores / self.workers.len().max(1)).max(1));
        opts.target = match &self.run {
            RunTarget::Bin(b) => Target::Bin(b.clone()),
            RunTarget::Example(e) => Target::Example(e.clone()),
        };
        opts.profile = cargo::Profile::Release;
        opts.triple = self.triple.clone();
        if stochastic {
            opts.config = cargo::candidate_overrides("release", &self.ws.name, self.quick);
            // Only DSA builds: native builds' results and times are the program's, under its flags.
            if let Some(cpu) = &self.settings.dsa_cpu {
                opts.add_target_cpu(cpu);
            }
        }
        opts.stochastic = stochastic;
        opts.target_dir = Some(scratch.target_dir().to_path_buf());
        opts
    }

    /// Writes `files` into the worker's copy and builds it.
    fn build(&self, worker: &Worker, files: &[(String, String)], stochastic: bool, log: &Path) -> Result<BuildResult> {
        worker.scratch.apply_sources(files)?;
        cargo::build(&self.build_options(&worker.scratch, stochastic), log)
    }

    /// Runs a built program with a seed of the stochastic arithmetic (`None`: a native run, with
    /// the search's seed, which it does not use), its checks going to `out`; a single build's
    /// (DSA or native) with the units' formats. DSA runs detect overflows only.
    fn execute(&self, exe: &Path, out: &Path, log: &Path, seed: Option<u64>, formats: Option<&Configuration>) -> Result<process::ProcessOutput> {
        let _ = std::fs::remove_file(out);
        let mut cmd = Command::new(exe.as_os_str())
            .args(self.settings.args.iter())
            .env("FPTUNE_OUT", out.as_os_str())
            .env("FPTUNE_SEED", seed.unwrap_or(self.settings.seed).to_string())
            .env("RUST_BACKTRACE", "0");
        // In a copy of the package, as it was: what the program writes stays there.
        let dir = self.run_dirs.take()?;
        cmd = cmd.cwd(dir.root().to_path_buf());
        if let Some(config) = formats {
            cmd = cmd.env(fptune::__rt::FORMATS_ENV, config.key());
        }
        if self.printed {
            cmd = cmd.env(fptune::__rt::PRINTED_ENV, "1");
        }
        if seed.is_some() {
            // Validity needs the overflows only (DESIGN.md, "Validation"); the other kinds'
            // checks would cost a quarter of a run's time and change none of its values.
            cmd = cmd.env(fptune::stochastic::DETECT_ENV, "overflow");
        }
        if self.stops_at_overflow(seed, formats.is_some()) {
            cmd = cmd.env(fptune::stochastic::STOP_ON_OVERFLOW_ENV, "1");
        }
        if seed.is_some() && self.noise_by_mean.get() == Some(&true) {
            cmd = cmd.env(fptune::stochastic::NOISE_ORDER_ENV, "mean");
        }
        process::run(&cmd, self.timeout(), log)
    }

    /// Whether a candidate's run under DSA with `seed` (`None`: native), of a single build or
    /// not, ends at its first 16-bit overflow ([`fptune::stochastic::STOP_ON_OVERFLOW_ENV`]): DSA
    /// runs, and runs of the native single build (whose 16-bit roundings check for it; a
    /// configuration's own native build does not).
    fn stops_at_overflow(&self, seed: Option<u64>, single: bool) -> bool {
        self.stop_on_overflow && (seed.is_some() || single)
    }

    /// The sources of a configuration: knobs at their formats, and for the stochastic build
    /// every item marked for conversion, with its heals.
    fn sources_of(&self, config: &Configuration, stochastic: bool) -> Result<Vec<(String, String)>> {
        let edits = convert::configured_edits(&self.sources.base, &self.inv.knobs, &self.units, config)?;
        self.files(&edits, stochastic, if stochastic { &self.heals } else { &[] })
    }

    /// The files that differ from the user's crate: the base with `edits` (knob types) and
    /// `heals`, and for the stochastic build every program file converted
    /// ([`conversion::build_files`]).
    fn files(
        &self,
        edits: &std::collections::BTreeMap<String, Vec<crate::splice::Edit>>,
        stochastic: bool,
        heals: &[Heal],
    ) -> Result<Vec<(String, String)>> {
        let texts = conversion::build_files(&self.sources.base, edits, heals, stochastic)?.into_iter().map(|(r, s)| (r, s.text));
        Ok(texts.filter(|(rel, text)| self.sources.user.iter().any(|(r, t)| r == rel && t != text)).collect())
    }

    /// How long a run may take before it is killed (`--timeout`, else derived from the reference).
    fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms.load(Ordering::Relaxed))
    }

    /// Sets the runs' time limit from a DSA run of `seconds`, unless `--timeout` fixed it: a
    /// candidate may be slower than the reference (more iterations), not ten times.
    fn derive_timeout(&self, seconds: f64) {
        if self.settings.timeout.is_none() {
            self.timeout_ms.store(duration_ms(Duration::from_secs_f64((10.0 * seconds).max(20.0))), Ordering::Relaxed);
        }
    }

    fn log_path(&self, what: &str) -> PathBuf {
        RunLayout::log(&self.logs, &log_name(what))
    }

    /// The run of a configuration with `seed` (`None`: native) known from the cache, unless it
    /// timed out under a shorter timeout than today's.
    fn recall_run(&self, config: &Configuration, seed: Option<u64>) -> Option<CandidateRun> {
        let cache = self.cache.lock().ok()?;
        let run = cache.get(config, seed.into())?;
        match run.result {
            RunResult::TimedOut { seconds } if seconds < self.timeout().as_secs_f64() => None,
            _ => Some(run.clone()),
        }
    }

    /// The run of a configuration with `seed` (`None`: native), from the cache or built and run
    /// now on `worker` (and then cached); `true` when it came from the cache.
    fn run_config(&self, worker: &Worker, config: &Configuration, seed: Option<u64>) -> Result<(CandidateRun, bool)> {
        self.run_config_times(worker, config, seed, 1, Build::Any)
    }

    /// [`Lab::run_config`], with a run that ran at least `runs` times (timed by the fastest).
    fn run_config_times(
        &self,
        worker: &Worker,
        config: &Configuration,
        seed: Option<u64>,
        runs: u32,
        build: Build<'_>,
    ) -> Result<(CandidateRun, bool)> {
        if let Some(run) = self.recall_run(config, seed).filter(|r| r.runs >= runs || r.failure().is_some()) {
            return Ok((run, true));
        }
        let run = self.build_and_run(worker, config, seed, runs, build)?;
        self.cache.lock().map_err(|_| anyhow!("the cache lock is poisoned"))?.insert(run.clone());
        Ok((run, false))
    }

    /// The DSA reference: `start` under DSA with CADNA's comparisons, and when that run fails
    /// (a crash or a timeout), once more with order comparisons on numerical noise decided by the
    /// samples' mean, as every DSA run then is ([`fptune::stochastic::NOISE_ORDER_ENV`]; the
    /// cache's runs are then those of that key). With the run, whether it was recalled, and the
    /// first run's failure when there was a second.
    ///
    /// CADNA answers `s < EPS` as `s == EPS` when `s - EPS` is noise, so a loop that stops on
    /// such a test when its native run reaches a fixed point (Numerical Recipes' continued
    /// fractions: `if (del - 1).abs() < EPS { break }`) never stops under random rounding.
    fn dsa_reference(&self, worker: &Worker, start: &Configuration) -> Result<(CandidateRun, bool, Option<String>)> {
        let seed = Some(self.settings.seed);
        let decided = |by_mean: bool| {
            let _ = self.noise_by_mean.set(by_mean);
        };
        let (first, cached) = match self.run_config(worker, start, seed) {
            Ok(got) => got,
            Err(e) => {
                decided(false);
                return Err(e);
            }
        };
        let failure = match &first.result {
            RunResult::Finished { .. } | RunResult::BuildFailed { .. } => None,
            _ => first.failure().map(|f| f.to_string()),
        };
        let Some(failure) = failure else {
            decided(false);
            return Ok((first, cached, None));
        };
        {
            let mut cache = self.cache.lock().map_err(|_| anyhow!("the cache lock is poisoned"))?;
            let key = format!("{}\nnoise order: mean", cache.key());
            let reloaded = match cache.path() {
                Some(path) => Cache::load(path.to_path_buf(), key)?.0,
                None => Cache::in_memory(key),
            };
            *cache = reloaded;
        }
        decided(true);
        let (second, cached) = self.run_config(worker, start, seed)?;
        Ok((second, cached, Some(failure)))
    }

    /// Whether candidates valid under DSA run natively too, once a configuration found has
    /// failed its native re-check.
    fn native_after(&self) -> bool {
        self.native_after.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The pass of the precision ladder `config` belongs to, for [`Screening`]: the ladder step
    /// of its narrowest format.
    fn stratum(&self, config: &Configuration) -> usize {
        let formats = &self.settings.ladder.formats;
        config.0.iter().filter_map(|f| formats.iter().position(|g| g == f)).max().unwrap_or(0)
    }

    /// Whether `config`, about to be tested, runs natively first: with `native_first`, when its
    /// native run is known already, or else as [`Screening`] decides (always, without it).
    fn screens(&self, config: &Configuration) -> bool {
        if !self.native_first {
            return false;
        }
        if self.recall_run(config, None).is_some() {
            return true;
        }
        self.screening.as_ref().is_none_or(|s| s.screens(self.stratum(config)))
    }

    /// Whether candidates run under DSA with two seeds, once a configuration found has failed
    /// its re-check with another seed.
    fn two_seeds(&self) -> bool {
        self.two_seeds.get().is_some()
    }

    /// Turns two-seed mode on ([`Lab::two_seeds`]) for the candidates the searches so far have
    /// not judged (`consulted`: what they looked at). Not every run in the cache: those include
    /// candidates run ahead of their round that no search looked at, which depend on the
    /// workers' timing, and so would the next search's verdicts.
    fn start_two_seeds(&self, consulted: &HashSet<Configuration>) {
        let _ = self.two_seeds.set(consulted.clone());
    }

    /// Whether `config` must pass a second seed: in two-seed mode, unless the search had judged
    /// it before the mode began.
    fn needs_second_seed(&self, config: &Configuration) -> bool {
        self.two_seeds.get().is_some_and(|judged| !judged.contains(config))
    }

    /// The runs that make `config` valid, in the order they are made (`None`: native):
    /// natively first when it is `screened` ([`Lab::screens`]); under DSA with the search's
    /// seed, and the next one too when [`Lab::needs_second_seed`] (from the same build: the
    /// sources do not change, so cargo has nothing to do); natively last, when not first, once
    /// [`Lab::native_after`].
    fn checks(&self, config: &Configuration, screened: bool) -> Vec<Option<u64>> {
        checks(self.settings.seed, screened, self.needs_second_seed(config), self.native_after())
    }

    /// The seed of the final DSA re-check: one the search did not use.
    fn recheck_seed(&self) -> u64 {
        self.settings.seed.wrapping_add(if self.two_seeds() { 2 } else { 1 })
    }

    /// Writes the cache of runs to its file.
    fn save_cache(&self) -> Result<()> {
        self.cache.lock().map_err(|_| anyhow!("the cache lock is poisoned"))?.save()?;
        if let Ok(mut last) = self.last_save.lock() {
            *last = Instant::now();
        }
        Ok(())
    }

    /// [`Lab::save_cache`], unless it was written less than `period` ago.
    fn save_cache_every(&self, period: Duration) -> Result<()> {
        let due = self.last_save.lock().map(|last| last.elapsed() >= period).unwrap_or(true);
        if due {
            self.save_cache()?;
        }
        Ok(())
    }

    /// Builds and runs one configuration: under DSA with `seed`, or natively (`None`), `runs`
    /// times, timed by the fastest. With `Build::Any`, a run of the single build when there is
    /// one: the DSA one under DSA, the native one ([`Lab::try_single_native`]) natively.
    fn build_and_run(&self, worker: &Worker, config: &Configuration, seed: Option<u64>, runs: u32, build: Build<'_>) -> Result<CandidateRun> {
        let single = match build {
            Build::Any if seed.is_some() => self.single.as_deref(),
            Build::Any => self.single_native.as_deref(),
            Build::Each => None,
            Build::Single(exe) => Some(exe),
        };
        let key = config.key().replace(',', "-");
        let tag = match seed {
            Some(s) if s == self.settings.seed => key,
            Some(s) => format!("{key}-seed{s}"),
            None => format!("{key}-native"),
        };
        // The single build's runs have logs of their own (the verification runs a configuration
        // both ways).
        let tag = if single.is_some() { format!("{tag}-single") } else { tag };
        let log = self.log_path(&tag);
        let _ = std::fs::remove_file(&log);
        let mut run = CandidateRun {
            configuration: config.clone(),
            arithmetic: seed.into(),
            result: RunResult::Finished { records: Vec::new(), overflows: 0 },
            build_seconds: 0.0,
            run_seconds: 0.0,
            runs: 0,
            log: log.strip_prefix(&self.settings.out).map(Path::to_path_buf).ok(),
        };
        if let Some(u) = self.capped.iter().find(|&&u| matches!(config.0[u], FloatFormat::F16 | FloatFormat::BF16)) {
            // rustc says a float literal reaches this unit: no 16-bit format can compile.
            run.result = RunResult::BuildFailed {
                error: format!("unit {u} receives a float literal, which cannot be a 16-bit float (found by the probe build; not built)"),
            };
            return Ok(run);
        }
        let exe = match single {
            Some(exe) => exe.to_path_buf(),
            None => {
                let files = self.sources_of(config, seed.is_some())?;
                let built = self.build(worker, &files, seed.is_some(), &log)?;
                run.build_seconds = built.elapsed.as_secs_f64();
                if !built.success && built.errors.is_empty() && built.status != Status::TimedOut {
                    // No compiler error: cargo itself failed (the scratch copy vanished, the
                    // disk is full, the registry is unreachable). That says nothing about the
                    // configuration, so it must not be cached as its verdict.
                    return Err(anyhow!(
                        "cargo failed to build {config} without a compiler error: {}\n(full log: {})",
                        built.first_error(),
                        log.display()
                    ));
                }
                let Some(exe) = built.executable.clone().filter(|_| built.success) else {
                    run.result = RunResult::BuildFailed { error: built.first_error() };
                    return Ok(run);
                };
                exe
            }
        };
        let out = RunLayout::checked(&self.logs, &log_name(&tag));
        let mut fastest = f64::INFINITY;
        for _ in 0..runs.max(1) {
            run.runs += 1;
            let ran = self.execute(&exe, &out, &log, seed, single.map(|_| config))?;
            fastest = fastest.min(ran.elapsed.as_secs_f64());
            run.run_seconds = fastest;
            run.result = match ran.status {
                Status::TimedOut => RunResult::TimedOut { seconds: ran.elapsed.as_secs_f64() },
                Status::Exited(0) => {
                    let checked = validate::read_run(&out)?;
                    RunResult::Finished { overflows: checked.overflows(), records: checked.records }
                }
                Status::Exited(fptune::stochastic::OVERFLOW_EXIT_CODE) if self.stops_at_overflow(seed, single.is_some()) => {
                    RunResult::Overflowed
                }
                Status::Exited(code) => {
                    RunResult::Crashed { code: Some(code), signal: None, stderr_tail: ran.stderr_tail(2000) }
                }
                Status::Signaled(sig) => {
                    RunResult::Crashed { code: None, signal: Some(sig), stderr_tail: ran.stderr_tail(2000) }
                }
            };
            if !matches!(run.result, RunResult::Finished { .. }) {
                break;
            }
        }
        Ok(run)
    }
}

impl Lab<'_> {
    /// The sources every build starts from ([`sources::prepare`]): rustc's types written, the
    /// zero-touch markers (`--auto`, where the crate marks no knob), the knobs and checks found
    /// there.
    fn prepare_sources(&mut self) -> Result<Vec<String>, TuneError> {
        let mut warnings = Vec::new();
        let auto = self.settings.auto && self.inv.knobs.is_empty() && self.inv.untyped.is_empty();
        let auto_files: Vec<String> = if auto {
            self.sources
                .user
                .iter()
                .map(|(r, _)| r.clone())
                .filter(|r| conversion::program_file(r))
                .filter(|r| self.settings.auto_in.is_empty() || self.settings.auto_in.iter().any(|p| r == p || r.starts_with(&format!("{p}/"))))
                .collect()
        } else {
            Vec::new()
        };
        if self.settings.auto && !auto {
            warnings.push("--auto: the crate marks its knobs with #[tune]: those are the knobs".to_string());
        }
        let marking = Marking {
            auto_files,
            extern_roots: if self.ws.edition == "2015" { self.ws.roots.clone() } else { Vec::new() },
        };
        let worker0 = lock(self, 0)?;
        let scratch = &worker0.scratch;
        let typing_apart = self.build_dir.join("typing");
        let mut check = self.build_options(scratch, false);
        check.check = true;
        let prepared = sources::prepare(scratch, self.sources.user.clone(), &self.ws.roots, &marking, &typing_apart, &check, &self.logs)
            .map_err(TuneError::internal)?;
        drop(worker0);
        for d in &prepared.dropped {
            warnings.push(format!("a type fptune wrote from rustc's answer did not compile, and was not written: {d}"));
        }
        let mut inv = crate::knobs::inventory_of(prepared.base.clone()).map_err(TuneError::Usage)?;
        // Places are the user's.
        for k in &mut inv.knobs {
            let base = prepared.base.iter().find(|(r, _)| *r == k.file).map(|(_, t)| t.as_str()).unwrap_or_default();
            if let Some((l, c)) = crate::splice::offset(base, k.line, k.column.saturating_sub(1)).and_then(|o| prepared.user_place(&k.file, o)) {
                (k.line, k.column) = (l, c);
            }
        }
        if !inv.untyped.is_empty() {
            let list: Vec<String> = inv
                .untyped
                .iter()
                .map(|u| {
                    let ty = self.untyped_type(&prepared, u);
                    format!("  {}:{}:{}: `{}`{ty}: write its type (`#[tune] let {}: f64 = ..`)", u.file, u.line, u.column, u.name, u.name)
                })
                .collect();
            return Err(TuneError::Conversion(anyhow!(
                "fptune could not write the type of {} knob(s) marked without one, which it needs to change it:\n{}",
                list.len(),
                list.join("\n")
            )));
        }
        self.printed = self.settings.check_printed || (self.settings.auto && inv.checks.is_empty());
        if inv.knobs.is_empty() {
            // Nothing was typed because the copy did not compile: that is what to say.
            if let Some(failed) = prepared.dropped.iter().find(|d| d.starts_with("the typing build did not compile")) {
                return Err(TuneError::Original(anyhow!(
                    "the crate does not build in fptune's copy of it, so no knob could be found: {failed} (full log: {})",
                    RunLayout::log(&self.logs, "typing").display()
                )));
            }
            return Err(TuneError::Usage(anyhow!(if self.settings.auto {
                "no knobs: --auto found no float declaration in the crate's program files (or in --auto-in)"
            } else {
                "no knobs: mark the float variables to tune with #[tune] inside an item carrying #[fptune::tune] \
                 (see the README, \"Marking a crate\"), or tune every float declaration with --auto"
            })));
        }
        if inv.checks.is_empty() && !self.printed {
            return Err(TuneError::Usage(anyhow!(
                "no checked results: name the results whose digits count with fptune::check!(value), or check \
                 what the program prints with --check-printed"
            )));
        }
        // What every build starts from, for whoever wants to see it (`logs/sources/`).
        for (rel, text) in sources::changed(&prepared) {
            let path = RunLayout::base_sources(&self.logs).join(&rel);
            if let Some(dir) = path.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            let _ = std::fs::write(&path, text);
        }
        self.inv = inv;
        self.sources = prepared;
        self.auto = auto;
        Ok(warnings)
    }

    /// What rustc said of an untyped knob's type, for the message.
    fn untyped_type(&self, sources: &Sources, u: &crate::knobs::Untyped) -> String {
        let user = sources.user.iter().find(|(r, _)| *r == u.file).map(|(_, t)| t.as_str()).unwrap_or_default();
        let Some(start) = crate::splice::offset(user, u.line, u.column.saturating_sub(1)) else { return String::new() };
        match sources.typing.binding(&u.file, start, start + u.name.len()) {
            Some(ty) => format!(" has type `{ty}`, which cannot be written there as rustc prints it"),
            None => " has no type rustc answered for".to_string(),
        }
    }

    /// Finds the heals the stochastic build of `start` needs ([`conversion::heal`]); the crate's
    /// code that no heal converts is an error that says where.
    fn heal_stochastic(&mut self, start: &Configuration) -> Result<Vec<String>, TuneError> {
        let worker0 = lock(self, 0)?;
        let scratch = &worker0.scratch;
        let mut opts = self.build_options(scratch, true);
        opts.check = true;
        let edits = convert::configured_edits(&self.sources.base, &self.inv.knobs, &self.units, start).map_err(TuneError::internal)?;
        let users = self.sources.users();
        let healed = conversion::heal(scratch, &opts, &self.sources.base, &edits, &[], &users, &self.sources.splices, &self.log_path("conversion"))
            .map_err(TuneError::internal)?;
        drop(worker0);
        if !healed.stuck.is_empty() {
            let list: Vec<String> = healed.stuck.iter().map(|s| format!("  {s}")).collect();
            return Err(TuneError::Conversion(anyhow!(
                "fptune cannot convert this code for its stochastic build ({} place(s)):\n{}\n(full log: {})",
                list.len(),
                list.join("\n"),
                self.log_path("conversion").display()
            )));
        }
        let mut warnings = Vec::new();
        for h in healed.heals.iter().filter(|h| h.lossy()) {
            let place = self.sources.user_place(&h.file, h.start).map_or_else(|| h.file.clone(), |(l, c)| format!("{}:{l}:{c}", h.file));
            warnings.push(format!("{place}: a value leaves stochastic arithmetic here (its mean is passed on: {})", h.why));
        }
        self.heals = healed.heals;
        Ok(warnings)
    }
}

/// Whether a run may come from a single build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Build<'p> {
    /// The single build of the run's kind (DSA or native) when there is one, else the
    /// configuration's own.
    Any,
    /// The configuration's own build.
    Each,
    /// This single build's program (DSA or native, as the run is).
    Single(&'p Path),
}

impl Lab<'_> {
    /// Why the single build cannot serve this crate, when that is known without building it.
    fn single_build_obstacle(&self) -> Option<String> {
        if self.units.len() > fptune::__rt::MAX_UNITS {
            return Some(format!("{} units, more than its {}", self.units.len(), fptune::__rt::MAX_UNITS));
        }
        if self.settings.ladder.formats.len() < 2 {
            return Some("a one-step ladder".into());
        }
        None
    }

    /// Builds the single build ([`convert::single_build_sources`]) on `worker` and runs it on
    /// `start` and on [`Lab::lowered_every_other`]: [`single_verdict`] then compares those runs
    /// with the configurations' own (the reference, already run, and the mixed configuration's),
    /// which another worker may be making meanwhile. Why not when it does not compile.
    /// [`Lab::single_build_obstacle`] must have found nothing.
    fn make_single_build(&self, worker: &Worker, start: &Configuration) -> Result<Result<SingleMade, String>> {
        self.console.stage("building the single build (every unit's format chosen at run time)");
        let kept = match self.build_single(worker, true)? {
            Ok(kept) => kept,
            Err(why) => return Ok(Err(why)),
        };
        let seed = Some(self.settings.seed);
        // Its runs are made as the reference's, whose run decides how ([`Lab::dsa_reference`]).
        self.noise_by_mean.wait();
        let on_start = self.build_and_run(worker, start, seed, 1, Build::Single(&kept))?;
        let on_mixed = self.build_and_run(worker, &self.lowered_every_other(start), seed, 1, Build::Single(&kept))?;
        Ok(Ok(SingleMade { program: kept, on_start, on_mixed }))
    }

    /// Builds the single build's sources ([`convert::single_build_sources`]) on `worker`: under
    /// DSA (`stochastic`: knobs as `Knob<F, U>`, every item marked for conversion, the
    /// `stochastic` feature on), or natively (knobs as `Knob<F, U, Ndyn>`, the rest of the code
    /// as it is, as a candidate's native build). The program is kept beside the worker's builds
    /// (the worker goes on building other configurations); why not when it does not compile.
    fn build_single(&self, worker: &Worker, stochastic: bool) -> Result<Result<PathBuf, String>> {
        let (log_name, kept_name) =
            if stochastic { ("single-build", "fptune-single") } else { ("single-build-native", "fptune-single-build-native") };
        let edits = convert::single_build_edits(&self.sources.base, &self.inv.knobs, &self.units, !stochastic)?;
        // Where a knob's value of run-time format meets a value of a fixed one, or an
        // elaborated literal gets no type from its place, the single build needs conversions of
        // its own (the native one starts from none: the stochastic build's are stochastic).
        let heals = {
            let mut opts = self.build_options(&worker.scratch, stochastic);
            opts.check = true;
            let users = self.sources.users();
            let log = self.log_path(&format!("{log_name}-conversion"));
            let prior: &[Heal] = if stochastic { &self.heals } else { &[] };
            let healed = conversion::heal(&worker.scratch, &opts, &self.sources.base, &edits, prior, &users, &self.sources.splices, &log)?;
            if let Some(stuck) = healed.stuck.first() {
                return Ok(Err(format!("it does not compile: {stuck} (full log: {})", log.display())));
            }
            healed.heals
        };
        let files = self.files(&edits, stochastic, &heals)?;
        let log = self.log_path(log_name);
        let built = self.build(worker, &files, stochastic, &log)?;
        let Some(exe) = built.executable.clone().filter(|_| built.success) else {
            return Ok(Err(format!("it does not compile: {} (full log: {})", built.first_error(), log.display())));
        };
        let kept = worker.scratch.target_dir().join(kept_name);
        std::fs::copy(&exe, &kept).with_context(|| format!("cannot copy the single build to {}", kept.display()))?;
        Ok(Ok(kept))
    }

    /// `start` with every other unit that may move lowered one step: the configuration the
    /// single builds' runs are verified on besides `start`.
    fn lowered_every_other(&self, start: &Configuration) -> Configuration {
        let (top, lower) = (self.settings.ladder.top(), self.settings.ladder.formats[1]);
        Configuration(
            start.0.iter().zip(&self.units).map(|(&f, u)| if u.id % 2 == 0 && u.pinned.is_none() && f == top { lower } else { f }).collect(),
        )
    }

    /// Builds the native single build ([`Lab::build_single`]) on `worker` and checks that its
    /// runs give, bit for bit, the records of the configurations' own native builds: the
    /// original's (`original`, `start` being every knob at its declared format) and that of
    /// [`Lab::lowered_every_other`] (one native build). The program and its run time on `start`
    /// when they do; otherwise why not (candidates' native runs then build each candidate).
    fn try_single_native(&self, worker: &Worker, start: &Configuration, original: &[Record]) -> Result<Result<(PathBuf, f64), String>> {
        self.console.stage("building the single build natively (for candidates' native runs)");
        let exe = match self.build_single(worker, false)? {
            Ok(exe) => exe,
            Err(why) => return Ok(Err(why)),
        };
        let why_not = |run: &CandidateRun| run.failure().map_or_else(|| "other checked values".to_string(), |r| r.to_string());
        let on_start = self.build_and_run(worker, start, None, 1, Build::Single(&exe))?;
        let original_result = RunResult::Finished { records: original.to_vec(), overflows: 0 };
        if !matches!(&on_start.result, RunResult::Finished { overflows: 0, .. }) || !same_results(&on_start.result, &original_result, &self.unsteady) {
            return Ok(Err(format!("run of {start} differs from the original's native run ({})", why_not(&on_start))));
        }
        let mixed = self.lowered_every_other(start);
        let own = self.run_config_times(worker, &mixed, None, 1, Build::Each)?.0;
        let single = self.build_and_run(worker, &mixed, None, 1, Build::Single(&exe))?;
        if !same_results(&single.result, &own.result, &self.unsteady) {
            return Ok(Err(format!("run of {mixed} differs from that configuration's native build ({})", why_not(&single))));
        }
        Ok(Ok((exe, on_start.run_seconds)))
    }
}

/// The single build and its runs ([`Lab::make_single_build`]), not yet compared with the
/// configurations' own runs.
struct SingleMade {
    program: PathBuf,
    on_start: CandidateRun,
    on_mixed: CandidateRun,
}

/// The units no checked result depends on, though the program shows them: lowered alone to the
/// ladder's bottom in runs of the native single build, each leaves every checked value bit for
/// bit as it was, but changes what the program prints (its steady lines: those two runs of the
/// reference print alike). A unit whose values are exact at the bottom changes neither and is
/// searched as any other. `None` without the native single build (no test is cheap enough).
fn unchecked_units(lab: &Lab<'_>, units: &[Unit], start: &Configuration) -> Result<Option<Vec<usize>>> {
    let Some(exe) = lab.single_native.clone() else { return Ok(None) };
    let Some(&bottom) = lab.settings.ladder.formats.last() else { return Ok(Some(Vec::new())) };
    let run = |config: &Configuration, tag: &str| -> Result<Option<(RunResult, Vec<String>)>> {
        let (log, out) = (lab.log_path(tag), RunLayout::checked(&lab.logs, &log_name(tag)));
        let ran = lab.execute(&exe, &out, &log, None, Some(config))?;
        if ran.status != Status::Exited(0) {
            return Ok(None);
        }
        let checked = validate::read_run(&out)?;
        let result = RunResult::Finished { overflows: checked.overflows(), records: checked.records };
        Ok(Some((result, ran.stdout.lines().map(str::to_string).collect())))
    };
    let (Some((reference, printed)), Some((_, again))) = (run(start, "unchecked-reference")?, run(start, "unchecked-reference-2")?) else {
        return Ok(None);
    };
    if printed.len() != again.len() {
        return Ok(None);
    }
    let steady: Vec<bool> = printed.iter().zip(&again).map(|(a, b)| a == b).collect();
    let mut out = Vec::new();
    for unit in units.iter().filter(|u| u.searchable() && start.0[u.id] != bottom) {
        let mut lowered = start.clone();
        lowered.0[unit.id] = bottom;
        let Some((result, shown)) = run(&lowered, &format!("unchecked-unit{}", unit.id))? else { continue };
        let shows = shown.len() != printed.len() || shown.iter().zip(&printed).zip(&steady).any(|((a, b), &s)| s && a != b);
        if shows && same_results(&result, &reference, &lab.unsteady) {
            out.push(unit.id);
        }
    }
    Ok(Some(out))
}

/// Whether two runs gave the same results, bit for bit, but for the records at `unsteady`
/// positions (printed values that change from run to run: a clock).
/// Whether the `i`-th records of two runs agree: bit for bit, or only in name and index where
/// the value changes from run to run (`unsteady`).
fn same_record(i: usize, x: &Record, y: &Record, unsteady: &BTreeSet<usize>) -> bool {
    if unsteady.contains(&i) {
        x.name == y.name && x.index == y.index
    } else {
        x == y
    }
}

fn same_results(a: &RunResult, b: &RunResult, unsteady: &BTreeSet<usize>) -> bool {
    match (a, b) {
        (RunResult::Finished { records: ra, overflows: oa }, RunResult::Finished { records: rb, overflows: ob }) => {
            oa == ob && ra.len() == rb.len() && ra.iter().zip(rb).enumerate().all(|(i, (x, y))| same_record(i, x, y, unsteady))
        }
        // Both killed: neither gave records, and either is an invalid candidate.
        (RunResult::TimedOut { .. }, RunResult::TimedOut { .. }) => true,
        (
            RunResult::Crashed { code: ca, signal: sa, stderr_tail: ta },
            RunResult::Crashed { code: cb, signal: sb, stderr_tail: tb },
        ) => ca == cb && sa == sb && without_thread_ids(ta) == without_thread_ids(tb),
        _ => a == b,
    }
}

/// A program's standard error without the thread ids of its panic messages (`thread 'main'
/// (13701) panicked at ..`, as recent Rust writes them): the same panic of two processes reads the same.
fn without_thread_ids(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("thread '") {
        let name_end = rest[at + 8..].find('\'').map(|e| at + 8 + e + 1);
        let Some(end) = name_end else { break };
        out.push_str(&rest[..end]);
        rest = &rest[end..];
        let digits = rest.strip_prefix(" (").map(|r| r.len() - r.trim_start_matches(|c: char| c.is_ascii_digit()).len());
        if let Some(n) = digits.filter(|&n| n > 0 && rest[2 + n..].starts_with(')')) {
            rest = &rest[2 + n + 1..];
        }
    }
    out.push_str(rest);
    out
}

/// Why a run of the single build does not serve, when its records differ from those of the
/// configuration's own build.
fn single_differs(own: &CandidateRun, single: &CandidateRun, unsteady: &BTreeSet<usize>) -> Option<String> {
    (!same_results(&single.result, &own.result, unsteady)).then(|| {
        format!(
            "its run of {} differs from that configuration's own build ({})",
            single.configuration,
            single.failure().map_or_else(|| first_difference(&own.result, &single.result, unsteady), |r| r.to_string())
        )
    })
}

/// Where two finished runs that are not [`same_results`] part: the first value that differs,
/// with both runs' samples, or the counts that do.
fn first_difference(own: &RunResult, single: &RunResult, unsteady: &BTreeSet<usize>) -> String {
    let (RunResult::Finished { records: ro, overflows: oo }, RunResult::Finished { records: rs, overflows: os }) = (own, single) else {
        return format!("{own:?} against {single:?}");
    };
    if ro.len() != rs.len() {
        return format!("{} checked values against the own build's {}", rs.len(), ro.len());
    }
    match ro.iter().zip(rs).enumerate().find(|&(i, (x, y))| !same_record(i, x, y, unsteady)) {
        Some((i, (x, y))) => format!(
            "checked value {} ({}[{}]): {:?} there, {:?} in the single build{}",
            i + 1,
            x.name,
            x.index,
            x.samples,
            y.samples,
            if x.name == y.name && x.same_samples(y) { " (their other fields differ)" } else { "" }
        ),
        None => format!("{os} overflows against the own build's {oo}"),
    }
}

/// Whether the single build serves: its program and its run time on the reference when both
/// its runs give, bit for bit, the records of the configurations' own builds (`reference`,
/// `own_mixed`); otherwise why not (the search then builds every candidate).
fn single_verdict(made: SingleMade, reference: &CandidateRun, own_mixed: &CandidateRun, unsteady: &BTreeSet<usize>) -> Result<(PathBuf, f64), String> {
    match single_differs(reference, &made.on_start, unsteady).or_else(|| single_differs(own_mixed, &made.on_mixed, unsteady)) {
        Some(why) => Err(why),
        None => Ok((made.program, made.on_start.run_seconds)),
    }
}

/// The search's oracle: a batch runs on the workers in parallel; configurations already run
/// (this session, an earlier requirement, an earlier run) are recalled from the cache.
struct LabOracle<'l, 'a> {
    lab: &'l Lab<'a>,
    reference: &'l Reference,
    req: &'l Requirement,
    /// Configurations found earlier and rejected by their re-check, with why.
    rejected: &'l HashMap<Configuration, Reason>,
    /// What the search tests next after each candidate of the coming round, if any
    /// ([`Oracle::speculate`]).
    successors: Vec<Option<Configuration>>,
}

impl LabOracle<'_, '_> {
    fn judge(&self, run: &CandidateRun, cached: bool) -> Outcome {
        // The search's seed decides; another (two seeds) confirms, within the estimate's spread.
        let verdict = if run.arithmetic == (Arithmetic::Dsa { seed: self.lab.settings.seed }) {
            validate::verdict(self.reference, run, self.req)
        } else {
            validate::confirms(self.reference, run, self.req)
        };
        let verdict = verdict.or_else(|| self.rejected.get(&run.configuration).cloned());
        run.outcome(verdict, cached)
    }

    /// The outcome of a native run that fails the requirement, if it does.
    fn judge_native(&self, native: &CandidateRun, cached: bool) -> Option<Outcome> {
        let reason = validate::verdict(self.reference, native, self.req)?;
        Some(native.outcome(Some(Reason::NativeFailed { detail: reason.to_string() }), cached))
    }

    /// A run's outcome: [`Self::judge`] for a DSA run, [`Self::judge_native`] for a native one.
    fn judge_any(&self, run: &CandidateRun, cached: bool) -> Outcome {
        match run.arithmetic {
            Arithmetic::Dsa { .. } => self.judge(run, cached),
            Arithmetic::Native => self.judge_native(run, cached).unwrap_or_else(|| run.outcome(None, cached)),
        }
    }

    /// The outcome of [`Lab::checks`] taken in turn with the runs `run` gives (`None`: the run
    /// is unknown, and so is the outcome): the first check that fails decides.
    fn decide(
        &self,
        config: &Configuration,
        screened: bool,
        mut run: impl FnMut(Option<u64>) -> Result<Option<(CandidateRun, bool)>>,
    ) -> Result<Option<Outcome>> {
        let mut last = None;
        for seed in self.lab.checks(config, screened) {
            let Some((run, cached)) = run(seed)? else { return Ok(None) };
            let outcome = self.judge_any(&run, cached);
            let failed = !outcome.is_valid();
            last = Some(outcome);
            if failed {
                break;
            }
        }
        Ok(last)
    }

    /// The outcome of `config` known from the cache ([`Oracle::recall`]): the first check that
    /// fails decides; `None` while a check before it has not run. A native run first is one of
    /// the checks when it is known (candidates sent to DSA directly have none).
    fn recalled(&self, config: &Configuration) -> Option<Outcome> {
        let screened = self.lab.native_first && self.lab.recall_run(config, None).is_some();
        self.decide(config, screened, |seed| Ok(self.lab.recall_run(config, seed).map(|run| (run, true)))).ok().flatten()
    }

    /// Tests one configuration on `worker`: each of [`Lab::checks`] in turn, until one fails.
    /// The outcome's times add those of the runs made.
    fn test_one(&self, worker: &Worker, config: &Configuration) -> Result<Outcome> {
        let mut spent: Option<(f64, f64)> = None;
        let screened = self.lab.screens(config);
        // The seconds of the native run first and of the DSA run with the search's seed, when
        // made now: what screening learns from. (Screened, the native run is the first check and
        // the only native one: `checks` puts one last only for a candidate not screened.)
        let (mut native, mut dsa) = (None, None);
        let outcome = self.decide(config, screened, |seed| {
            let (run, cached) = self.lab.run_config(worker, config, seed)?;
            if !cached {
                let s = spent.get_or_insert((0.0, 0.0));
                s.0 += run.build_seconds;
                s.1 += run.run_seconds;
                match seed {
                    None if screened => native = Some(run.run_seconds),
                    Some(seed) if seed == self.lab.settings.seed => dsa = Some(run.run_seconds),
                    _ => {}
                }
            }
            Ok(Some((run, cached)))
        })?;
        let mut outcome = outcome.ok_or_else(|| anyhow!("no check to run"))?;
        if let Some(screening) = &self.lab.screening {
            let stratum = self.lab.stratum(config);
            if let Some(seconds) = native {
                screening.screened(stratum, seconds, matches!(outcome.invalid, Some(Reason::NativeFailed { .. })));
            }
            if let Some(seconds) = dsa {
                screening.dsa_ran(stratum, seconds);
            }
        }
        if let Some((build, run)) = spent {
            (outcome.build_seconds, outcome.run_seconds, outcome.cached) = (build, run, false);
        }
        Ok(outcome)
    }
}

impl Oracle for LabOracle<'_, '_> {
    /// The outcome known from the cache: the first check that fails decides; unknown while a
    /// check before it has not run.
    fn recall(&mut self, config: &Configuration) -> Option<Outcome> {
        self.recalled(config)
    }

    fn test(&mut self, batch: &[Configuration]) -> Result<Vec<Outcome>> {
        self.successors.clear();
        self.run_queue(batch, &[], usize::MAX, false)
    }

    fn test_in_order(&mut self, candidates: &[Configuration], jobs: usize) -> Result<Vec<Outcome>> {
        let successors = std::mem::take(&mut self.successors);
        // One per candidate, and maybe the round after's tests (see `Oracle::speculate`).
        let fits = successors.len() >= candidates.len();
        let successors = if fits { successors } else { Vec::new() };
        self.run_queue(candidates, &successors, jobs, true)
    }

    fn speculate(&mut self, successors: &[Option<Configuration>]) {
        self.successors = successors.to_vec();
    }
}

/// What the workers of [`LabOracle::run_queue`] share.
struct Queue {
    /// The next candidate to start.
    next: usize,
    /// No candidate from here on is started, and those running are cancelled: one before it is
    /// valid, or failed to run.
    end: usize,
    results: Vec<Option<Result<Outcome>>>,
    /// The cancel flags of the candidates running, by index.
    running: Vec<(usize, Arc<AtomicBool>)>,
    /// The candidates whose successor was started (at most once each), with its cancel flag;
    /// from the number of candidates on, the tests of the round after that were started.
    speculated: Vec<(usize, Arc<AtomicBool>)>,
    /// How many of `speculated` are under way.
    speculating: usize,
    /// The entry of the successors to consider next for the round after.
    after: usize,
    /// Whether the round after needs no more tests: one came back valid (or known valid, or
    /// failed to run), so the search stops there.
    after_done: bool,
}

impl Queue {
    /// The queue of a round of `len` candidates, none started.
    fn new(len: usize) -> Queue {
        Queue {
            next: 0,
            end: len,
            results: (0..len).map(|_| None).collect(),
            running: Vec::new(),
            speculated: Vec::new(),
            speculating: 0,
            after: len,
            after_done: false,
        }
    }

    /// Nothing from `end` on is needed: cancels what runs there, and the successors of
    /// candidates from there on.
    fn stop_at(&mut self, end: usize) {
        self.end = self.end.min(end);
        cancel(&self.running, |i| i >= end);
        self.drop_successors(|i| i >= end);
    }

    /// Cancels the successors of the candidates `moot` says are not needed.
    fn drop_successors(&mut self, moot: impl Fn(usize) -> bool) {
        cancel(&self.speculated, moot);
    }

    /// Whether the successor of candidate `i` was started.
    fn speculated_for(&self, i: usize) -> bool {
        self.speculated.iter().any(|(j, _)| *j == i)
    }

    /// The entry of the successors (from `len`, the number of candidates, to `total`) a free
    /// worker may start for the round after: when every candidate was started, none is known
    /// valid or failed, the round after is not decided, and a run is under way (the round waits
    /// for it anyway, so this worker would be idle). The round after's tests come in order.
    fn next_after(&mut self, len: usize, total: usize) -> Option<usize> {
        let waiting = !self.running.is_empty() || self.speculating > 0;
        if self.next != len || self.end != len || self.after_done || !waiting {
            return None;
        }
        let k = self.after.max(len);
        (k < total).then(|| {
            self.after = k + 1;
            k
        })
    }

    /// A test of the round after (entry `k` of the successors) ended: when valid (or failed),
    /// the search stops there, and the tests after it are moot.
    fn after_ended(&mut self, k: usize, decided: bool) {
        if decided {
            self.after_done = true;
            cancel(&self.speculated, |j| j > k);
        }
    }

    /// The first candidate not finished, if it is running: the one the round waits for.
    fn awaited(&self) -> Option<usize> {
        let head = self.results.iter().position(Option::is_none)?;
        (head < self.next.min(self.end) && self.running.iter().any(|(i, _)| *i == head)).then_some(head)
    }
}

/// Raises the cancel flags of `flags` whose candidate index `moot` says is not needed.
fn cancel(flags: &[(usize, Arc<AtomicBool>)], moot: impl Fn(usize) -> bool) {
    for (i, flag) in flags {
        if moot(*i) {
            flag.store(true, Ordering::Relaxed);
        }
    }
}

/// What a worker of [`LabOracle::run_queue`] does next.
enum Job<'c> {
    /// Candidate `i` of the round.
    Candidate(usize),
    /// The successor of candidate `k` the round waits for, or (`k` past the candidates) a test
    /// of the round after.
    Successor(usize, &'c Configuration),
}

impl LabOracle<'_, '_> {
    /// Tests `candidates` on up to `jobs` workers at once, each taking the next candidate as
    /// soon as it is free (a candidate stopped early at an overflow does not leave its worker
    /// waiting for a slower one). With `until_valid`, none is started after a valid one, and
    /// those running after it are cancelled (their builds and runs killed, nothing cached).
    ///
    /// With `successors` (one per candidate, see [`Oracle::speculate`]), a free worker first
    /// starts the successor of the candidate the round waits for, if it has one not yet known:
    /// when that candidate is valid, the round also waits for its successor (whose outcome is
    /// cached for the next round); when it is not, the successor is cancelled. A worker with no
    /// candidate left to start takes the next of the successors past the candidates, if given,
    /// while a run is under way: the round after's tests, in order, which the search runs when
    /// none of the candidates is valid. They are cancelled as soon as a candidate is valid, and
    /// those after one of them that is valid as soon as it is.
    ///
    /// Returns the outcomes of the candidates finished before the first one not finished, in
    /// order; the first error, if any.
    fn run_queue(
        &self,
        candidates: &[Configuration],
        successors: &[Option<Configuration>],
        jobs: usize,
        until_valid: bool,
    ) -> Result<Vec<Outcome>> {
        let lab = self.lab;
        let queue = Mutex::new(Queue::new(candidates.len()));
        let len = candidates.len();
        let spare = if until_valid {
            successors.iter().skip(len).flatten().count() + usize::from(successors.iter().take(len).any(Option::is_some))
        } else {
            0
        };
        let workers = lab.workers.len().min(jobs.max(1)).min(len + spare);
        // The outcome of a successor known from the cache, if it is (valid or not).
        let known = |config: &Configuration| self.recalled(config).map(|o| o.is_valid());
        let successor = |i: usize| -> Option<&Configuration> {
            let config = successors.get(i)?.as_ref()?;
            // Not when its outcome is known already.
            known(config).is_none().then_some(config)
        };
        let panicked = std::thread::scope(|s| {
            let handles: Vec<_> = lab.workers[..workers]
                .iter()
                .map(|worker| {
                    let queue = &queue;
                    let successor = &successor;
                    s.spawn(move || loop {
                        let cancel = Arc::new(AtomicBool::new(false));
                        let job = {
                            let mut q = process::lock(queue);
                            loop {
                                let awaited = q.awaited().filter(|&h| !q.speculated_for(h));
                                if let Some((h, config)) = awaited.and_then(|h| Some((h, successor(h)?))) {
                                    q.speculated.push((h, Arc::clone(&cancel)));
                                    q.speculating += 1;
                                    break Job::Successor(h, config);
                                } else if q.next < q.end {
                                    let i = q.next;
                                    q.next += 1;
                                    q.running.push((i, Arc::clone(&cancel)));
                                    break Job::Candidate(i);
                                } else if let Some(k) = q.next_after(len, successors.len()) {
                                    // Nothing of the round left to start, none valid yet: the
                                    // round after, which the search tests if none is valid,
                                    // up to its first valid test.
                                    let Some(config) = successors[k].as_ref() else { continue };
                                    match known(config) {
                                        Some(valid) => q.after_ended(k, valid),
                                        None => {
                                            q.speculated.push((k, Arc::clone(&cancel)));
                                            q.speculating += 1;
                                            break Job::Successor(k, config);
                                        }
                                    }
                                } else {
                                    return;
                                }
                            }
                        };
                        let i = match job {
                            Job::Successor(k, config) => {
                                lab.console.candidate(config);
                                let tested = match worker.lock() {
                                    Ok(worker) => process::cancellable(&cancel, || self.test_one(&worker, config)),
                                    Err(_) => Err(anyhow!("a worker panicked")),
                                };
                                // Its outcome is cached; an error shows again when the search
                                // tests it.
                                let decided = match &tested {
                                    Ok(o) => o.is_valid(),
                                    Err(e) => !process::is_cancelled(e),
                                };
                                if let Some(o) = tested.ok().filter(|o| !o.cached) {
                                    process::lock(&lab.speculated).insert(config.clone(), (o.build_seconds, o.run_seconds));
                                }
                                let mut q = process::lock(queue);
                                q.speculating -= 1;
                                if k >= len {
                                    q.after_ended(k, decided);
                                }
                                continue;
                            }
                            Job::Candidate(i) => i,
                        };
                        let config = &candidates[i];
                        lab.console.candidate(config);
                        let outcome = match worker.lock() {
                            Ok(worker) => process::cancellable(&cancel, || self.test_one(&worker, config)),
                            Err(_) => Err(anyhow!("a worker panicked")),
                        };
                        let mut q = process::lock(queue);
                        q.running.retain(|(j, _)| *j != i);
                        match &outcome {
                            Err(e) if process::is_cancelled(e) => continue,
                            Err(_) => q.stop_at(i + 1),
                            Ok(o) if until_valid && o.is_valid() => q.stop_at(i + 1),
                            Ok(_) => q.drop_successors(|j| j == i),
                        }
                        q.results[i] = Some(outcome);
                    })
                })
                .collect();
            handles.into_iter().fold(false, |panicked, h| h.join().is_err() | panicked)
        });
        if panicked {
            return Err(anyhow!("a worker thread panicked"));
        }
        // Saved after a round at most every few seconds (a batch's cache grows to tens of
        // megabytes), and at the end of the search's requirement by the final check: an
        // interrupted search loses little.
        lab.save_cache_every(Duration::from_secs(10))?;
        let results = queue.into_inner().unwrap_or_else(PoisonError::into_inner).results;
        // Every candidate before `end` finished; one cancelled after it ends the outcomes.
        results.into_iter().map_while(|r| r).collect()
    }
}

fn diagnostics(built: &BuildResult) -> Vec<DiagnosticLike> {
    built.errors.iter().map(DiagnosticLike::from_error).collect()
}

/// The key of the persistent cache: everything that changes what a configuration's run gives
/// (the sources, the program and its arguments, the tool, the sources of a path dependency on
/// fptune), and nothing that only changes the verdict (the digits) or which configurations are
/// tried (the ladder). Seeds are kept per run.
fn cache_key(ws: &Workspace, inv: &Inventory, settings: &Settings, run: &RunTarget) -> String {
    let mut h = Sha256::new();
    h.update(env!("CARGO_PKG_VERSION"));
    for (rel, text) in &inv.sources {
        h.update(rel.as_bytes());
        h.update([0]);
        h.update(text.as_bytes());
        h.update([0]);
    }
    h.update(format!("{:?}|{}", settings.args, run.name()));
    // A checkout of fptune as a path dependency: its runtime and macro sources too.
    for dir in ws.fptune_path.as_deref().map(crate::workspace::path_dependency_dirs).unwrap_or_default() {
        hash_dependency(&mut h, &dir);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Feeds a path dependency's sources (`src/` and `Cargo.toml`) to `h`, each named by its path
/// from the dependency's parent, not the absolute one: a checkout moved elsewhere (a worktree,
/// another clone) keeps its cache.
fn hash_dependency(h: &mut Sha256, dir: &Path) {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(dir.join("src"))
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect();
    files.push(dir.join("Cargo.toml"));
    files.sort();
    let parent = dir.parent().unwrap_or(dir);
    for f in files {
        h.update(f.strip_prefix(parent).unwrap_or(&f).to_string_lossy().as_bytes());
        h.update([0]);
        h.update(std::fs::read(&f).unwrap_or_default());
        h.update([0]);
    }
}

fn declared_start(knobs: &[Knob], units: &[Unit]) -> Configuration {
    Configuration(units.iter().map(|u| knobs[u.knobs[0]].declared).collect())
}

/// Runs the whole tuning for the requirement of `settings`.
pub fn tune(settings: &Settings, ws: &Workspace, inv: &Inventory, console: &Console) -> Result<Tuned, TuneError> {
    let started = Instant::now();
    let mut lab = Lab::new(settings, ws, inv, console)?;
    let prepared = prepare(&mut lab)?;
    let mut tuned = tune_for(&lab, &prepared, &Requirement::from(&settings.digits))?;
    tuned.counts.other_builds += prepared.counts.other_builds;
    tuned.counts.total_seconds = started.elapsed().as_secs_f64();
    Ok(tuned)
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

/// What every requirement shares: the original's native run (it must build, run and check
/// something), the probe build (units), and the DSA reference (every knob at its declared
/// format).
pub fn prepare(lab: &mut Lab<'_>) -> Result<Prepared, TuneError> {
    let started = Instant::now();
    let mut counts = Counts::default();
    let mut warnings = std::mem::take(&mut lab.warnings);
    let console = lab.console;

    // 0. The sources every build starts from: the types rustc infers written, and with --auto
    // the knobs marked.
    console.stage("asking rustc for the types it infers");
    warnings.extend(lab.prepare_sources()?);

    // 1. The original, native: it must build and run, and check something.
    console.stage("building and running the original crate");
    let worker0 = lock(lab, 0)?;
    let log = lab.log_path("original");
    let start_files = lab.files(&Default::default(), false, &[]).map_err(TuneError::internal)?;
    let built = lab.build(&worker0, &start_files, false, &log).map_err(TuneError::internal)?;
    counts.other_builds += 1;
    let Some(exe) = built.executable.clone().filter(|_| built.success) else {
        return Err(TuneError::Original(anyhow!(
            "the crate does not build as it is: {}\n(full log: {})",
            built.first_error(),
            log.display()
        )));
    };
    let out = RunLayout::checked(&lab.logs, "original");
    let ran = lab.execute(&exe, &out, &log, None, None).map_err(TuneError::internal)?;
    if ran.status == Status::TimedOut {
        return Err(TuneError::Original(anyhow!(
            "the original program did not end within {} s ({}) with the arguments {:?}: does it wait for \
             input or need arguments (--args)? fptune runs it with no standard input; a program that takes \
             longer needs a larger --timeout SECS\n(full log: {})",
            lab.timeout().as_secs_f64(),
            if lab.settings.timeout.is_some() { "--timeout" } else { "fptune's limit for it; set one with --timeout" },
            lab.settings.args,
            log.display()
        )));
    }
    if !ran.status.success() {
        return Err(TuneError::Original(anyhow!(
            "the original program {} with {:?}: {}\n(full log: {})",
            ran.status,
            lab.settings.args,
            ran.stderr_tail(2000),
            log.display()
        )));
    }
    let original_run_seconds = ran.elapsed.as_secs_f64();
    let original_records = validate::read_records(&out).map_err(TuneError::internal)?;
    if original_records.is_empty() {
        return Err(TuneError::Usage(anyhow!(
            "the original program ran but checked no value: {} with the arguments {:?} (give them with --args)",
            if lab.printed { "it printed no float (print!, println!, write!, writeln!), and no fptune::check! was reached" } else { "its fptune::check! calls were not reached" },
            lab.settings.args
        )));
    }
    // A `--digits-for` name no check has is a typo: said now, not after the preparation.
    validate::known_names(&original_records, &lab.settings.digits.per_name).map_err(|e| TuneError::Usage(e.into()))?;
    // Printed values that change from run to run are no results (a clock, a random seed): a
    // second run tells them.
    let mut unsteady = BTreeSet::new();
    if lab.printed {
        let again = lab.execute(&exe, &out, &log, None, None).map_err(TuneError::internal)?;
        let second = validate::read_records(&out).map_err(TuneError::internal)?;
        if !again.status.success() || second.len() != original_records.len() {
            return Err(TuneError::Original(anyhow!(
                "two runs of the original printed different numbers of floats ({} and {}): fptune compares \
                 what configurations print in order, so the program must print the same values each run \
                 (name the results with fptune::check! instead)",
                original_records.len(),
                second.len()
            )));
        }
        for (i, (a, b)) in original_records.iter().zip(&second).enumerate() {
            if a.samples != b.samples && a.name.starts_with(fptune::__rt::PRINTED_PREFIX) {
                unsteady.insert(i);
            }
        }
        if !unsteady.is_empty() {
            let names: std::collections::BTreeSet<&str> = unsteady.iter().map(|&i| original_records[i].name.as_str()).collect();
            warnings.push(format!(
                "{} printed value(s) change from run to run and are not checked: {}",
                unsteady.len(),
                names.into_iter().map(|n| n.trim_start_matches(fptune::__rt::PRINTED_PREFIX).to_string()).collect::<Vec<_>>().join(", ")
            ));
        }
    }


    // 2. The probe build: which knobs rustc forces to share a type.
    console.stage("probing which knobs must share a type");
    let mut probing = Probing::new(lab.inv.knobs.clone());
    loop {
        loop {
            let files = probing.sources(&lab.inv.sources).map_err(|e| TuneError::Internal(anyhow!("{e}")))?;
            let right = probing.right();
            let log = lab.log_path(&format!("probe-{}{}", probing.rounds() + 1, if right { "-right" } else { "" }));
            worker0.scratch.apply_sources(&files).map_err(TuneError::internal)?;
            let mut opts = lab.build_options(&worker0.scratch, false);
            if right {
                opts.features.push(cargo::PROBE_RIGHT_FEATURE.to_string());
            }
            let built = cargo::build(&opts, &log).map_err(TuneError::internal)?;
            counts.other_builds += 1;
            if probing.learn(&diagnostics(&built)) == Round::Settled {
                break;
            }
        }
        // Errors the probe type alone may cause (a bound it lacks): rustc says, in a build with
        // the units they name at 32, then 16 bits, whether the bound holds there. A unit pinned
        // so is written plain from then on: a probe round again reads what its errors hid.
        let pins = probing.couplings().pinned.len();
        for format in [FloatFormat::F32, FloatFormat::F16] {
            let Some(trial) = probing.trial(format) else { continue };
            let files = probing.trial_sources(&lab.inv.sources, &trial).map_err(|e| TuneError::Internal(anyhow!("{e}")))?;
            let log = lab.log_path(&format!("probe-{}-trial-{format}", probing.rounds()));
            let built = lab.build(&worker0, &files, false, &log).map_err(TuneError::internal)?;
            counts.other_builds += 1;
            probing.learn_trial(&trial, &diagnostics(&built));
        }
        if probing.couplings().pinned.len() == pins || probing.rounds() >= Probing::MAX_ROUNDS {
            break;
        }
    }
    drop(worker0);
    lab.unsteady.clone_from(&unsteady);
    let mut units = probing.units();
    let capped = probe::units_without_16bit(&units, probing.couplings());
    for u in &probing.couplings().unexplained {
        warnings.push(format!("the probe build reported an error it could not read, at {}: {}", u.place, u.message));
    }
    lab.units = units.clone();
    lab.capped = capped.keys().copied().collect();
    let start = declared_start(&lab.inv.knobs, &units);

    // 2b. The stochastic build: where the crate's values meet code it does not convert, the
    // conversions rustc asks for.
    console.stage("converting the crate for discrete stochastic arithmetic");
    warnings.extend(lab.heal_stochastic(&start)?);
    counts.other_builds += 1;

    // 3. The reference: every knob at its declared format, under DSA. With two workers, the
    // DSA single build (step 4), the longest build, compiles on the second meanwhile, and makes
    // its runs on the configurations it is verified on.
    console.stage("running the DSA reference");
    let obstacle = (lab.settings.single_build != When::Never).then(|| lab.single_build_obstacle());
    let ahead = matches!(obstacle, Some(None)) && lab.workers.len() > 1;
    let shared: &Lab<'_> = lab;
    let steps = std::thread::scope(|s| -> Result<_, TuneError> {
        let second = ahead.then(|| {
            s.spawn(|| {
                let worker1 = lock(shared, 1)?;
                shared.make_single_build(&worker1, &start).map_err(TuneError::internal)
            })
        });
        let worker0 = lock(shared, 0).inspect_err(|_| {
            // The single build made beside waits for the reference's comparisons.
            let _ = shared.noise_by_mean.set(false);
        })?;
        let (reference, cached, cadna_failure) = shared.dsa_reference(&worker0, &start).map_err(TuneError::internal)?;
        shared.save_cache().map_err(TuneError::internal)?;
        // The runs that verify the single builds, and the configuration they are verified on,
        // are limited as candidates are: a lowered configuration may never stop (a random
        // number generator that needs 46-bit integers in its doubles: NPB's `randlc`).
        shared.derive_timeout(reference.run_seconds);
        let mut other_builds = usize::from(!cached);
        let log = reference.log.as_ref().map(|l| shared.settings.out.join(l).display().to_string()).unwrap_or_default();
        let records = match &reference.result {
            RunResult::Finished { records, .. } => records.clone(),
            RunResult::BuildFailed { error } => {
                return Err(TuneError::Internal(anyhow!(
                    "the stochastic build of the original does not compile (a case fptune does not convert yet): {error}\n(full log: {log})"
                )))
            }
            _ => {
                let failure = reference.failure().map(|r| r.to_string()).unwrap_or_default();
                let first = cadna_failure.as_deref().filter(|f| *f != failure).map_or_else(String::new, |f| {
                    format!(" (with CADNA's comparisons: {f})")
                });
                // A loop that stops when a difference falls below machine precision (`< f64::EPSILON`)
                // converges natively onto a fixed point; under random rounding its samples keep
                // moving by an ulp, and the test may never hold.
                return Err(TuneError::Original(anyhow!(
                    "the original program under DSA failed, with CADNA's comparisons and with order \
                     comparisons on numerical noise decided by the mean: {failure}{first}\n\
                     (under discrete stochastic arithmetic every operation rounds up or down at random: \
                     a loop that stops when a difference falls below machine precision, such as \
                     `err < f64::EPSILON`, may never stop, where the native run reaches a fixed point; \
                     a tolerance of a few ulps, or a relative one, stops in both)\n(full log: {log})"
                )));
            }
        };
        let noise_note = cadna_failure.map(|failure| {
            format!(
                "the DSA reference failed with CADNA's comparisons ({failure}): every DSA run decides an order \
                 comparison whose operands differ by numerical noise by the samples' mean, where CADNA \
                 answers as for equal operands (a loop that stops on `err < f64::EPSILON` at a native \
                 fixed point never stops under CADNA's rule; a tolerance of a few ulps, or a relative \
                 one, stops under both)"
            )
        });
        // Native runs may pay when they may come first (a DSA run costs a good deal, and more
        // than twice the original's native run; not for programs whose DSA runs take
        // milliseconds), or always with `--native-first always`.
        let natives_may_pay = match shared.settings.native_first {
            When::Never => false,
            When::Always => true,
            When::Auto => reference.run_seconds > 0.25 && reference.run_seconds > 2.0 * original_run_seconds,
        };
        // 4. The single build, one program for every DSA candidate (made ahead, or now). And
        // its native twin, for every candidate's native run, when native runs may pay: it
        // serves only beside the DSA one. The DSA one is verified against the own build's run
        // of the mixed configuration, made here (meanwhile, when it is made ahead, after the
        // native one; with one worker, the native one follows if the DSA one serves).
        let (tried, native_tried) = match (obstacle, second) {
            (None, _) => (None, None),
            (Some(Some(why)), _) => (Some(Err(why)), None),
            (Some(None), second) => {
                let native_tried = if natives_may_pay && second.is_some() {
                    other_builds += 1;
                    Some(shared.try_single_native(&worker0, &start, &original_records).map_err(TuneError::internal)?)
                } else {
                    None
                };
                let mixed = shared.lowered_every_other(&start);
                let (own_mixed, _) = shared
                    .run_config_times(&worker0, &mixed, Some(shared.settings.seed), 1, Build::Each)
                    .map_err(TuneError::internal)?;
                let made = match second {
                    Some(second) => second.join().unwrap_or_else(|_| Err(TuneError::Internal(anyhow!("a worker thread panicked"))))?,
                    None => shared.make_single_build(&worker0, &start).map_err(TuneError::internal)?,
                };
                other_builds += 1;
                (Some(made.and_then(|made| single_verdict(made, &reference, &own_mixed, &shared.unsteady))), native_tried)
            }
        };
        Ok((reference, records, other_builds, natives_may_pay, tried, native_tried, noise_note))
    })?;
    let (reference, records, other_builds, natives_may_pay, tried, native_tried, noise_note) = steps;
    if let Some(note) = noise_note {
        console.stage(&format!("warning: {note}"));
        warnings.push(note);
    }
    counts.other_builds += other_builds;
    let mut dsa_run_seconds = reference.run_seconds;
    let mut native_seconds = reference.build_seconds + original_run_seconds;
    if let Some(tried) = tried {
        // Its runs are a little slower than a configuration's own build's (formats are
        // dispatched at run time): it serves when a run of it costs less than a build and a run.
        let tried = tried.and_then(|(program, seconds)| {
            let own = reference.build_seconds + reference.run_seconds;
            if lab.settings.single_build == When::Auto && seconds > own {
                Err(format!("a run of it takes {seconds:.1} s, a build and a run {own:.1} s"))
            } else {
                console.stage(&format!("DSA candidates are runs of the single build: {seconds:.1} s each on the reference, against {own:.1} s to build and run"));
                dsa_run_seconds = seconds;
                Ok(program)
            }
        });
        match tried {
            Ok(program) => lab.single = Some(program),
            Err(why) if lab.settings.single_build == When::Always => {
                return Err(TuneError::Internal(anyhow!("--single-build always, but the single build cannot serve: {why}")))
            }
            Err(why) => {
                let said = format!("no single build ({why}): every DSA candidate is built");
                console.stage(&said);
                warnings.push(said);
            }
        }
        if lab.single.is_none() && matches!(native_tried, Some(Ok(_))) {
            warnings.push(
                "the native single build built beside it is not used without it: candidates' native runs are builds of their own"
                    .to_string(),
            );
        }
        if lab.single.is_some() && natives_may_pay {
            // With one worker, the native one is built only now that the DSA one serves.
            let tried = match native_tried {
                Some(tried) => tried,
                None => {
                    let worker0 = lock(lab, 0)?;
                    counts.other_builds += 1;
                    lab.try_single_native(&worker0, &start, &original_records).map_err(TuneError::internal)?
                }
            };
            match tried {
                Ok((program, seconds)) => {
                    lab.single_native = Some(program);
                    native_seconds = seconds;
                }
                Err(why) => warnings.push(format!("no native single build ({why}): candidates' native runs are builds of their own")),
            }
        }
    }

    // 5. How candidates are built and run, from what the reference cost. An overflow makes a
    // candidate invalid: its run may stop there.
    lab.stop_on_overflow = true;
    lab.quick = lab.single.is_none() && match lab.settings.quick_builds {
        When::Never => false,
        When::Always => true,
        // Runs negligible against builds: an unoptimised build, three times faster to compile
        // and up to twenty times slower to run, costs less.
        When::Auto => 40.0 * reference.run_seconds < reference.build_seconds,
    };
    if lab.quick {
        // The same program, so the same roundings: the records must be identical. Checked
        // once, on the reference.
        let worker0 = lock(lab, 0)?;
        let quick = lab.build_and_run(&worker0, &start, Some(lab.settings.seed), 1, Build::Each).map_err(TuneError::internal)?;
        drop(worker0);
        counts.other_builds += 1;
        if same_results(&quick.result, &reference.result, &lab.unsteady) {
            dsa_run_seconds = quick.run_seconds;
        } else {
            lab.quick = false;
            warnings.push(format!(
                "the reference built unoptimised ({}) did not give the optimised build's results: candidates are built optimised",
                quick.failure().map_or_else(|| "other checked values".to_string(), |r| r.to_string())
            ));
        }
    }
    lab.native_first = match lab.settings.native_first {
        When::Never => false,
        When::Always => true,
        // With the native single build, candidate by candidate as screening pays in the pass
        // ([`Screening`]). Without it, when a DSA run costs more than twice a native one (a
        // build and a run, the DSA build's time standing for the native build's): rejecting
        // natively first then saves whenever half the candidates fail.
        When::Auto => natives_may_pay && (lab.single_native.is_some() || dsa_run_seconds > 2.0 * native_seconds),
    };
    if lab.native_first && lab.settings.native_first == When::Auto {
        lab.screening = Some(Screening::new(native_seconds, dsa_run_seconds));
    }
    if lab.quick {
        console.stage(&format!(
            "candidates are built unoptimised: the reference runs in {:.3} s, builds in {:.1} s",
            reference.run_seconds, reference.build_seconds
        ));
    }
    if lab.native_first {
        console.stage(&format!(
            "candidates run natively first{}: a DSA run takes {:.1} s, a native one {:.2} s ({})",
            if lab.screening.is_some() { " where it pays" } else { "" },
            dsa_run_seconds,
            native_seconds,
            if lab.single_native.is_some() { "a run of the native single build" } else { "a build and a run" }
        ));
    }
    lab.derive_timeout(dsa_run_seconds);
    // 6. Knobs no checked result depends on keep their declared type (unless asked otherwise):
    // nothing the search can see stops it lowering them, and what they feed is not checked.
    if !lab.settings.lower_unchecked {
        if lab.single_native.is_none() && lab.single.is_some() {
            // The test is a run of the native single build per unit: built for it.
            let worker0 = lock(lab, 0)?;
            let tried = lab.try_single_native(&worker0, &start, &original_records).map_err(TuneError::internal)?;
            drop(worker0);
            counts.other_builds += 1;
            if let Ok((program, _)) = tried {
                lab.single_native = Some(program);
            }
        }
        match unchecked_units(lab, &units, &start).map_err(TuneError::internal)? {
            Some(unchecked) if !unchecked.is_empty() => {
                let names: Vec<String> = unchecked
                    .iter()
                    .flat_map(|&u| units[u].knobs.iter().map(|&k| { let k = &lab.inv.knobs[k]; format!("`{}` ({})", k.name, k.place()) }))
                    .collect();
                console.stage(&format!(
                    "{} knob(s) change what the program prints but no checked result when lowered alone (natively): \
                     they keep their declared type (--lower-unchecked tunes them too): {}",
                    names.len(),
                    names.join(", ")
                ));
                for &u in &unchecked {
                    units[u].unchecked = true;
                }
                lab.units = units.clone();
            }
            Some(_) => {}
            None => warnings.push(
                "knobs no checked result depends on were not looked for (it takes the native single build, which this \
                 crate has not): the search lowers them as far as the ladder goes"
                    .to_string(),
            ),
        }
    }
    counts.total_seconds = started.elapsed().as_secs_f64();
    Ok(Prepared {
        units,
        capped: capped.into_iter().map(|(u, p)| (u, p.no_16bit_reason())).collect(),
        start,
        reference: records,
        probe_rounds: probing.rounds(),
        warnings,
        counts,
        unsteady,
        knobs: lab.inv.knobs.len(),
    })
}

/// Tunes a prepared crate for one requirement: Delta Debugging over the units, once per ladder
/// step, then the final checks. Runs known from the cache (an earlier requirement, an earlier
/// run) are not repeated.
pub fn tune_for(lab: &Lab<'_>, prepared: &Prepared, req: &Requirement) -> Result<Tuned, TuneError> {
    let started = Instant::now();
    let mut counts = Counts::default();
    let printed = |r: &Record| r.name.starts_with(fptune::__rt::PRINTED_PREFIX);
    let reference = validate::reference_with(prepared.reference.clone(), req, &prepared.unsteady, printed)
        .map_err(|e| TuneError::Requirement(anyhow!("{e}")))?;
    let mut requirement_warnings = Vec::new();
    let unknown: Vec<usize> = reference.unchecked.iter().copied().filter(|i| !prepared.unsteady.contains(i)).collect();
    if !unknown.is_empty() {
        let mut sites: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
        for &i in &unknown {
            *sites.entry(reference.records[i].name.trim_start_matches(fptune::__rt::PRINTED_PREFIX)).or_default() += 1;
        }
        requirement_warnings.push(format!(
            "{} printed value(s) have fewer exact digits than required in the reference itself (every knob at the top \
             format) and are not checked: {}",
            unknown.len(),
            sites.iter().map(|(s, n)| if *n > 1 { format!("{s} (x{n})") } else { s.to_string() }).collect::<Vec<_>>().join(", ")
        ));
    }

    let problem = Problem { units: &prepared.units, start: &prepared.start, ladder: &lab.settings.ladder };
    let options = SearchOptions { jobs: lab.settings.jobs, ..SearchOptions::default() };
    let console = lab.console;
    // The configuration found must also pass its re-checks (a DSA run with another seed, and
    // the native build): three-sample estimates are right at 95 %, so among hundreds of checked
    // values one can pass by chance. A configuration that fails them is rejected and the search
    // runs again (from the cache: only new configurations cost anything), a bounded number of
    // times.
    let mut rejected: HashMap<Configuration, Reason> = HashMap::new();
    // What screening learnt belongs to a requirement: a pass's native refusals depend on it.
    if let Some(screening) = &lab.screening {
        screening.reset();
    }
    // What the searches of this requirement looked at (for [`Lab::start_two_seeds`]).
    let mut consulted: HashSet<Configuration> = HashSet::new();
    let (result, final_check) = loop {
        let mut oracle = LabOracle { lab, reference: &reference, req, rejected: &rejected, successors: Vec::new() };
        let result =
            search::search(&problem, &options, &mut oracle, &mut |e| console.event(e)).map_err(TuneError::internal)?;
        consulted.extend(result.tested.iter().map(|o| o.configuration.clone()));
        count_tested(&result.tested, &mut counts, &mut process::lock(&lab.speculated));
        // The search's runs are kept before the re-check, which may be interrupted.
        lab.save_cache().map_err(TuneError::internal)?;
        console.stage("re-checking the configuration (DSA with another seed, then natively)");
        let check = final_check(lab, prepared, &result.configuration, &reference, req, &mut counts)
            .map_err(TuneError::internal)?;
        let failed = check.dsa_recheck_reason.clone().or_else(|| check.reason.clone());
        if check.dsa_recheck_reason.is_some() && !lab.two_seeds() {
            // Three-sample estimates of hundreds of checked values: one seed can pass a few
            // by chance. Candidates must now pass two.
            console.stage("a configuration valid under DSA failed with another seed: candidates not judged yet now run under DSA with two seeds");
            lab.start_two_seeds(&consulted);
        }
        if check.reason.is_some() && !lab.native_after() {
            // Random rounding does not show everything round-to-nearest does (a sum that
            // stagnates in binary16): the native build joins the validity of candidates.
            console.stage("a configuration valid under DSA failed natively: candidates valid under DSA now run natively too");
            lab.native_after.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        match failed {
            Some(detail) if result.configuration != prepared.start && rejected.len() < MAX_REJECTED => {
                console.stage(&format!("{} failed its re-check ({detail}): searching again without it", result.configuration.brief()));
                rejected.insert(result.configuration.clone(), Reason::RecheckFailed { detail });
            }
            _ => break (result, check),
        }
    };
    // Successors run ahead that no search looked at still ran.
    for (_, (build, run)) in process::lock(&lab.speculated).drain() {
        counts.speculated += 1;
        count_run(&mut counts, build, run, false, false, run > 0.0);
    }
    counts.rejected = rejected.len();
    counts.quick_builds = lab.quick;
    counts.single_build = lab.single.is_some();
    counts.single_native = lab.single_native.is_some();
    counts.native_first = lab.native_first;
    counts.native_unscreened = lab.screening.as_ref().map_or(0, |s| s.totals().1 as usize);
    counts.native_after = lab.native_after.load(std::sync::atomic::Ordering::Relaxed);
    counts.two_seeds = lab.two_seeds();
    counts.total_seconds = started.elapsed().as_secs_f64();
    Ok(Tuned {
        units: prepared.units.clone(),
        capped: prepared.capped.clone(),
        start: prepared.start.clone(),
        search: result,
        reference: reference.records.clone(),
        unchecked: reference.unchecked.iter().copied().collect(),
        counts,
        final_check,
        probe_rounds: prepared.probe_rounds,
        warnings: prepared.warnings.iter().cloned().chain(requirement_warnings).collect(),
        inventory: lab.inv.clone(),
        sources: lab.sources.clone(),
        auto: lab.auto,
    })
}

/// The runs a candidate must pass, in order ([`Lab::checks`]): `None` is the native build.
fn checks(seed: u64, screened: bool, second_seed: bool, native_after: bool) -> Vec<Option<u64>> {
    let mut checks = Vec::with_capacity(4);
    if screened {
        checks.push(None);
    }
    checks.push(Some(seed));
    if second_seed {
        checks.push(Some(seed.wrapping_add(1)));
    }
    if native_after && !screened {
        checks.push(None);
    }
    checks
}

/// How many configurations found by a search may fail their re-check before the last one is
/// reported as it is.
const MAX_REJECTED: usize = 8;

/// Adds a search's outcomes to the counts. An outcome recalled from a successor run ahead of its
/// round (`speculated`, removed from there) counts as the execution it was.
fn count_tested(tested: &[Outcome], counts: &mut Counts, speculated: &mut HashMap<Configuration, (f64, f64)>) {
    for o in tested {
        let ahead = if o.cached { speculated.remove(&o.configuration) } else { None };
        if o.cached && ahead.is_none() {
            counts.cached += 1;
            continue;
        }
        counts.native_rejected += usize::from(matches!(o.invalid, Some(Reason::NativeFailed { .. })));
        let (build, run) = match ahead {
            Some(spent) => {
                counts.speculated += 1;
                counts.speculated_used += 1;
                spent
            }
            None => (o.build_seconds, o.run_seconds),
        };
        let build_failed = matches!(o.invalid, Some(Reason::BuildFailed { .. }));
        let timed_out = matches!(o.invalid, Some(Reason::TimedOut { .. }));
        let run_failed = timed_out || matches!(o.invalid, Some(Reason::Crashed { .. }));
        count_run(counts, build, run, build_failed, run_failed, run > 0.0 || timed_out);
    }
}

/// Counts a build (if it took any time) and a run (if there was one) of one candidate.
fn count_run(counts: &mut Counts, build: f64, run: f64, build_failed: bool, run_failed: bool, ran: bool) {
    if build > 0.0 {
        counts.compilations += 1;
        counts.compile_seconds += build;
        counts.compilations_failed += usize::from(build_failed);
    }
    if ran {
        counts.executions += 1;
        counts.run_seconds += run;
        counts.executions_failed += usize::from(run_failed);
    }
}

fn final_check(
    lab: &Lab<'_>,
    prepared: &Prepared,
    config: &Configuration,
    reference: &Reference,
    req: &Requirement,
    counts: &mut Counts,
) -> Result<FinalCheck> {
    // Native builds are timed by the fastest of three runs (the search ran them once). The
    // configuration found is confirmed by its own build, not the single build's.
    let run = |worker: &Worker, config: &Configuration, seed: Option<u64>| -> Result<(CandidateRun, bool)> {
        let runs = if seed.is_none() { 3 } else { 1 };
        lab.run_config_times(worker, config, seed, runs, Build::Each)
    };
    let lock = |i: usize| lab.workers[i].lock().map_err(|_| anyhow!("a worker's lock is poisoned"));
    // Native runs of the original and of the configuration found, each timed by its fastest of
    // three (the original's from the cache, when an earlier requirement timed it).
    let natives = |worker: &Worker| -> Result<[(CandidateRun, bool); 2]> {
        Ok([run(worker, &prepared.start, None)?, run(worker, config, None)?])
    };
    // An independent DSA run of the configuration found (other random roundings) on the first
    // worker, the native runs on the second at the same time, if there is one.
    let recheck_seed = lab.recheck_seed();
    let checked = if lab.workers.len() > 1 {
        std::thread::scope(|s| {
            let second = s.spawn(|| {
                let worker = lock(1)?;
                let natives = natives(&worker);
                worker.scratch.restore_all()?;
                natives
            });
            let dsa = lock(0).and_then(|worker| {
                let dsa = run(&worker, config, Some(recheck_seed));
                worker.scratch.restore_all()?;
                dsa
            });
            let natives = second.join().unwrap_or_else(|_| Err(anyhow!("a worker thread panicked")));
            dsa.and_then(|dsa| Ok((dsa, natives?)))
        })
    } else {
        let worker = lock(0)?;
        let checked = run(&worker, config, Some(recheck_seed)).and_then(|dsa| Ok((dsa, natives(&worker)?)));
        worker.scratch.restore_all()?;
        checked
    };
    let (dsa, natives) = checked?;
    for (run, cached) in std::iter::once(&dsa).chain(&natives) {
        counts.other_builds += usize::from(!cached && run.build_seconds > 0.0);
    }
    let (dsa, [(original, _), (tuned, _)]) = (dsa.0, natives);
    let dsa_recheck = validate::confirms(reference, &dsa, req).map(|r| r.to_string());
    let original_seconds = match original.failure() {
        None => original.run_seconds,
        Some(reason) => return Err(anyhow!("the original, rebuilt natively: {reason}")),
    };
    lab.save_cache()?;
    let (reason, tightest, tuned_seconds) = match &tuned.result {
        RunResult::Finished { records, .. } => (
            validate::validate(reference, records, req, 0),
            // Bit for bit is infinitely many digits, which JSON cannot write: 99, as shown.
            validate::worst(reference, records, req).map(|w| (w.value.clone(), w.digits_in_common.clamp(-99.0, 99.0), w.required)),
            Some(tuned.run_seconds),
        ),
        // The native build of the configuration can behave differently from its DSA run (a
        // branch decided otherwise): report it, do not lose the search.
        _ => (tuned.failure(), None, None),
    };
    Ok(FinalCheck {
        dsa_recheck_valid: dsa_recheck.is_none(),
        dsa_recheck_reason: dsa_recheck,
        dsa_recheck_seed: Some(recheck_seed),
        meets_requirement: reason.is_none(),
        reason: reason.map(|r| format!("the native build: {r}")),
        tightest,
        original_seconds,
        tuned_seconds,
    })
}

/// A log's file name for a tag that names a configuration (`f64-f32-f16`): run-length coded
/// where it repeats (`f64x270-f32-f64x2`), and cut with a hash of the whole where that is still
/// longer than a file name may be.
fn log_name(tag: &str) -> String {
    let mut parts: Vec<(String, usize)> = Vec::new();
    for p in tag.split('-') {
        match parts.last_mut() {
            Some((last, n)) if last == p => *n += 1,
            _ => parts.push((p.to_string(), 1)),
        }
    }
    let coded = parts.iter().map(|(p, n)| if *n > 2 { format!("{p}x{n}") } else { vec![p.as_str(); *n].join("-") }).collect::<Vec<_>>().join("-");
    if coded.len() <= 200 {
        return coded;
    }
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    tag.hash(&mut h);
    format!("{}-{:016x}", &coded[..180], h.finish())
}

/// A duration in whole milliseconds, as [`Lab`] keeps its time limit.
fn duration_ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    use sha2::{Digest, Sha256};

    use super::{checks, hash_dependency, without_thread_ids, Queue};

    #[test]
    fn a_dependency_hashes_alike_wherever_it_is_checked_out_and_differently_when_edited() -> anyhow::Result<()> {
        let hash = |dir: &std::path::Path| {
            let mut h = Sha256::new();
            hash_dependency(&mut h, dir);
            h.finalize().to_vec()
        };
        let (one, two) = (tempfile::tempdir()?, tempfile::tempdir()?);
        for root in [one.path(), two.path()] {
            std::fs::create_dir_all(root.join("stochastic/src"))?;
            std::fs::write(root.join("stochastic/Cargo.toml"), "[package]\nname = \"fptune\"\n")?;
            std::fs::write(root.join("stochastic/src/lib.rs"), "pub fn f() {}\n")?;
        }
        assert_eq!(hash(&one.path().join("stochastic")), hash(&two.path().join("stochastic")));
        std::fs::write(two.path().join("stochastic/src/lib.rs"), "pub fn g() {}\n")?;
        assert_ne!(hash(&one.path().join("stochastic")), hash(&two.path().join("stochastic")));
        Ok(())
    }

    #[test]
    fn the_same_panic_of_two_processes_reads_the_same_without_their_thread_ids() {
        let a = "thread 'main' (13701) panicked at src/bessel.rs:613:9:\nx too large";
        let b = "thread 'main' (13711) panicked at src/bessel.rs:613:9:\nx too large";
        assert_eq!(without_thread_ids(a), "thread 'main' panicked at src/bessel.rs:613:9:\nx too large");
        assert_eq!(without_thread_ids(a), without_thread_ids(b));
        // Older panics, other text and a thread named with parentheses stay as they are.
        for t in ["thread 'main' panicked at x", "thread 'w (1)' (7) said", "no thread here", "thread 'cut"] {
            assert_eq!(without_thread_ids(t), t.replace("' (7)", "'"));
        }
        assert_ne!(without_thread_ids(a), without_thread_ids(&a.replace("613", "614")));
    }

    #[test]
    fn the_round_after_runs_in_order_while_the_round_waits_and_stops_at_its_first_valid_test() {
        // Two candidates and three tests of the round after (successors 2, 3, 4).
        let mut q = Queue::new(2);
        let flag = || Arc::new(AtomicBool::new(false));
        q.next = 1;
        q.running.push((0, flag()));
        assert_eq!(q.next_after(2, 5), None, "a candidate is left to start");
        q.next = 2;
        q.running.push((1, flag()));
        assert_eq!(q.next_after(2, 5), Some(2));
        let (f2, f3) = (flag(), flag());
        q.speculated.push((2, Arc::clone(&f2)));
        q.speculating += 1;
        // The candidates end, none valid: the round waits for test 2, so a free worker takes 3.
        q.running.clear();
        assert_eq!(q.next_after(2, 5), Some(3));
        q.speculated.push((3, Arc::clone(&f3)));
        q.speculating += 1;
        // Test 2 is valid: the search stops there, test 3 is moot, nothing more starts.
        q.speculating -= 1;
        q.after_ended(2, true);
        assert!(f3.load(Ordering::Relaxed) && !f2.load(Ordering::Relaxed));
        assert_eq!(q.next_after(2, 5), None);

        // Nothing under way: the round is over, and no worker starts the round after.
        let mut q = Queue::new(1);
        q.next = 1;
        assert_eq!(q.next_after(1, 3), None);
        // A valid candidate: no round after.
        let mut q = Queue::new(3);
        q.next = 3;
        q.running.push((2, flag()));
        q.stop_at(1);
        assert_eq!(q.next_after(3, 5), None);
        // An invalid test of the round after lets the next one start; past the last, none.
        let mut q = Queue::new(1);
        q.next = 1;
        q.running.push((0, flag()));
        assert_eq!(q.next_after(1, 3), Some(1));
        q.after_ended(1, false);
        assert_eq!(q.next_after(1, 3), Some(2));
        assert_eq!(q.next_after(1, 3), None);
    }

    #[test]
    fn a_candidate_passes_its_checks_cheapest_decisive_first() {
        // By default, DSA with the search's seed only.
        assert_eq!(checks(1, false, false, false), [Some(1)]);
        // Native first: the native run decides alone when it fails.
        assert_eq!(checks(1, true, false, true), [None, Some(1)]);
        // After a failed native re-check: natively after a valid DSA run.
        assert_eq!(checks(1, false, false, true), [Some(1), None]);
        // After a failed seed re-check: the next seed too, before any native run.
        assert_eq!(checks(7, false, true, true), [Some(7), Some(8), None]);
        assert_eq!(checks(7, true, true, true), [None, Some(7), Some(8)]);
        assert_eq!(checks(u64::MAX, false, true, false), [Some(u64::MAX), Some(0)]);
    }

    #[test]
    fn long_configurations_get_short_log_names() {
        assert_eq!(super::log_name("f64-f32-f64"), "f64-f32-f64");
        assert_eq!(super::log_name("f64-f64-f64-f32-single"), "f64x3-f32-single");
        let long = vec!["f64"; 300].join("-") + "-f32-" + &vec!["f16", "f64"].repeat(100).join("-");
        let name = super::log_name(&long);
        assert!(name.len() < 250 && name.starts_with("f64x300-f32-"), "{name}");
        assert_ne!(name, super::log_name(&long.replace("f32", "f16")));
    }
}
