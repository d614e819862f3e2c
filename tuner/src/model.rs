//! The tuner's vocabulary, shared by every module: knobs, units, the ladder, configurations,
//! and what a candidate's run gave.

use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use fptune_syntax::{FloatFormat, KnobKind};

/// Where one float type is written in a knob's declared type (rewritten to change the knob).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LeafSpan {
    /// Start (1-based line, 0-based char column).
    pub start: (usize, usize),
    /// End, exclusive.
    pub end: (usize, usize),
}

/// A knob as the tuner knows it: a stable identity (file, line, column, name, kind, declared type)
/// and where to rewrite it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Knob {
    /// Index in the crate's knob table (source order over files sorted by path).
    pub id: usize,
    /// File, relative to the package root, `/`-separated.
    pub file: String,
    /// 1-based line of the knob's name.
    pub line: usize,
    /// 1-based column of the knob's name.
    pub column: usize,
    /// Variable, parameter, field, static, alias or function name.
    pub name: String,
    /// Kind of declaration.
    pub kind: KnobKind,
    /// Declared type as written (normalised), e.g. `Vec<f64>`.
    pub ty: String,
    /// Format written in the source (the top of its ladder, usually `f64`).
    pub declared: FloatFormat,
    /// `#[tune(group = "..")]`, if any.
    pub group: Option<String>,
    /// Enclosing items, e.g. `kernel::det`.
    pub scope: String,
    /// Where the format is written in the type.
    pub leaves: Vec<LeafSpan>,
}

impl Knob {
    /// `file:line`, as the report shows it.
    pub fn place(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// Why knobs were put in one unit.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Coupling {
    /// A knob alone.
    Alone,
    /// `#[tune(group = "name")]`.
    Group {
        /// The group's name.
        name: String,
    },
    /// rustc requires these knobs to share a type (found by the probe build), with the place
    /// (`file:line`) of one error that says so.
    Rustc {
        /// Where rustc said it.
        place: String,
    },
}

/// A unit of the search: knobs that always have one precision.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Unit {
    /// Index in the unit table.
    pub id: usize,
    /// Knob ids, ascending.
    pub knobs: Vec<usize>,
    /// Why they are together (the first reason found).
    pub coupling: Coupling,
    /// When rustc pins the unit to its declared format (it meets a plain float or a conversion
    /// that cannot change), where and what (`at src/main.rs:9 it meets `f64``): the search never
    /// lowers it.
    pub pinned: Option<String>,
    /// No checked result depends on the unit, though the program prints what it feeds (lowered
    /// alone to the ladder's bottom in the native single build, it changes the program's output
    /// and no checked value): it keeps its declared format unless the user asks otherwise
    /// (`--lower-unchecked`).
    #[serde(default)]
    pub unchecked: bool,
}

impl Unit {
    /// Whether the search may lower the unit: neither pinned nor unchecked.
    pub fn searchable(&self) -> bool {
        self.pinned.is_none() && !self.unchecked
    }
}

/// The precision ladder: formats from the top (the reference) down, one Delta Debugging pass per
/// step (f64 -> f32, then f32 -> f16 for the default `ieee` target).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Ladder {
    /// Target name (`ieee`, `bf16`, or a file's).
    pub name: String,
    /// Formats, widest first.
    pub formats: Vec<FloatFormat>,
    /// The machine whose matrix units `fptune::dot` models in every run (`h200`: the target's
    /// `machine`), or none (a dot product is its accumulator's loop).
    pub machine: Option<String>,
}

impl Ladder {
    /// The default: f64, f32, f16.
    pub fn ieee() -> Ladder {
        Ladder { name: "ieee".into(), formats: vec![FloatFormat::F64, FloatFormat::F32, FloatFormat::F16], machine: None }
    }

    /// f64, f32, bf16.
    pub fn bf16() -> Ladder {
        Ladder { name: "bf16".into(), formats: vec![FloatFormat::F64, FloatFormat::F32, FloatFormat::BF16], machine: None }
    }

    /// The top format (the reference's).
    pub fn top(&self) -> FloatFormat {
        self.formats[0]
    }
}

