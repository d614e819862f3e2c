//! Preparation, once per crate: the original's native run, the probe build (units), the DSA
//! reference, the single builds, how candidates are built and run, and the knobs no checked
//! result depends on ([`prepare`]).

use std::collections::BTreeSet;
use std::time::Instant;

use anyhow::{anyhow, Result};

use crate::outdir::RunLayout;
use crate::cache::Cache;
use crate::cargo::{self, BuildResult};
use crate::cli::When;
use crate::model::{Arithmetic, CandidateRun, Configuration, FloatFormat, Knob, Record, RunResult, Unit};
use crate::probe::{self, DiagnosticLike, Probing, Round};
use crate::process::Status;
use crate::screen::Screening;
use crate::validate;

use super::counts::Counts;
use super::plan::{run_timeout, Choices, Measurements, Plan};
use super::run::{log_name, Build};
use super::single::{same_results, single_verdict};
use super::{lock, Lab, Recipe, TuneError, Worker};

/// What every requirement of a crate shares, found once: the units (from the probe build), the
/// start configuration and the DSA reference's checked values.
#[derive(Debug)]
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
    /// How candidates are built and run, as preparation found it.
    pub(super) recipe: Recipe,
}

impl Lab<'_> {
    /// The DSA reference: `start` under DSA with CADNA's comparisons, and when that run fails
    /// (a crash or a timeout), once more with order comparisons on numerical noise decided by the
    /// samples' mean, as every DSA run then is ([`fptune::contract::NOISE_ORDER_ENV`]; the
    /// cache's runs are then those of that key). With the run, whether it was recalled, and the
    /// first run's failure when there was a second.
    ///
    /// CADNA answers `s < EPS` as `s == EPS` when `s - EPS` is noise, so a loop that stops on
    /// such a test when its native run reaches a fixed point (Numerical Recipes' continued
    /// fractions: `if (del - 1).abs() < EPS { break }`) never stops under random rounding.
    pub(super) fn dsa_reference(&self, r: &Recipe, worker: &Worker, start: &Configuration) -> Result<(CandidateRun, bool, Option<String>)> {
        let dsa = self.dsa();
        let decided = |by_mean: bool| {
            let _ = self.noise_by_mean.set(by_mean);
        };
        let (first, cached) = match self.run_config(r, worker, start, dsa) {
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
        let (second, cached) = self.run_config(r, worker, start, dsa)?;
        Ok((second, cached, Some(failure)))
    }
}

/// The units no checked result depends on, though the program shows them: lowered alone to the
/// ladder's bottom in runs of the native single build, each leaves every checked value bit for
/// bit as it was, but changes what the program prints (its steady lines: those two runs of the
/// reference print alike). A unit whose values are exact at the bottom changes neither and is
/// searched as any other. `None` without the native single build (no test is cheap enough).
pub(super) fn unchecked_units(lab: &Lab<'_>, r: &Recipe, units: &[Unit], start: &Configuration) -> Result<Option<Vec<usize>>> {
    let Some(exe) = r.single_native.clone() else { return Ok(None) };
    let Some(&bottom) = lab.settings.ladder.formats.last() else { return Ok(Some(Vec::new())) };
    let run = |config: &Configuration, tag: &str| -> Result<Option<(RunResult, Vec<String>)>> {
        let (log, out) = (lab.log_path(tag), RunLayout::checked(&lab.logs, &log_name(tag)));
        let ran = lab.execute(r, &exe, &out, &log, Arithmetic::Native, Some(config))?;
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
        if shows && same_results(&result, &reference, &r.unsteady) {
            out.push(unit.id);
        }
    }
    Ok(Some(out))
}

pub(super) fn diagnostics(built: &BuildResult) -> Vec<DiagnosticLike> {
    built.errors.iter().map(DiagnosticLike::from_error).collect()
}

pub(super) fn declared_start(knobs: &[Knob], units: &[Unit]) -> Configuration {
    Configuration(units.iter().map(|u| knobs[u.knobs[0]].declared).collect())
}

