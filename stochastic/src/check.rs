//! `fptune::check!`: the results whose digits count.
//!
//! In an ordinary run nothing is written and the cost is one relaxed load. When the environment
//! variable `FPTUNE_OUT` ([`crate::contract::OUT_ENV`]) names a file (the tuner sets it), every checked value is appended to it as
//! one JSON line (its fields: [`crate::contract::record`]):
//!
//! ```json
//! {"name":"d","index":0,"format":"binary64","stochastic":true,"samples":[4.6e-4,4.6e-4,4.6e-4],"digits":14.4}
//! ```
//!
//! `samples` are the exact values (shortest round-trip decimal; `"inf"`, `"-inf"`, `"NaN"` as
//! strings), a native value repeats its one value three times with `"stochastic":false`, and a
//! value checked twice under the same name is recorded twice, in order. When instabilities were
//! detected so far in the run, each line also carries their counts,
//! `"instabilities":{"overflow":2,...}` (the tuner refuses a candidate with a 16-bit overflow).
//!
//! A check given a metric (`check!("e", e, fptune::metric::max_rel(1e-6))`, see
//! [`crate::metric`]) writes it on each of its lines after `digits`:
//! `"metric":"max_rel","bound":1e-6`, with `"floor"` and `"dsa_digits":false` when they differ
//! from the defaults. A check without one writes no such field.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::sync::{Mutex, OnceLock, PoisonError};

use half::{bf16, f16};

use crate::contract::record::{DIGITS, FORMAT, INDEX, INF, INSTABILITIES, NAME, NAN, NEG_INF, SAMPLES, STOCHASTIC};
use crate::contract::OUT_ENV;
use crate::format::Format;
use crate::value::Stochastic;

/// One checked value.
#[derive(Clone, Copy, Debug)]
pub struct Record {
    /// IEEE name of the value's format.
    pub format: &'static str,
    /// Whether the value carries DSA samples.
    pub stochastic: bool,
    /// The samples (three equal values for a native value).
    pub samples: [f64; 3],
    /// The DSA digit estimate (the format's maximum for a native value).
    pub digits: f64,
}

/// Something `check!` accepts: a float of any kind, or a slice, `Vec`, array or reference of them.
pub trait Checkable {
    /// Calls `f` once per value, in order.
    fn visit(&self, f: &mut dyn FnMut(Record));
}

macro_rules! checkable_native {
    ($($t:ty),*) => {$(
        impl Checkable for $t {
            fn visit(&self, f: &mut dyn FnMut(Record)) {
                let x = <$t as Format>::to_repr(*self) as f64;
                f(Record {
                    format: <$t as Format>::NAME,
                    stochastic: false,
                    samples: [x; 3],
                    digits: <$t as Format>::MAX_DIGITS,
                });
            }
        }
    )*};
}
checkable_native!(f64, f32, f16, bf16);

impl<const E: u32, const M: u32, const FLAGS: u32> Checkable for crate::Fx<E, M, FLAGS> {
    fn visit(&self, f: &mut dyn FnMut(Record)) {
        f(Record { format: <Self as Format>::NAME, stochastic: false, samples: [self.to_f64(); 3], digits: <Self as Format>::MAX_DIGITS });
    }
}

impl<F: Format> Checkable for Stochastic<F> {
    fn visit(&self, f: &mut dyn FnMut(Record)) {
        f(Record {
            format: F::NAME,
            stochastic: true,
            samples: self.samples_f64(),
            digits: self.digits(),
        });
    }
}

impl<T: Checkable> Checkable for [T] {
    fn visit(&self, f: &mut dyn FnMut(Record)) {
        for x in self {
            x.visit(f);
        }
    }
}

impl<T: Checkable, const N: usize> Checkable for [T; N] {
    fn visit(&self, f: &mut dyn FnMut(Record)) {
        self.as_slice().visit(f);
    }
}

impl<T: Checkable> Checkable for Vec<T> {
    fn visit(&self, f: &mut dyn FnMut(Record)) {
        self.as_slice().visit(f);
    }
}

