//! Whether a tuned result, applied, is valid: the numbers it prints against the untuned
//! program's. The corpus bench (`benches/corpus.rs`, through `#[path]`) and the gallery's
//! end-to-end tests judge with this one rule: the same count of numbers, each float within 10^-N
//! relative of the original's, but those fptune said it did not judge; integers (counts,
//! indices) only counted. Lines naming a time (`Time in seconds`, `Mop/s`) are left out.

use std::collections::BTreeSet;
use std::path::Path;

/// A number a run prints.
#[derive(Clone, Copy, Debug)]
pub struct Number {
    /// Its value.
    pub value: f64,
    /// Whether it reads as a float (a `.`, an exponent, `NaN`, `inf`).
    pub float: bool,
    /// Half a unit of its last printed digit: how far the value printed may be from it.
    pub resolution: f64,
}

/// Half a unit in the last place of a printed number (`4.17e-1`: 0.5e-3).
fn resolution(token: &str) -> f64 {
    let t = token.trim_start_matches(['-', '+']);
    let (mantissa, exponent) = match t.find(['e', 'E']) {
        Some(p) => (&t[..p], t[p + 1..].parse::<i32>().unwrap_or(0)),
        None => (t, 0),
    };
    let decimals = mantissa.find('.').map_or(0, |p| mantissa.len() - p - 1) as i32;
    0.5 * 10f64.powi(exponent - decimals)
}

/// The numbers `text` (a run's standard output) prints, lines naming a time left out, each with
/// whether it reads as a float (an `f32` of integral value prints as `10548063`: its place is the
/// original's float's).
pub fn numbers(text: &str) -> Vec<Number> {
    text.lines()
        .filter(|l| !(l.to_lowercase().contains("time") || l.contains("Mop/s")))
        .flat_map(|l| l.split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')' || c == '[' || c == ']' || c == '='))
        .filter_map(|t| {
            let t = t.trim_end_matches([':', ';']);
            t.parse::<f64>().ok().map(|value| Number {
                value,
                float: t.contains(['.', 'e', 'E']) || t.contains("NaN") || t.contains("inf"),
                resolution: resolution(t),
            })
        })
        .collect()
}

/// The positions in `expected` (the original's printed numbers) of the values fptune did not
/// judge (report.json's `unchecked`, positions of its records): each record is the next printed
/// number its native value (the original's run, `logs/original.jsonl`) prints as.
pub fn unjudged_numbers(krate: &Path, report: &serde_json::Value, expected: &[Number]) -> BTreeSet<usize> {
    let unchecked: BTreeSet<u64> = report["unchecked"].as_array().map(|a| a.iter().filter_map(|v| v.as_u64()).collect()).unwrap_or_default();
    let mut out = BTreeSet::new();
    if unchecked.is_empty() {
        return out;
    }
    let Ok(original) = std::fs::read_to_string(krate.join("fptune.out/logs/original.jsonl")) else { return out };
    let values: Vec<f64> = original
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|r| r["samples"].as_array().and_then(|s| s.first()).and_then(|v| v.as_f64()))
        .collect();
    let mut next = 0;
    for (k, v) in values.iter().enumerate() {
        let Some(j) = (next..expected.len()).find(|&j| (expected[j].value - v).abs() <= expected[j].resolution * 1.000001 + 1e-12 * v.abs()) else {
            continue;
        };
        if unchecked.contains(&(k as u64)) {
            out.insert(j);
        }
        next = j + 1;
    }
    out
}

/// The verdict on `got` (the applied result's numbers) against `expected` at `digits`:
/// `yes`, `yes, K not judged`, or why not.
pub fn verdict(got: &[Number], expected: &[Number], digits: u32, unjudged: &BTreeSet<usize>) -> Result<String, String> {
    if got.len() != expected.len() {
        return Err(format!("prints {} numbers, not {}", got.len(), expected.len()));
    }
    let tolerance = 10f64.powi(-(digits as i32));
    let floats = || got.iter().zip(expected).enumerate().filter(|(i, (_, e))| e.float && !unjudged.contains(i)).map(|(_, (g, e))| (g.value, e.value));
    let off = floats().filter(|(g, e)| !((g - e).abs() <= tolerance * e.abs() || g == e)).count();
    let compared = floats().count();
    let judged = if unjudged.is_empty() { String::new() } else { format!(", {} not judged", unjudged.len()) };
    if off == 0 {
        Ok(format!("yes{judged}"))
    } else {
        Err(format!("no ({off} of {compared} off{judged})"))
    }
}
