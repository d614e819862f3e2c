//! Judging: the search's oracle ([`LabOracle`]) and its verdict on a candidate, from the runs of
//! its checks in turn (made now on a worker, or recalled from the cache).

use std::collections::HashMap;

use anyhow::{anyhow, Result};

use crate::model::Arithmetic;
use crate::model::{CandidateRun, Configuration, Outcome, Reason};
use crate::search::{LookAhead, Oracle};
use crate::validate::{self, Reference, Requirement};

use super::{Lab, Recipe, Worker};

/// The search's oracle: a batch runs on the workers in parallel; configurations already run
/// (this session, an earlier requirement, an earlier run) are recalled from the cache.
pub(super) struct LabOracle<'l, 'a> {
    pub(super) lab: &'l Lab<'a>,
    /// How candidates are built and run.
    pub(super) recipe: &'l Recipe,
    pub(super) reference: &'l Reference,
    pub(super) req: &'l Requirement,
    /// Configurations found earlier and rejected by their re-check, with why.
    pub(super) rejected: &'l HashMap<Configuration, Reason>,
}

impl LabOracle<'_, '_> {
    pub(super) fn judge(&self, run: &CandidateRun, cached: bool) -> Outcome {
        // The search's seed decides; another (two seeds) confirms, within the estimate's spread.
        let verdict = if run.arithmetic == self.lab.dsa() {
            validate::verdict(self.reference, run, self.req)
        } else {
            validate::confirms(self.reference, run, self.req)
        };
        let verdict = verdict.or_else(|| self.rejected.get(&run.configuration).cloned());
        run.outcome(verdict, cached)
    }

    /// The outcome of a native run that fails the requirement, if it does.
    pub(super) fn judge_native(&self, native: &CandidateRun, cached: bool) -> Option<Outcome> {
        let reason = validate::verdict(self.reference, native, self.req)?;
        Some(native.outcome(Some(Reason::NativeFailed { detail: reason.to_string() }), cached))
    }

    /// A run's outcome: [`Self::judge`] for a DSA run, [`Self::judge_native`] for a native one.
    pub(super) fn judge_any(&self, run: &CandidateRun, cached: bool) -> Outcome {
        match run.arithmetic {
            Arithmetic::Dsa { .. } => self.judge(run, cached),
            Arithmetic::Native => self.judge_native(run, cached).unwrap_or_else(|| run.outcome(None, cached)),
        }
    }

    /// The outcome of [`Lab::checks`] taken in turn with the runs `run` gives in each check's
    /// arithmetic (`None`: the run is unknown, and so is the outcome): the first check that
    /// fails decides.
    pub(super) fn decide(
        &self,
        config: &Configuration,
        screened: bool,
        mut run: impl FnMut(Arithmetic) -> Result<Option<(CandidateRun, bool)>>,
    ) -> Result<Option<Outcome>> {
        let mut last = None;
        for arithmetic in self.lab.checks(config, screened) {
            let Some((run, cached)) = run(arithmetic)? else { return Ok(None) };
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
    pub(super) fn recalled(&self, config: &Configuration) -> Option<Outcome> {
        let screened = self.recipe.native_first && self.lab.recall_run(config, Arithmetic::Native).is_some();
        self.decide(config, screened, |arithmetic| Ok(self.lab.recall_run(config, arithmetic).map(|run| (run, true)))).ok().flatten()
    }

    /// Tests one configuration on `worker`: each of [`Lab::checks`] in turn, until one fails.
    /// The outcome's times add those of the runs made.
    pub(super) fn test_one(&self, worker: &Worker, config: &Configuration) -> Result<Outcome> {
        let mut spent: Option<(f64, f64)> = None;
        let screened = self.lab.screens(self.recipe, config);
        // The seconds of the native run first and of the DSA run with the search's seed, when
        // made now: what screening learns from. (Screened, the native run is the first check and
        // the only native one: `checks` puts one last only for a candidate not screened.)
        let (mut native, mut dsa) = (None, None);
        let outcome = self.decide(config, screened, |arithmetic| {
            let (run, cached) = self.lab.run_config(self.recipe, worker, config, arithmetic)?;
            if !cached {
                let s = spent.get_or_insert((0.0, 0.0));
                s.0 += run.build_seconds;
                s.1 += run.run_seconds;
                match arithmetic {
                    Arithmetic::Native if screened => native = Some(run.run_seconds),
                    Arithmetic::Dsa { seed } if seed == self.lab.settings.seed => dsa = Some(run.run_seconds),
                    _ => {}
                }
            }
            Ok(Some((run, cached)))
        })?;
        let mut outcome = outcome.ok_or_else(|| anyhow!("no check to run"))?;
        if let Some(screening) = &self.recipe.screening {
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
        self.run_queue(batch, &LookAhead::default(), usize::MAX, false)
    }

    /// The candidates in order ([`LabOracle::run_queue`]), free workers starting what the search
    /// tests after them (`ahead`).
    fn test_in_order(&mut self, candidates: &[Configuration], ahead: &LookAhead, jobs: usize) -> Result<Vec<Outcome>> {
        self.run_queue(candidates, ahead, jobs, true)
    }
}