impl<T: Checkable + ?Sized> Checkable for &T {
    fn visit(&self, f: &mut dyn FnMut(Record)) {
        (**self).visit(f);
    }
}

impl<T: Checkable + ?Sized> Checkable for &mut T {
    fn visit(&self, f: &mut dyn FnMut(Record)) {
        (**self).visit(f);
    }
}

impl<T: Checkable + ?Sized> Checkable for Box<T> {
    fn visit(&self, f: &mut dyn FnMut(Record)) {
        (**self).visit(f);
    }
}

fn sink() -> Option<&'static Mutex<BufWriter<File>>> {
    static SINK: OnceLock<Option<Mutex<BufWriter<File>>>> = OnceLock::new();
    SINK.get_or_init(|| {
        let path = std::env::var_os(OUT_ENV)?;
        match OpenOptions::new().create(true).append(true).open(&path) {
            Ok(file) => Some(Mutex::new(BufWriter::new(file))),
            Err(e) => {
                eprintln!("fptune: cannot open {OUT_ENV}={}: {e}", path.to_string_lossy());
                None
            }
        }
    })
    .as_ref()
}

/// JSON text of one sample: a number, or a string for a non-finite value.
fn json_number(out: &mut String, x: f64) {
    use std::fmt::Write as _;
    if x.is_finite() {
        let _ = write!(out, "{x:?}");
    } else if x.is_nan() {
        let _ = write!(out, "\"{NAN}\"");
    } else if x > 0.0 {
        let _ = write!(out, "\"{INF}\"");
    } else {
        let _ = write!(out, "\"{NEG_INF}\"");
    }
}

fn json_string(out: &mut String, s: &str) {
    use std::fmt::Write as _;
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The JSON object of the nonzero instability counts so far, or an empty string.
fn instabilities_json() -> String {
    use std::fmt::Write as _;
    let report = crate::stochastic::report();
    if report.total() == 0 {
        return String::new();
    }
    let mut out = format!(",\"{INSTABILITIES}\":{{");
    for (i, (kind, n)) in report.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "\"{}\":{n}", kind.key());
    }
    out.push('}');
    out
}

/// The JSON line of one record.
pub fn json_line(name: &str, index: usize, r: &Record) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(160);
    let _ = write!(out, "{{\"{NAME}\":");
    json_string(&mut out, name);
    let _ = write!(out, ",\"{INDEX}\":{index},\"{FORMAT}\":\"{}\",\"{STOCHASTIC}\":{}", r.format, r.stochastic);
    let _ = write!(out, ",\"{SAMPLES}\":[");
    for (i, x) in r.samples.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        json_number(&mut out, *x);
    }
    let _ = write!(out, "],\"{DIGITS}\":");
    json_number(&mut out, r.digits);
    out.push('}');
    out
}

/// The JSON lines of every value of `value`: each [`json_line`], then the metric's fields and
/// `instabilities` (the run's counts, or empty).
fn json_lines<T: Checkable + ?Sized>(name: &str, value: &T, metric: Option<&crate::metric::Metric>, instabilities: &str) -> String {
    let mut lines = String::new();
    let mut index = 0;
    let mut after_digits = metric.map(crate::metric::json_fields).unwrap_or_default();
    after_digits.push_str(instabilities);
    value.visit(&mut |r| {
        let line = json_line(name, index, &r);
        lines.push_str(&line[..line.len() - 1]);
        lines.push_str(&after_digits);
        lines.push_str("}\n");
        index += 1;
    });
    lines
}

/// Records every value of `value` under `name` (what `check!` expands to).
pub fn check<T: Checkable + ?Sized>(name: &str, value: &T) {
    check_with(name, value, None);
}

