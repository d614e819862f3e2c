//! Validation, the rules: whether a candidate configuration keeps the checked results to the required digits.
//!
//! DESIGN.md, "Validation", is the specification:
//!
//! 1. The [`Reference`] is the DSA run with every knob at the top format. Each checked value gets
//!    its mean and its number of exact significant digits; [`reference()`] refuses a reference that
//!    does not itself have the required digits, or has a non-finite value, or checks nothing.
//! 2. A candidate run is valid ([`validate`] gives `None`) when it checks the same values in the
//!    same order, every one finite, agreeing with the reference mean to the required digits
//!    (`|c - r| <= 10^-d |r|`, or `|c| <= 10^-d` when `r = 0`), with at least that many exact
//!    digits by its own DSA estimate, and no 16-bit overflow occurred.
//! 3. A check may be given a rule of its own ([`Rule`], `metric.rs`): a metric measured over all
//!    its values in place of the agreement to the digits (`max_rel`, `max_eps_diff`, `rms`), and
//!    the DSA digits required or not. It comes from `check!`'s third argument (on the reference
//!    run's records) or from `[package.metadata.fptune.checks.NAME]` ([`Requirement::checks`]),
//!    which wins; [`reference_with`] resolves them into [`Reference::rules`], refusing a check
//!    given two rules by its `check!` calls and a Cargo.toml table no check has.
//!
//! Runs write their checked values to the file named by `FPTUNE_OUT` as JSON lines (see the
//! `fptune` crate's `check` module); [`read_run`] reads them back with the run's instability
//! counts, of which [`Run::overflows`] is what [`validate`] needs.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::model::{CandidateRun, Reason, Record, RunResult};

mod metric;
mod records;
mod rules;

#[cfg(test)]
mod rule_tests;
#[cfg(test)]
mod tests;

pub use self::metric::{grid, measure, short, ulp, Measure, Metric, Pair, Rule};
pub use self::records::{parse_run, read_records, read_run, Run};
pub use self::rules::{known_checks, measure_checks, CheckMeasure};
use self::rules::{judge_check, rules};

// ----------------------------------------------------------------------------------------------
// The requirement
// ----------------------------------------------------------------------------------------------

/// How many correct decimal digits each checked value must keep: `--digits N` for all, and
/// `--digits-for NAME=D` for the values checked under `NAME`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Requirement {
    /// Digits required of every value not named in `per_name`.
    pub default_digits: f64,
    /// Digits required of the values checked under a name (`check!("name", ..)`).
    pub per_name: BTreeMap<String, f64>,
    /// Rules of checks by name from `[package.metadata.fptune.checks.NAME]`: over a rule the
    /// check's `check!` gives.
    #[serde(default)]
    pub checks: BTreeMap<String, Rule>,
}

impl Requirement {
    /// `digits` for every value.
    pub fn new(digits: f64) -> Requirement {
        Requirement { default_digits: digits, per_name: BTreeMap::new(), checks: BTreeMap::new() }
    }

    /// `self` with the values checked under `name` judged by `rule` (as Cargo.toml gives it).
    pub fn with_rule(mut self, name: impl Into<String>, rule: Rule) -> Requirement {
        self.checks.insert(name.into(), rule);
        self
    }

    /// `self` with `name`'s values required to keep `digits`.
    pub fn with(mut self, name: impl Into<String>, digits: f64) -> Requirement {
        self.per_name.insert(name.into(), digits);
        self
    }

    /// The digits required of the values checked under `name`.
    pub fn required(&self, name: &str) -> f64 {
        self.per_name.get(name).copied().unwrap_or(self.default_digits)
    }
}

impl From<&crate::config::Digits> for Requirement {
    fn from(d: &crate::config::Digits) -> Requirement {
        Requirement { default_digits: d.default, per_name: d.per_name.clone(), checks: d.checks.clone() }
    }
}

// ----------------------------------------------------------------------------------------------
// The reference
// ----------------------------------------------------------------------------------------------

