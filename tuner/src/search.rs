//! The search: Delta Debugging over the units, once per step of the precision ladder, as PROMISE
//! does it.
//!
//! # Passes
//!
//! Pass 1 lowers units from `ladder.formats[0]` to `formats[1]` (f64 -> f32), pass 2 lowers, among
//! the units now at `formats[1]`, to `formats[2]` (f32 -> f16), and so on down the ladder. A
//! pass's *candidates* are the units at its upper format that are not pinned; pinned units never
//! move. Each pass first tests lowering every candidate; when that fails, it runs `ddmax` to find
//! a maximal set of candidates that can be lowered, such that lowering any one more of the
//! remaining candidates fails (1-minimality of the units kept high).
//!
//! # ddmax
//!
//! Let `H` be the candidates still high (at first all of them; the others are lowered). `H` is
//! split into `n` parts `Δ1..Δn` (`n = 2` at first), and the search tests, in order:
//!
//! - with [`Algorithm::Zeller`] only, the *subsets*: keeping only `Δi` high (lowering every other
//!   candidate). The first valid one gives `H = Δi`, `n = 2`;
//! - the *complements*: keeping `H - Δi` high (lowering `Δi` too), starting from the position of
//!   the last part lowered. The first valid one gives `H = H - Δi`, `n = n - 1`;
//! - when none is valid, the granularity doubles (`n = min(2n, |H|)`), and when it is already
//!   `|H|` (every part one unit: each complement lowers one more unit and fails) the pass ends.
//!
//! [`Algorithm::Promise`] is PROMISE's `deltadebug/dd.py` (after the ddmin of Zeller's book *Why
//! Programs Fail*, applied to the units kept high): complements only. [`Algorithm::Zeller`] is
//! Zeller's `DD.py` `ddmax` (subsets, then complements), which jumps faster when few units must
//! stay high and spends more tests when many must. Both keep `DD.py`'s details: `n - 1` after a
//! complement (the level `n = 1` it can reach costs nothing: its tests are known), the rotation of
//! the first complement tried, and the split into parts of sizes differing by at most one.
//!
//! # Never twice
//!
//! Every outcome is kept for the whole search (across passes), and before testing a configuration
//! the search asks the oracle to [recall](Oracle::recall) it (the tuner's oracle answers from its
//! persistent cache of runs): no configuration is tested twice, not even across runs.
//!
//! # Batches
//!
//! The tests of one round (the subsets, or the complements, of one granularity level) are
//! independent, so they go to the oracle together ([`Oracle::test_in_order`]), which may run up
//! to [`SearchOptions::jobs`] of them at once and stops starting new ones when one before them is
//! valid. Outcomes are then read in order and the first valid one wins, as in a sequential run,
//! so the result does not depend on `jobs` or on which candidate finished first; running several
//! at once can only test a few configurations that a sequential run would have skipped.
//!
//! # The minimality check and the evidence
//!
//! After the passes, for every unit that is neither pinned nor at the bottom of the ladder, the
//! search makes sure that lowering it one more step from the final configuration has been tested
//! and fails. For the units the last pass kept, the last level of its ddmax did so; a unit kept
//! high by an earlier pass costs one more test when a later pass lowered other units (PROMISE does
//! not check this). Should one be valid (lowering is not monotone: a unit kept in f64 by pass 1
//! may pass once pass 2 lowered others), it is lowered and the check starts over. The result is
//! thus 1-minimal: no unit can go one step lower, and [`SearchResult::evidence`] says, for each
//! unit kept high, which check failed when it was lowered.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use anyhow::{bail, ensure};
use serde::{Deserialize, Serialize};

use crate::model::{Configuration, FloatFormat, Ladder, Outcome, Reason, Unit};

/// Tests configurations: builds and runs candidates and validates their results.
pub trait Oracle {
    /// Tests a batch of independent configurations (at most [`SearchOptions::jobs`]), which may
    /// run in parallel. Returns one outcome per configuration, in the same order, each with the
    /// configuration it was asked for.
    fn test(&mut self, batch: &[Configuration]) -> anyhow::Result<Vec<Outcome>>;

