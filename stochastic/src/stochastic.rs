//! Run-wide control of discrete stochastic arithmetic: the random seed, which instabilities are
//! detected, and the end-of-run report.
//!
//! Instabilities are counted per kind and per thread; [`report`] adds up every thread that ever
//! computed (finished threads included) and [`reset`] clears the counts.

use std::fmt;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

pub use crate::rng::set_seed;

/// A kind of numerical instability, as CADNA names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Instability {
    /// A division whose divisor is numerical noise.
    UnstableDivision = 0,
    /// A multiplication whose two operands are numerical noise.
    UnstableMultiplication = 1,
    /// `powf`/`powi` with a base or exponent that is numerical noise.
    UnstablePower = 2,
    /// A mathematical function whose argument is numerical noise.
    UnstableMathFunction = 3,
    /// An order comparison (`<`, `<=`, `>`, `>=`) whose operands' difference is numerical noise
    /// (`==` and `!=` are not counted, as in CADNA).
    UnstableBranching = 4,
    /// floor/ceil/trunc/round or a float-to-int cast whose samples disagree, or `abs` of samples
    /// of different signs.
    UnstableIntrinsic = 5,
    /// An addition or subtraction whose result lost at least the cancellation threshold of
    /// digits against the less accurate operand.
    Cancellation = 6,
    /// A binary16/bfloat16 operation made a sample infinite from finite operands (counted once
    /// per operation; unlike CADNA, an infinity propagated by later operations is not counted
    /// again).
    Overflow = 7,
    /// A nonzero exact binary16/bfloat16 result was flushed to zero in a sample (counted once
    /// per operation).
    Underflow = 8,
}

impl Instability {
    /// Every kind, in report order.
    pub const ALL: [Instability; 9] = [
        Instability::UnstableDivision,
        Instability::UnstableMultiplication,
        Instability::UnstablePower,
        Instability::UnstableMathFunction,
        Instability::UnstableBranching,
        Instability::UnstableIntrinsic,
        Instability::Cancellation,
        Instability::Overflow,
        Instability::Underflow,
    ];

    /// How CADNA's report names this kind.
    pub fn label(self) -> &'static str {
        match self {
            Instability::UnstableDivision => "UNSTABLE DIVISION(S)",
            Instability::UnstableMultiplication => "UNSTABLE MULTIPLICATION(S)",
            Instability::UnstablePower => "UNSTABLE POWER FUNCTION(S)",
            Instability::UnstableMathFunction => "UNSTABLE MATHEMATICAL FUNCTION(S)",
            Instability::UnstableBranching => "UNSTABLE BRANCHING(S)",
            Instability::UnstableIntrinsic => "UNSTABLE INTRINSIC FUNCTION(S)",
            Instability::Cancellation => "LOSS(ES) OF ACCURACY DUE TO CANCELLATION(S)",
            Instability::Overflow => "OVERFLOW(S)",
            Instability::Underflow => "UNDERFLOW(S)",
        }
    }

    /// A short machine name (`unstable_division`, ...).
    pub fn key(self) -> &'static str {
        match self {
            Instability::UnstableDivision => "unstable_division",
            Instability::UnstableMultiplication => "unstable_multiplication",
            Instability::UnstablePower => "unstable_power",
            Instability::UnstableMathFunction => "unstable_math_function",
            Instability::UnstableBranching => "unstable_branching",
            Instability::UnstableIntrinsic => "unstable_intrinsic",
            Instability::Cancellation => "cancellation",
            Instability::Overflow => "overflow",
            Instability::Underflow => "underflow",
        }
    }

    const fn bit(self) -> u32 {
        1 << (self as u8)
    }
}

const KINDS: usize = Instability::ALL.len();
const ALL_ON: u32 = (1 << KINDS) - 1;

/// Bit set of the kinds being detected (all by default).
static DETECT: AtomicU32 = AtomicU32::new(ALL_ON);
/// Cancellation threshold in digits.
static CANCEL: AtomicU32 = AtomicU32::new(4);
/// `100^CANCEL`: the threshold in the scale cancellation detection compares (no logarithm).
static CANCEL_SCALE: AtomicU64 = AtomicU64::new(1e8f64.to_bits());
/// The kinds checked on the results of 16-bit operations.
pub(crate) const RANGE_BITS: u32 = Instability::Overflow.bit() | Instability::Underflow.bit();

type Counters = [AtomicU64; KINDS];

/// Every thread's counters; finished threads stay so that their counts are reported.
static REGISTRY: Mutex<Vec<Arc<Counters>>> = Mutex::new(Vec::new());

thread_local! {
    static COUNTERS: Arc<Counters> = {
        let c: Arc<Counters> = Arc::new(std::array::from_fn(|_| AtomicU64::new(0)));
        REGISTRY.lock().unwrap_or_else(PoisonError::into_inner).push(Arc::clone(&c));
        c
    };
}

/// Whether `kind` is being detected.
#[inline(always)]
pub fn is_detected(kind: Instability) -> bool {
    DETECT.load(Ordering::Relaxed) & kind.bit() != 0
}

/// Whether any of the operand-noise checks of `*` and `/` are on (one load for the hot path).
#[inline(always)]
pub(crate) fn detect_mask() -> u32 {
    DETECT.load(Ordering::Relaxed)
}

