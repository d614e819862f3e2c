//! Validation metrics: the rule one check's values are judged by, and its measurement over the check's values.
//!
//! A check's [`Rule`] is a [`Metric`] and whether its values must also have the required exact
//! digits by their DSA estimate (on unless turned off for the check). The metrics, as the
//! verification-metrics slides (`../shared/seeds/`) compare them, with `r` the reference run's
//! mean and `c` the candidate's, over every value checked under the name (all indices, every
//! `check!` call of it):
//!
//! - [`Metric::Digits`], the default: each value `|c - r| <= 10^-N |r|` (`|c| <= 10^-N` where
//!   `r = 0`), N the required digits (`validate::agrees`). Element-wise: it can call numerical
//!   error a bug on a value near zero.
//! - [`Metric::MaxRel`]: `max |c - r| / |r|` over the values with `|r| > floor` (a floor of 0
//!   ignores exact zeros only), at most `bound`. The values at or below the floor are ignored by
//!   the DSA digit requirement too: a floor says they are not results.
//! - [`Metric::MaxEpsDiff`] (maxEpsilonDiff): `max |c - r| / ulp(r)`, the ulp of the format the
//!   candidate's value is recorded in (its `format`), at `r`: `2^(max(e, emin) - p + 1)` with
//!   `e = floor(log2 |r|)`, p the format's precision, emin its smallest normal exponent (the
//!   smallest subnormal where `r = 0`). At most `bound`.
//! - [`Metric::Rms`]: `sqrt(sum (c - r)^2 / sum r^2)`, the RMS of the differences relative to the
//!   RMS of the reference (the absolute RMS of the differences when every `r` is 0), at most
//!   `bound` (the tolerance). Global: one large error among many values can pass.
//!
//! A rule comes from the check's records (`check!`'s third argument, the fields
//! `fptune::contract::record::METRIC` and after) or from `[package.metadata.fptune.checks.NAME]`;
//! [`Rule::parse`] reads either, with errors that say what to write.

use fptune_spec::{pow2, Spec};
use serde::{Deserialize, Serialize};

use fptune::contract::record::{METRIC_DIGITS, METRIC_MAX_EPS_DIFF, METRIC_MAX_REL, METRIC_RMS};

/// How a check's values are compared with the reference.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "metric", rename_all = "snake_case")]
pub enum Metric {
    /// Each value within `10^-N` relative of the reference (the default).
    Digits,
    /// The largest relative difference over the values whose `|reference|` exceeds `floor`.
    MaxRel {
        /// The largest allowed.
        bound: f64,
        /// Values with `|reference| <= floor` are ignored.
        #[serde(default)]
        floor: f64,
    },
    /// The largest difference in ulps of the value's format at the reference.
    MaxEpsDiff {
        /// The largest allowed, in ulps.
        bound: f64,
    },
    /// The RMS of the differences relative to the RMS of the reference.
    Rms {
        /// The tolerance.
        bound: f64,
    },
}

impl Metric {
    /// Its name in records and Cargo.toml (`max_rel`).
    pub fn name(&self) -> &'static str {
        match self {
            Metric::Digits => METRIC_DIGITS,
            Metric::MaxRel { .. } => METRIC_MAX_REL,
            Metric::MaxEpsDiff { .. } => METRIC_MAX_EPS_DIFF,
            Metric::Rms { .. } => METRIC_RMS,
        }
    }

    /// The largest measured value allowed (`None` for [`Metric::Digits`]).
    pub fn bound(&self) -> Option<f64> {
        match *self {
            Metric::Digits => None,
            Metric::MaxRel { bound, .. } | Metric::MaxEpsDiff { bound } | Metric::Rms { bound } => Some(bound),
        }
    }

    /// Whether a value with this reference mean counts (for the metric and the DSA digits).
    pub fn considers(&self, reference: f64) -> bool {
        match *self {
            Metric::MaxRel { floor, .. } => reference.abs() > floor,
            _ => true,
        }
    }
}

/// The rule a check's values are judged by.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rule {
    /// The comparison with the reference.
    #[serde(flatten)]
    pub metric: Metric,
    /// Whether each value must also have the required exact digits by its DSA estimate.
    #[serde(default = "on")]
    pub dsa_digits: bool,
}

fn on() -> bool {
    true
}