/// Records every value of `value` under `name`, with the metric the tuner judges them by when
/// one is given (what `check!("name", value, metric)` expands to, through
/// `fptune::metric::__check_with`).
pub fn check_with<T: Checkable + ?Sized>(name: &str, value: &T, metric: Option<&crate::metric::Metric>) {
    let Some(sink) = sink() else { return };
    let lines = json_lines(name, value, metric, &instabilities_json());
    let mut w = sink.lock().unwrap_or_else(PoisonError::into_inner);
    // A run whose checks cannot be written is invalid for the tuner, which sees missing values.
    let _ = w.write_all(lines.as_bytes());
    let _ = w.flush();
}

/// Names a result whose digits count: `check!(x)`, `check!("name", x)`, `check!("name", slice)`,
/// and with the metric the tuner judges it by, `check!("name", x, fptune::metric::rms(1e-4))`.
///
/// `x` may be a float of any kind (native or stochastic), or a slice, `Vec`, array or reference of
/// them. The metric is one of [`metric`](crate::metric)'s (by default, agreement to the required
/// digits). Ordinary runs write nothing; see the module documentation of `check` for `FPTUNE_OUT`.
#[macro_export]
macro_rules! check {
    ($name:expr, $value:expr, $metric:expr $(,)?) => {
        $crate::metric::__check_with($name, &$value, $metric)
    };
    ($name:literal, $value:expr $(,)?) => {
        $crate::__rt::check($name, &$value)
    };
    ($value:expr $(,)?) => {
        $crate::__rt::check($crate::__rt::stringify!($value), &$value)
    };
    ($name:expr, $value:expr $(,)?) => {
        $crate::__rt::check($name, &$value)
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_one_json_line_with_exact_samples() {
        let r = Record { format: "binary32", stochastic: true, samples: [0.1, f64::INFINITY, -0.0], digits: 0.0 };
        let line = json_line("a \"b\"", 3, &r);
        assert_eq!(
            line,
            r#"{"name":"a \"b\"","index":3,"format":"binary32","stochastic":true,"samples":[0.1,"inf",-0.0],"digits":0.0}"#
        );
    }

    #[test]
    fn a_check_with_a_metric_writes_it_on_every_line_before_the_instabilities() {
        let metric = crate::metric::max_rel(1e-6).floor(1e-12).into();
        let lines = json_lines("e", &[1.5f32, 2.0], Some(&metric), r#","instabilities":{"overflow":1}"#);
        assert_eq!(
            lines,
            concat!(
                r#"{"name":"e","index":0,"format":"binary32","stochastic":false,"samples":[1.5,1.5,1.5],"digits":7.22,"metric":"max_rel","bound":1e-6,"floor":1e-12,"instabilities":{"overflow":1}}"#,
                "\n",
                r#"{"name":"e","index":1,"format":"binary32","stochastic":false,"samples":[2.0,2.0,2.0],"digits":7.22,"metric":"max_rel","bound":1e-6,"floor":1e-12,"instabilities":{"overflow":1}}"#,
                "\n"
            )
        );
        // Without a metric, the lines are as they always were.
        assert_eq!(json_lines("x", &0.5f64, None, ""), "{\"name\":\"x\",\"index\":0,\"format\":\"binary64\",\"stochastic\":false,\"samples\":[0.5,0.5,0.5],\"digits\":15.95}\n");
    }

    #[test]
    fn every_form_of_check_compiles_and_a_metric_takes_any_float_or_integer() {
        // No FPTUNE_OUT in unit tests: these only show what compiles.
        let (x, v) = (1.0f64, vec![1.0f32, 2.0]);
        crate::check!(x);
        crate::check!("x", x);
        crate::check!("v", v,);
        let name = String::from("v");
        crate::check!(name.as_str(), &v[..]);
        crate::check!("x", x, crate::metric::max_rel(1e-6).floor(1e-12));
        crate::check!(name.as_str(), v, crate::metric::max_eps_diff(2));
        crate::check!("v", v, crate::metric::rms(1e-3f32).dsa_digits(false),);
        crate::check!("s", crate::Sf64::new(1.0), crate::metric::digits().dsa_digits(false));
    }
}
