//! The main loop of `cargo fptune`: the original's native run, the probe build (units), the DSA
//! reference, Delta Debugging over candidates built and run in parallel scratch copies, the final
//! native check, and the report.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use sha2::{Digest, Sha256};

use crate::cache::Cache;
use crate::cargo::{self, BuildOptions, BuildResult, Target};
use crate::config::Settings;
use crate::console::Console;
use crate::convert;
use crate::knobs::Inventory;
use crate::model::{Configuration, FloatFormat, Knob, Outcome, Reason, Record, Unit};
use crate::probe::{self, DiagnosticLike, Probing, Round};
use crate::process::{self, Command, Status};
use crate::scratch::{Scratch, ScratchOptions};
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
}

/// The final configuration re-verified: an independent DSA run (another seed), then rebuilt
/// natively and run.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct FinalCheck {
    /// Whether an independent DSA run of the configuration (seed + 1) is valid too.
    pub dsa_recheck_valid: bool,
    /// Why not, if not.
    pub dsa_recheck_reason: Option<String>,
    /// Whether its checked results meet the requirement against the reference.
    pub meets_requirement: bool,
    /// Why not, if not.
    pub reason: Option<String>,
    /// The tightest value: (`name[index]`, digits in common with the reference, required).
    pub tightest: Option<(String, f64, f64)>,
    /// Best native run time of the original, seconds.
    pub original_seconds: f64,
    /// Best native run time of the tuned configuration, seconds.
    pub tuned_seconds: f64,
}

/// Everything a tuning run found.
#[derive(Debug)]
pub struct Tuned {
    /// The units searched.
    pub units: Vec<Unit>,
    /// Units that cannot be 16-bit (they receive a float literal), with the place.
    pub capped: Vec<(usize, String)>,
    /// Where the search started (each unit's declared format).
    pub start: Configuration,
    /// The search's result.
    pub search: SearchResult,
    /// The reference's checked values.
    pub reference: Vec<Record>,
    /// Counts and times.
    pub counts: Counts,
    /// The native re-check.
    pub final_check: FinalCheck,
    /// Probe rounds and what rustc said that the probe could not read.
    pub probe_rounds: usize,
    /// Messages for the user (cache warnings, unexplained probe errors).
    pub warnings: Vec<String>,
}

/// One parallel worker: a scratch copy with its own warm target directory.
#[derive(Debug)]
struct Worker {
    scratch: Scratch,
}

/// What the orchestration shares with its workers.
#[derive(Debug)]
pub struct Lab<'a> {
    settings: &'a Settings,
    ws: &'a Workspace,
    inv: &'a Inventory,
    run: RunTarget,
    logs: PathBuf,
    workers: Vec<Mutex<Worker>>,
    timeout: Duration,
    units: Vec<Unit>,
    capped: Vec<usize>,
    console: &'a Console,
}

