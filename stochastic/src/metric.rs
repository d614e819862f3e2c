//! `fptune::metric`: the rule the tuner judges one check's values by, given as `check!`'s third argument.
//!
//! By default (no metric) a candidate's checked value must agree with the reference to the
//! required digits N, element by element (`|c - r| <= 10^-N |r|`), and have N exact digits by its
//! own DSA estimate. A check can choose another comparison, as accelerator vendors validate their
//! kernels (docs/marking.md, "Choosing the metric of a check"):
//!
//! ```
//! # let (e, v) = (1.0f64, vec![1.0f64, 2.0]);
//! // The largest relative difference over the values whose |reference| exceeds 1e-12.
//! fptune::check!("energy", e, fptune::metric::max_rel(1e-6).floor(1e-12));
//! // The largest difference in units of the last place of the value's format, at the reference.
//! fptune::check!("grid", v, fptune::metric::max_eps_diff(4));
//! // The RMS of the differences over the check's values, relative to the reference's RMS; the
//! // DSA digit requirement turned off for this check.
//! fptune::check!("field", v, fptune::metric::rms(1e-3).dsa_digits(false));
//! ```
//!
//! The metric travels with every record of the check ([`crate::contract::record::METRIC`] and the
//! fields after it); the tuner reads it from the reference run. A bound that is negative or not a
//! finite number panics where the metric is made, in every run, as any invalid argument does.

use crate::format::Format;
use crate::value::Stochastic;

/// A number a metric's bound or floor can be given as: a float of any kind (a stochastic value
/// gives its mean, so the stochastic build of a tuned item compiles unchanged), an elaborated
/// literal, or an integer.
pub trait Bound {
    /// The number as an `f64`.
    fn to_bound(self) -> f64;
}

macro_rules! bound_as {
    ($($t:ty),*) => {$(
        impl Bound for $t {
            fn to_bound(self) -> f64 {
                self as f64
            }
        }
    )*};
}
bound_as!(f64, f32, i32, u32, i64, u64, usize);

impl Bound for half::f16 {
    fn to_bound(self) -> f64 {
        self.to_f64()
    }
}

impl Bound for half::bf16 {
    fn to_bound(self) -> f64 {
        self.to_f64()
    }
}

impl<F: Format> Bound for Stochastic<F> {
    fn to_bound(self) -> f64 {
        let s = self.samples_f64();
        (s[0] + s[1] + s[2]) / 3.0
    }
}

impl Bound for crate::__rt::Lit {
    fn to_bound(self) -> f64 {
        self.d
    }
}

/// Which comparison a [`Metric`] makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The default rule: every value within `10^-N` relative of the reference.
    Digits,
    /// The largest `|c - r| / |r|` over the values whose `|r|` exceeds the floor.
    MaxRel,
    /// The largest `|c - r| / ulp(r)`, the unit in the last place of the value's format at `r`.
    MaxEpsDiff,
    /// `sqrt(sum (c - r)^2 / sum r^2)` over the check's values.
    Rms,
}

impl Kind {
    /// The name the record and `[package.metadata.fptune.checks.NAME]` give it.
    pub fn name(self) -> &'static str {
        use crate::contract::record as r;
        match self {
            Kind::Digits => r::METRIC_DIGITS,
            Kind::MaxRel => r::METRIC_MAX_REL,
            Kind::MaxEpsDiff => r::METRIC_MAX_EPS_DIFF,
            Kind::Rms => r::METRIC_RMS,
        }
    }
}

/// How the tuner judges the values of one check: made by [`digits`], [`max_rel`],
/// [`max_eps_diff`] or [`rms`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Metric {
    kind: Kind,
    bound: f64,
    floor: f64,
    dsa_digits: bool,
}

impl Metric {
    /// The comparison.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The largest measured value allowed (`None` for [`digits`], whose bound is the requirement).
    pub fn bound(&self) -> Option<f64> {
        (self.kind != Kind::Digits).then_some(self.bound)
    }

    /// [`max_rel`]'s floor: values whose `|reference|` is at most this are ignored (0 otherwise).
    pub fn floor_value(&self) -> f64 {
        self.floor
    }

    /// Whether the values must also have the required exact digits by their DSA estimate.
    pub fn requires_dsa_digits(&self) -> bool {
        self.dsa_digits
    }

    /// The same metric with the DSA digit requirement on (the default) or off for this check.
    pub fn dsa_digits(mut self, required: bool) -> Metric {
        self.dsa_digits = required;
        self
    }
}

/// [`max_rel`]'s metric, which can take a floor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MaxRel(Metric);

impl MaxRel {
    /// Values whose `|reference|` is at most `floor` are ignored (by the metric and by the DSA
    /// digit requirement). Panics when `floor` is negative or not finite.
    #[track_caller]
    pub fn floor(mut self, floor: impl Bound) -> MaxRel {
        self.0.floor = valid("floor", "max_rel(..).floor", floor.to_bound());
        self
    }