/// What every requirement shares: the original's native run (it must build, run and check
/// something), the probe build (units), and the DSA reference (every knob at its declared
/// format). Each stage returns what it finds; the recipe candidates are made by grows with
/// them, stage by stage, and goes on in the [`Prepared`] (the [`Lab`] keeps what it had from the
/// start).
pub fn prepare(lab: &mut Lab<'_>) -> Result<Prepared, TuneError> {
    let started = Instant::now();
    let mut counts = Counts::default();
    let mut warnings = std::mem::take(&mut lab.warnings);
    let console = lab.console;

    // 0. The sources every build starts from: the types rustc infers written, and with --auto
    // the knobs marked.
    console.stage("asking rustc for the types it infers");
    let (mut r, said) = lab.prepare_sources()?;
    warnings.extend(said);

    // 1. The original, native: it must build and run, and check something.
    console.stage("building and running the original crate");
    let worker0 = lock(lab, 0)?;
    let Original { run_seconds: original_run_seconds, records: original_records, unsteady } =
        run_original(lab, &r, &worker0, &mut counts, &mut warnings)?;

    // 2. The probe build: which knobs rustc forces to share a type.
    console.stage("probing which knobs must share a type");
    let probing = probe_units(lab, &r, &worker0, &mut counts)?;
    drop(worker0);
    r.unsteady.clone_from(&unsteady);
    let mut units = probing.units();
    let capped = probe::units_without_16bit(&units, probing.couplings());
    for u in &probing.couplings().unexplained {
        warnings.push(format!("the probe build reported an error it could not read, at {}: {}", u.place, u.message));
    }
    r.units = units.clone();
    r.capped = capped.keys().copied().collect();
    let start = declared_start(&r.inv.knobs, &units);

    // 2b. The stochastic build: where the crate's values meet code it does not convert, the
    // conversions rustc asks for.
    console.stage("converting the crate for discrete stochastic arithmetic");
    let (heals, said) = lab.heal_stochastic(&r, &start)?;
    r.heals = heals;
    warnings.extend(said);
    counts.other_builds += 1;

    // 3. The reference: every knob at its declared format, under DSA. With two workers, the
    // DSA single build (step 4), the longest build, compiles on the second meanwhile, and makes
    // its runs on the configurations it is verified on.
    console.stage("running the DSA reference");
    let obstacle = (lab.settings.single_build != When::Never).then(|| lab.single_build_obstacle(&r));
    let ahead = matches!(obstacle, Some(None)) && lab.workers.len() > 1;
    let choices = Choices::of(lab.settings);
    // What the reference measured, the trials to come not made yet.
    let measured = |reference: &CandidateRun| Measurements {
        original_run: original_run_seconds,
        reference_build: reference.build_seconds,
        reference_run: reference.run_seconds,
        ..Measurements::default()
    };
    let shared: &Lab<'_> = lab;
    let recipe = &r;
    let steps = std::thread::scope(|s| -> Result<_, TuneError> {
        let second = ahead.then(|| {
            s.spawn(|| {
                let worker1 = lock(shared, 1)?;
                shared.make_single_build(recipe, &worker1, &start).map_err(TuneError::internal)
            })
        });
        let worker0 = lock(shared, 0).inspect_err(|_| {
            // The single build made beside waits for the reference's comparisons.
            let _ = shared.noise_by_mean.set(false);
        })?;
        let (reference, cached, cadna_failure) = shared.dsa_reference(recipe, &worker0, &start).map_err(TuneError::internal)?;
        shared.save_cache().map_err(TuneError::internal)?;
        // The runs that verify the single builds, and the configuration they are verified on,
        // are limited as candidates are: a lowered configuration may never stop (a random
        // number generator that needs 46-bit integers in its doubles: NPB's `randlc`).
        shared.limit_runs(run_timeout(&choices, reference.run_seconds));
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
        // Native runs may pay ([`Plan::natives_may_pay`]): the native single build is tried too.
        let natives_may_pay = Plan::from_measurements(&choices, &measured(&reference)).natives_may_pay;
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
                    Some(shared.try_single_native(recipe, &worker0, &start, &original_records).map_err(TuneError::internal)?)
                } else {
                    None
                };
                let mixed = shared.lowered_every_other(recipe, &start);
                let (own_mixed, _) = shared
                    .run_config_times(recipe, &worker0, &mixed, shared.dsa(), 1, Build::Each)
                    .map_err(TuneError::internal)?;
                let made = match second {
                    Some(second) => second.join().unwrap_or_else(|_| Err(TuneError::Internal(anyhow!("a worker thread panicked"))))?,
                    None => shared.make_single_build(recipe, &worker0, &start).map_err(TuneError::internal)?,
                };
                other_builds += 1;
                (Some(made.and_then(|made| single_verdict(made, &reference, &own_mixed, &recipe.unsteady))), native_tried)
            }
        };
        Ok((reference, records, other_builds, tried, native_tried, noise_note))
    })?;
    let (reference, records, other_builds, tried, native_tried, noise_note) = steps;
    if let Some(note) = noise_note {
        console.stage(&format!("warning: {note}"));
        warnings.push(note);
    }
    counts.other_builds += other_builds;
    // 5. How candidates are built and run, from what the reference and the trials cost
    // ([`Plan`]).
    let mut measured = measured(&reference);
    if let Some(tried) = tried {
        measured.single = Some(tried.as_ref().map(|(_, seconds)| *seconds).map_err(Clone::clone));
        match Plan::from_measurements(&choices, &measured).single {
            Some(Ok(seconds)) => {
                console.stage(&format!(
                    "DSA candidates are runs of the single build: {seconds:.1} s each on the reference, against {:.1} s to build and run",
                    measured.reference_build_and_run()
                ));
                r.single = tried.ok().map(|(program, _)| program);
            }
            Some(Err(why)) if lab.settings.single_build == When::Always => {
                return Err(TuneError::Internal(anyhow!("--single-build always, but the single build cannot serve: {why}")))
            }
            Some(Err(why)) => {
                let said = format!("no single build ({why}): every DSA candidate is built");
                console.stage(&said);
                warnings.push(said);
            }
            None => {}
        }
        if r.single.is_none() && matches!(native_tried, Some(Ok(_))) {
            warnings.push(
                "the native single build built beside it is not used without it: candidates' native runs are builds of their own"
                    .to_string(),
            );
        }
        if Plan::from_measurements(&choices, &measured).single_native {
            // With one worker, the native one is built only now that the DSA one serves.
            let tried = match native_tried {
                Some(tried) => tried,
                None => {
                    let worker0 = lock(lab, 0)?;
                    counts.other_builds += 1;
                    lab.try_single_native(&r, &worker0, &start, &original_records).map_err(TuneError::internal)?
                }
            };
            measured.single_native = Some(tried.as_ref().map(|(_, seconds)| *seconds).map_err(Clone::clone));
            match tried {
                Ok((program, _)) => r.single_native = Some(program),
                Err(why) => warnings.push(format!("no native single build ({why}): candidates' native runs are builds of their own")),
            }
        }
    }

    // An overflow makes a candidate invalid: its run may stop there.
    r.stop_on_overflow = true;
    r.quick = Plan::from_measurements(&choices, &measured).quick;
    if r.quick {
        // The same program, so the same roundings: the records must be identical. Checked
        // once, on the reference.
        let worker0 = lock(lab, 0)?;
        let quick = lab.build_and_run(&r, &worker0, &start, lab.dsa(), 1, Build::Each).map_err(TuneError::internal)?;
        drop(worker0);
        counts.other_builds += 1;
        measured.quick = Some(if same_results(&quick.result, &reference.result, &r.unsteady) {
            Ok(quick.run_seconds)
        } else {
            Err(quick.failure().map_or_else(|| "other checked values".to_string(), |r| r.to_string()))
        });
        if let Some(Err(why)) = &measured.quick {
            warnings.push(format!(
                "the reference built unoptimised ({why}) did not give the optimised build's results: candidates are built optimised"
            ));
        }
    }
    let plan = Plan::from_measurements(&choices, &measured);
    r.quick = plan.quick;
    r.native_first = plan.native_first;
    if plan.screening {
        r.screening = Some(Screening::new(plan.native_seconds, plan.dsa_run_seconds));
    }
    if r.quick {
        console.stage(&format!(
            "candidates are built unoptimised: the reference runs in {:.3} s, builds in {:.1} s",
            reference.run_seconds, reference.build_seconds
        ));
    }
    if r.native_first {
        console.stage(&format!(
            "candidates run natively first{}: a DSA run takes {:.1} s, a native one {:.2} s ({})",
            if r.screening.is_some() { " where it pays" } else { "" },
            plan.dsa_run_seconds,
            plan.native_seconds,
            if r.single_native.is_some() { "a run of the native single build" } else { "a build and a run" }
        ));
    }
    lab.limit_runs(plan.timeout);
    // 6. Knobs no checked result depends on keep their declared type (unless asked otherwise):
    // nothing the search can see stops it lowering them, and what they feed is not checked.
    if !lab.settings.lower_unchecked {
        if r.single_native.is_none() && r.single.is_some() {
            // The test is a run of the native single build per unit: built for it.
            let worker0 = lock(lab, 0)?;
            let tried = lab.try_single_native(&r, &worker0, &start, &original_records).map_err(TuneError::internal)?;
            drop(worker0);
            counts.other_builds += 1;
            if let Ok((program, _)) = tried {
                r.single_native = Some(program);
            }
        }
        match unchecked_units(lab, &r, &units, &start).map_err(TuneError::internal)? {
            Some(unchecked) if !unchecked.is_empty() => {
                let names: Vec<String> = unchecked
                    .iter()
                    .flat_map(|&u| units[u].knobs.iter().map(|&k| { let k = &r.inv.knobs[k]; format!("`{}` ({})", k.name, k.place()) }))
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
                r.units = units.clone();
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
        knobs: r.inv.knobs.len(),
        recipe: r,
    })
}