/// A configuration: the format of every unit, indexed by unit id.
/// How many of `formats` are half (any 16-bit format), single and double: the paper's
/// `#half-#single-#double`. A format beyond the four counts by its precision: up to binary16's
/// 11 bits as half (FP8 included), up to binary32's 24 as single, the rest as double.
pub fn census(formats: &[FloatFormat]) -> (usize, usize, usize) {
    formats.iter().fold((0, 0, 0), |(h, s, d), f| match f.precision() {
        ..=11 => (h + 1, s, d),
        12..=24 => (h, s + 1, d),
        _ => (h, s, d + 1),
    })
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Configuration(pub Vec<FloatFormat>);

impl Configuration {
    /// Every unit at `format`.
    pub fn uniform(units: usize, format: FloatFormat) -> Configuration {
        Configuration(vec![format; units])
    }

    /// Count of units at each format: `(f16+bf16, f32, f64)` as the paper's `#half-#single-#double`.
    pub fn census(&self) -> (usize, usize, usize) {
        census(&self.0)
    }

    /// Each knob's format, by knob id (`knobs` of them): its unit's in this configuration (a
    /// knob in no unit stays `f64`). The one map from units to knob formats: what a build writes,
    /// the report, the tuned sources and a batch's table all take.
    pub fn knob_formats(&self, units: &[Unit], knobs: usize) -> Vec<FloatFormat> {
        let mut formats = vec![FloatFormat::F64; knobs];
        for unit in units {
            for &k in &unit.knobs {
                formats[k] = self.0[unit.id];
            }
        }
        formats
    }

    /// Short text, e.g. `f64,f32,f16`.
    pub fn key(&self) -> String {
        self.0.iter().map(|f| f.short()).collect::<Vec<_>>().join(",")
    }

    /// For a line of the terminal: the key, or past 16 units the census
    /// (`the configuration 12-40-248 (#half-#single-#double)`), which a person can read.
    pub fn brief(&self) -> String {
        if self.0.len() <= 16 {
            return self.key();
        }
        let (h, s, d) = self.census();
        format!("the configuration {h}-{s}-{d} (#half-#single-#double)")
    }
}

impl fmt::Display for Configuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
    }
}

/// One checked value read from a run's `FPTUNE_OUT` file.
///
/// Two records are equal when they are the same output: their floats agree bit for bit, and
/// any NaN equals any NaN (a value that is NaN in two runs is the same result, which `f64`'s
/// `==` would deny, so a crate printing NaN never had a single build that served).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Record {
    /// `check!`'s name.
    pub name: String,
    /// Index within that check (0 for a scalar).
    pub index: usize,
    /// IEEE format name of the value.
    pub format: String,
    /// Whether the value carried DSA samples.
    pub stochastic: bool,
    /// Samples (non-finite ones as NaN/inf).
    #[serde(with = "float_json::vec")]
    pub samples: Vec<f64>,
    /// DSA digit estimate.
    #[serde(with = "float_json")]
    pub digits: f64,
    /// The rule its check was given (`check!`'s third argument); `None`: none given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<crate::validate::Rule>,
}

/// The same float output: equal bits, or both NaN.
fn same_float(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

impl PartialEq for Record {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.index == other.index
            && self.format == other.format
            && self.stochastic == other.stochastic
            && same_float(self.digits, other.digits)
            && self.same_samples(other)
            && self.rule == other.rule
    }
}

impl Record {
    /// Whether both records hold the same samples, bit for bit (NaN equal to NaN).
    pub fn same_samples(&self, other: &Record) -> bool {
        self.samples.len() == other.samples.len() && self.samples.iter().zip(&other.samples).all(|(&a, &b)| same_float(a, b))
    }

    /// Mean of the samples.
    pub fn mean(&self) -> f64 {
        self.samples.iter().sum::<f64>() / self.samples.len().max(1) as f64
    }

    /// `name[index]`, a printed value's expression spaced as people write it (the macro names it
    /// by its tokens: `v . iter () . sum :: < f64 > ()`).
    pub fn label(&self) -> String {
        let name = if self.name.starts_with(fptune::contract::PRINTED_PREFIX) { tidy_tokens(&self.name) } else { self.name.clone() };
        format!("{name}[{}]", self.index)
    }
}

