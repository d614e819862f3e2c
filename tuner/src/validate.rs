//! Validation: whether a candidate configuration keeps the checked results to the required digits.
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
//!
//! Runs write their checked values to the file named by `FPTUNE_OUT` as JSON lines (see the
//! `fptune` crate's `check` module); [`read_run`] reads them back with the run's instability
//! counts, of which [`Run::overflows`] is what [`validate`] needs.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;

use anyhow::{bail, Context as _};
use serde::{Deserialize, Serialize};

use crate::model::{CandidateRun, Reason, Record, RunResult};

// ----------------------------------------------------------------------------------------------
// Reading a run's records
// ----------------------------------------------------------------------------------------------

/// One line of an `FPTUNE_OUT` file as written (fields a newer runtime adds are ignored).
#[derive(Deserialize)]
struct JsonRecord {
    name: String,
    index: usize,
    format: String,
    stochastic: bool,
    #[serde(with = "crate::model::float_json::vec")]
    samples: Vec<f64>,
    #[serde(with = "crate::model::float_json")]
    digits: f64,
    /// Instabilities detected in the run so far (absent when none).
    #[serde(default)]
    instabilities: BTreeMap<String, u64>,
}

impl JsonRecord {
    fn into_record(self) -> Result<Record, String> {
        let samples = self.samples;
        if samples.is_empty() {
            return Err("the record has no samples".into());
        }
        Ok(Record {
            name: self.name,
            index: self.index,
            format: self.format,
            stochastic: self.stochastic,
            samples,
            digits: self.digits,
        })
    }
}

/// What a run wrote to its `FPTUNE_OUT` file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// The checked values, in the order they were checked.
    pub records: Vec<Record>,
    /// Instabilities the DSA runtime detected, by kind (`overflow`, `cancellation`, ...), as of
    /// the last check: instabilities after it are not seen.
    pub instabilities: BTreeMap<String, u64>,
}

impl Run {
    /// 16-bit overflows detected before the last check (the `overflows` of [`validate`]).
    pub fn overflows(&self) -> u64 {
        self.instabilities.get("overflow").copied().unwrap_or(0)
    }
}

/// Parses the text of an `FPTUNE_OUT` file: one JSON record per line, blank lines ignored.
///
/// A last line without its newline that does not parse is the mark of a run killed while it wrote
/// (a timeout, a crash): it is reported as such, so the caller can tell it from a corrupt file.
pub fn parse_run(text: &str) -> anyhow::Result<Run> {
    let mut run = Run::default();
    let complete = text.ends_with('\n');
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let parsed = serde_json::from_str::<JsonRecord>(line).map_err(|e| e.to_string()).and_then(|j| {
            // Counts are the run's totals so far: the largest seen is the latest.
            for (kind, n) in &j.instabilities {
                let total = run.instabilities.entry(kind.clone()).or_insert(0);
                *total = (*total).max(*n);
            }
            j.into_record()
        });
        match parsed {
            Ok(r) => run.records.push(r),
            Err(e) if i + 1 == lines.len() && !complete => bail!(
                "line {} is cut short ({e}): the run was killed while writing its checked values; \
                 its {} complete record(s) before that line cannot be trusted as the whole result",
                i + 1,
                run.records.len()
            ),
            Err(e) => bail!("line {} is not a check record ({e}): {}", i + 1, shorten(line, 120)),
        }
    }
    Ok(run)
}

/// Reads what a run wrote to its `FPTUNE_OUT` file: its checked values and instability counts.
///
/// A missing file reads as an empty run (a run that checked nothing never creates it).
pub fn read_run(path: &Path) -> anyhow::Result<Run> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Run::default()),
        Err(e) => return Err(e).with_context(|| format!("cannot read the checked values in {}", path.display())),
    };
    parse_run(&text).with_context(|| format!("reading the checked values in {}", path.display()))
}

/// The records a run wrote to its `FPTUNE_OUT` file, in the order they were checked (see
/// [`read_run`] for the instability counts too).
pub fn read_records(path: &Path) -> anyhow::Result<Vec<Record>> {
    read_run(path).map(|r| r.records)
}

fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let cut: String = s.chars().take(max).collect();
        format!("{cut}...")
    }
}

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
}

