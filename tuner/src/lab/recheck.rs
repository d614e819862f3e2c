//! Checks and re-checks: the runs a candidate must pass, in order ([`checks`]), the modes a
//! failed re-check turns on (native after, two seeds), and the re-checks of the configuration a
//! search found ([`recheck`]).

use std::collections::HashSet;

use anyhow::{anyhow, Result};

use crate::model::{Arithmetic, CandidateRun, Configuration, RunResult};
use crate::validate::{self, Reference, Requirement};

use super::counts::Counts;
use super::prepare::Prepared;
use super::run::Build;
use super::{Lab, Recipe, Worker};

impl Lab<'_> {
    /// Whether candidates valid under DSA run natively too, once a configuration found has
    /// failed its native re-check.
    pub(super) fn native_after(&self) -> bool {
        self.native_after.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The pass of the precision ladder `config` belongs to, for [`Screening`](crate::screen::Screening): the ladder step
    /// of its narrowest format.
    pub(super) fn stratum(&self, config: &Configuration) -> usize {
        let formats = &self.settings.ladder.formats;
        config.0.iter().filter_map(|f| formats.iter().position(|g| g == f)).max().unwrap_or(0)
    }

    /// Whether `config`, about to be tested, runs natively first: with `native_first`, when its
    /// native run is known already, or else as [`Screening`](crate::screen::Screening) decides (always, without it).
    pub(super) fn screens(&self, r: &Recipe, config: &Configuration) -> bool {
        if !r.native_first {
            return false;
        }
        if self.recall_run(config, Arithmetic::Native).is_some() {
            return true;
        }
        r.screening.as_ref().is_none_or(|s| s.screens(self.stratum(config)))
    }

    /// Whether candidates run under DSA with two seeds, once a configuration found has failed
    /// its re-check with another seed.
    pub(super) fn two_seeds(&self) -> bool {
        self.two_seeds.get().is_some()
    }

    /// Turns two-seed mode on ([`Lab::two_seeds`]) for the candidates the searches so far have
    /// not judged (`consulted`: what they looked at). Not every run in the cache: those include
    /// candidates run ahead of their round that no search looked at, which depend on the
    /// workers' timing, and so would the next search's verdicts.
    pub(super) fn start_two_seeds(&self, consulted: &HashSet<Configuration>) {
        let _ = self.two_seeds.set(consulted.clone());
    }

    /// Whether `config` must pass a second seed: in two-seed mode, unless the search had judged
    /// it before the mode began.
    pub(super) fn needs_second_seed(&self, config: &Configuration) -> bool {
        self.two_seeds.get().is_some_and(|judged| !judged.contains(config))
    }

    /// The runs that make `config` valid, in the order they are made, each by its arithmetic:
    /// natively first when it is `screened` ([`Lab::screens`]); under DSA with the search's
    /// seed, and the next one too when [`Lab::needs_second_seed`] (from the same build: the
    /// sources do not change, so cargo has nothing to do); natively last, when not first, once
    /// [`Lab::native_after`].
    pub(super) fn checks(&self, config: &Configuration, screened: bool) -> Vec<Arithmetic> {
        checks(self.settings.seed, screened, self.needs_second_seed(config), self.native_after())
    }

    /// The seed of the final DSA re-check: one the search did not use.
    pub(super) fn recheck_seed(&self) -> u64 {
        self.settings.seed.wrapping_add(if self.two_seeds() { 2 } else { 1 })
    }
}

/// The runs a candidate must pass, in order ([`Lab::checks`]), each by its arithmetic.
pub(super) fn checks(seed: u64, screened: bool, second_seed: bool, native_after: bool) -> Vec<Arithmetic> {
    let mut checks = Vec::with_capacity(4);
    if screened {
        checks.push(Arithmetic::Native);
    }
    checks.push(Arithmetic::Dsa { seed });
    if second_seed {
        checks.push(Arithmetic::Dsa { seed: seed.wrapping_add(1) });
    }
    if native_after && !screened {
        checks.push(Arithmetic::Native);
    }
    checks
}