/// The checked values of the run with every knob at the top format, against which candidates are
/// measured. Built by [`reference()`], which makes sure it can be trusted to the required digits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    /// The reference run's records, in order.
    pub records: Vec<Record>,
    /// Positions of records that are not judged: printed values the reference itself does not
    /// know to the requirement, or that differ between two runs of the same program (a clock).
    /// A candidate must still print them, in order.
    #[serde(default)]
    pub unchecked: BTreeSet<usize>,
    /// The rule of each check given one (by `check!` or Cargo.toml); the others are judged by
    /// the default rule.
    #[serde(default)]
    pub rules: BTreeMap<String, Rule>,
}

impl Reference {
    /// Number of checked values.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether it checks nothing (never true for a reference built by [`reference()`]).
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The rule the values checked under `name` are judged by.
    pub fn rule(&self, name: &str) -> Rule {
        self.rules.get(name).copied().unwrap_or_default()
    }

    /// Positions of the judged values that carry no stochastic information ([`blind`]).
    pub fn blind(&self) -> Vec<usize> {
        blind(&self.records, &self.unchecked)
    }
}

/// Positions of the records (not in `unchecked`) whose three DSA samples are identical: values
/// computed exactly, or by code the conversion did not reach (another crate's, called at `f64`; an
/// array filled natively). DSA estimates nothing for them: their 15.95 "exact digits" are the
/// format's, not a measure. They are judged only by agreement with the reference's value, and a
/// configuration is not called valid on them alone.
pub fn blind(records: &[Record], unchecked: &BTreeSet<usize>) -> Vec<usize> {
    records
        .iter()
        .enumerate()
        .filter(|(i, r)| {
            !unchecked.contains(i)
                && r.stochastic
                && r.samples.len() > 1
                && is_finite(r)
                && identical(&r.samples)
        })
        .map(|(i, _)| i)
        .collect()
}

/// A reference value that does not have the digits required of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Shortfall {
    /// `name[index]`.
    pub value: String,
    /// The reference's mean.
    pub mean: f64,
    /// Its exact digits by the DSA estimate.
    pub digits: f64,
    /// The digits required.
    pub required: f64,
}

/// Why the reference run cannot serve as the reference.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ReferenceError {
    /// The run checked nothing.
    #[error(
        "the reference run checked no values, so no configuration can be judged: add \
         `fptune::check!(result)` (or `fptune::check!(\"name\", slice)`) calls on the results whose \
         digits count, and make sure the run reaches them"
    )]
    NoChecks,
    /// `--digits-for` names values that are never checked (a typo, most likely).
    #[error(
        "--digits-for names {}, which the reference run never checked; the checked names are {}",
        list(.unknown), list(.known)
    )]
    UnknownNames {
        /// The names given that match no check.
        unknown: Vec<String>,
        /// The names the run checked.
        known: Vec<String>,
    },
    /// `[package.metadata.fptune.checks.NAME]` names a check the reference run never checked.
    #[error(
        "[package.metadata.fptune.checks.{}] in Cargo.toml names no check of the reference run; the checked names are {}: \
         write the name as check!'s first argument has it, or remove the table",
        .unknown.join("], [package.metadata.fptune.checks."), list(.known)
    )]
    UnknownChecks {
        /// The names given that match no check.
        unknown: Vec<String>,
        /// The names the run checked.
        known: Vec<String>,
    },
    /// The `check!` calls of one name give it different rules.
    #[error(
        "the check! calls of `{check}` give it two rules, {first} and {second}: give every check!(\"{check}\", ..) the same \
         metric, or give the check one in [package.metadata.fptune.checks.{check}], which wins"
    )]
    ConflictingRules {
        /// The check.
        check: String,
        /// One rule (`digits` where a call gives none).
        first: String,
        /// Another.
        second: String,
    },
    /// Values that are NaN or infinite with every knob at the top format.
    #[error(
        "the reference run (every knob at the top format) gives non-finite values: {}; \
         fix the program (or check other values): no lower precision can be judged against these",
        .values.join(", ")
    )]
    NotFinite {
        /// `name[index] = value` of each.
        values: Vec<String>,
    },
    /// Every value is left unjudged (printed values the reference does not know to the
    /// requirement, or that change from run to run).
    #[error(
        "none of the {count} printed values can be judged: each has fewer exact digits than required in the \
         reference itself (every knob at the top format), or changes from run to run; lower --digits, or name \
         the results whose digits count with fptune::check!"
    )]
    NothingToJudge {
        /// How many values were printed.
        count: usize,
    },
    /// The requirement asks for more digits than the reference itself has.
    #[error(
        "the requirement exceeds what the reference itself has (every knob at the top format, by its \
         DSA estimate): {}; lower --digits (or --digits-for NAME=D for these values), or improve the \
         algorithm so that it keeps more digits",
        shortfalls(.values)
    )]
    TooFewDigits {
        /// Each value short of its requirement.
        values: Vec<Shortfall>,
    },
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        return "none".into();
    }
    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

