//! Checks judged by rules of their own: each check's rule resolved, its values judged and measured under it.
//!
//! [`rules`] gives the rule of every check that has one, from its `check!` calls and
//! `[package.metadata.fptune.checks.NAME]` (which wins); [`judge_check`] measures a check's
//! metric over all its values for the verdict, [`measure_checks`] for the report.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::metric::{self, measure, Measure, Pair, Rule};
use super::{dsa_digits, is_finite, same_value, Reference, ReferenceError, Requirement};
use crate::model::{Reason, Record};

/// The rule of each check given one: by its `check!` calls (the same for all of them), or by
/// `req.checks` (Cargo.toml), which wins. Printed values (`lenient`) take the default rule.
pub(super) fn rules(records: &[Record], req: &Requirement, lenient: &impl Fn(&Record) -> bool) -> Result<BTreeMap<String, Rule>, ReferenceError> {
    let mut given: BTreeMap<&str, Option<Rule>> = BTreeMap::new();
    for r in records.iter().filter(|r| !lenient(r)) {
        match given.get(r.name.as_str()) {
            None => {
                given.insert(&r.name, r.rule);
            }
            Some(&first) if first != r.rule => {
                let text = |rule: Option<Rule>| rule.map(|r| format!("`{r}`")).unwrap_or_else(|| "none".into());
                return Err(ReferenceError::ConflictingRules { check: r.name.clone(), first: text(first), second: text(r.rule) });
            }
            Some(_) => {}
        }
    }
    known_checks(records, &req.checks)?;
    let mut rules: BTreeMap<String, Rule> = given.into_iter().filter_map(|(n, r)| Some((n.to_string(), r?))).collect();
    rules.extend(req.checks.iter().map(|(n, r)| (n.clone(), *r)));
    Ok(rules)
}

/// Refuses `[package.metadata.fptune.checks.NAME]` tables (`checks`) that name no checked value
/// of `records` (a typo, most likely), as [`super::known_names`] refuses `--digits-for`'s.
pub fn known_checks(records: &[Record], checks: &BTreeMap<String, Rule>) -> Result<(), ReferenceError> {
    let known: std::collections::BTreeSet<&str> = records.iter().map(|r| r.name.as_str()).filter(|n| !n.starts_with(fptune::contract::PRINTED_PREFIX)).collect();
    let unknown: Vec<String> = checks.keys().filter(|n| !known.contains(n.as_str())).cloned().collect();
    if unknown.is_empty() {
        return Ok(());
    }
    Err(ReferenceError::UnknownChecks { unknown, known: known.iter().map(|s| s.to_string()).collect() })
}

/// The judged values of the check `name`: (position, reference record, candidate record).
fn values_of<'a>(reference: &'a Reference, candidate: &'a [Record], name: &'a str) -> impl Iterator<Item = (usize, &'a Record, &'a Record)> + 'a {
    reference
        .records
        .iter()
        .zip(candidate)
        .enumerate()
        .filter(move |(i, (r, _))| r.name == name && !reference.unchecked.contains(i))
        .map(|(i, (r, c))| (i, r, c))
}

/// `rule`'s metric measured over the values of the check `name` (all finite), with the label of
/// the value that gave it.
fn measure_check(reference: &Reference, candidate: &[Record], name: &str, rule: &Rule) -> Option<(Measure, Option<String>)> {
    let values: Vec<(usize, &Record, &Record)> = values_of(reference, candidate, name).collect();
    let pairs: Vec<Pair<'_>> = values.iter().map(|(_, r, c)| Pair { reference: r.mean(), candidate: c.mean(), format: &c.format }).collect();
    let m = match measure(&rule.metric, &pairs)? {
        Ok(m) => m,
        // A format without a known ulp: not measurable, which fails.
        Err(_) => Measure { value: f64::NAN, at: None, counted: pairs.len() },
    };
    Some((m, m.at.map(|k| values[k].2.label())))
}

/// The reason the check `name`, judged by `rule`'s metric, fails as a whole, if it does.
pub(super) fn judge_check(reference: &Reference, candidate: &[Record], name: &str, rule: &Rule) -> Option<Reason> {
    if let Some((_, _, c)) = values_of(reference, candidate, name).find(|(_, _, c)| !is_finite(c)) {
        return Some(Reason::NotFinite { value: c.label() });
    }
    let (m, at) = measure_check(reference, candidate, name, rule)?;
    let bound = rule.metric.bound()?;
    (!m.within(bound)).then(|| Reason::MetricExceeded { check: name.to_string(), metric: rule.metric.name().to_string(), measured: m.value, bound, at })
}

/// How a check judged by a rule of its own fares on runs of a configuration: the measured value
/// beside its bound, natively and under DSA, and its values' fewest DSA digits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckMeasure {
    /// The check's name.
    pub check: String,
    /// Its rule.
    pub rule: Rule,
    /// Where the rule was given: `check!` or `Cargo.toml`.
    pub from: String,
    /// The metric measured on the DSA run (`None`: the run did not check the same values, or
    /// the metric is `digits`).
    #[serde(default, with = "metric::float_option")]
    pub dsa: Option<f64>,
    /// The metric measured on the native run.
    #[serde(default, with = "metric::float_option")]
    pub native: Option<f64>,
    /// The fewest exact digits by the DSA run's estimate among the values the rule counts.
    #[serde(default, with = "metric::float_option")]
    pub dsa_digits: Option<f64>,
    /// The digits required (of the DSA estimate, when the rule requires it).
    pub required: f64,
}

/// [`CheckMeasure`] of every check with a rule other than the default, on a DSA run and a native
/// run of one configuration (either may be missing: a run that failed).
pub fn measure_checks(reference: &Reference, dsa: Option<&[Record]>, native: Option<&[Record]>, req: &Requirement) -> Vec<CheckMeasure> {
    let matches = |run: &[Record]| run.len() == reference.records.len() && reference.records.iter().zip(run).all(|(r, c)| same_value(r, c));
    let dsa = dsa.filter(|run| matches(run));
    let native = native.filter(|run| matches(run));
    reference
        .rules
        .iter()
        .filter(|(_, rule)| !rule.is_default())
        .map(|(name, rule)| {
            let on = |run: Option<&[Record]>| {
                let run = run?;
                if values_of(reference, run, name).any(|(_, _, c)| !is_finite(c)) {
                    return Some(f64::NAN);
                }
                measure_check(reference, run, name, rule).map(|(m, _)| m.value)
            };
            let dsa_digits = dsa.and_then(|run| {
                values_of(reference, run, name).filter(|(_, r, _)| rule.metric.considers(r.mean())).map(|(_, r, c)| dsa_digits(c, r)).reduce(f64::min)
            });
            CheckMeasure {
                check: name.clone(),
                rule: *rule,
                from: if req.checks.contains_key(name) { "Cargo.toml" } else { "check!" }.to_string(),
                dsa: on(dsa),
                native: on(native),
                dsa_digits,
                required: req.required(name),
            }
        })
        .collect()
}