    /// Tests `candidates` (independent, unknown, distinct) in order, up to `jobs` at a time, until
    /// the first valid one: every candidate before the first valid one is tested, and the
    /// outcomes of all those tested come back in `candidates`' order. An oracle that runs
    /// candidates in parallel should start the next one as soon as a worker is free, and none
    /// once a candidate before it is known valid (see `LabOracle`): then no worker waits for
    /// a slower one. `ahead` says what the search tests after this round ([`LookAhead`]), for an
    /// oracle with a worker to spare to start ahead. The default sends batches of `jobs` to
    /// [`Oracle::test`] and stops after the batch holding a valid one, ignoring `ahead`.
    fn test_in_order(&mut self, candidates: &[Configuration], _ahead: &LookAhead, jobs: usize) -> anyhow::Result<Vec<Outcome>> {
        let mut outcomes = Vec::new();
        for batch in candidates.chunks(jobs.max(1)) {
            let tested = self.test(batch)?;
            let valid = tested.iter().any(Outcome::is_valid);
            outcomes.extend(tested);
            if valid {
                break;
            }
        }
        Ok(outcomes)
    }

    /// The outcome of a configuration known without testing it (from an earlier run), with
    /// `cached: true` and zero seconds; `None` (the default) when it must be tested.
    fn recall(&mut self, _configuration: &Configuration) -> Option<Outcome> {
        None
    }
}

/// What the search tests after a round, sent with it ([`Oracle::test_in_order`]): an oracle with a
/// worker to spare may start these ahead, so that a test the search then makes is under way
/// already (its outcome then comes from [`Oracle::recall`]). Like running several candidates at
/// once, this can only test configurations a sequential search would not have, never change the
/// result.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LookAhead {
    /// One entry per candidate of the round, in order: what the search tests next if that
    /// candidate is the first valid one (`None`: nothing known, or known already). An oracle may
    /// start the successor of the candidate the round waits for, so that when that candidate is
    /// valid, as most are late in a pass, the next round's test is already under way. The search
    /// sends them only while its tests tend to be valid (the last one tested was); empty
    /// otherwise.
    pub after_valid: Vec<Option<Configuration>>,
    /// What the search tests, in order, if none of the round's candidates is valid (the rounds
    /// of the finer granularities), none of them known: for a worker left with nothing of the
    /// round to start. The search tests them up to the first valid one, so one valid makes those
    /// after it moot.
    pub if_none_valid: Vec<Configuration>,
}

impl LookAhead {
    /// What the search tests next if candidate `i` of the round is the first valid one, if known.
    pub fn after(&self, i: usize) -> Option<&Configuration> {
        self.after_valid.get(i)?.as_ref()
    }
}

/// What the search is asked to tune.
#[derive(Clone, Copy, Debug)]
pub struct Problem<'a> {
    /// The units, `units[i].id == i`.
    pub units: &'a [Unit],
    /// Where each unit starts (its declared format, usually the ladder's top). It is taken to be
    /// valid: it is the reference's configuration, and the search does not test it.
    pub start: &'a Configuration,
    /// The precision ladder. Every unit that is not pinned must start on it.
    pub ladder: &'a Ladder,
}

/// Which Delta Debugging the passes run (see the [module documentation](self)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    /// PROMISE's `dd.py`: complement tests only.
    #[default]
    Promise,
    /// Zeller's `DD.py` `ddmax`: subset tests, then complement tests.
    Zeller,
}

/// How the search runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SearchOptions {
    /// The most configurations sent to the oracle at once (the number of parallel jobs); 0
    /// counts as 1. It changes which configurations are tested, never the result.
    pub jobs: usize,
    /// Which Delta Debugging.
    pub algorithm: Algorithm,
}

impl Default for SearchOptions {
    fn default() -> SearchOptions {
        SearchOptions { jobs: 1, algorithm: Algorithm::default() }
    }
}

/// What the search reports while it works.
#[derive(Clone, Debug, PartialEq)]
pub enum SearchEvent {
    /// A pass begins.
    PassStarted {
        /// Pass number, from 1.
        pass: usize,
        /// The format its candidates are at.
        from: FloatFormat,
        /// The format it tries to lower them to.
        to: FloatFormat,
        /// How many candidates.
        units: usize,
    },
    /// A configuration's outcome is known (tested now, or served from the cache).
    Tested {
        /// The outcome.
        outcome: Outcome,
    },
    /// A pass ended.
    PassFinished {
        /// Pass number, from 1.
        pass: usize,
        /// How many of its candidates it lowered.
        lowered: usize,
    },
    /// The minimality check begins.
    CheckStarted {
        /// How many units could still go one step lower.
        units: usize,
    },
    /// The minimality check ended.
    CheckFinished {
        /// How many units it lowered (0 unless lowering is not monotone).
        lowered: usize,
    },
}