fn shortfalls(values: &[Shortfall]) -> String {
    values
        .iter()
        .map(|s| format!("{} = {:e} has {:.1} exact digits, {} required", s.value, s.mean, s.digits, s.required))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Builds the reference from the records of the run with every knob at the top format, refusing it
/// (naming every offending value) when it checks nothing, has a non-finite value, or does not
/// itself have the required digits.
pub fn reference(records: Vec<Record>, req: &Requirement) -> Result<Reference, ReferenceError> {
    reference_with(records, req, &BTreeSet::new(), |_| false)
}

/// Refuses per-name requirements (`--digits-for`) that name no checked value of `records`.
pub fn known_names(records: &[Record], per_name: &BTreeMap<String, f64>) -> Result<(), ReferenceError> {
    let known: BTreeSet<&str> = records.iter().map(|r| r.name.as_str()).collect();
    let unknown: Vec<String> = per_name.keys().filter(|n| !known.contains(n.as_str())).cloned().collect();
    if unknown.is_empty() {
        return Ok(());
    }
    Err(ReferenceError::UnknownNames { unknown, known: known.iter().map(|s| s.to_string()).collect() })
}

/// [`reference`], where the records at `unsteady` positions are not judged, and a record
/// `lenient` allows (a printed value, not a `check!`) that is not finite or has fewer digits than
/// required is not judged either instead of refusing the reference ([`Reference::unchecked`]).
pub fn reference_with(
    records: Vec<Record>,
    req: &Requirement,
    unsteady: &BTreeSet<usize>,
    lenient: impl Fn(&Record) -> bool,
) -> Result<Reference, ReferenceError> {
    let mut unchecked: BTreeSet<usize> = unsteady.clone();
    for (i, r) in records.iter().enumerate() {
        if lenient(r) && (!is_finite(r) || !has_digits(r.digits, req.required(&r.name))) {
            unchecked.insert(i);
        }
    }
    let judged = |i: &usize| !unchecked.contains(i);
    if records.is_empty() {
        return Err(ReferenceError::NoChecks);
    }
    known_names(&records, &req.per_name)?;
    let rules = rules(&records, req, &lenient)?;
    let rule = |name: &str| rules.get(name).copied().unwrap_or_default();
    let not_finite: Vec<String> = records
        .iter()
        .enumerate()
        .filter(|(i, _)| judged(i))
        .map(|(_, r)| r)
        .filter(|r| !is_finite(r))
        .map(|r| format!("{} = {}", r.label(), samples_text(&r.samples)))
        .collect();
    if !not_finite.is_empty() {
        return Err(ReferenceError::NotFinite { values: not_finite });
    }
    let short: Vec<Shortfall> = records
        .iter()
        .enumerate()
        .filter(|(i, _)| judged(i))
        .map(|(_, r)| r)
        .filter(|r| rule(&r.name).dsa_digits && rule(&r.name).metric.considers(r.mean()))
        .filter(|r| !has_digits(r.digits, req.required(&r.name)))
        .map(|r| Shortfall { value: r.label(), mean: r.mean(), digits: r.digits, required: req.required(&r.name) })
        .collect();
    if !short.is_empty() {
        return Err(ReferenceError::TooFewDigits { values: short });
    }
    if unchecked.len() == records.len() {
        return Err(ReferenceError::NothingToJudge { count: records.len() });
    }
    Ok(Reference { records, unchecked, rules })
}

/// Whether a DSA estimate reaches the requirement (a NaN estimate does not).
fn has_digits(digits: f64, required: f64) -> bool {
    digits >= required
}

fn is_finite(r: &Record) -> bool {
    r.samples.iter().all(|x| x.is_finite()) && r.mean().is_finite()
}

/// Whether the samples are the same bits.
fn identical(samples: &[f64]) -> bool {
    samples.windows(2).all(|w| w[0].to_bits() == w[1].to_bits())
}

fn samples_text(samples: &[f64]) -> String {
    if identical(samples) {
        samples.first().map(|x| x.to_string()).unwrap_or_default()
    } else {
        format!("[{}]", samples.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", "))
    }
}