/// Token text as `proc_macro` prints it (a space between every two tokens), spaced as people
/// write Rust: none inside brackets' edges, before `,` `;` `.`, after `&` `!` `.` or a unary `-`,
/// before a call's or an index's bracket, around `::` and a turbofish's brackets.
fn tidy_tokens(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut turbofish = 0usize;
    for (i, &c) in chars.iter().enumerate() {
        let prev = out.chars().next_back().unwrap_or(' ');
        if c == ' ' {
            let next = chars.get(i + 1).copied().unwrap_or(' ');
            let after = chars.get(i + 2).copied().unwrap_or(' ');
            let word = |ch: char| ch.is_alphanumeric() || ch == '_';
            // The operator before `prev` (a `-` after an operator or an opening is unary).
            let before_prev = out.trim_end_matches(prev).trim_end().chars().next_back().unwrap_or('(');
            let unary = matches!(prev, '-' | '*') && !(word(before_prev) || matches!(before_prev, ')' | ']' | '.'));
            let glue = matches!(prev, '(' | '[' | '&' | '!' | '.' | ':')
                || unary
                || matches!(next, ',' | ';' | ')' | ']')
                || (next == '.' && after != '.')
                || (next == ':' && after == ':')
                || (next == '!' && word(prev) && chars[i + 2..].iter().find(|&&ch| ch != ' ').is_some_and(|ch| matches!(ch, '[' | '(' | '{')))
                || (matches!(next, '(' | '[') && (word(prev) || matches!(prev, ')' | ']' | '>' | '!')))
                || (turbofish > 0 && (prev == '<' || next == '>' || next == '<'));
            if glue && !(prev == '.' && out.ends_with("..")) {
                continue;
            }
        }
        if c == '<' && out.ends_with("::") {
            turbofish += 1;
        } else if c == '>' && turbofish > 0 {
            turbofish -= 1;
        }
        out.push(c);
    }
    out
}