/// The final configuration re-verified: an independent DSA run (another seed), then rebuilt
/// natively and run.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Recheck {
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
    /// Each check with a rule of its own (a metric, or no DSA digits): its metric measured on
    /// the DSA re-check run and the native run, beside its bound.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<validate::CheckMeasure>,
}

pub(super) fn recheck(
    lab: &Lab<'_>,
    prepared: &Prepared,
    config: &Configuration,
    reference: &Reference,
    req: &Requirement,
    counts: &mut Counts,
) -> Result<Recheck> {
    // Native builds are timed by the fastest of three runs (the search ran them once). The
    // configuration found is confirmed by its own build, not the single build's.
    let run = |worker: &Worker, config: &Configuration, arithmetic: Arithmetic| -> Result<(CandidateRun, bool)> {
        let runs = if arithmetic.is_dsa() { 1 } else { 3 };
        lab.run_config_times(&prepared.recipe, worker, config, arithmetic, runs, Build::Each)
    };
    let lock = |i: usize| lab.workers[i].lock().map_err(|_| anyhow!("a worker's lock is poisoned"));
    // Native runs of the original and of the configuration found, each timed by its fastest of
    // three (the original's from the cache, when an earlier requirement timed it).
    let natives = |worker: &Worker| -> Result<[(CandidateRun, bool); 2]> {
        Ok([run(worker, &prepared.start, Arithmetic::Native)?, run(worker, config, Arithmetic::Native)?])
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
                let dsa = run(&worker, config, Arithmetic::Dsa { seed: recheck_seed });
                worker.scratch.restore_all()?;
                dsa
            });
            let natives = second.join().unwrap_or_else(|_| Err(anyhow!("a worker thread panicked")));
            dsa.and_then(|dsa| Ok((dsa, natives?)))
        })
    } else {
        let worker = lock(0)?;
        let checked = run(&worker, config, Arithmetic::Dsa { seed: recheck_seed }).and_then(|dsa| Ok((dsa, natives(&worker)?)));
        worker.scratch.restore_all()?;
        checked
    };
    let (dsa, natives) = checked?;
    for (run, cached) in std::iter::once(&dsa).chain(&natives) {
        counts.other_builds += usize::from(!cached && run.build_seconds > 0.0);
    }
    let (dsa, [(original, _), (tuned, _)]) = (dsa.0, natives);
    let dsa_recheck = validate::confirms(reference, &dsa, req).map(|r| r.to_string());
    let records = |run: &CandidateRun| match &run.result {
        RunResult::Finished { records, .. } => Some(records.clone()),
        _ => None,
    };
    let checks = validate::measure_checks(reference, records(&dsa).as_deref(), records(&tuned).as_deref(), req);
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
    Ok(Recheck {
        dsa_recheck_valid: dsa_recheck.is_none(),
        dsa_recheck_reason: dsa_recheck,
        dsa_recheck_seed: Some(recheck_seed),
        meets_requirement: reason.is_none(),
        reason: reason.map(|r| format!("the native build: {r}")),
        tightest,
        original_seconds,
        tuned_seconds,
        checks,
    })
}

#[cfg(test)]
mod tests {
    use super::checks;
    use crate::model::Arithmetic::{self, Native};

    fn dsa(seed: u64) -> Arithmetic {
        Arithmetic::Dsa { seed }
    }

    #[test]
    fn a_candidate_passes_its_checks_cheapest_decisive_first() {
        // By default, DSA with the search's seed only.
        assert_eq!(checks(1, false, false, false), [dsa(1)]);
        // Native first: the native run decides alone when it fails.
        assert_eq!(checks(1, true, false, true), [Native, dsa(1)]);
        // After a failed native re-check: natively after a valid DSA run.
        assert_eq!(checks(1, false, false, true), [dsa(1), Native]);
        // After a failed seed re-check: the next seed too, before any native run.
        assert_eq!(checks(7, false, true, true), [dsa(7), dsa(8), Native]);
        assert_eq!(checks(7, true, true, true), [Native, dsa(7), dsa(8)]);
        assert_eq!(checks(u64::MAX, false, true, false), [dsa(u64::MAX), dsa(0)]);
    }
}