/// One pass, as it went.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PassSummary {
    /// Pass number, from 1.
    pub pass: usize,
    /// The format its candidates were at.
    pub from: FloatFormat,
    /// The format it tried to lower them to.
    pub to: FloatFormat,
    /// How many candidates.
    pub units: usize,
    /// How many it lowered.
    pub lowered: usize,
    /// Configurations the oracle tested.
    pub tested: usize,
    /// Configurations served from the cache.
    pub cached: usize,
}

/// The minimality check, as it went.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckSummary {
    /// How many units could go one step lower when it began.
    pub units: usize,
    /// Configurations the oracle tested.
    pub tested: usize,
    /// Configurations served from the cache.
    pub cached: usize,
    /// Units it lowered one step, in order (empty unless lowering is not monotone).
    pub lowered: Vec<usize>,
}

/// Why a unit is kept above the bottom of the ladder.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// The unit.
    pub unit: usize,
    /// The final configuration with this unit one step lower.
    pub tried: Configuration,
    /// Why that is not valid.
    pub reason: Reason,
    /// That candidate's log, relative to the output dir.
    pub log: Option<PathBuf>,
}

/// What the search found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchResult {
    /// The configuration found: valid (unless it is the start), and no unit can go one step lower.
    pub configuration: Configuration,
    /// The passes, in order.
    pub passes: Vec<PassSummary>,
    /// The minimality check.
    pub check: CheckSummary,
    /// Every outcome the search looked at, in order, once each (those from the cache with
    /// `cached: true`).
    pub tested: Vec<Outcome>,
    /// For each unit neither pinned nor at the bottom of the ladder, in unit order: why it cannot
    /// go one step lower.
    pub evidence: Vec<Evidence>,
}

/// Finds, for each unit, the lowest format of the ladder such that the configuration stays
/// valid, by Delta Debugging (see the [module documentation](self)).
///
/// `on_event` hears of each pass and of each outcome as it becomes known.
///
/// # Errors
///
/// When the problem is inconsistent (a start configuration of the wrong length, a unit whose id
/// is not its index, an empty or repetitive ladder, a unit that is not pinned starting off the
/// ladder), and when the oracle fails or answers something else than it was asked.
pub fn search(
    problem: &Problem<'_>,
    options: &SearchOptions,
    oracle: &mut dyn Oracle,
    on_event: &mut dyn FnMut(&SearchEvent),
) -> anyhow::Result<SearchResult> {
    check_problem(problem)?;
    let Problem { units, start, ladder } = *problem;
    let mut session = Session {
        oracle,
        on_event,
        jobs: options.jobs.max(1),
        known: HashMap::new(),
        tested: Vec::new(),
        fresh: 0,
        cached: 0,
        last_valid: false,
    };

    let mut current = start.clone();
    let mut passes = Vec::new();
    for (index, step) in ladder.formats.windows(2).enumerate() {
        let (pass, from, to) = (index + 1, step[0], step[1]);
        let candidates: Vec<usize> =
            (0..units.len()).filter(|&u| units[u].searchable() && current.0[u] == from).collect();
        (session.on_event)(&SearchEvent::PassStarted { pass, from, to, units: candidates.len() });
        let (fresh, cached) = (session.fresh, session.cached);
        let space = Space { base: &current, candidates: &candidates, to };
        let high = if candidates.is_empty() { Vec::new() } else { ddmax(&mut session, &space, options.algorithm)? };
        let lowered = candidates.len() - high.len();
        current = space.keeping(&high);
        (session.on_event)(&SearchEvent::PassFinished { pass, lowered });
        passes.push(PassSummary {
            pass,
            from,
            to,
            units: candidates.len(),
            lowered,
            tested: session.fresh - fresh,
            cached: session.cached - cached,
        });
    }

    let (check, evidence) = minimality_check(&mut session, units, ladder, &mut current)?;
    Ok(SearchResult { configuration: current, passes, check, tested: session.tested, evidence })
}