/// Why a candidate is not valid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Reason {
    /// The candidate did not compile (should not happen after coupling; kept with its first error).
    BuildFailed {
        /// First error message.
        error: String,
    },
    /// Exited non-zero or was killed by a signal.
    Crashed {
        /// Exit code, if any.
        code: Option<i32>,
        /// Signal, if any.
        signal: Option<i32>,
        /// The end of its standard error.
        stderr_tail: String,
    },
    /// Killed at the timeout.
    TimedOut {
        /// The timeout in seconds.
        seconds: f64,
    },
    /// Checked a different number of values than the reference.
    CountMismatch {
        /// Reference count.
        expected: usize,
        /// Candidate count.
        got: usize,
    },
    /// Checked values in another order or under other names than the reference.
    ChecksDiffer {
        /// Position of the first difference.
        position: usize,
        /// The reference's value there (`name[index]`).
        expected: String,
        /// The candidate's.
        got: String,
    },
    /// A checked value is NaN or infinite.
    NotFinite {
        /// `name[index]`.
        value: String,
    },
    /// A checked value differs from the reference by more than the requirement allows.
    Disagrees {
        /// `name[index]`.
        value: String,
        /// Candidate mean.
        got: f64,
        /// Reference mean.
        reference: f64,
        /// Digits in common with the reference.
        digits_in_common: f64,
        /// Required digits.
        required: f64,
    },
    /// A check judged by a metric of its own (`check!`'s third argument, or
    /// `[package.metadata.fptune.checks.NAME]`) measures more than its bound allows.
    MetricExceeded {
        /// The check's name.
        check: String,
        /// The metric (`max_rel`, `max_eps_diff`, `rms`).
        metric: String,
        /// What it measured.
        measured: f64,
        /// Its bound.
        bound: f64,
        /// `name[index]` of the value that gave it (element-wise metrics).
        at: Option<String>,
    },
    /// The candidate's own DSA estimate has fewer exact digits than required.
    TooFewDigits {
        /// `name[index]`.
        value: String,
        /// Estimated exact digits.
        digits: f64,
        /// Required digits.
        required: f64,
    },
    /// A run with another seed than the search's, confirming a candidate, estimated fewer exact
    /// digits than the requirement by more than the estimate's seed-to-seed spread allows
    /// (`validate::CONFIRM_SLACK`).
    Unconfirmed {
        /// `name[index]`.
        value: String,
        /// Estimated exact digits.
        digits: f64,
        /// Required digits.
        required: f64,
        /// How far short the estimate could have been.
        slack: f64,
    },
    /// A 16-bit overflow occurred.
    Overflow {
        /// How many.
        count: u64,
    },
    /// Valid under the search's seed, but not when the configuration was re-checked (a DSA run
    /// with another seed, or the native build): the search is run again without it.
    RecheckFailed {
        /// What the re-check found.
        detail: String,
    },
    /// Its native build, run first because runs under DSA cost much more (`--native-first`),
    /// does not meet the requirement; it was not run under DSA.
    NativeFailed {
        /// What the native run found.
        detail: String,
    },
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::BuildFailed { error } => write!(f, "build failed: {error}"),
            Reason::Crashed { code, signal, stderr_tail } => {
                match (code, signal) {
                    (_, Some(s)) => write!(f, "killed by signal {s}")?,
                    (Some(c), _) => write!(f, "exited with code {c}")?,
                    _ => write!(f, "crashed")?,
                }
                // A panic's message is the line after "panicked at"; otherwise the last line.
                let lines: Vec<&str> = stderr_tail.lines().filter(|l| !l.trim().is_empty()).collect();
                let panic = lines.iter().position(|l| l.contains("panicked at")).map(|i| {
                    let message = lines.get(i + 1).copied().unwrap_or("");
                    format!("{} {}", lines[i].trim(), message.trim())
                });
                let shown = panic.or_else(|| lines.last().map(|l| l.trim().to_string())).unwrap_or_default();
                if !shown.is_empty() {
                    write!(f, ": {shown}")?;
                }
                Ok(())
            }
            Reason::TimedOut { seconds } => write!(f, "timed out after {seconds:.0} s"),
            Reason::CountMismatch { expected, got } => {
                write!(f, "checked {got} values, the reference checked {expected}")
            }
            Reason::ChecksDiffer { position, expected, got } => {
                write!(f, "check #{position} is {got}, the reference checked {expected} there")
            }
            Reason::NotFinite { value } => write!(f, "{value} is not finite"),
            Reason::Disagrees { value, got, reference, digits_in_common, required } => write!(
                f,
                "{value} = {got:e} agrees with the reference {reference:e} to {digits_in_common:.2} digits, {required} required"
            ),
            Reason::MetricExceeded { check, metric, measured, bound, at } => {
                write!(f, "check `{check}`: {metric} = {measured:.3e} exceeds its bound {}", crate::validate::short(*bound))?;
                match at {
                    Some(at) => write!(f, " (at {at})"),
                    None => Ok(()),
                }
            }
            Reason::TooFewDigits { value, digits, required } => {
                write!(f, "{value} has {digits:.2} exact digits (DSA), {required} required")
            }
            Reason::Unconfirmed { value, digits, required, slack } => write!(
                f,
                "{value} has {digits:.2} exact digits (DSA) with another seed, {} needed to confirm {required}",
                required - slack
            ),
            Reason::Overflow { count } => write!(f, "{count} overflow(s) in a 16-bit format"),
            Reason::RecheckFailed { detail } => write!(f, "valid under the search's seed, not when re-checked: {detail}"),
            Reason::NativeFailed { detail } => write!(f, "natively: {detail}"),
        }
    }
}

/// What testing one configuration gave.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The configuration.
    pub configuration: Configuration,
    /// `None` when valid.
    pub invalid: Option<Reason>,
    /// Seconds spent compiling (0 when served from the cache).
    pub build_seconds: f64,
    /// Seconds spent running.
    pub run_seconds: f64,
    /// Whether it was served from the cache.
    pub cached: bool,
    /// The candidate's log, relative to the output dir.
    pub log: Option<PathBuf>,
}