impl Requirement {
    /// `digits` for every value.
    pub fn new(digits: f64) -> Requirement {
        Requirement { default_digits: digits, per_name: BTreeMap::new() }
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
        Requirement { default_digits: d.default, per_name: d.per_name.clone() }
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
        .filter(|r| !has_digits(r.digits, req.required(&r.name)))
        .map(|r| Shortfall { value: r.label(), mean: r.mean(), digits: r.digits, required: req.required(&r.name) })
        .collect();
    if !short.is_empty() {
        return Err(ReferenceError::TooFewDigits { values: short });
    }
    if unchecked.len() == records.len() {
        return Err(ReferenceError::NothingToJudge { count: records.len() });
    }
    Ok(Reference { records, unchecked })
}

/// Whether a DSA estimate reaches the requirement (a NaN estimate does not).
fn has_digits(digits: f64, required: f64) -> bool {
    digits >= required
}

fn is_finite(r: &Record) -> bool {
    r.samples.iter().all(|x| x.is_finite()) && r.mean().is_finite()
}

fn samples_text(samples: &[f64]) -> String {
    if samples.windows(2).all(|w| w[0].to_bits() == w[1].to_bits()) {
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
    match name.strip_prefix(fptune::__rt::PRINTED_PREFIX) {
        Some(rest) => &name[..fptune::__rt::PRINTED_PREFIX.len() + rest.find(' ').unwrap_or(rest.len())],
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
    for (i, (r, c)) in reference.records.iter().zip(candidate).enumerate() {
        if reference.unchecked.contains(&i) {
            continue;
        }
        if let Some(reason) = judge(r, c, req.required(&r.name), estimate) {
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

/// The reason one value fails, if it does.
fn judge(r: &Record, c: &Record, required: f64, estimate: Estimate) -> Option<Reason> {
    if !is_finite(c) {
        return Some(Reason::NotFinite { value: c.label() });
    }
    let (got, reference) = (c.mean(), r.mean());
    if !agrees(got, reference, required) {
        return Some(Reason::Disagrees {
            value: c.label(),
            got,
            reference,
            digits_in_common: digits_in_common(got, reference),
            required,
        });
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
pub fn worst(reference: &Reference, candidate: &[Record], req: &Requirement) -> Option<Worst> {
    reference
        .records
        .iter()
        .zip(candidate)
        .enumerate()
        .take_while(|(_, (r, c))| same_value(r, c))
        .filter(|(i, _)| !reference.unchecked.contains(i))
        .map(|(_, (r, c))| {
            let (got, reference) = (c.mean(), r.mean());
            let digits_in_common =
                if is_finite(c) { digits_in_common(got, reference) } else { f64::NEG_INFINITY };
            let dsa_digits = if c.digits.is_nan() { f64::NEG_INFINITY } else { dsa_digits(c, r) };
            Worst { value: c.label(), got, reference, digits_in_common, dsa_digits, required: req.required(&r.name) }
        })
        .fold(None, |worst: Option<Worst>, w| match worst {
            Some(v) if v.margin() <= w.margin() => Some(v),
            _ => Some(w),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(name: &str, index: usize, samples: &[f64], digits: f64) -> Record {
        Record {
            name: name.into(),
            index,
            format: "binary64".into(),
            stochastic: true,
            samples: samples.to_vec(),
            digits,
        }
    }

    fn one(name: &str, x: f64, digits: f64) -> Record {
        rec(name, 0, &[x, x, x], digits)
    }

    #[test]
    fn a_printed_value_is_the_same_check_whatever_each_build_wrote_into_its_expression() {
        assert_eq!(identity("printed src/main.rs:42 xs.iter().sum :: < f64 > ()"), "printed src/main.rs:42");
        assert_eq!(identity("printed src/main.rs:42"), "printed src/main.rs:42");
        assert_eq!(identity("energy"), "energy");
        assert_ne!(identity("printed src/main.rs:42 x"), identity("printed src/main.rs:43 x"));
    }

    #[test]
    fn printed_values_the_reference_does_not_know_or_that_change_between_runs_are_not_judged() {
        let records = vec![
            rec("printed a", 0, &[1.0, 1.0, 1.0], 15.0),
            rec("printed noise", 0, &[1e-15, 3e-15, -2e-15], 0.0),
            rec("clock", 0, &[0.25, 0.25, 0.25], 15.0),
            rec("checked", 0, &[2.0, 2.0, 2.0], 15.0),
        ];
        let req = Requirement::new(3.0);
        let unsteady: BTreeSet<usize> = [2].into();
        let r = reference_with(records.clone(), &req, &unsteady, |r| r.name.starts_with("printed ")).expect("a reference");
        assert_eq!(r.unchecked, [1, 2].into());
        let mut candidate = records.clone();
        candidate[1].samples = vec![5.0, 5.0, 5.0];
        candidate[2].samples = vec![9.0, 9.0, 9.0];
        assert_eq!(validate(&r, &candidate, &req, 0), None);
        candidate[3].samples = vec![2.5, 2.5, 2.5];
        assert!(matches!(validate(&r, &candidate, &req, 0), Some(Reason::Disagrees { .. })));
        // A `check!` the reference does not know to the requirement is still an error.
        let mut strict = records.clone();
        strict[3].digits = 1.0;
        assert!(matches!(reference_with(strict, &req, &unsteady, |r| r.name.starts_with("printed ")), Err(ReferenceError::TooFewDigits { .. })));
        // Nothing left to judge.
        let all = reference_with(records[..2].to_vec(), &Requirement::new(16.5), &BTreeSet::new(), |_| true);
        assert!(matches!(all, Err(ReferenceError::NothingToJudge { count: 2 })));
    }

    fn reference_of(records: Vec<Record>) -> Reference {
        Reference { records, unchecked: BTreeSet::new() }
    }

    #[test]
    fn equal_samples_of_a_narrower_format_have_that_formats_digits_at_most() {
        let zeta = 10.362_595_087_124_f64;
        let req = Requirement::new(8.0);
        let reference = reference_of(vec![one("zeta", zeta, 15.95)]);
        // zeta stored in binary32 on its way: three equal samples, read as 15.95 digits, that
        // agree with the reference to more digits than binary32 has, by luck, must not pass.
        let narrowed = f64::from(zeta as f32);
        let lucky = one("zeta", narrowed, 15.95);
        assert_eq!(dsa_digits(&lucky, &reference.records[0]), 7.22);
        let agreement = digits_in_common(narrowed, zeta);
        assert!(agreement > 7.3, "{agreement}");
        assert!(matches!(judge(&reference.records[0], &lucky, 7.3, Estimate::Own), Some(Reason::TooFewDigits { digits, .. }) if digits == 7.22));
        assert_eq!(dsa_digits(&one("zeta", f64::from(half::f16::from_f64(zeta)), 15.95), &reference.records[0]), 3.31);
        // An exact value the reference has too (a binary16 number there as well) keeps its digits;
        // so do samples that differ, and binary64 samples.
        let exact = reference_of(vec![one("half", 0.5, 15.95)]);
        assert_eq!(dsa_digits(&one("half", 0.5, 15.95), &exact.records[0]), 15.95);
        assert_eq!(dsa_digits(&rec("zeta", 0, &[narrowed, narrowed, zeta], 6.0), &reference.records[0]), 6.0);
        assert_eq!(dsa_digits(&one("zeta", zeta, 15.95), &reference.records[0]), 15.95);
        assert!(validate(&reference, &[one("zeta", zeta, 15.95)], &req, 0).is_none());
    }

    #[test]
    fn records_parse_with_non_finite_samples_as_strings() {
        let text = concat!(
            r#"{"name":"d","index":0,"format":"binary64","stochastic":true,"samples":[4.6e-4,4.6e-4,4.7e-4],"digits":14.4}"#,
            "\n\n",
            r#"{"name":"v","index":1,"format":"binary16","stochastic":true,"samples":["inf","-inf","NaN"],"digits":"NaN"}"#,
            "\n"
        );
        let records = parse_run(text).expect("parses").records;
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].samples, [4.6e-4, 4.6e-4, 4.7e-4]);
        assert_eq!(records[0].label(), "d[0]");
        let v = &records[1];
        assert_eq!((v.samples[0], v.samples[1]), (f64::INFINITY, f64::NEG_INFINITY));
        assert!(v.samples[2].is_nan() && v.digits.is_nan());
    }

    #[test]
    fn instability_counts_are_the_latest_totals() {
        // Lines as `fptune::check!` writes them (stochastic/src/check.rs).
        let text = concat!(
            r#"{"name":"d","index":0,"format":"binary16","stochastic":true,"samples":[0.5,0.5,0.5],"digits":3.3}"#,
            "\n",
            r#"{"name":"v","index":0,"format":"binary16","stochastic":true,"samples":[1.0,1.0,1.0],"digits":3.3,"instabilities":{"cancellation":1,"overflow":2}}"#,
            "\n",
            r#"{"name":"v","index":1,"format":"binary16","stochastic":true,"samples":[1.0,1.0,1.0],"digits":3.3,"instabilities":{"overflow":3}}"#,
            "\n",
        );
        let run = parse_run(text).expect("parses");
        assert_eq!(run.records.len(), 3);
        assert_eq!(run.overflows(), 3);
        assert_eq!(run.instabilities.get("cancellation"), Some(&1));
        assert_eq!(parse_run("").expect("empty").overflows(), 0);
    }

    #[test]
    fn a_truncated_last_line_says_the_run_was_killed() {
        let text = concat!(
            r#"{"name":"d","index":0,"format":"binary64","stochastic":true,"samples":[1.0,1.0,1.0],"digits":15.0}"#,
            "\n",
            r#"{"name":"d","index":1,"format":"binary64","stochastic":true,"samp"#
        );
        let e = format!("{:#}", parse_run(text).expect_err("truncated"));
        assert!(e.contains("line 2 is cut short"), "{e}");
        assert!(e.contains("killed while writing"), "{e}");
    }

    #[test]
    fn a_corrupt_line_in_the_middle_is_not_mistaken_for_a_killed_run() {
        let text = "{\"name\":\"d\"}\n{}\n";
        let e = format!("{:#}", parse_run(text).expect_err("corrupt"));
        assert!(e.contains("line 1 is not a check record"), "{e}");
    }

    #[test]
    fn read_records_names_the_file_and_a_missing_file_has_no_records() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert!(read_records(&dir.path().join("absent.jsonl")).expect("missing is empty").is_empty());
        let path = dir.path().join("out.jsonl");
        std::fs::write(&path, "not json\n").expect("write");
        let e = format!("{:#}", read_records(&path).expect_err("bad"));
        assert!(e.contains("out.jsonl") && e.contains("line 1"), "{e}");
    }

    #[test]
    fn per_name_requirements_override_the_default() {
        let req = Requirement::new(4.0).with("det", 6.0);
        assert_eq!(req.required("det"), 6.0);
        assert_eq!(req.required("x"), 4.0);
        let digits = crate::config::Digits { default: 3.0, per_name: [("det".to_string(), 7.0)].into() };
        let req = Requirement::from(&digits);
        assert_eq!((req.required("det"), req.required("other")), (7.0, 3.0));
    }

    #[test]
    fn the_reference_names_every_value_short_of_the_requirement() {
        let records = vec![one("a", 1.5, 12.0), one("b", 2.0, 7.3), rec("c", 3, &[3.0; 3], 5.1)];
        let e = reference(records, &Requirement::new(8.0)).expect_err("too few digits");
        let ReferenceError::TooFewDigits { values } = &e else { panic!("{e:?}") };
        assert_eq!(values.iter().map(|s| s.value.as_str()).collect::<Vec<_>>(), ["b[0]", "c[3]"]);
        let msg = e.to_string();
        assert!(msg.contains("b[0] = 2e0 has 7.3 exact digits, 8 required"), "{msg}");
        assert!(msg.contains("c[3] = 3e0 has 5.1 exact digits, 8 required"), "{msg}");
        assert!(msg.contains("lower --digits") && msg.contains("--digits-for") && msg.contains("improve the algorithm"));
        assert!(!msg.contains("a[0]"));
    }

    #[test]
    fn a_per_name_requirement_can_ask_less_of_a_weak_value() {
        let records = vec![one("a", 1.5, 12.0), one("b", 2.0, 7.3)];
        let req = Requirement::new(8.0).with("b", 7.0);
        assert_eq!(reference(records, &req).expect("enough").len(), 2);
    }

    #[test]
    fn a_reference_with_digits_exactly_at_the_requirement_is_accepted() {
        assert!(reference(vec![one("a", 1.0, 8.0)], &Requirement::new(8.0)).is_ok());
    }

    #[test]
    fn a_non_finite_reference_value_is_refused_by_name() {
        let records = vec![one("a", 1.0, 15.0), rec("v", 2, &[f64::NAN, 1.0, 1.0], 0.0), one("w", f64::INFINITY, 15.0)];
        let e = reference(records, &Requirement::new(3.0)).expect_err("not finite");
        let msg = e.to_string();
        assert!(msg.contains("v[2] = [NaN, 1, 1]") && msg.contains("w[0] = inf"), "{msg}");
        assert!(!msg.contains("a[0]"));
    }

    #[test]
    fn a_reference_without_checks_asks_for_check_calls() {
        let e = reference(Vec::new(), &Requirement::new(3.0)).expect_err("empty");
        assert_eq!(e, ReferenceError::NoChecks);
        assert!(e.to_string().contains("fptune::check!"));
    }

    #[test]
    fn digits_for_an_unchecked_name_is_refused() {
        let e = reference(vec![one("det", 1.0, 15.0)], &Requirement::new(3.0).with("dett", 5.0)).expect_err("typo");
        let msg = e.to_string();
        assert!(msg.contains("`dett`") && msg.contains("`det`"), "{msg}");
    }

    #[test]
    fn a_candidate_exactly_at_the_threshold_is_valid_and_one_ulp_beyond_is_not() {
        // 10^-3 * 1000 = 1 exactly: the bound is |c - 1000| <= 1.
        let r = reference_of(vec![one("x", 1000.0, 15.0)]);
        let req = Requirement::new(3.0);
        assert_eq!(validate(&r, &[one("x", 1001.0, 3.0)], &req, 0), None);
        assert_eq!(validate(&r, &[one("x", 999.0, 3.0)], &req, 0), None);
        let beyond = f64::from_bits(1001f64.to_bits() + 1);
        let reason = validate(&r, &[one("x", beyond, 15.0)], &req, 0).expect("invalid");
        let Reason::Disagrees { value, got, reference, digits_in_common, required } = reason else { panic!("{reason:?}") };
        assert_eq!((value.as_str(), got, reference, required), ("x[0]", beyond, 1000.0, 3.0));
        assert!(digits_in_common < 3.0 && digits_in_common > 2.99, "{digits_in_common}");
    }

    #[test]
    fn dsa_digits_exactly_at_the_requirement_pass_and_below_fail() {
        let r = reference_of(vec![one("x", 2.0, 15.0)]);
        let req = Requirement::new(5.0);
        assert_eq!(validate(&r, &[one("x", 2.0, 5.0)], &req, 0), None);
        assert_eq!(
            validate(&r, &[one("x", 2.0, 4.9)], &req, 0),
            Some(Reason::TooFewDigits { value: "x[0]".into(), digits: 4.9, required: 5.0 })
        );
    }

    #[test]
    fn a_confirming_run_may_fall_half_a_digit_short_of_the_dsa_requirement_only() {
        let r = reference_of(vec![one("x", 2.0, 15.0)]);
        let req = Requirement::new(3.0);
        let run = |digits: f64| vec![one("x", 2.0, digits)];
        // The search's own run: strict.
        assert!(matches!(validate(&r, &run(2.9), &req, 0), Some(Reason::TooFewDigits { .. })));
        // Another seed: within the slack, and no further.
        for digits in [2.9, 2.67, 3.0 - CONFIRM_SLACK] {
            assert_eq!(validate_with(&r, &run(digits), &req, 0, Estimate::Confirming), None, "{digits}");
        }
        let short = validate_with(&r, &run(2.4), &req, 0, Estimate::Confirming).expect("short");
        assert_eq!(short, Reason::Unconfirmed { value: "x[0]".into(), digits: 2.4, required: 3.0, slack: CONFIRM_SLACK });
        assert!(short.to_string().contains("2.5 needed to confirm 3"), "{short}");
        // The distance to the reference and overflows stay strict.
        let far = vec![one("x", 2.01, 15.0)];
        assert!(matches!(validate_with(&r, &far, &req, 0, Estimate::Confirming), Some(Reason::Disagrees { .. })));
        assert!(matches!(validate_with(&r, &run(15.0), &req, 1, Estimate::Confirming), Some(Reason::Overflow { .. })));
    }

    #[test]
    fn the_slack_is_what_two_three_sample_estimates_differ_by_in_two_pairs_of_eleven() {
        // log10 of the ratio of two estimates is ln(E1 / E2) / (2 ln 10) with E1, E2
        // exponential: the logistic law scaled by 1 / (2 ln 10). P(|D| > t) = 2 / (1 + 100^t).
        let p = |t: f64| 2.0 / (1.0 + 100f64.powf(t));
        assert!((p(CONFIRM_SLACK) - 2.0 / 11.0).abs() < 1e-15);
        // And by simulation: the exponential law by inversion, a fixed quasi-random sequence.
        let n = 200_000;
        let u = |i: usize, a: f64| ((i as f64 + 0.5) * a).fract();
        let beyond = (0..n)
            .filter(|&i| {
                let (e1, e2) = (-(1.0 - u(i, 0.618_033_988_749_895)).ln(), -(1.0 - u(i, 0.754_877_666_246_693)).ln());
                ((e1 / e2).log10() / 2.0).abs() > CONFIRM_SLACK
            })
            .count();
        let share = beyond as f64 / n as f64;
        assert!((share - 2.0 / 11.0).abs() < 0.01, "{share}");
    }

    #[test]
    fn a_zero_reference_bounds_the_candidate_absolutely() {
        let r = reference_of(vec![one("z", 0.0, 15.0)]);
        let req = Requirement::new(3.0);
        assert_eq!(validate(&r, &[one("z", 0.0, 15.0)], &req, 0), None);
        assert_eq!(validate(&r, &[one("z", -tolerance(3.0), 15.0)], &req, 0), None);
        let reason = validate(&r, &[one("z", 2e-3, 15.0)], &req, 0).expect("too far from zero");
        let Reason::Disagrees { digits_in_common, .. } = reason else { panic!("{reason:?}") };
        assert!((digits_in_common - (-(2e-3f64).log10())).abs() < 1e-12);
    }

    #[test]
    fn the_candidate_mean_is_what_is_compared() {
        let r = reference_of(vec![one("x", 1.0, 15.0)]);
        let c = rec("x", 0, &[0.99, 1.0, 1.01], 2.0);
        assert_eq!(validate(&r, &[c], &Requirement::new(2.0), 0), None);
    }

    #[test]
    fn non_finite_candidates_are_invalid() {
        let r = reference_of(vec![one("x", 1.0, 15.0)]);
        let req = Requirement::new(2.0);
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let c = rec("x", 0, &[1.0, bad, 1.0], 15.0);
            assert_eq!(validate(&r, &[c], &req, 0), Some(Reason::NotFinite { value: "x[0]".into() }));
        }
    }

    #[test]
    fn the_first_failing_value_in_check_order_is_reported() {
        let r = reference_of(vec![one("a", 1.0, 15.0), one("b", 1.0, 15.0), one("c", 1.0, 15.0)]);
        let c = vec![one("a", 1.0, 15.0), one("b", 1.0, 1.0), one("c", f64::NAN, 15.0)];
        let reason = validate(&r, &c, &Requirement::new(3.0), 0).expect("invalid");
        assert_eq!(reason, Reason::TooFewDigits { value: "b[0]".into(), digits: 1.0, required: 3.0 });
    }

    #[test]
    fn disagreement_is_reported_before_too_few_digits_of_the_same_value() {
        let r = reference_of(vec![one("a", 1.0, 15.0)]);
        let reason = validate(&r, &[one("a", 1.5, 0.0)], &Requirement::new(3.0), 0).expect("invalid");
        assert!(matches!(reason, Reason::Disagrees { .. }), "{reason:?}");
    }

    #[test]
    fn a_different_count_is_a_count_mismatch() {
        let r = reference_of(vec![one("a", 1.0, 15.0), one("b", 1.0, 15.0)]);
        let req = Requirement::new(3.0);
        assert_eq!(
            validate(&r, &[one("a", 1.0, 15.0)], &req, 0),
            Some(Reason::CountMismatch { expected: 2, got: 1 })
        );
        assert_eq!(validate(&r, &[], &req, 0), Some(Reason::CountMismatch { expected: 2, got: 0 }));
    }

    #[test]
    fn values_checked_in_another_order_are_refused_even_when_they_agree() {
        let r = reference_of(vec![one("a", 1.0, 15.0), one("b", 1.0, 15.0)]);
        let c = vec![one("b", 1.0, 15.0), one("a", 1.0, 15.0)];
        assert_eq!(
            validate(&r, &c, &Requirement::new(3.0), 0),
            Some(Reason::ChecksDiffer { position: 0, expected: "a[0]".into(), got: "b[0]".into() })
        );
        let c = vec![one("a", 1.0, 15.0), rec("a", 1, &[1.0; 3], 15.0)];
        assert_eq!(
            validate(&r, &c, &Requirement::new(3.0), 0),
            Some(Reason::ChecksDiffer { position: 1, expected: "b[0]".into(), got: "a[1]".into() })
        );
    }

    #[test]
    fn an_overflow_invalidates_a_candidate_whose_values_agree() {
        let r = reference_of(vec![one("a", 1.0, 15.0)]);
        assert_eq!(
            validate(&r, &[one("a", 1.0, 15.0)], &Requirement::new(3.0), 2),
            Some(Reason::Overflow { count: 2 })
        );
    }

    #[test]
    fn per_name_requirements_apply_to_candidates() {
        let r = reference_of(vec![one("loose", 1.0, 15.0), one("tight", 1.0, 15.0)]);
        let req = Requirement::new(2.0).with("tight", 6.0);
        let c = vec![one("loose", 1.001, 15.0), one("tight", 1.001, 15.0)];
        let reason = validate(&r, &c, &req, 0).expect("tight fails");
        assert!(matches!(&reason, Reason::Disagrees { value, required, .. } if value == "tight[0]" && *required == 6.0));
    }

    #[test]
    fn the_worst_value_is_the_one_with_the_least_margin_even_when_valid() {
        let r = reference_of(vec![one("a", 1.0, 15.0), one("b", 1.0, 15.0), one("c", 1.0, 15.0)]);
        let c = vec![one("a", 1.0, 6.0), one("b", 1.0 + 1e-5, 12.0), one("c", 1.0, 4.5)];
        let req = Requirement::new(3.0).with("c", 1.0);
        assert_eq!(validate(&r, &c, &req, 0), None);
        let w = worst(&r, &c, &req).expect("values");
        // a: 6 digits (margin 3); b: ~5 in common (margin ~2); c: 4.5 DSA digits (margin 3.5).
        assert_eq!(w.value, "b[0]");
        assert!((w.digits_in_common - 5.0).abs() < 1e-6 && w.dsa_digits == 12.0);
        assert!(w.to_string().starts_with("b[0] = 1.00001e0: 5.0 digits in common"), "{w}");
    }

    #[test]
    fn the_worst_value_of_a_failing_candidate_is_its_non_finite_one() {
        let r = reference_of(vec![one("a", 1.0, 15.0), one("b", 1.0, 15.0)]);
        let c = vec![one("a", 1.5, 15.0), one("b", f64::NAN, f64::NAN)];
        let w = worst(&r, &c, &Requirement::new(3.0)).expect("values");
        assert_eq!(w.value, "b[0]");
        assert_eq!(w.margin(), f64::NEG_INFINITY);
        assert_eq!(worst(&r, &[], &Requirement::new(3.0)), None);
    }

    #[test]
    fn digits_in_common_of_equal_values_is_infinite() {
        assert_eq!(digits_in_common(2.0, 2.0), f64::INFINITY);
        assert!((digits_in_common(1.01, 1.0) - 2.0).abs() < 1e-9);
        assert!(agrees(0.0, 0.0, 17.0));
    }
}