/// The original, run natively ([`run_original`]).
struct Original {
    /// Its run's seconds.
    run_seconds: f64,
    /// Its checked values.
    records: Vec<Record>,
    /// Positions of the printed values that changed between two of its runs ([`Prepared::unsteady`]).
    unsteady: BTreeSet<usize>,
}

/// Builds and runs the original natively on `worker`: it must build, run, and check something.
/// Printed values that change from run to run are said in `warnings`.
fn run_original(lab: &Lab<'_>, r: &Recipe, worker: &Worker, counts: &mut Counts, warnings: &mut Vec<String>) -> Result<Original, TuneError> {
    let log = lab.log_path("original");
    let start_files = lab.files(r, &Default::default(), false, &[]).map_err(TuneError::internal)?;
    let built = lab.build(r, worker, &start_files, false, &log).map_err(TuneError::internal)?;
    counts.other_builds += 1;
    let Some(exe) = built.executable.clone().filter(|_| built.success) else {
        if !crate::sources::changed(&r.sources).is_empty() {
            // The user's crate may well build: what failed is fptune's copy of it.
            return Err(TuneError::Conversion(anyhow!(
                "fptune's copy of the crate, with the types and markers it wrote (logs/sources/), does not build: {}; \
                 run with --auto-in to leave the file out, and report this to fptune\n(full log: {})",
                built.first_error(),
                log.display()
            )));
        }
        return Err(TuneError::Original(anyhow!(
            "the crate does not build as it is: {}\n(full log: {})",
            built.first_error(),
            log.display()
        )));
    };
    let out = RunLayout::checked(&lab.logs, "original");
    let ran = lab.execute(r, &exe, &out, &log, Arithmetic::Native, None).map_err(TuneError::internal)?;
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
        // A value printed whole (a matrix) is checked only where the runtime implements its type.
        let versions: String = lab.ws.trait_crate_warnings.iter().map(|w| format!("\n  {w}")).collect();
        return Err(TuneError::Usage(anyhow!(
            "the original program ran but checked no value: {} with the arguments {:?} (give them with --args){}",
            if r.printed {
                "it printed no float (print!, println!, write!, writeln!, format!; a float, a Vec, array or slice of them, or a \
                 nalgebra matrix, ndarray array or num-complex number of the versions fptune's runtime implements), and \
                 no fptune::check! was reached"
            } else {
                "its fptune::check! calls were not reached"
            },
            lab.settings.args,
            versions
        )));
    }
    // A `--digits-for` name no check has is a typo: said now, not after the preparation.
    validate::known_names(&original_records, &lab.settings.digits.per_name).map_err(|e| TuneError::Usage(e.into()))?;
    validate::known_checks(&original_records, &lab.settings.digits.checks).map_err(|e| TuneError::Usage(e.into()))?;
    // Printed values that change from run to run are no results (a clock, a random seed): a
    // second run tells them.
    let mut unsteady = BTreeSet::new();
    if r.printed {
        let again = lab.execute(r, &exe, &out, &log, Arithmetic::Native, None).map_err(TuneError::internal)?;
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
            if a.samples != b.samples && a.name.starts_with(fptune::contract::PRINTED_PREFIX) {
                unsteady.insert(i);
            }
        }
        if !unsteady.is_empty() {
            let names: std::collections::BTreeSet<&str> = unsteady.iter().map(|&i| original_records[i].name.as_str()).collect();
            warnings.push(format!(
                "{} printed value(s) change from run to run and are not checked: {}",
                unsteady.len(),
                names.into_iter().map(|n| n.trim_start_matches(fptune::contract::PRINTED_PREFIX).to_string()).collect::<Vec<_>>().join(", ")
            ));
        }
    }
    Ok(Original { run_seconds: original_run_seconds, records: original_records, unsteady })
}