impl Outcome {
    /// Whether the configuration is valid.
    pub fn is_valid(&self) -> bool {
        self.invalid.is_none()
    }
}

/// The arithmetic a configuration's build computes in: each format's own round-to-nearest
/// (native), or discrete stochastic arithmetic with a seed. Written as the seed, `null` for
/// native (the cache's `"seed"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(from = "Option<u64>", into = "Option<u64>")]
pub enum Arithmetic {
    /// Native: each format's own arithmetic, no samples.
    Native,
    /// Discrete stochastic arithmetic, its random rounding seeded with `seed`.
    Dsa {
        /// The seed.
        seed: u64,
    },
}

impl Arithmetic {
    /// The seed of DSA, `None` for native.
    pub fn seed(self) -> Option<u64> {
        match self {
            Arithmetic::Native => None,
            Arithmetic::Dsa { seed } => Some(seed),
        }
    }

    /// Whether it is discrete stochastic arithmetic (with any seed).
    pub fn is_dsa(self) -> bool {
        matches!(self, Arithmetic::Dsa { .. })
    }
}

// The cache's `"seed"` field is read and written through these two (`#[serde(from, into)]`);
// the tuner's own code says `Arithmetic`.
impl From<Option<u64>> for Arithmetic {
    /// A seed is DSA with it; none is native.
    fn from(seed: Option<u64>) -> Arithmetic {
        seed.map_or(Arithmetic::Native, |seed| Arithmetic::Dsa { seed })
    }
}

impl From<Arithmetic> for Option<u64> {
    fn from(a: Arithmetic) -> Option<u64> {
        a.seed()
    }
}

/// What building and running one configuration gave, whatever the requirement: the cache stores
/// these, so a run serves every requirement (a batch over digits tests each configuration once).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CandidateRun {
    /// The configuration.
    pub configuration: Configuration,
    /// Its arithmetic: native, or DSA with a seed (saved as `"seed"`, `null` for native).
    #[serde(rename = "seed")]
    pub arithmetic: Arithmetic,
    /// What happened.
    pub result: RunResult,
    /// Seconds spent compiling.
    pub build_seconds: f64,
    /// Seconds spent running (for a native run timed several times: the fastest).
    pub run_seconds: f64,
    /// How many times it ran ([`CandidateRun::run_seconds`] is the fastest): the search runs a
    /// candidate once, the re-check times a native build by the fastest of three.
    #[serde(default = "one")]
    pub runs: u32,
    /// The candidate's log, relative to the output dir.
    pub log: Option<PathBuf>,
}

fn one() -> u32 {
    1
}

/// How a candidate's build and run ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum RunResult {
    /// It did not compile (or cannot: the probe build said so).
    BuildFailed {
        /// rustc's first error.
        error: String,
    },
    /// Killed at the timeout.
    TimedOut {
        /// The timeout.
        seconds: f64,
    },
    /// It exited with an error or was killed by a signal.
    Crashed {
        /// Exit code, if it exited.
        code: Option<i32>,
        /// Signal, if killed.
        signal: Option<i32>,
        /// The end of its standard error.
        stderr_tail: String,
    },
    /// It stopped at its first 16-bit overflow (candidates run with
    /// `FPTUNE_STOP_ON_OVERFLOW`): invalid whatever the requirement.
    Overflowed,
    /// It ran to the end: its checked values.
    Finished {
        /// The checked values, in order.
        records: Vec<Record>,
        /// 16-bit overflows the stochastic runtime detected before the last check.
        overflows: u64,
    },
}

impl CandidateRun {
    /// The outcome of this run under a verdict (`None`: valid), with its times, or with zero
    /// times and `cached` when it is served again.
    pub fn outcome(&self, invalid: Option<Reason>, cached: bool) -> Outcome {
        let (build_seconds, run_seconds) = if cached { (0.0, 0.0) } else { (self.build_seconds, self.run_seconds) };
        Outcome { configuration: self.configuration.clone(), invalid, build_seconds, run_seconds, cached, log: self.log.clone() }
    }