/// Refuses a problem the search cannot make sense of.
fn check_problem(problem: &Problem<'_>) -> anyhow::Result<()> {
    let Problem { units, start, ladder } = *problem;
    ensure!(
        start.0.len() == units.len(),
        "the start configuration has {} formats for {} units",
        start.0.len(),
        units.len()
    );
    if let Some((index, unit)) = units.iter().enumerate().find(|(index, unit)| unit.id != *index) {
        bail!("unit {} is at index {index} of the unit table", unit.id);
    }
    ensure!(!ladder.formats.is_empty(), "the ladder {} has no format", ladder.name);
    let distinct: HashSet<_> = ladder.formats.iter().collect();
    ensure!(distinct.len() == ladder.formats.len(), "the ladder {} names a format twice", ladder.name);
    for (unit, format) in units.iter().zip(&start.0) {
        if unit.pinned.is_none() && !ladder.formats.contains(format) {
            bail!(
                "unit {} starts at {}, which is not on the ladder {} ({})",
                unit.id,
                format.short(),
                ladder.name,
                ladder.formats.iter().map(|f| f.short()).collect::<Vec<_>>().join(", ")
            );
        }
    }
    Ok(())
}

/// The configurations of one pass: `base` with some of `candidates` lowered to `to`.
struct Space<'a> {
    base: &'a Configuration,
    candidates: &'a [usize],
    to: FloatFormat,
}

impl Space<'_> {
    /// The configuration that keeps `high` (some candidates, in candidate order) at the pass's
    /// upper format and lowers every other candidate.
    fn keeping(&self, high: &[usize]) -> Configuration {
        let mut configuration = self.base.clone();
        let mut high = high.iter().peekable();
        for &unit in self.candidates {
            if high.next_if_eq(&&unit).is_none() {
                configuration.0[unit] = self.to;
            }
        }
        configuration
    }
}

/// Delta Debugging for one pass; returns the candidates kept high, in candidate order.
fn ddmax(session: &mut Session<'_>, space: &Space<'_>, algorithm: Algorithm) -> anyhow::Result<Vec<usize>> {
    let mut high = space.candidates.to_vec();
    let mut n = 2;
    let mut offset = 0;
    // Every candidate lowered; if that is not valid, the first rounds' tests.
    let then = LookAhead { after_valid: vec![None], if_none_valid: invalid_path(space, &high, Some((n, offset)), algorithm) };
    if session.first_valid_then(&[space.keeping(&[])], &then)?.is_some() {
        return Ok(Vec::new());
    }
    loop {
        if n > high.len() {
            return Ok(high);
        }
        let parts = split(&high, n);

        if algorithm == Algorithm::Zeller {
            let subsets: Vec<Configuration> = parts.iter().map(|part| space.keeping(part)).collect();
            if let Some(i) = session.first_valid(&subsets)? {
                high = parts[i].to_vec();
                n = 2;
                offset = 0;
                continue;
            }
        }

        let order: Vec<usize> = (0..n).map(|j| (j + offset) % n).collect();
        let complements: Vec<Configuration> = order.iter().map(|&i| space.keeping(&minus(&high, parts[i]))).collect();
        // What the next round tests first if complement `order[j]` is the first valid one, and
        // then, in order, what the next rounds test if none is (the granularity doubles).
        let then = LookAhead {
            after_valid: order.iter().map(|&i| round_tests(space, &minus(&high, parts[i]), n - 1, i, algorithm).into_iter().next()).collect(),
            if_none_valid: invalid_path(space, &high, finer(n, offset, high.len()), algorithm),
        };
        if let Some(j) = session.first_valid_then(&complements, &then)? {
            let i = order[j];
            high = minus(&high, parts[i]);
            n -= 1;
            offset = i;
            continue;
        }

        match finer(n, offset, high.len()) {
            Some(next) => (n, offset) = next,
            None => return Ok(high),
        }
    }
}

/// The granularity and offset of the round of [`ddmax`] after one of `n` parts (of `high` units
/// in all) found no valid complement: twice the parts, at most one unit each, the offset scaled
/// alike; `None` when the parts were single units already (the pass ends).
fn finer(n: usize, offset: usize, high: usize) -> Option<(usize, usize)> {
    if n >= high {
        return None;
    }
    let next = (2 * n).min(high);
    Some((next, offset * next / n))
}