/// The probe builds on `worker`, round after round until they settle: which knobs rustc forces to
/// share a type (the units), and which cannot be 16-bit.
fn probe_units(lab: &Lab<'_>, r: &Recipe, worker: &Worker, counts: &mut Counts) -> Result<Probing, TuneError> {
    let mut probing = Probing::new(r.inv.knobs.clone());
    loop {
        loop {
            let files = probing.sources(&r.inv.sources).map_err(|e| TuneError::Internal(anyhow!("{e}")))?;
            let log = lab.log_path(&format!("probe-{}", probing.rounds() + 1));
            worker.scratch.apply_sources(&files).map_err(TuneError::internal)?;
            let opts = lab.build_options(&worker.scratch, false, r.quick);
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
            let files = probing.trial_sources(&r.inv.sources, &trial).map_err(|e| TuneError::Internal(anyhow!("{e}")))?;
            let log = lab.log_path(&format!("probe-{}-trial-{format}", probing.rounds()));
            let built = lab.build(r, worker, &files, false, &log).map_err(TuneError::internal)?;
            counts.other_builds += 1;
            probing.learn_trial(&trial, &diagnostics(&built));
        }
        if probing.couplings().pinned.len() == pins || probing.rounds() >= Probing::MAX_ROUNDS {
            break;
        }
    }
    Ok(probing)
}
