//! Building and running one configuration on a worker: its sources, its build's options, its
//! run's environment and time limit, its logs; every run goes through [`Lab::run_config`], which
//! answers from the cache when it can.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::{anyhow, Result};

use fptune::contract;

use crate::outdir::RunLayout;
use crate::cargo::{self, BuildOptions, BuildResult, Target};
use crate::conversion;
use crate::convert;
use crate::heal::Heal;
use crate::model::{Arithmetic, CandidateRun, Configuration, FloatFormat, RunResult};
use crate::process::{self, Command, Status};
use crate::scratch::Scratch;
use crate::validate;
use crate::workspace::RunTarget;

use super::{Lab, Recipe, Worker};

/// Whether a run may come from a single build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Build<'p> {
    /// The single build of the run's kind (DSA or native) when there is one, else the
    /// configuration's own.
    Any,
    /// The configuration's own build.
    Each,
    /// This single build's program (DSA or native, as the run is).
    Single(&'p Path),
}

impl Lab<'_> {
    pub(super) fn build_options(&self, scratch: &Scratch, stochastic: bool, quick: bool) -> BuildOptions {
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
            opts.config = cargo::candidate_overrides("release", &self.ws.name, quick);
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
    pub(super) fn build(&self, r: &Recipe, worker: &Worker, files: &[(String, String)], stochastic: bool, log: &Path) -> Result<BuildResult> {
        worker.scratch.apply_sources(files)?;
        cargo::build(&self.build_options(&worker.scratch, stochastic, r.quick), log)
    }

    /// Runs a built program in `arithmetic` (DSA with its seed; a native run is given the
    /// search's seed, which it does not use), its checks going to `out`; a single build's
    /// (DSA or native) with the units' formats. DSA runs detect overflows only.
    pub(super) fn execute(&self, r: &Recipe, exe: &Path, out: &Path, log: &Path, arithmetic: Arithmetic, formats: Option<&Configuration>) -> Result<process::ProcessOutput> {
        let _ = std::fs::remove_file(out);
        let mut cmd = Command::new(exe.as_os_str())
            .args(self.settings.args.iter())
            .env(contract::OUT_ENV, out.as_os_str())
            .env(contract::SEED_ENV, arithmetic.seed().unwrap_or(self.settings.seed).to_string())
            .env("RUST_BACKTRACE", "0");
        // In a copy of the package, as it was: what the program writes stays there.
        let dir = self.run_dirs.take()?;
        cmd = cmd.cwd(dir.root().to_path_buf());
        if let Some(config) = formats {
            cmd = cmd.env(contract::FORMATS_ENV, config.key());
        }
        if let Some(machine) = &self.settings.ladder.machine {
            cmd = cmd.env(contract::MACHINE_ENV, machine);
        }
        if r.printed {
            cmd = cmd.env(contract::PRINTED_ENV, contract::PRINTED_ON);
        }
        if arithmetic.is_dsa() {
            // Validity needs the overflows only (DESIGN.md, "Validation"); the other kinds'
            // checks would cost a quarter of a run's time and change none of its values.
            cmd = cmd.env(contract::DETECT_ENV, contract::DETECT_OVERFLOW);
        }
        if self.stops_at_overflow(r, arithmetic, formats.is_some()) {
            cmd = cmd.env(contract::STOP_ON_OVERFLOW_ENV, contract::STOP_ON_OVERFLOW_ON);
        }
        if arithmetic.is_dsa() && self.noise_by_mean.get() == Some(&true) {
            cmd = cmd.env(contract::NOISE_ORDER_ENV, contract::NOISE_ORDER_MEAN);
        }
        process::run(&cmd, self.timeout(), log)
    }

    /// DSA with the search's seed (`--seed`): the arithmetic of the reference and of candidates.
    pub(super) fn dsa(&self) -> Arithmetic {
        Arithmetic::Dsa { seed: self.settings.seed }
    }

    /// Whether a candidate's run in `arithmetic`, of a single build or
    /// not, ends at its first 16-bit overflow ([`contract::STOP_ON_OVERFLOW_ENV`]): DSA
    /// runs, and runs of the native single build (whose 16-bit roundings check for it; a
    /// configuration's own native build does not).
    pub(super) fn stops_at_overflow(&self, r: &Recipe, arithmetic: Arithmetic, single: bool) -> bool {
        r.stop_on_overflow && (arithmetic.is_dsa() || single)
    }

    /// The sources of a configuration: knobs at their formats, and for the stochastic build
    /// every item marked for conversion, with its heals.
    pub(super) fn sources_of(&self, r: &Recipe, config: &Configuration, stochastic: bool) -> Result<Vec<(String, String)>> {
        let edits = convert::configured_edits(&r.sources.base, &r.inv.knobs, &r.units, config)?;
        self.files(r, &edits, stochastic, if stochastic { &r.heals } else { &[] })
    }

    /// The files that differ from the user's crate: the base with `edits` (knob types) and
    /// `heals`, and for the stochastic build every program file converted
    /// ([`conversion::build_files`]).
    pub(super) fn files(
        &self,
        r: &Recipe,
        edits: &std::collections::BTreeMap<String, Vec<crate::splice::Edit>>,
        stochastic: bool,
        heals: &[Heal],
    ) -> Result<Vec<(String, String)>> {
        let texts = conversion::build_files(&r.sources.base, edits, heals, stochastic)?.into_iter().map(|(rel, s)| (rel, s.text));
        Ok(texts.filter(|(rel, text)| r.sources.user.iter().any(|(u, t)| u == rel && t != text)).collect())
    }

    /// How long a run may take before it is killed (`--timeout`, else derived from the reference).
    pub(super) fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms.load(Ordering::Relaxed))
    }

    /// Sets the runs' time limit to `timeout`, derived from a DSA run ([`super::plan::run_timeout`]),
    /// unless `--timeout` fixed it (`None`).
    pub(super) fn limit_runs(&self, timeout: Option<Duration>) {
        if let Some(timeout) = timeout {
            self.timeout_ms.store(duration_ms(timeout), Ordering::Relaxed);
        }
    }

    pub(super) fn log_path(&self, what: &str) -> PathBuf {
        RunLayout::log(&self.logs, &log_name(what))
    }

    /// The run of a configuration in `arithmetic`, from the cache or built and run now on
    /// `worker` (and then cached); `true` when it came from the cache.
    pub(super) fn run_config(&self, r: &Recipe, worker: &Worker, config: &Configuration, arithmetic: Arithmetic) -> Result<(CandidateRun, bool)> {
        self.run_config_times(r, worker, config, arithmetic, 1, Build::Any)
    }

    /// [`Lab::run_config`], with a run that ran at least `runs` times (timed by the fastest).
    pub(super) fn run_config_times(
        &self,
        r: &Recipe,
        worker: &Worker,
        config: &Configuration,
        arithmetic: Arithmetic,
        runs: u32,
        build: Build<'_>,
    ) -> Result<(CandidateRun, bool)> {
        if let Some(run) = self.recall_run(config, arithmetic).filter(|r| r.runs >= runs || r.failure().is_some()) {
            return Ok((run, true));
        }
        let run = self.build_and_run(r, worker, config, arithmetic, runs, build)?;
        self.cache.lock().map_err(|_| anyhow!("the cache lock is poisoned"))?.insert(run.clone());
        Ok((run, false))
    }

    /// Builds and runs one configuration in `arithmetic` (under DSA with its seed, or natively),
    /// `runs` times, timed by the fastest. With `Build::Any`, a run of the single build when there is
    /// one: the DSA one under DSA, the native one ([`Lab::try_single_native`]) natively.
    pub(super) fn build_and_run(&self, r: &Recipe, worker: &Worker, config: &Configuration, arithmetic: Arithmetic, runs: u32, build: Build<'_>) -> Result<CandidateRun> {
        let single = match build {
            Build::Any if arithmetic.is_dsa() => r.single.as_deref(),
            Build::Any => r.single_native.as_deref(),
            Build::Each => None,
            Build::Single(exe) => Some(exe),
        };
        let key = config.key().replace(',', "-");
        let tag = match arithmetic {
            Arithmetic::Dsa { seed } if seed == self.settings.seed => key,
            Arithmetic::Dsa { seed } => format!("{key}-seed{seed}"),
            Arithmetic::Native => format!("{key}-native"),
        };
        // The single build's runs have logs of their own (the verification runs a configuration
        // both ways).
        let tag = if single.is_some() { format!("{tag}-single") } else { tag };
        let log = self.log_path(&tag);
        let _ = std::fs::remove_file(&log);
        let mut run = CandidateRun {
            configuration: config.clone(),
            arithmetic,
            result: RunResult::Finished { records: Vec::new(), overflows: 0 },
            build_seconds: 0.0,
            run_seconds: 0.0,
            runs: 0,
            log: log.strip_prefix(&self.settings.out).map(Path::to_path_buf).ok(),
        };
        if let Some(u) = r.capped.iter().find(|&&u| matches!(config.0[u], FloatFormat::F16 | FloatFormat::BF16)) {
            // rustc says a float literal reaches this unit: no 16-bit format can compile.
            run.result = RunResult::BuildFailed {
                error: format!("unit {u} receives a float literal, which cannot be a 16-bit float (found by the probe build; not built)"),
            };
            return Ok(run);
        }
        let exe = match single {
            Some(exe) => exe.to_path_buf(),
            None => {
                let files = self.sources_of(r, config, arithmetic.is_dsa())?;
                let built = self.build(r, worker, &files, arithmetic.is_dsa(), &log)?;
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
            let ran = self.execute(r, &exe, &out, &log, arithmetic, single.map(|_| config))?;
            fastest = fastest.min(ran.elapsed.as_secs_f64());
            run.run_seconds = fastest;
            run.result = match ran.status {
                Status::TimedOut => RunResult::TimedOut { seconds: ran.elapsed.as_secs_f64() },
                Status::Exited(0) => {
                    let checked = validate::read_run(&out)?;
                    RunResult::Finished { overflows: checked.overflows(), records: checked.records }
                }
                Status::Exited(contract::OVERFLOW_EXIT_CODE) if self.stops_at_overflow(r, arithmetic, single.is_some()) => {
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

/// A log's file name for a tag that names a configuration (`f64-f32-f16`): run-length coded
/// where it repeats (`f64x270-f32-f64x2`), and cut with a hash of the whole where that is still
/// longer than a file name may be.
pub(super) fn log_name(tag: &str) -> String {
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
pub(super) fn duration_ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {


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