/// What [`ddmax`] tests, in order, from the round at `round` (parts and offset; `None`: the pass
/// ends) on, if every test is invalid: that round's tests, then those of the finer rounds. With
/// `high` kept high, the search takes this path up to its first valid test, skipping what it
/// knows (a test repeated here, among others; [`Session::first_valid_then`] offers each once).
fn invalid_path(space: &Space<'_>, high: &[usize], mut round: Option<(usize, usize)>, algorithm: Algorithm) -> Vec<Configuration> {
    let mut path = Vec::new();
    while let Some((n, offset)) = round {
        path.extend(round_tests(space, high, n, offset, algorithm));
        round = finer(n, offset, high.len());
    }
    path
}

/// The configurations a round of [`ddmax`] tests, in order, when none is valid, with `high`
/// kept high, `n` parts, and the complements starting at `offset` (none when that round does not
/// happen: the pass ends). Known ones are skipped when the round runs; the round stops at the
/// first valid one.
fn round_tests(space: &Space<'_>, high: &[usize], n: usize, offset: usize, algorithm: Algorithm) -> Vec<Configuration> {
    if n == 0 || n > high.len() {
        return Vec::new();
    }
    let parts = split(high, n);
    let subsets = match algorithm {
        Algorithm::Zeller => parts.iter().map(|part| space.keeping(part)).collect(),
        Algorithm::Promise => Vec::new(),
    };
    let complements = (0..n).map(|j| space.keeping(&minus(high, parts[(j + offset) % n])));
    subsets.into_iter().chain(complements).collect()
}

/// `DD.py`'s split: `n` consecutive parts whose sizes differ by at most one, the smaller first.
fn split(items: &[usize], n: usize) -> Vec<&[usize]> {
    let mut parts = Vec::with_capacity(n);
    let mut rest = items;
    for i in 0..n {
        let (part, tail) = rest.split_at(rest.len() / (n - i));
        parts.push(part);
        rest = tail;
    }
    parts
}

/// `items` without `removed` (both in candidate order).
fn minus(items: &[usize], removed: &[usize]) -> Vec<usize> {
    items.iter().copied().filter(|item| !removed.contains(item)).collect()
}

/// Makes sure no unit can go one step lower (lowering those that can) and gathers the evidence.
fn minimality_check(
    session: &mut Session<'_>,
    units: &[Unit],
    ladder: &Ladder,
    current: &mut Configuration,
) -> anyhow::Result<(CheckSummary, Vec<Evidence>)> {
    let (fresh, cached) = (session.fresh, session.cached);
    let mut lowered = Vec::new();
    let mut steps = one_step_lower(units, ladder, current);
    let start = steps.len();
    (session.on_event)(&SearchEvent::CheckStarted { units: start });
    loop {
        let tried: Vec<Configuration> = steps.iter().map(|(_, tried)| tried.clone()).collect();
        match session.first_valid(&tried)? {
            Some(i) => {
                let (unit, tried) = steps.swap_remove(i);
                lowered.push(unit);
                *current = tried;
                steps = one_step_lower(units, ladder, current);
            }
            None => break,
        }
    }
    let evidence = steps
        .into_iter()
        .filter_map(|(unit, tried)| {
            let outcome = session.known.get(&tried)?;
            let reason = outcome.invalid.clone()?;
            Some(Evidence { unit, reason, log: outcome.log.clone(), tried })
        })
        .collect();
    (session.on_event)(&SearchEvent::CheckFinished { lowered: lowered.len() });
    let summary =
        CheckSummary { units: start, tested: session.fresh - fresh, cached: session.cached - cached, lowered };
    Ok((summary, evidence))
}

/// For each unit neither pinned nor at the bottom of the ladder, in unit order: `current` with
/// that unit one step lower.
fn one_step_lower(units: &[Unit], ladder: &Ladder, current: &Configuration) -> Vec<(usize, Configuration)> {
    units
        .iter()
        .filter(|unit| unit.searchable())
        .filter_map(|unit| {
            let position = ladder.formats.iter().position(|&f| f == current.0[unit.id])?;
            let lower = *ladder.formats.get(position + 1)?;
            let mut tried = current.clone();
            tried.0[unit.id] = lower;
            Some((unit.id, tried))
        })
        .collect()
}

/// The search's memory of outcomes, in front of the oracle.
struct Session<'a> {
    oracle: &'a mut dyn Oracle,
    on_event: &'a mut dyn FnMut(&SearchEvent),
    jobs: usize,
    known: HashMap<Configuration, Outcome>,
    tested: Vec<Outcome>,
    /// Configurations the oracle tested.
    fresh: usize,
    /// Configurations served from the cache.
    cached: usize,
    /// Whether the last configuration the oracle tested was valid: successors are sent to be
    /// started ahead only then ([`LookAhead::after_valid`]).
    last_valid: bool,
}