    /// The reason it is invalid whatever the requirement (no build, a crash, a timeout), if any.
    pub fn failure(&self) -> Option<Reason> {
        match &self.result {
            RunResult::BuildFailed { error } => Some(Reason::BuildFailed { error: error.clone() }),
            RunResult::TimedOut { seconds } => Some(Reason::TimedOut { seconds: *seconds }),
            RunResult::Crashed { code, signal, stderr_tail } => {
                Some(Reason::Crashed { code: *code, signal: *signal, stderr_tail: stderr_tail.clone() })
            }
            RunResult::Overflowed => Some(Reason::Overflow { count: 1 }),
            RunResult::Finished { .. } => None,
        }
    }
}

/// Serde for floats that may be infinite or NaN, which JSON cannot spell: they are written as the
/// strings `"inf"`, `"-inf"` and `"NaN"` (as `check!` writes them), and read back from those and
/// their usual variants.
pub mod float_json {
    use serde::{de, Deserialize, Deserializer, Serializer};

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Number {
        Finite(f64),
        Special(String),
    }

    fn value<E: de::Error>(n: Number) -> Result<f64, E> {
        match n {
            Number::Finite(x) => Ok(x),
            Number::Special(s) => match s.as_str() {
                "inf" | "+inf" | "Infinity" | "+Infinity" => Ok(f64::INFINITY),
                "-inf" | "-Infinity" => Ok(f64::NEG_INFINITY),
                "NaN" | "nan" | "-NaN" => Ok(f64::NAN),
                other => Err(E::custom(format!(
                    "`{other}` is not a number (expected a number, \"inf\", \"-inf\" or \"NaN\")"
                ))),
            },
        }
    }

    fn write<S: Serializer>(x: f64, s: S) -> Result<S::Ok, S::Error> {
        if x.is_finite() {
            s.serialize_f64(x)
        } else if x.is_nan() {
            s.serialize_str("NaN")
        } else if x > 0.0 {
            s.serialize_str("inf")
        } else {
            s.serialize_str("-inf")
        }
    }

    /// Writes one float.
    pub fn serialize<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
        write(*x, s)
    }

    /// Reads one float.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        value(Number::deserialize(d)?)
    }

    /// The same for a `Vec<f64>`.
    pub mod vec {
        use serde::ser::SerializeSeq;
        use serde::{Deserialize, Deserializer, Serializer};

        struct One(f64);

        impl serde::Serialize for One {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                super::write(self.0, s)
            }
        }

        /// Writes the floats.
        pub fn serialize<S: Serializer>(xs: &[f64], s: S) -> Result<S::Ok, S::Error> {
            let mut seq = s.serialize_seq(Some(xs.len()))?;
            for &x in xs {
                seq.serialize_element(&One(x))?;
            }
            seq.end()
        }

        /// Reads the floats.
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
            Vec::<super::Number>::deserialize(d)?.into_iter().map(super::value).collect()
        }
    }
}