impl Default for Rule {
    fn default() -> Rule {
        Rule { metric: Metric::Digits, dsa_digits: true }
    }
}

impl Rule {
    /// Whether it is the default rule (no metric of its own, DSA digits required).
    pub fn is_default(&self) -> bool {
        *self == Rule::default()
    }

    /// A rule from its parts as a record or Cargo.toml gives them: `metric` (absent: `digits`),
    /// `bound`, `floor` (`max_rel` only), `dsa_digits` (absent: on). The error says what is wrong
    /// and what to write, in Cargo.toml's words (the caller says where).
    pub fn parse(metric: Option<&str>, bound: Option<f64>, floor: Option<f64>, dsa_digits: Option<bool>) -> Result<Rule, String> {
        let known = format!("`{METRIC_DIGITS}` (the default rule), `{METRIC_MAX_REL}`, `{METRIC_MAX_EPS_DIFF}` or `{METRIC_RMS}`");
        let number = |what: &str, x: f64| -> Result<f64, String> {
            if x.is_finite() && x >= 0.0 {
                Ok(x)
            } else {
                Err(format!("`{what} = {x}` is not a non-negative finite number"))
            }
        };
        let name = match (metric, bound) {
            (Some(m), _) => m,
            (None, Some(_)) => return Err(format!("`bound` is given without `metric`: give `metric = ...`, one of {known}")),
            (None, None) => METRIC_DIGITS,
        };
        let needs_bound = |what: &str| -> Result<f64, String> {
            match bound {
                Some(b) => number("bound", b),
                None => Err(format!("`metric = \"{name}\"` needs `bound = ...`: {what}")),
            }
        };
        let metric = match name {
            METRIC_DIGITS => {
                if bound.is_some() {
                    return Err(format!(
                        "`metric = \"{METRIC_DIGITS}\"` takes no `bound`: its bound is the required digits (`digits`, `digits-for`)"
                    ));
                }
                Metric::Digits
            }
            METRIC_MAX_REL => Metric::MaxRel {
                bound: needs_bound("the largest relative difference allowed, such as 1e-6")?,
                floor: floor.map(|f| number("floor", f)).transpose()?.unwrap_or(0.0),
            },
            METRIC_MAX_EPS_DIFF => Metric::MaxEpsDiff { bound: needs_bound("the largest difference allowed in ulps of the value's format, such as 4")? },
            METRIC_RMS => Metric::Rms { bound: needs_bound("the tolerance of the relative RMS of the differences, such as 1e-4")? },
            other => return Err(format!("unknown metric `{other}`: give {known}")),
        };
        if floor.is_some() && !matches!(metric, Metric::MaxRel { .. }) {
            return Err(format!("`floor` belongs to `metric = \"{METRIC_MAX_REL}\"`, not `{name}`: remove it"));
        }
        Ok(Rule { metric, dsa_digits: dsa_digits.unwrap_or(true) })
    }
}

/// A bound as people write it: `0.01`, `4`, `1e-6` (exponent notation outside `[1e-3, 1e5)`).
pub fn short(x: f64) -> String {
    if x == 0.0 || (1e-3..1e5).contains(&x.abs()) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.metric {
            Metric::Digits => write!(f, "{METRIC_DIGITS}")?,
            Metric::MaxRel { bound, floor } if floor > 0.0 => write!(f, "{METRIC_MAX_REL} <= {}, |reference| <= {} ignored", short(bound), short(floor))?,
            m => write!(f, "{} <= {}", m.name(), short(m.bound().unwrap_or(0.0)))?,
        }
        if !self.dsa_digits {
            write!(f, ", no DSA digits")?;
        }
        Ok(())
    }
}

/// One value of a check: the reference mean, the candidate mean, and the candidate's format.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pair<'a> {
    /// The reference run's mean.
    pub reference: f64,
    /// The candidate's mean.
    pub candidate: f64,
    /// The candidate's format as recorded (`binary32`).
    pub format: &'a str,
}

/// A metric measured over a check's values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measure {
    /// The measured value (0 when no value counts).
    pub value: f64,
    /// The position among the pairs of the value that gave it (element-wise metrics).
    pub at: Option<usize>,
    /// How many values counted (those above `max_rel`'s floor; all for the others).
    pub counted: usize,
}

impl Measure {
    /// Whether it is within `bound` (a NaN measure is not).
    pub fn within(&self, bound: f64) -> bool {
        self.value <= bound
    }
}