    /// The same metric with the DSA digit requirement on (the default) or off for this check.
    pub fn dsa_digits(self, required: bool) -> MaxRel {
        MaxRel(self.0.dsa_digits(required))
    }
}

impl From<MaxRel> for Metric {
    fn from(m: MaxRel) -> Metric {
        m.0
    }
}

#[track_caller]
fn valid(what: &str, call: &str, x: f64) -> f64 {
    if !(x.is_finite() && x >= 0.0) {
        panic!("fptune::metric::{call}({x}): the {what} must be a non-negative finite number");
    }
    x
}

fn metric(kind: Kind, bound: f64) -> Metric {
    Metric { kind, bound, floor: 0.0, dsa_digits: true }
}

/// The default rule, written out (to turn its DSA digit requirement off: `digits().dsa_digits(false)`):
/// every value within `10^-N` relative of the reference, N the required digits.
pub fn digits() -> Metric {
    metric(Kind::Digits, 0.0)
}

/// The largest relative difference `|c - r| / |r|` over the check's values must be at most
/// `bound`; values whose reference is 0 (or at most [`MaxRel::floor`]) are ignored. Panics when
/// `bound` is negative or not finite.
#[track_caller]
pub fn max_rel(bound: impl Bound) -> MaxRel {
    MaxRel(metric(Kind::MaxRel, valid("bound", "max_rel", bound.to_bound())))
}

/// The largest difference in units of the value's format at the reference, `|c - r| / ulp(r)`
/// (maxEpsilonDiff), must be at most `bound`: the format is the one the candidate's value has, as
/// recorded (binary32's ulp for an `f32`). Panics when `bound` is negative or not finite.
#[track_caller]
pub fn max_eps_diff(bound: impl Bound) -> Metric {
    metric(Kind::MaxEpsDiff, valid("bound", "max_eps_diff", bound.to_bound()))
}

/// The RMS of the differences over the check's values, relative to the RMS of the reference,
/// `sqrt(sum (c - r)^2 / sum r^2)`, must be at most `tolerance` (the absolute RMS of the
/// differences when every reference value is 0). Panics when `tolerance` is negative or not finite.
#[track_caller]
pub fn rms(tolerance: impl Bound) -> Metric {
    metric(Kind::Rms, valid("tolerance", "rms", tolerance.to_bound()))
}

/// The JSON fields a record of a check judged by `m` carries after `digits`.
pub(crate) fn json_fields(m: &Metric) -> String {
    use crate::contract::record::{BOUND, DSA_DIGITS, FLOOR, METRIC};
    let mut out = format!(",\"{METRIC}\":\"{}\"", m.kind.name());
    if let Some(bound) = m.bound() {
        out.push_str(&format!(",\"{BOUND}\":{bound:?}"));
    }
    if m.kind == Kind::MaxRel && m.floor > 0.0 {
        out.push_str(&format!(",\"{FLOOR}\":{:?}", m.floor));
    }
    if !m.dsa_digits {
        out.push_str(&format!(",\"{DSA_DIGITS}\":false"));
    }
    out
}

/// What `check!("name", value, metric)` expands to: records every value of `value` under `name`,
/// judged by `metric`.
#[doc(hidden)]
pub fn __check_with<T: crate::check::Checkable + ?Sized>(name: &str, value: &T, metric: impl Into<Metric>) {
    crate::check::check_with(name, value, Some(&metric.into()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_metric_writes_its_name_and_bound_and_only_what_differs_from_the_default() {
        assert_eq!(json_fields(&digits()), r#","metric":"digits""#);
        assert_eq!(json_fields(&max_rel(1e-6).into()), r#","metric":"max_rel","bound":1e-6"#);
        assert_eq!(json_fields(&max_rel(1e-6).floor(1e-12).dsa_digits(false).into()), r#","metric":"max_rel","bound":1e-6,"floor":1e-12,"dsa_digits":false"#);
        assert_eq!(json_fields(&max_eps_diff(4)), r#","metric":"max_eps_diff","bound":4.0"#);
        assert_eq!(json_fields(&rms(half::f16::from_f32(0.5)).dsa_digits(false)), r#","metric":"rms","bound":0.5,"dsa_digits":false"#);
        assert_eq!(json_fields(&rms(crate::Sf64::new(0.25))), r#","metric":"rms","bound":0.25"#);
    }

    #[test]
    #[should_panic(expected = "fptune::metric::max_rel(-0.001): the bound must be a non-negative finite number")]
    fn a_negative_bound_panics_where_it_is_written() {
        let _ = max_rel(-1e-3);
    }

    #[test]
    #[should_panic(expected = "floor must be a non-negative finite number")]
    fn a_floor_that_is_not_a_number_panics() {
        let _ = max_rel(1e-3).floor(f64::NAN);
    }
}