/// A `let` knob `name` declared `f64` at `src/main.rs:1:1`, without leaves: the unit tests' knob.
#[cfg(test)]
impl Knob {
    pub(crate) fn for_test(id: usize, name: &str) -> Knob {
        Knob {
            id,
            file: "src/main.rs".into(),
            line: 1,
            column: 1,
            name: name.into(),
            kind: KnobKind::Let,
            ty: "f64".into(),
            declared: FloatFormat::F64,
            group: None,
            scope: String::new(),
            leaves: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_expressions_are_spaced_as_people_write_them() {
        for (tokens, tidy) in [
            ("printed src/main.rs:11 weigh (t , x)", "printed src/main.rs:11 weigh(t, x)"),
            ("printed src/main.rs:3 s [m + 1]", "printed src/main.rs:3 s[m + 1]"),
            ("printed src/a.rs:1 v . iter () . sum :: < f64 > ()", "printed src/a.rs:1 v.iter().sum::<f64>()"),
            ("printed src/a.rs:1 horner (& COEFFS , - x * 2.0)", "printed src/a.rs:1 horner(&COEFFS, -x * 2.0)"),
            ("printed src/a.rs:1 a - b * * p", "printed src/a.rs:1 a - b * *p"),
            ("printed src/a.rs:1 x [0 .. n] . len () < y", "printed src/a.rs:1 x[0 .. n].len() < y"),
            ("printed src/a.rs:1 f64 :: consts :: PI / vec ! [1.0] [0]", "printed src/a.rs:1 f64::consts::PI / vec![1.0][0]"),
            ("printed src/a.rs:1 x", "printed src/a.rs:1 x"),
        ] {
            assert_eq!(tidy_tokens(tokens), tidy);
            let r = Record { name: tokens.into(), index: 0, format: "binary64".into(), stochastic: false, samples: vec![1.0; 3], digits: 15.0, rule: None };
            assert_eq!(r.label(), format!("{tidy}[0]"));
        }
    }

    #[test]
    fn arithmetic_is_saved_as_its_seed_and_native_as_null() {
        assert_eq!(serde_json::to_string(&Arithmetic::Dsa { seed: 7 }).expect("json"), "7");
        assert_eq!(serde_json::to_string(&Arithmetic::Native).expect("json"), "null");
        assert_eq!(serde_json::from_str::<Arithmetic>("7").expect("json"), Arithmetic::Dsa { seed: 7 });
        assert_eq!(serde_json::from_str::<Arithmetic>("null").expect("json"), Arithmetic::Native);
        assert!(Arithmetic::Native < Arithmetic::Dsa { seed: 0 }, "ordered as the seeds they were (the cache's file order)");
    }

    #[test]
    fn each_knob_takes_its_units_format_and_a_knob_in_no_unit_stays_f64() {
        let unit = |id: usize, knobs: Vec<usize>| Unit { id, knobs, coupling: Coupling::Alone, pinned: None, unchecked: false };
        let config = Configuration(vec![FloatFormat::F32, FloatFormat::F16]);
        let formats = config.knob_formats(&[unit(0, vec![0, 3]), unit(1, vec![1])], 4);
        assert_eq!(formats, [FloatFormat::F32, FloatFormat::F16, FloatFormat::F64, FloatFormat::F32]);
    }

    #[test]
    fn records_are_equal_when_their_bits_are_and_nan_equals_nan() {
        let r = |samples: Vec<f64>, digits: f64| Record { name: "x".into(), index: 0, format: "binary64".into(), stochastic: true, samples, digits, rule: None };
        assert_eq!(r(vec![f64::NAN; 3], f64::NAN), r(vec![f64::NAN, -f64::NAN, f64::NAN], f64::NAN));
        assert_eq!(r(vec![1.0, 2.0, 3.0], 0.5), r(vec![1.0, 2.0, 3.0], 0.5));
        assert_ne!(r(vec![0.0; 3], 15.0), r(vec![-0.0, 0.0, 0.0], 15.0));
        assert_ne!(r(vec![f64::NAN; 3], 0.0), r(vec![f64::NAN, f64::NAN, 1.0], 0.0));
        assert_ne!(r(vec![1.0; 3], 15.0), r(vec![1.0; 2], 15.0));
    }

    #[test]
    fn a_checks_name_is_shown_as_written() {
        let r = Record { name: "energy: total , kinetic".into(), index: 2, format: "binary64".into(), stochastic: false, samples: vec![1.0; 3], digits: 15.0, rule: None };
        assert_eq!(r.label(), "energy: total , kinetic[2]");
    }

    #[test]
    fn records_with_infinite_and_nan_samples_survive_json() {
        let record = Record {
            name: "y".into(),
            index: 3,
            format: "f16".into(),
            stochastic: true,
            samples: vec![f64::INFINITY, f64::NEG_INFINITY, 1.5],
            digits: f64::NAN,
            rule: None,
        };
        let text = serde_json::to_string(&record).expect("serialises");
        assert!(text.contains(r#"["inf","-inf",1.5]"#), "{text}");
        let back: Record = serde_json::from_str(&text).expect("deserialises");
        assert_eq!(back.samples, record.samples);
        assert!(back.digits.is_nan());
        let bad = text.replace("\"inf\"", "\"lots\"");
        let error = serde_json::from_str::<Record>(&bad).expect_err("refused").to_string();
        assert!(error.contains("`lots` is not a number"), "{error}");
    }
}
