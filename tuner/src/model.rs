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
    /// When rustc pins the unit to its declared format (it meets a plain float that cannot
    /// change), the place that says so: the search never lowers it.
    pub pinned: Option<String>,
}

/// The precision ladder: formats from the top (the reference) down, one Delta Debugging pass per
/// step (f64 -> f32, then f32 -> f16 for the default `ieee` target).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Ladder {
    /// Target name (`ieee`, `bf16`, or a file's).
    pub name: String,
    /// Formats, widest first.
    pub formats: Vec<FloatFormat>,
}

impl Ladder {
    /// The default: f64, f32, f16.
    pub fn ieee() -> Ladder {
        Ladder { name: "ieee".into(), formats: vec![FloatFormat::F64, FloatFormat::F32, FloatFormat::F16] }
    }

    /// f64, f32, bf16.
    pub fn bf16() -> Ladder {
        Ladder { name: "bf16".into(), formats: vec![FloatFormat::F64, FloatFormat::F32, FloatFormat::BF16] }
    }

    /// The top format (the reference's).
    pub fn top(&self) -> FloatFormat {
        self.formats[0]
    }
}

/// A configuration: the format of every unit, indexed by unit id.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Configuration(pub Vec<FloatFormat>);

impl Configuration {
    /// Every unit at `format`.
    pub fn uniform(units: usize, format: FloatFormat) -> Configuration {
        Configuration(vec![format; units])
    }

    /// Count of units at each format: `(f16+bf16, f32, f64)` as the paper's `#half-#single-#double`.
    pub fn census(&self) -> (usize, usize, usize) {
        let mut c = (0, 0, 0);
        for f in &self.0 {
            match f {
                FloatFormat::F16 | FloatFormat::BF16 => c.0 += 1,
                FloatFormat::F32 => c.1 += 1,
                FloatFormat::F64 => c.2 += 1,
            }
        }
        c
    }

    /// Short text, e.g. `f64,f32,f16`.
    pub fn key(&self) -> String {
        self.0.iter().map(|f| f.short()).collect::<Vec<_>>().join(",")
    }
}

impl fmt::Display for Configuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
    }
}

/// One checked value read from a run's `FPTUNE_OUT` file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    pub samples: Vec<f64>,
    /// DSA digit estimate.
    pub digits: f64,
}

impl Record {
    /// Mean of the samples.
    pub fn mean(&self) -> f64 {
        self.samples.iter().sum::<f64>() / self.samples.len().max(1) as f64
    }

    /// `name[index]`.
    pub fn label(&self) -> String {
        format!("{}[{}]", self.name, self.index)
    }
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
    /// The candidate's own DSA estimate has fewer exact digits than required.
    TooFewDigits {
        /// `name[index]`.
        value: String,
        /// Estimated exact digits.
        digits: f64,
        /// Required digits.
        required: f64,
    },
    /// A 16-bit overflow occurred.
    Overflow {
        /// How many.
        count: u64,
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
            Reason::TooFewDigits { value, digits, required } => {
                write!(f, "{value} has {digits:.2} exact digits (DSA), {required} required")
            }
            Reason::Overflow { count } => write!(f, "{count} overflow(s) in a 16-bit format"),
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