impl Session<'_> {
    /// Whether `configuration` is valid, if known to this search or recalled by the oracle (a
    /// recalled outcome is then recorded as looked at).
    fn lookup(&mut self, configuration: &Configuration) -> Option<bool> {
        if let Some(outcome) = self.known.get(configuration) {
            return Some(outcome.is_valid());
        }
        let outcome = self.oracle.recall(configuration)?;
        let valid = outcome.is_valid();
        self.cached += 1;
        self.record(outcome);
        Some(valid)
    }

    fn record(&mut self, outcome: Outcome) {
        (self.on_event)(&SearchEvent::Tested { outcome: outcome.clone() });
        self.known.insert(outcome.configuration.clone(), outcome.clone());
        self.tested.push(outcome);
    }

    /// The index of the first valid configuration of `candidates`, testing them in order: the
    /// unknown ones up to the first known valid one go to the oracle's
    /// [`Oracle::test_in_order`], which tests up to `jobs` at a time and stops at the first
    /// valid one.
    fn first_valid(&mut self, candidates: &[Configuration]) -> anyhow::Result<Option<usize>> {
        self.first_valid_then(candidates, &LookAhead::default())
    }

    /// [`Session::first_valid`], with what the search tests after the round (`ahead`: after each
    /// of `candidates` if it is the first valid one, and if none is), sent to the oracle with the
    /// unknown ones, less what it knows.
    fn first_valid_then(&mut self, candidates: &[Configuration], ahead: &LookAhead) -> anyhow::Result<Option<usize>> {
        let mut next = 0;
        loop {
            while let Some(candidate) = candidates.get(next) {
                match self.lookup(candidate) {
                    Some(true) => return Ok(Some(next)),
                    Some(false) => next += 1,
                    None => break,
                }
            }
            if next == candidates.len() {
                return Ok(None);
            }
            let mut unknown: Vec<Configuration> = Vec::new();
            let mut then = LookAhead::default();
            let mut valid_after = false;
            for (i, candidate) in candidates.iter().enumerate().skip(next) {
                match self.lookup(candidate) {
                    Some(true) => {
                        valid_after = true;
                        break;
                    }
                    Some(false) => {}
                    None if unknown.contains(candidate) => {}
                    None => {
                        unknown.push(candidate.clone());
                        let successor = ahead.after(i).filter(|s| self.last_valid && !self.known.contains_key(s));
                        then.after_valid.push(successor.cloned());
                    }
                }
            }
            // When none of the unknown ones is valid (and no known valid one follows them), the
            // search goes on with the round after: its tests in order, but neither this round's
            // (invalid then) nor known ones, and none after a known valid one.
            if !valid_after {
                for s in &ahead.if_none_valid {
                    match self.known.get(s) {
                        Some(o) if o.is_valid() => break,
                        Some(_) => {}
                        None if candidates.contains(s) || then.if_none_valid.contains(s) => {}
                        None => then.if_none_valid.push(s.clone()),
                    }
                }
            }
            self.run(&unknown, &then)?;
        }
    }

    /// Sends unknown configurations to the oracle and records the outcomes: those of a
    /// non-empty run of them in order, up to the first valid one or all of them; `ahead` goes with
    /// them.
    fn run(&mut self, unknown: &[Configuration], ahead: &LookAhead) -> anyhow::Result<()> {
        let outcomes = self.oracle.test_in_order(unknown, ahead, self.jobs)?;
        for (asked, outcome) in unknown.iter().zip(&outcomes) {
            ensure!(
                outcome.configuration == *asked,
                "the oracle gave the outcome of {} when asked for {asked}",
                outcome.configuration
            );
        }
        let complete = outcomes.len() == unknown.len() || outcomes.iter().any(Outcome::is_valid);
        ensure!(
            outcomes.len() <= unknown.len() && !outcomes.is_empty() && complete,
            "the oracle gave {} outcomes for {} configurations, and no valid one",
            outcomes.len(),
            unknown.len()
        );
        for outcome in outcomes {
            self.fresh += 1;
            self.last_valid = outcome.is_valid();
            self.record(outcome);
        }
        Ok(())
    }
}