// ----------------------------------------------------------------------------------------------
// Candidates
// ----------------------------------------------------------------------------------------------

/// `10^-d`, exact to the last bit for integral `d` (the usual case), where the threshold matters.
fn tolerance(digits: f64) -> f64 {
    if digits.fract() == 0.0 && digits.abs() <= 300.0 {
        // `powi` of a negative exponent divides once: 1 / 10^d, correctly rounded for d <= 22.
        1.0 / 10f64.powi(digits as i32)
    } else {
        10f64.powf(-digits)
    }
}

/// Whether `candidate` agrees with `reference` to `digits`: `|c - r| <= 10^-d |r|`, and
/// `|c| <= 10^-d` when `r = 0`.
pub fn agrees(candidate: f64, reference: f64, digits: f64) -> bool {
    let tol = tolerance(digits);
    if reference == 0.0 {
        candidate.abs() <= tol
    } else {
        (candidate - reference).abs() <= tol * reference.abs()
    }
}

/// The decimal digits `candidate` has in common with `reference`: `-log10(|c - r| / |r|)`
/// (`-log10 |c|` when `r = 0`), infinite when they are equal.
pub fn digits_in_common(candidate: f64, reference: f64) -> f64 {
    let diff = (candidate - reference).abs();
    if diff == 0.0 {
        return f64::INFINITY;
    }
    if reference == 0.0 {
        -diff.log10()
    } else {
        -(diff / reference.abs()).log10()
    }
}

fn same_value(a: &Record, b: &Record) -> bool {
    identity(&a.name) == identity(&b.name) && a.index == b.index
}

/// What identifies a checked value across builds: its `check!` name, or a printed value's place
/// (`printed src/main.rs:42`); the expression text after it differs from build to build (the
/// stochastic build's conversions are written into it).
fn identity(name: &str) -> &str {
    match name.strip_prefix(fptune::contract::PRINTED_PREFIX) {
        Some(rest) => &name[..fptune::contract::PRINTED_PREFIX.len() + rest.find(' ').unwrap_or(rest.len())],
        None => name,
    }
}

/// Judges a candidate's run: `None` when valid, otherwise the reason, for the first failing value
/// in check order.
///
/// In order: the candidate must check the same values as the reference (count, then names and
/// indices in order), have had no 16-bit overflow (`overflows`, counted by the stochastic runtime),
/// and each value in turn must be finite, agree with the reference mean to its required digits, and
/// have at least that many exact digits by its own DSA estimate.
pub fn validate(reference: &Reference, candidate: &[Record], req: &Requirement, overflows: u64) -> Option<Reason> {
    validate_with(reference, candidate, req, overflows, Estimate::Own)
}

/// How far below the requirement the DSA estimate of a run with another seed than the search's may
/// fall and still confirm a candidate, in digits.
///
/// A three-sample estimate varies from seed to seed: `s^2 / sigma^2` is `chi^2_2 / 2`, an
/// exponential law, so the log-ratio of two independent estimates of one value follows the
/// logistic law, and two estimates differ by more than half a digit in 18 % of pairs (one is lower
/// by that much in 9 %). A configuration whose estimate sits at the requirement (the search stops
/// at such margins) would fail a strict re-check one time in two, and each failure costs a search
/// again. Half a digit still refuses a configuration the other seed shows really short of digits;
/// the distance to the reference, finiteness and overflow stay strict.
pub const CONFIRM_SLACK: f64 = 0.5;