/// Measures `metric` over a check's values (`None` for [`Metric::Digits`], which judges each
/// value by the requirement). An error names a value whose format has no known precision.
pub fn measure(metric: &Metric, pairs: &[Pair<'_>]) -> Option<Result<Measure, String>> {
    let largest = |f: &dyn Fn(&Pair<'_>) -> Result<Option<f64>, String>| -> Result<Measure, String> {
        let mut m = Measure { value: 0.0, at: None, counted: 0 };
        for (i, p) in pairs.iter().enumerate() {
            let Some(x) = f(p)? else { continue };
            m.counted += 1;
            // NaN wins: a value that cannot be measured fails.
            if m.at.is_none() || x > m.value || x.is_nan() && !m.value.is_nan() {
                m = Measure { value: x, at: Some(i), counted: m.counted };
            }
        }
        Ok(m)
    };
    match *metric {
        Metric::Digits => None,
        Metric::MaxRel { floor, .. } => Some(largest(&|p| {
            Ok((p.reference.abs() > floor).then(|| (p.candidate - p.reference).abs() / p.reference.abs()))
        })),
        Metric::MaxEpsDiff { .. } => Some(largest(&|p| {
            let ulp = ulp(p.format, p.reference).ok_or_else(|| {
                format!("max_eps_diff has no ulp for the format `{}`: give this check another metric", p.format)
            })?;
            Ok(Some((p.candidate - p.reference).abs() / ulp))
        })),
        Metric::Rms { .. } => Some(Ok(rms(pairs))),
    }
}

/// `sqrt(sum (c - r)^2 / sum r^2)`, or `sqrt(sum (c - r)^2 / n)` where every `r` is 0; the sums
/// scaled by the largest magnitude, so that squares neither overflow nor underflow.
fn rms(pairs: &[Pair<'_>]) -> Measure {
    let scale = pairs.iter().map(|p| p.reference.abs().max((p.candidate - p.reference).abs())).fold(0.0, f64::max);
    let counted = pairs.len();
    if counted == 0 || scale == 0.0 {
        return Measure { value: 0.0, at: None, counted };
    }
    let (mut diff, mut reference) = (0.0, 0.0);
    for p in pairs {
        diff += ((p.candidate - p.reference) / scale).powi(2);
        reference += (p.reference / scale).powi(2);
    }
    let value = if reference > 0.0 { (diff / reference).sqrt() } else { scale * (diff / counted as f64).sqrt() };
    // A non-finite value (scale infinite or NaN) fails as NaN.
    Measure { value: if value.is_finite() { value } else { f64::NAN }, at: None, counted }
}

/// A format's precision p (significand bits, the hidden one included) and its smallest normal
/// exponent, by the name a record gives it: the IEEE names of the four (`binary64`, `binary32`,
/// `binary16`, `bfloat16`), or a format's short name (`fptune_spec::Spec::parse`: `f32`, `tf32`,
/// `e4m3`, `e11m40`, `f16-ftz`), which `fptune::Fx` values record.
pub fn grid(format: &str) -> Option<(i32, i32)> {
    let spec = match format {
        "binary64" => Spec::F64,
        "binary32" => Spec::F32,
        "binary16" => Spec::F16,
        "bfloat16" => Spec::BF16,
        name => Spec::parse(name).ok()?,
    };
    Some((spec.precision() as i32, spec.emin()))
}

/// The unit in the last place of `format` at `x`: `2^(max(floor(log2 |x|), emin) - p + 1)`, the
/// smallest subnormal's spacing at 0 (`None` for a format [`grid`] does not know, or `x` not finite).
pub fn ulp(format: &str, x: f64) -> Option<f64> {
    let (p, emin) = grid(format)?;
    if !x.is_finite() {
        return None;
    }
    let e = if x == 0.0 { emin } else { exponent(x).max(emin) };
    Some(pow2(e - p + 1))
}

/// `floor(log2 |x|)` of a finite nonzero `x`, exactly.
fn exponent(x: f64) -> i32 {
    let bits = x.abs().to_bits();
    let field = (bits >> 52) as i32;
    if field == 0 {
        // Subnormal: the value is m 2^-1074.
        let m = bits & ((1 << 52) - 1);
        63 - m.leading_zeros() as i32 - 1074
    } else {
        field - 1023
    }
}


/// Serde for an `Option<f64>` that may be infinite or NaN (`crate::model::float_json` inside an
/// option: `null` is `None`).
pub(super) mod float_option {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    struct Float(#[serde(with = "crate::model::float_json")] f64);

    /// Writes the option.
    pub fn serialize<S: Serializer>(x: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
        x.map(Float).serialize(s)
    }

    /// Reads the option.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        Ok(Option::<Float>::deserialize(d)?.map(|f| f.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs<'a>(reference: &[f64], candidate: &[f64], format: &'a str) -> Vec<Pair<'a>> {
        reference.iter().zip(candidate).map(|(&r, &c)| Pair { reference: r, candidate: c, format }).collect()
    }

    fn measured(metric: Metric, reference: &[f64], candidate: &[f64], format: &str) -> Measure {
        measure(&metric, &pairs(reference, candidate, format)).expect("a metric").expect("measurable")
    }

    #[test]
    fn ulps_are_exact_powers_of_two_with_subnormals_and_the_named_formats() {
        assert_eq!(ulp("binary64", 1.0), Some(f64::EPSILON));
        assert_eq!(ulp("binary32", 1.0), Some(f64::from(f32::EPSILON)));
        assert_eq!(ulp("binary32", 1.999), Some(f64::from(f32::EPSILON)));
        assert_eq!(ulp("binary32", -2.0), Some(2.0 * f64::from(f32::EPSILON)));
        assert_eq!(ulp("f16", 1.0), Some(2f64.powi(-10)));
        // binary16's subnormals are spaced 2^-24 apart, below 2^-14 and at 0.
        assert_eq!(ulp("binary16", 1e-6), Some(2f64.powi(-24)));
        assert_eq!(ulp("binary16", 0.0), Some(2f64.powi(-24)));
        assert_eq!(ulp("binary16", 2f64.powi(-14)), Some(2f64.powi(-24)));
        assert_eq!(ulp("bfloat16", 3.0), Some(2f64.powi(-6)));
        assert_eq!(ulp("tf32", 1.0), Some(2f64.powi(-10)));
        assert_eq!(ulp("e4m3", 1.0), Some(0.125));
        assert_eq!(ulp("e5m2", 0.0), Some(2f64.powi(-16)));
        assert_eq!(ulp("e4m3", 448.0), Some(32.0));
        assert_eq!(ulp("e11m40", 1.0), Some(2f64.powi(-40)));
        assert_eq!(ulp("f32-ftz", 1.0), Some(f64::from(f32::EPSILON)));
        // binary64's own subnormals and largest numbers.
        assert_eq!(ulp("binary64", 5e-324), Some(5e-324));
        assert_eq!(ulp("binary64", f64::MIN_POSITIVE / 4.0), Some(5e-324));
        assert_eq!(ulp("binary64", f64::MAX), Some(2f64.powi(971)));
        assert_eq!(grid("binary64"), Some((53, -1022)));
        assert_eq!(grid("e5m2"), Some((3, -14)));
        for unknown in ["time", "decimal32", "e1m2", "e12m3", "e5m0", "", "time5m2"] {
            assert_eq!(grid(unknown), None, "{unknown}");
        }
        assert_eq!(ulp("binary32", f64::INFINITY), None);
    }

    #[test]
    fn max_rel_ignores_values_at_or_below_its_floor_and_exact_zeros() {
        let reference = [1.0, -2.0, 1e-9, 0.0];
        let candidate = [1.0 + 1e-7, -2.0 - 4e-7, 2e-9, 5.0];
        let m = measured(Metric::MaxRel { bound: 1e-6, floor: 1e-6 }, &reference, &candidate, "binary64");
        assert!((m.value - 2e-7).abs() < 1e-15, "{m:?}");
        assert_eq!((m.at, m.counted), (Some(1), 2));
        assert!(m.within(1e-6));
        // Without a floor, the value near zero counts (relative difference 1); an exact zero never.
        let m = measured(Metric::MaxRel { bound: 1e-6, floor: 0.0 }, &reference, &candidate, "binary64");
        assert_eq!((m.value, m.at, m.counted), (1.0, Some(2), 3));
        // Nothing above the floor: nothing measured, 0.
        let m = measured(Metric::MaxRel { bound: 0.0, floor: 10.0 }, &reference, &candidate, "binary64");
        assert_eq!((m.value, m.at, m.counted), (0.0, None, 0));
    }

    #[test]
    fn max_eps_diff_counts_ulps_of_the_candidates_format_at_the_reference() {
        let one = 2f64.powi(-10);
        // binary16: one ulp at 1, two at 1.5 (same binade), and at a subnormal reference 3 x 2^-24.
        let reference = [1.0, 1.5, 3e-7];
        let candidate = [1.0 + one, 1.5 - 2.0 * one, 3e-7 + 3.0 * 2f64.powi(-24)];
        let m = measured(Metric::MaxEpsDiff { bound: 3.0 }, &reference, &candidate, "binary16");
        assert_eq!((m.value, m.at), (3.0, Some(2)));
        // The same differences in binary32's ulps are 2^13 times as many.
        let m = measured(Metric::MaxEpsDiff { bound: 3.0 }, &reference[..2], &candidate[..2], "binary32");
        assert_eq!((m.value, m.at), (2.0 * 8192.0, Some(1)));
        // A format with no known ulp cannot be measured.
        let e = measure(&Metric::MaxEpsDiff { bound: 1.0 }, &pairs(&[1.0], &[1.0], "posit16")).expect("a metric").expect_err("no ulp");
        assert!(e.contains("`posit16`"), "{e}");
    }

    #[test]
    fn rms_is_relative_to_the_references_rms_and_absolute_when_it_is_zero() {
        let m = measured(Metric::Rms { bound: 1.0 }, &[3.0, 4.0], &[3.0, 4.5], "binary64");
        // sqrt(0.25 / 25)
        assert!((m.value - 0.1).abs() < 1e-15, "{m:?}");
        assert_eq!((m.at, m.counted), (None, 2));
        let m = measured(Metric::Rms { bound: 1.0 }, &[0.0, 0.0], &[3e-9, -4e-9], "binary64");
        assert!((m.value - (12.5e-18f64).sqrt()).abs() < 1e-22, "{m:?}");
        // Huge and tiny values neither overflow nor underflow.
        let m = measured(Metric::Rms { bound: 1.0 }, &[1e300, 1e300], &[1.1e300, 1e300], "binary64");
        assert!((m.value - 0.1 / 2f64.sqrt()).abs() < 1e-12, "{m:?}");
        let m = measured(Metric::Rms { bound: 1.0 }, &[1e-310, 1e-310], &[1.1e-310, 1e-310], "binary64");
        assert!((m.value - 0.1 / 2f64.sqrt()).abs() < 1e-9, "{m:?}");
        assert_eq!(measured(Metric::Rms { bound: 0.0 }, &[2.0], &[2.0], "binary64").value, 0.0);
        // A NaN candidate fails.
        assert!(!measured(Metric::Rms { bound: 1.0 }, &[1.0], &[f64::NAN], "binary64").within(1.0));
        assert!(!measured(Metric::MaxRel { bound: 1.0, floor: 0.0 }, &[1.0, 1.0], &[f64::NAN, 1.0], "binary64").within(1.0));
        assert!(measure(&Metric::Digits, &[]).is_none());
    }

    /// The slides' two cases on crafted arrays: numerical error an element-wise rule calls a bug
    /// (a value near zero), and a bug RMS misses (one wrong value among many).
    #[test]
    fn element_wise_and_rms_metrics_fail_in_opposite_ways() {
        // Numerical error: every value off by 1e-6 absolute, one reference value near zero.
        let mut reference: Vec<f64> = (0..100).map(|i| 1.0 + f64::from(i) / 100.0).collect();
        reference[7] = 1e-3;
        let candidate: Vec<f64> = reference.iter().map(|r| r + 1e-6).collect();
        let max_rel = measured(Metric::MaxRel { bound: 1e-5, floor: 0.0 }, &reference, &candidate, "binary64");
        assert!(!max_rel.within(1e-5) && max_rel.at == Some(7), "{max_rel:?}");
        let rms = measured(Metric::Rms { bound: 1e-5 }, &reference, &candidate, "binary64");
        assert!(rms.within(1e-5), "{rms:?}");
        // A floor (the slides' |val| > 1e-3) lets max_rel see it as numerical error too.
        assert!(measured(Metric::MaxRel { bound: 1e-5, floor: 1e-2 }, &reference, &candidate, "binary64").within(1e-5));
        // A bug: one value of 10,000 wrong by half.
        let reference = vec![1.0; 10_000];
        let mut candidate = reference.clone();
        candidate[1234] = 1.5;
        let rms = measured(Metric::Rms { bound: 1e-2 }, &reference, &candidate, "binary64");
        assert!(rms.within(1e-2), "{rms:?}");
        let max_rel = measured(Metric::MaxRel { bound: 1e-2, floor: 0.0 }, &reference, &candidate, "binary64");
        assert_eq!((max_rel.value, max_rel.at), (0.5, Some(1234)));
    }

    #[test]
    fn a_rule_is_parsed_from_its_parts_or_refused_with_what_to_write() {
        let ok = |m: Option<&str>, b: Option<f64>, f: Option<f64>, d: Option<bool>| Rule::parse(m, b, f, d).expect("valid");
        assert_eq!(ok(None, None, None, None), Rule::default());
        assert!(ok(None, None, None, None).is_default());
        assert_eq!(ok(None, None, None, Some(false)), Rule { metric: Metric::Digits, dsa_digits: false });
        assert_eq!(ok(Some("max_rel"), Some(1e-6), Some(1e-12), None).metric, Metric::MaxRel { bound: 1e-6, floor: 1e-12 });
        assert_eq!(ok(Some("max_rel"), Some(1e-6), None, None).metric, Metric::MaxRel { bound: 1e-6, floor: 0.0 });
        assert_eq!(ok(Some("max_eps_diff"), Some(4.0), None, Some(true)).metric, Metric::MaxEpsDiff { bound: 4.0 });
        assert_eq!(ok(Some("rms"), Some(0.0), None, Some(false)), Rule { metric: Metric::Rms { bound: 0.0 }, dsa_digits: false });
        let refused = |m: Option<&str>, b: Option<f64>, f: Option<f64>| Rule::parse(m, b, f, None).expect_err("refused");
        assert!(refused(Some("maxrel"), Some(1.0), None).contains("unknown metric `maxrel`: give `digits` (the default rule), `max_rel`"));
        assert!(refused(Some("rms"), None, None).contains("`metric = \"rms\"` needs `bound = ...`"));
        assert!(refused(Some("max_rel"), Some(-1e-6), None).contains("`bound = -0.000001` is not a non-negative finite number"));
        assert!(refused(Some("max_rel"), Some(f64::NAN), None).contains("not a non-negative finite number"));
        assert!(refused(Some("max_rel"), Some(1.0), Some(-1.0)).contains("`floor = -1`"));
        assert!(refused(Some("rms"), Some(1.0), Some(1.0)).contains("`floor` belongs to `metric = \"max_rel\"`, not `rms`"));
        assert!(refused(Some("digits"), Some(3.0), None).contains("takes no `bound`"));
        assert!(refused(None, Some(3.0), None).contains("`bound` is given without `metric`"));
    }

    #[test]
    fn a_rule_reads_and_writes_as_its_record_fields() {
        let rule = Rule { metric: Metric::MaxRel { bound: 1e-6, floor: 1e-12 }, dsa_digits: false };
        let text = serde_json::to_string(&rule).expect("serialises");
        assert_eq!(text, r#"{"metric":"max_rel","bound":1e-6,"floor":1e-12,"dsa_digits":false}"#);
        assert_eq!(serde_json::from_str::<Rule>(&text).expect("reads"), rule);
        assert_eq!(serde_json::from_str::<Rule>(r#"{"metric":"rms","bound":0.5}"#).expect("reads"), Rule { metric: Metric::Rms { bound: 0.5 }, dsa_digits: true });
        assert_eq!(rule.to_string(), "max_rel <= 1e-6, |reference| <= 1e-12 ignored, no DSA digits");
        assert_eq!(Rule { metric: Metric::Rms { bound: 1e-4 }, dsa_digits: true }.to_string(), "rms <= 1e-4");
        assert_eq!(Rule { metric: Metric::MaxEpsDiff { bound: 4.0 }, dsa_digits: true }.to_string(), "max_eps_diff <= 4");
        assert_eq!(Rule { metric: Metric::Rms { bound: 0.01 }, dsa_digits: true }.to_string(), "rms <= 0.01");
    }
}