impl<'a> Lab<'a> {
    /// Prepares the scratch copies (one per job), under `target/fptune/` of the workspace so
    /// that builds stay warm across runs.
    pub fn new(settings: &'a Settings, ws: &'a Workspace, inv: &'a Inventory, console: &'a Console) -> Result<Lab<'a>, TuneError> {
        let run = ws
            .run_target(settings.bin.as_deref(), settings.example.as_deref())
            .map_err(TuneError::Usage)?;
        let logs = settings.out.join("logs");
        std::fs::create_dir_all(&logs)
            .with_context(|| format!("cannot create the output directory {}", logs.display()))
            .map_err(TuneError::Usage)?;
        let mut workers = Vec::new();
        for i in 0..settings.jobs {
            let options = ScratchOptions {
                target_dir: Some(ws.target_dir.join("fptune").join(format!("worker{i}"))),
                leak: settings.leak_dirs,
                skip: vec![ws.target_dir.clone(), settings.out.clone()],
                ..ScratchOptions::default()
            };
            let scratch = Scratch::create(&ws.root, &options).map_err(TuneError::internal)?;
            workers.push(Mutex::new(Worker { scratch }));
        }
        Ok(Lab {
            settings,
            ws,
            inv,
            run,
            logs,
            workers,
            timeout: settings.timeout.unwrap_or(Duration::from_secs(600)),
            units: Vec::new(),
            capped: Vec::new(),
            console,
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
        opts.stochastic = stochastic;
        opts.target_dir = Some(scratch.target_dir().to_path_buf());
        opts
    }

    /// Writes `files` into the worker's copy and builds it.
    fn build(&self, worker: &Worker, files: &[(String, String)], stochastic: bool, log: &Path) -> Result<BuildResult> {
        worker.scratch.apply_sources(files)?;
        cargo::build(&self.build_options(&worker.scratch, stochastic), log)
    }

    /// Runs a built program, its checks going to `out`.
    fn execute(&self, exe: &Path, out: &Path, timeout: Duration, log: &Path) -> Result<process::RunResult> {
        self.execute_seeded(exe, out, timeout, log, self.settings.seed)
    }

    /// Runs a built program with a given seed of the stochastic arithmetic.
    fn execute_seeded(&self, exe: &Path, out: &Path, timeout: Duration, log: &Path, seed: u64) -> Result<process::RunResult> {
        let _ = std::fs::remove_file(out);
        let cmd = Command::new(exe.as_os_str())
            .args(self.settings.args.iter())
            .env("FPTUNE_OUT", out.as_os_str())
            .env("FPTUNE_SEED", seed.to_string())
            .env("RUST_BACKTRACE", "0")
            .cwd(self.ws.root.clone());
        process::run(&cmd, timeout, log)
    }

    /// The sources of a configuration: knobs at their formats, and for the stochastic build
    /// every item marked for conversion.
    fn sources_of(&self, config: &Configuration, stochastic: bool) -> Result<Vec<(String, String)>> {
        let configured = convert::configured_sources(&self.inv.sources, &self.inv.knobs, &self.units, config)?;
        let mut files: Vec<(String, String)> = Vec::new();
        for (rel, original) in &self.inv.sources {
            let text = configured.iter().find(|(r, _)| r == rel).map(|(_, t)| t.clone()).unwrap_or_else(|| original.clone());
            // The build script and other files outside the program's targets do not depend on
            // fptune: only the program's sources are converted.
            let program = rel.starts_with("src/") || rel.starts_with("examples/");
            let text = if stochastic && program { convert::mark_for_conversion(&text)? } else { text };
            if &text != original {
                files.push((rel.clone(), text));
            }
        }
        Ok(files)
    }

    fn log_path(&self, what: &str) -> PathBuf {
        self.logs.join(format!("{what}.log"))
    }

    /// Builds and runs one configuration and judges it.
    fn candidate(&self, worker: &Worker, config: &Configuration, reference: &Reference, req: &Requirement) -> Result<Outcome> {
        let key = config.key().replace(',', "-");
        let log = self.log_path(&key);
        let _ = std::fs::remove_file(&log);
        let rel_log = log.strip_prefix(&self.settings.out).map(Path::to_path_buf).ok();
        let mut outcome = Outcome {
            configuration: config.clone(),
            invalid: None,
            build_seconds: 0.0,
            run_seconds: 0.0,
            cached: false,
            log: rel_log,
        };
        if let Some(u) = self.capped.iter().find(|&&u| matches!(config.0[u], FloatFormat::F16 | FloatFormat::BF16)) {
            // rustc says a float literal reaches this unit: no 16-bit format can compile.
            outcome.invalid = Some(Reason::BuildFailed {
                error: format!("unit {u} receives a float literal, which cannot be a 16-bit float (found by the probe build; not built)"),
            });
            return Ok(outcome);
        }
        let files = self.sources_of(config, true)?;
        let built = self.build(worker, &files, true, &log)?;
        outcome.build_seconds = built.elapsed.as_secs_f64();
        let Some(exe) = built.executable.clone().filter(|_| built.success) else {
            outcome.invalid = Some(Reason::BuildFailed { error: built.first_error() });
            return Ok(outcome);
        };
        let out = self.logs.join(format!("{key}.jsonl"));
        let ran = self.execute(&exe, &out, self.timeout, &log)?;
        outcome.run_seconds = ran.elapsed.as_secs_f64();
        outcome.invalid = match ran.status {
            Status::TimedOut => Some(Reason::TimedOut { seconds: self.timeout.as_secs_f64() }),
            Status::Exited(0) => {
                let run = validate::read_run(&out)?;
                validate::validate(reference, &run.records, req, run.overflows())
            }
            Status::Exited(code) => {
                Some(Reason::Crashed { code: Some(code), signal: None, stderr_tail: ran.stderr_tail(2000) })
            }
            Status::Signaled(sig) => {
                Some(Reason::Crashed { code: None, signal: Some(sig), stderr_tail: ran.stderr_tail(2000) })
            }
        };
        Ok(outcome)
    }
}

/// The search's oracle: a batch runs on the workers in parallel.
struct LabOracle<'l, 'a> {
    lab: &'l Lab<'a>,
    reference: &'l Reference,
    req: &'l Requirement,
}

impl Oracle for LabOracle<'_, '_> {
    fn test(&mut self, batch: &[Configuration]) -> Result<Vec<Outcome>> {
        let (lab, reference, req) = (self.lab, self.reference, self.req);
        let mut results: Vec<Option<Result<Outcome>>> = (0..batch.len()).map(|_| None).collect();
        for (chunk_start, chunk) in batch.chunks(lab.workers.len()).enumerate().map(|(i, c)| (i * lab.workers.len(), c)) {
            let outcomes: Vec<Result<Outcome>> = std::thread::scope(|s| {
                let handles: Vec<_> = chunk
                    .iter()
                    .zip(&lab.workers)
                    .map(|(config, worker)| {
                        s.spawn(move || {
                            let worker = worker.lock().map_err(|_| anyhow!("a worker panicked"))?;
                            lab.console.candidate(config);
                            lab.candidate(&worker, config, reference, req)
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(anyhow!("a worker thread panicked")))).collect()
            });
            for (i, o) in outcomes.into_iter().enumerate() {
                results[chunk_start + i] = Some(o);
            }
        }
        results.into_iter().map(|r| r.unwrap_or_else(|| Err(anyhow!("a candidate was not run")))).collect()
    }
}

fn diagnostics(built: &BuildResult) -> Vec<DiagnosticLike> {
    built
        .errors
        .iter()
        .map(|d| {
            let primary = d.primary();
            DiagnosticLike {
                message: d.message.clone(),
                rendered: d.rendered.clone().unwrap_or_else(|| d.message.clone()),
                file: primary.map(|s| s.file.clone()),
                line: primary.map(|s| s.line),
            }
        })
        .collect()
}

/// The key of the persistent cache: the sources, the settings that change outcomes, the tool.
fn cache_key(inv: &Inventory, settings: &Settings, run: &RunTarget) -> String {
    let mut h = Sha256::new();
    h.update(env!("CARGO_PKG_VERSION"));
    for (rel, text) in &inv.sources {
        h.update(rel.as_bytes());
        h.update([0]);
        h.update(text.as_bytes());
        h.update([0]);
    }
    h.update(serde_json::to_string(&settings.digits).unwrap_or_default());
    h.update(format!("{:?}|{:?}|{}|{}", settings.ladder, settings.args, settings.seed, run.name()));
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

fn declared_start(knobs: &[Knob], units: &[Unit]) -> Configuration {
    Configuration(units.iter().map(|u| knobs[u.knobs[0]].declared).collect())
}

/// Runs the whole tuning.
pub fn tune(settings: &Settings, ws: &Workspace, inv: &Inventory, console: &Console) -> Result<Tuned, TuneError> {
    let started = Instant::now();
    let mut counts = Counts::default();
    let mut warnings = Vec::new();
    let mut lab = Lab::new(settings, ws, inv, console)?;
    let req = Requirement::from(&settings.digits);

    // 1. The original, native: it must build and run, and check something.
    console.stage("building and running the original crate");
    let worker0 = lab.workers[0].lock().map_err(|_| TuneError::Internal(anyhow!("worker lock")))?;
    let log = lab.log_path("original");
    let built = lab.build(&worker0, &[], false, &log).map_err(TuneError::internal)?;
    counts.other_builds += 1;
    let Some(exe) = built.executable.clone().filter(|_| built.success) else {
        return Err(TuneError::Original(anyhow!(
            "the crate does not build as it is: {}\n(full log: {})",
            built.first_error(),
            log.display()
        )));
    };
    let out = lab.logs.join("original.jsonl");
    let ran = lab.execute(&exe, &out, lab.timeout, &log).map_err(TuneError::internal)?;
    if !ran.status.success() {
        return Err(TuneError::Original(anyhow!(
            "the original program {} with {:?}: {}\n(full log: {})",
            ran.status,
            settings.args,
            ran.stderr_tail(2000),
            log.display()
        )));
    }
    let original_records = validate::read_records(&out).map_err(TuneError::internal)?;
    if original_records.is_empty() {
        return Err(TuneError::Usage(anyhow!(
            "the original program ran but checked no value: its fptune::check! calls were not reached \
             with the arguments {:?} (give them with --args)",
            settings.args
        )));
    }

    // 2. The probe build: which knobs rustc forces to share a type.
    console.stage("probing which knobs must share a type");
    let mut probing = Probing::new(inv.knobs.clone());
    loop {
        let files = probing.sources(&inv.sources).map_err(|e| TuneError::Internal(anyhow!("{e}")))?;
        let log = lab.log_path(&format!("probe-{}", probing.rounds() + 1));
        let built = lab.build(&worker0, &files, false, &log).map_err(TuneError::internal)?;
        counts.other_builds += 1;
        let errors = diagnostics(&built);
        if probing.learn(&errors) == Round::Settled {
            break;
        }
    }
    let units = probing.units();
    let capped = probe::units_without_16bit(&units, probing.couplings());
    for u in &probing.couplings().unexplained {
        warnings.push(format!("the probe build reported an error it could not read, at {}: {}", u.place, u.message));
    }
    lab.units = units.clone();
    lab.capped = capped.keys().copied().collect();
    let start = declared_start(&inv.knobs, &units);
    drop(worker0);

    // 3. The reference: every knob at its declared format, under DSA.
    console.stage("running the DSA reference");
    let worker0 = lab.workers[0].lock().map_err(|_| TuneError::Internal(anyhow!("worker lock")))?;
    let files = lab.sources_of(&start, true).map_err(TuneError::internal)?;
    let log = lab.log_path("reference");
    let built = lab.build(&worker0, &files, true, &log).map_err(TuneError::internal)?;
    counts.other_builds += 1;
    let Some(exe) = built.executable.clone().filter(|_| built.success) else {
        return Err(TuneError::Internal(anyhow!(
            "the stochastic build of the original does not compile (a case fptune does not convert yet): {}\n(full log: {})",
            built.first_error(),
            log.display()
        )));
    };
    let out = lab.logs.join("reference.jsonl");
    let ran = lab.execute(&exe, &out, lab.timeout, &log).map_err(TuneError::internal)?;
    if !ran.status.success() {
        return Err(TuneError::Original(anyhow!(
            "the original program under DSA {}: {}\n(full log: {})",
            ran.status,
            ran.stderr_tail(2000),
            log.display()
        )));
    }
    drop(worker0);
    let records = validate::read_records(&out).map_err(TuneError::internal)?;
    let reference =
        validate::reference(records, &req).map_err(|e| TuneError::Requirement(anyhow!("{e}")))?;
    if settings.timeout.is_none() {
        // A candidate may be slower than the reference (more iterations), not ten times.
        lab.timeout = Duration::from_secs_f64((10.0 * ran.elapsed.as_secs_f64()).max(20.0));
    }

    // 4. Delta Debugging over the units, once per ladder step.
    let key = cache_key(inv, settings, &lab.run);
    let (mut cache, warning) =
        Cache::load(settings.out.join("cache.json"), key).map_err(TuneError::internal)?;
    warnings.extend(warning);
    let problem = Problem { units: &units, start: &start, ladder: &settings.ladder };
    let options = SearchOptions { jobs: settings.jobs, ..SearchOptions::default() };
    let mut oracle = LabOracle { lab: &lab, reference: &reference, req: &req };
    let result = search::search(&problem, &options, &mut oracle, &mut cache, &mut |e| console.event(e))
        .map_err(TuneError::internal)?;
    for o in &result.tested {
        if o.cached {
            counts.cached += 1;
            continue;
        }
        let build_failed = matches!(o.invalid, Some(Reason::BuildFailed { .. }));
        if o.build_seconds > 0.0 {
            counts.compilations += 1;
            counts.compile_seconds += o.build_seconds;
            counts.compilations_failed += usize::from(build_failed);
        }
        if o.run_seconds > 0.0 || matches!(o.invalid, Some(Reason::TimedOut { .. })) {
            counts.executions += 1;
            counts.run_seconds += o.run_seconds;
            counts.executions_failed +=
                usize::from(matches!(o.invalid, Some(Reason::Crashed { .. } | Reason::TimedOut { .. })));
        }
    }

    // 5. The configuration found, rebuilt natively: its results and its speed.
    console.stage("re-checking the configuration natively");
    let final_check = final_check(&lab, &result.configuration, &reference, &req, &mut counts).map_err(TuneError::internal)?;
    counts.total_seconds = started.elapsed().as_secs_f64();
    Ok(Tuned {
        units,
        capped: capped.into_iter().collect(),
        start,
        search: result,
        reference: reference.records.clone(),
        counts,
        final_check,
        probe_rounds: probing.rounds(),
        warnings,
    })
}

fn final_check(lab: &Lab<'_>, config: &Configuration, reference: &Reference, req: &Requirement, counts: &mut Counts) -> Result<FinalCheck> {
    let worker = lab.workers[0].lock().map_err(|_| anyhow!("worker lock"))?;
    // An independent DSA run of the configuration found: other random roundings.
    let dsa_recheck = {
        let files = lab.sources_of(config, true)?;
        let log = lab.log_path("recheck-dsa");
        let built = lab.build(&worker, &files, true, &log)?;
        counts.other_builds += 1;
        match built.executable.clone().filter(|_| built.success) {
            None => Some(format!("the stochastic build failed: {}", built.first_error())),
            Some(exe) => {
                let out = lab.logs.join("recheck-dsa.jsonl");
                let ran = lab.execute_seeded(&exe, &out, lab.timeout, &log, lab.settings.seed.wrapping_add(1))?;
                if ran.status.success() {
                    let run = validate::read_run(&out)?;
                    validate::validate(reference, &run.records, req, run.overflows()).map(|r| r.to_string())
                } else {
                    Some(format!("the program {}: {}", ran.status, ran.stderr_tail(2000)))
                }
            }
        }
    };
    let best_of = |exe: &Path, tag: &str| -> Result<(f64, Vec<Record>)> {
        let out = lab.logs.join(format!("{tag}.jsonl"));
        let log = lab.log_path(tag);
        let mut best = f64::INFINITY;
        for _ in 0..3 {
            let ran = lab.execute(exe, &out, lab.timeout, &log)?;
            if !ran.status.success() {
                return Err(anyhow!("the native program {}: {}", ran.status, ran.stderr_tail(2000)));
            }
            best = best.min(ran.elapsed.as_secs_f64());
        }
        Ok((best, validate::read_records(&out)?))
    };
    let build_native = |files: &[(String, String)], tag: &str| -> Result<PathBuf> {
        let built = lab.build(&worker, files, false, &lab.log_path(tag))?;
        built.executable.clone().filter(|_| built.success).ok_or_else(|| anyhow!("{tag}: {}", built.first_error()))
    };
    let tuned_files = lab.sources_of(config, false)?;
    let tuned_exe = build_native(&tuned_files, "final-native")?;
    // Copy it aside: the next build overwrites the executable.
    let tuned_copy = lab.logs.join("final-native.bin");
    std::fs::copy(&tuned_exe, &tuned_copy).context("keeping the tuned executable")?;
    let original_exe = build_native(&[], "original-native")?;
    counts.other_builds += 2;
    let (original_seconds, _) = best_of(&original_exe, "original-native")?;
    worker.scratch.restore_all()?;
    // The native build of the configuration can behave differently from its DSA run (a branch
    // decided otherwise): report it, do not lose the search.
    let (tuned_seconds, records) = match best_of(&tuned_copy, "final-native") {
        Ok(r) => r,
        Err(e) => {
            return Ok(FinalCheck {
                dsa_recheck_valid: dsa_recheck.is_none(),
                dsa_recheck_reason: dsa_recheck,
                meets_requirement: false,
                reason: Some(format!("{e:#}")),
                tightest: None,
                original_seconds,
                tuned_seconds: f64::NAN,
            })
        }
    };
    let reason = validate::validate(reference, &records, req, 0);
    let tightest = validate::worst(reference, &records, req).map(|w| (w.value.clone(), w.digits_in_common, w.required));
    Ok(FinalCheck {
        dsa_recheck_valid: dsa_recheck.is_none(),
        dsa_recheck_reason: dsa_recheck,
        meets_requirement: reason.is_none(),
        reason: reason.map(|r| r.to_string()),
        tightest,
        original_seconds,
        tuned_seconds,
    })
}