/// Which run's DSA estimate is judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Estimate {
    /// The search's own run: the estimate must reach the requirement.
    Own,
    /// A confirmation with another seed: within [`CONFIRM_SLACK`] of it.
    Confirming,
}

fn validate_with(reference: &Reference, candidate: &[Record], req: &Requirement, overflows: u64, estimate: Estimate) -> Option<Reason> {
    let expected = reference.records.len();
    if candidate.len() != expected {
        return Some(Reason::CountMismatch { expected, got: candidate.len() });
    }
    if let Some(pos) = reference.records.iter().zip(candidate).position(|(r, c)| !same_value(r, c)) {
        // Same count, different values: the candidate took another path through its checks.
        return Some(Reason::ChecksDiffer {
            position: pos,
            expected: reference.records[pos].label(),
            got: candidate[pos].label(),
        });
    }
    if overflows > 0 {
        return Some(Reason::Overflow { count: overflows });
    }
    // A check with a metric of its own is measured over all its values where its first is met.
    let mut measured: BTreeSet<&str> = BTreeSet::new();
    for (i, (r, c)) in reference.records.iter().zip(candidate).enumerate() {
        if reference.unchecked.contains(&i) {
            continue;
        }
        let rule = reference.rule(&r.name);
        if rule.metric != Metric::Digits && measured.insert(&r.name) {
            if let Some(reason) = judge_check(reference, candidate, &r.name, &rule) {
                return Some(reason);
            }
        }
        if let Some(reason) = judge_value(r, c, req.required(&r.name), estimate, &rule) {
            return Some(reason);
        }
    }
    None
}

/// The verdict on a candidate's run under a requirement: its failure to build or run, or
/// [`validate`] of what it checked.
pub fn verdict(reference: &Reference, run: &CandidateRun, req: &Requirement) -> Option<Reason> {
    verdict_with(reference, run, req, Estimate::Own)
}

/// [`verdict`] on a run with another seed than the search's that confirms a candidate: its DSA
/// estimates may fall [`CONFIRM_SLACK`] short of the requirement.
pub fn confirms(reference: &Reference, run: &CandidateRun, req: &Requirement) -> Option<Reason> {
    verdict_with(reference, run, req, Estimate::Confirming)
}

fn verdict_with(reference: &Reference, run: &CandidateRun, req: &Requirement, estimate: Estimate) -> Option<Reason> {
    match &run.result {
        RunResult::Finished { records, overflows } => validate_with(reference, records, req, *overflows, estimate),
        _ => run.failure(),
    }
}

/// The reason one value fails under the default rule, if it does.
#[cfg(test)]
fn judge(r: &Record, c: &Record, required: f64, estimate: Estimate) -> Option<Reason> {
    judge_value(r, c, required, estimate, &Rule::default())
}

/// The reason one value fails, if it does: not finite; under the default rule, not agreeing with
/// the reference to the required digits; where the rule requires the DSA digits (and counts the
/// value: `max_rel`'s floor), fewer of them.
fn judge_value(r: &Record, c: &Record, required: f64, estimate: Estimate, rule: &Rule) -> Option<Reason> {
    if !is_finite(c) {
        return Some(Reason::NotFinite { value: c.label() });
    }
    let (got, reference) = (c.mean(), r.mean());
    if rule.metric == Metric::Digits && !agrees(got, reference, required) {
        return Some(Reason::Disagrees {
            value: c.label(),
            got,
            reference,
            digits_in_common: digits_in_common(got, reference),
            required,
        });
    }
    if !rule.dsa_digits || !rule.metric.considers(reference) {
        return None;
    }
    let digits = dsa_digits(c, r);
    match estimate {
        Estimate::Own if !has_digits(digits, required) => {
            Some(Reason::TooFewDigits { value: c.label(), digits, required })
        }
        Estimate::Confirming if !has_digits(digits + CONFIRM_SLACK, required) => {
            Some(Reason::Unconfirmed { value: c.label(), digits, required, slack: CONFIRM_SLACK })
        }
        _ => None,
    }
}