#[inline(always)]
pub(crate) fn mask_has(mask: u32, kind: Instability) -> bool {
    mask & kind.bit() != 0
}

/// Turns the detection of one kind on or off.
pub fn set_detected(kind: Instability, on: bool) {
    if on {
        DETECT.fetch_or(kind.bit(), Ordering::Relaxed);
    } else {
        DETECT.fetch_and(!kind.bit(), Ordering::Relaxed);
    }
}

/// Turns the detection of every kind on or off (CADNA's `CADNA_ALL` / `CADNA_NO_...`).
pub fn set_all_detected(on: bool) {
    DETECT.store(if on { ALL_ON } else { 0 }, Ordering::Relaxed);
}

/// Sets the cancellation threshold: a `+`/`-` is reported when its result has at least `digits`
/// fewer exact digits than the less accurate operand. Default 4.
pub fn set_cancellation_threshold(digits: u32) {
    CANCEL.store(digits, Ordering::Relaxed);
    CANCEL_SCALE.store(100f64.powi(digits.min(400) as i32).to_bits(), Ordering::Relaxed);
}

#[inline(always)]
pub(crate) fn cancel_scale() -> f64 {
    f64::from_bits(CANCEL_SCALE.load(Ordering::Relaxed))
}

/// The cancellation threshold in digits.
pub fn cancellation_threshold() -> u32 {
    CANCEL.load(Ordering::Relaxed)
}

/// Counts one instability of `kind` on the calling thread.
#[cold]
#[inline(never)]
pub(crate) fn record(kind: Instability) {
    COUNTERS.with(|c| c[kind as usize].fetch_add(1, Ordering::Relaxed));
}

/// Counts of every kind of instability detected so far in this run, all threads together, and
/// per thread.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    counts: [u64; KINDS],
    per_thread: Vec<[u64; KINDS]>,
    detected: u32,
}

impl Report {
    /// The number of instabilities of one kind.
    pub fn count(&self, kind: Instability) -> u64 {
        self.counts[kind as usize]
    }

    /// The number of instabilities of every kind together.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// `(kind, count)` for every kind with a nonzero count.
    pub fn iter(&self) -> impl Iterator<Item = (Instability, u64)> + '_ {
        Instability::ALL.into_iter().map(|k| (k, self.count(k))).filter(|&(_, n)| n > 0)
    }

    /// Counts of each thread that computed, in the order the threads started.
    pub fn per_thread(&self) -> &[[u64; KINDS]] {
        &self.per_thread
    }

    /// Whether an instability that invalidates results occurred (anything but cancellation,
    /// which CADNA reports as a warning only).
    pub fn is_critical(&self) -> bool {
        self.iter().any(|(k, _)| k != Instability::Cancellation)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rule = "-".repeat(64);
        writeln!(f, "{rule}")?;
        writeln!(f, "fptune {} discrete stochastic arithmetic", env!("CARGO_PKG_VERSION"))?;
        let range: u64 =
            self.count(Instability::Overflow) + self.count(Instability::Underflow);
        let others = self.total() - range;
        if others == 0 {
            writeln!(f, "No instability detected")?;
        } else {
            let critical = Instability::ALL[..6].iter().any(|&k| self.count(k) > 0);
            if critical {
                writeln!(f)?;
                writeln!(f, "CRITICAL WARNING: the self-validation detects major problem(s).")?;
                writeln!(f, "The results are NOT guaranteed.")?;
                writeln!(f)?;
            }
            let s = if others == 1 { "There is  1 numerical instability".to_string() } else {
                format!("There are {others} numerical instabilities")
            };
            writeln!(f, "{s}")?;
            for (k, n) in self.iter() {
                if !matches!(k, Instability::Overflow | Instability::Underflow) {
                    writeln!(f, "{n} {}", k.label())?;
                }
            }
        }
        if range > 0 {
            writeln!(f)?;
            writeln!(f, "BE CAREFUL: over range values have been detected.")?;
            writeln!(f, "The results are NOT guaranteed.")?;
            for k in [Instability::Overflow, Instability::Underflow] {
                let n = self.count(k);
                if n > 0 {
                    writeln!(f, "{n} {} IS(ARE) DETECTED", k.label())?;
                }
            }
        }
        let off: Vec<&str> = Instability::ALL
            .iter()
            .filter(|k| self.detected & k.bit() == 0)
            .map(|k| k.key())
            .collect();
        if !off.is_empty() {
            writeln!(f, "(not detected: {})", off.join(", "))?;
        }
        write!(f, "{rule}")
    }
}

/// The instabilities detected so far, all threads together.
pub fn report() -> Report {
    let registry = REGISTRY.lock().unwrap_or_else(PoisonError::into_inner);
    let mut counts = [0u64; KINDS];
    let mut per_thread = Vec::with_capacity(registry.len());
    for c in registry.iter() {
        let mut t = [0u64; KINDS];
        for (i, n) in c.iter().enumerate() {
            t[i] = n.load(Ordering::Relaxed);
            counts[i] += t[i];
        }
        per_thread.push(t);
    }
    Report { counts, per_thread, detected: DETECT.load(Ordering::Relaxed) }
}

/// Clears every thread's counts.
pub fn reset() {
    let registry = REGISTRY.lock().unwrap_or_else(PoisonError::into_inner);
    for c in registry.iter() {
        for n in c.iter() {
            n.store(0, Ordering::Relaxed);
        }
    }
}
