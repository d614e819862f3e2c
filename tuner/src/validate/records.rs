//! Reading a run's records: the checked values and instability counts a run wrote to its
//! `FPTUNE_OUT` file (see the `fptune` crate's `check` module).

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context as _};
use serde::{Deserialize, Serialize};

use super::Rule;
use crate::model::Record;

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
    /// The check's metric (`check!`'s third argument; absent: none given) and its parts.
    metric: Option<String>,
    bound: Option<f64>,
    floor: Option<f64>,
    dsa_digits: Option<bool>,
}

impl JsonRecord {
    fn into_record(self) -> Result<Record, String> {
        let samples = self.samples;
        if samples.is_empty() {
            return Err("the record has no samples".into());
        }
        let rule = match (&self.metric, self.bound, self.floor, self.dsa_digits) {
            (None, None, None, None) => None,
            (metric, bound, floor, dsa) => Some(
                Rule::parse(metric.as_deref(), bound, floor, dsa).map_err(|e| format!("the metric of check `{}`: {e}", self.name))?,
            ),
        };
        Ok(Record {
            rule,
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
        self.instabilities.get(fptune::stochastic::Instability::Overflow.key()).copied().unwrap_or(0)
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