/// A candidate's DSA estimate of its exact digits, capped when its three samples coincide
/// because the value passed through a narrower format than the one it is checked in. Equal
/// samples read as the checked format's maximum (15.95 digits for binary64, as in CADNA), but
/// three equal samples that are binary32 (binary16, bfloat16) numbers, where the reference's
/// value is not one, were rounded to that format on their way: they have at most its digits.
pub fn dsa_digits(candidate: &Record, reference: &Record) -> f64 {
    let Some((&x, rest)) = candidate.samples.split_first() else { return candidate.digits };
    if !candidate.stochastic || rest.iter().any(|&y| y.to_bits() != x.to_bits()) || x == 0.0 || !x.is_finite() {
        return candidate.digits;
    }
    let r = reference.mean();
    let fits_f32 = |v: f64| f64::from(v as f32) == v;
    let fits_f16 = |v: f64| half::f16::from_f64(v).to_f64() == v;
    let fits_bf16 = |v: f64| half::bf16::from_f64(v).to_f64() == v;
    let narrow: [(&dyn Fn(f64) -> bool, f64); 3] = [(&fits_f32, 7.22), (&fits_f16, 3.31), (&fits_bf16, 2.41)];
    narrow
        .iter()
        .filter(|(fits, _)| fits(x) && !fits(r))
        .fold(candidate.digits, |digits, &(_, max)| digits.min(max))
}

/// The value of a candidate closest to failing, for the report's evidence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Worst {
    /// `name[index]`.
    pub value: String,
    /// Candidate mean.
    pub got: f64,
    /// Reference mean.
    pub reference: f64,
    /// Digits in common with the reference (infinite when equal, `-inf` when not finite).
    pub digits_in_common: f64,
    /// The candidate's own DSA estimate of its exact digits.
    pub dsa_digits: f64,
    /// Digits required of it.
    pub required: f64,
}

impl Worst {
    /// The value's digits: the fewer of its digits in common with the reference and its DSA digits.
    pub fn digits(&self) -> f64 {
        self.digits_in_common.min(self.dsa_digits)
    }

    /// How many digits it keeps beyond the requirement (negative when it fails).
    pub fn margin(&self) -> f64 {
        self.digits() - self.required
    }
}

impl fmt::Display for Worst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} = {:e}: {:.1} digits in common with the reference, {:.1} exact digits (DSA), {} required",
            self.value, self.got, self.digits_in_common, self.dsa_digits, self.required
        )
    }
}

/// The value of `candidate` with the least margin over its requirement (the fewer of its digits in
/// common with the reference and its own DSA digits, minus the digits required), valid or not.
/// Values are compared position by position while they match the reference's; `None` when none do.
/// Checks with a metric of their own are left out ([`measure_checks`] says how they fare); DSA
/// digits a check does not require count as infinite.
pub fn worst(reference: &Reference, candidate: &[Record], req: &Requirement) -> Option<Worst> {
    reference
        .records
        .iter()
        .zip(candidate)
        .enumerate()
        .take_while(|(_, (r, c))| same_value(r, c))
        .filter(|(i, (r, _))| !reference.unchecked.contains(i) && reference.rule(&r.name).metric == Metric::Digits)
        .map(|(_, (r, c))| {
            let (got, mean) = (c.mean(), r.mean());
            let digits_in_common = if is_finite(c) { digits_in_common(got, mean) } else { f64::NEG_INFINITY };
            let dsa_digits = if !reference.rule(&r.name).dsa_digits {
                f64::INFINITY
            } else if c.digits.is_nan() {
                f64::NEG_INFINITY
            } else {
                dsa_digits(c, r)
            };
            let reference = mean;
            Worst { value: c.label(), got, reference, digits_in_common, dsa_digits, required: req.required(&r.name) }
        })
        .fold(None, |worst: Option<Worst>, w| match worst {
            Some(v) if v.margin() <= w.margin() => Some(v),
            _ => Some(w),
        })
}

