//! Run-wide control of discrete stochastic arithmetic: the random seed, which instabilities are
//! detected, and the end-of-run report.
//!
//! Instabilities are counted per kind and per thread; [`report`] adds up every thread that ever
//! computed (finished threads included) and [`reset`] clears the counts.

use std::fmt;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::startup::Plain;

pub use crate::rng::set_seed;
// The environment variables and the exit code of the tuner's protocol, defined in `contract`.
pub use crate::contract::{DETECT_ENV, NOISE_ORDER_ENV, OVERFLOW_EXIT_CODE, SIMD_ENV, STOP_ON_OVERFLOW_ENV};

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

/// Bit set of the kinds being detected (all by default), and [`SIMD_BIT`].
static DETECT: AtomicU32 = AtomicU32::new(ALL_ON);
/// Set in `DETECT` once the CPU was found to have AVX-512 (builds without AVX on x86_64): the
/// operators read the kernels' choice ([`cpu_flags`]) with the detection mask they load anyway.
pub(crate) const SIMD_BIT: u32 = 1 << 31;
/// Likewise for FMA (binary64 product residuals).
pub(crate) const FMA_BIT: u32 = 1 << 30;
/// Cancellation threshold in digits.
static CANCEL: AtomicU32 = AtomicU32::new(4);
/// `100^CANCEL`: the threshold in the scale cancellation detection compares (no logarithm).
static CANCEL_SCALE: AtomicU64 = AtomicU64::new(1e8f64.to_bits());
/// For binary64 and binary32 results: how many units in the last place the samples may lie from
/// the middle one for the result to surely keep enough digits ([`cancel_ulps_for`]); for the
/// default threshold of 4 digits.
static CANCEL_ULPS: [AtomicU64; 2] = [AtomicU64::new(DEFAULT_ULPS[0]), AtomicU64::new(DEFAULT_ULPS[1])];
/// [`cancel_ulps_for`] of the default threshold (binary64, binary32); a unit test checks them.
const DEFAULT_ULPS: [u64; 2] = [1181, 1184];
/// Per format (binary64, binary32, binary16, bfloat16): the bits of `[rho, lo, hi]` of the
/// cancellation check's ratio test for the current threshold ([`cancel_ratio_for`]).
static CANCEL_RATIO: [[AtomicU64; 3]; 4] = [
    ratio_slot(DEFAULT_RATIO[0]),
    ratio_slot(DEFAULT_RATIO[1]),
    ratio_slot(DEFAULT_RATIO[2]),
    ratio_slot(DEFAULT_RATIO[3]),
];
const fn ratio_slot(x: [f64; 3]) -> [AtomicU64; 3] {
    [AtomicU64::new(x[0].to_bits()), AtomicU64::new(x[1].to_bits()), AtomicU64::new(x[2].to_bits())]
}
/// [`cancel_ratio_for`] of the default threshold (precision 53, 24, 11, 8); a unit test checks
/// them.
const DEFAULT_RATIO: [[f64; 3]; 4] = [
    [0.002186299687344027, 1.1830521861667747e-271, 2.247116418577895e307],
    [0.0007632719686856689, 9.62964972193618e-35, 4.253529586511731e37],
    [f64::INFINITY, f64::INFINITY, 0.0],
    [f64::INFINITY, f64::INFINITY, 0.0],
];
/// The precisions [`CANCEL_RATIO`] is indexed by.
const PRECISIONS: [u32; 4] = [53, 24, 11, 8];
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

/// Which of the CPU's kernels are to be used ([`SIMD_BIT`], [`FMA_BIT`]), from [`detect_mask`]'s
/// value.
#[inline(always)]
pub(crate) fn cpu_flags(mask: u32) -> u32 {
    mask & (SIMD_BIT | FMA_BIT)
}

/// Lets the operators use the kernels of `flags` (see `lanes::choose_kernels`).
#[cfg_attr(any(not(target_arch = "x86_64"), target_feature = "avx"), allow(dead_code))]
pub(crate) fn enable_cpu(flags: u32) {
    DETECT.fetch_or(flags & (SIMD_BIT | FMA_BIT), Ordering::Relaxed);
}

/// Which kernels the operators of this build use on this CPU, e.g. `"AVX-512 (chosen at run
/// time)"`: compiled in, in a build for a CPU with AVX2 and FMA or with AVX-512; chosen before
/// `main` in a build for the default x86_64 target (AVX-512, FMA products or SSE2,
/// within the cap of [`SIMD_ENV`]).
pub fn kernels() -> &'static str {
    crate::lanes::describe()
}

/// The kinds named by a [`DETECT_ENV`] value.
pub fn parse_detected(list: &str) -> Result<Vec<Instability>, String> {
    let mut kinds = Vec::new();
    for word in list.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        match word {
            "all" => kinds.extend(Instability::ALL),
            "none" => {}
            _ => match Instability::ALL.into_iter().find(|k| k.key() == word) {
                Some(k) => kinds.push(k),
                None => {
                    let known: Vec<&str> = Instability::ALL.iter().map(|k| k.key()).collect();
                    return Err(format!("unknown instability {word:?}; known: all, none, {}", known.join(", ")));
                }
            },
        }
    }
    Ok(kinds)
}

/// Applies [`DETECT_ENV`], once per process (see there).
pub(crate) fn detect_from_env() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let Ok(list) = std::env::var(DETECT_ENV) else { return };
        match parse_detected(&list) {
            Ok(kinds) => {
                let bits = kinds.iter().fold(0, |b, k| b | k.bit());
                DETECT.fetch_and(!ALL_ON, Ordering::Relaxed);
                DETECT.fetch_or(bits, Ordering::Relaxed);
            }
            Err(e) => eprintln!("fptune: {DETECT_ENV}={list:?} ignored: {e}"),
        }
    });
}

/// Turns the detection of one kind on or off.
pub fn set_detected(kind: Instability, on: bool) {
    detect_from_env();
    if on {
        DETECT.fetch_or(kind.bit(), Ordering::Relaxed);
    } else {
        DETECT.fetch_and(!kind.bit(), Ordering::Relaxed);
    }
}

/// Turns the detection of every kind on or off (CADNA's `CADNA_ALL` / `CADNA_NO_...`).
pub fn set_all_detected(on: bool) {
    detect_from_env();
    if on {
        DETECT.fetch_or(ALL_ON, Ordering::Relaxed);
    } else {
        DETECT.fetch_and(!ALL_ON, Ordering::Relaxed);
    }
}

/// Sets the cancellation threshold: a `+`/`-` is reported when its result has at least `digits`
/// fewer exact digits than the less accurate operand. Default 4.
pub fn set_cancellation_threshold(digits: u32) {
    let k = 100f64.powi(digits.min(400) as i32);
    CANCEL.store(digits, Ordering::Relaxed);
    CANCEL_SCALE.store(k.to_bits(), Ordering::Relaxed);
    CANCEL_ULPS[0].store(cancel_ulps_for(k, 53), Ordering::Relaxed);
    CANCEL_ULPS[1].store(cancel_ulps_for(k, 24), Ordering::Relaxed);
    for (slot, p) in CANCEL_RATIO.iter().zip(PRECISIONS) {
        for (x, v) in slot.iter().zip(cancel_ratio_for(k, p)) {
            x.store(v.to_bits(), Ordering::Relaxed);
        }
    }
}

#[inline(always)]
pub(crate) fn cancel_scale() -> f64 {
    f64::from_bits(CANCEL_SCALE.load(Ordering::Relaxed))
}

/// [`cancel_ulps_for`] of the current threshold, for a format of `precision` 53 or 24 bits.
#[inline(always)]
pub(crate) fn cancel_ulps(precision: u32) -> u64 {
    CANCEL_ULPS[usize::from(precision != 53)].load(Ordering::Relaxed)
}

/// The largest `D` such that a result of a format of `precision` bits (53 or 24) whose samples
/// are normal numbers, each at most `D` units in the last place from the middle sample, surely
/// has an accuracy scale (`value::accuracy_scale`, as computed in `f64`) below `floor * k`, the
/// cancellation check's bound (`floor` the scale of an exact value of the format, `k` the
/// threshold's scale `100^digits`): such a result cannot have lost `digits` digits, and the check
/// ends without computing its spread. 0 when no spread passes (`k <= 1`, or a bound above 1).
///
/// Why: with `u = 2^(1-p)`, a sample `D` ulps from another differs from it by at most `D u M`
/// (`M` the largest magnitude), so each deviation from the mean is at most `4/3 D u M` and each
/// relative deviation `r_i` at most `R = 4/3 D u (1 + 2^-9)` (for `2 D u <= 2^-10`). `spread`
/// computes each `r_i` within `2^-50` (three roundings of `3 x_i / S`, then an exact
/// subtraction of 1), and the sum of squares and the product by `C` with relative errors of a
/// few `2^-53`. So `C v < t` when `3 C (R + 2^-50)^2 (1 + 2^-48) < t`; `D` keeps a 5% margin on
/// `R + 2^-50` against `sqrt(t / 3C)`.
pub(crate) fn cancel_ulps_for(k: f64, precision: u32) -> u64 {
    let floor = if precision == 53 { crate::ops::exact_scale::<f64>() } else { crate::ops::exact_scale::<f32>() };
    let t = floor * k;
    if !(k > 1.0 && t <= 1.0) {
        return 0;
    }
    let u = 2f64.powi(1 - precision as i32);
    let r = (t / (3.0 * crate::value::C)).sqrt() / 1.05 - 2f64.powi(-50);
    let d = (r / (4.0 / 3.0 * u * (1.0 + 2f64.powi(-9)))).floor();
    if d.is_nan() || d < 0.0 {
        0
    } else {
        d.min(2f64.powi(-11) / u) as u64
    }
}

/// [`cancel_ratio_for`] of the current threshold, for a format of `precision` 53, 24, 11 or 8.
#[inline(always)]
pub(crate) fn cancel_ratio(precision: u32) -> [f64; 3] {
    let slot = &CANCEL_RATIO[match precision {
        53 => 0,
        24 => 1,
        11 => 2,
        _ => 3,
    }];
    slot.each_ref().map(|x| f64::from_bits(x.load(Ordering::Relaxed)))
}

/// `[rho, lo, hi]` such that a sum `r = a + b` of a format of `precision` bits (53, 24, 11, 8)
/// whose first samples satisfy `|r_0| >= rho * s` with `s = |a_0| + |b_0|` (both computed in
/// `f64`) and `lo <= s <= hi` cannot be reported as a cancellation for the threshold `k`
/// (`100^digits`): the check would find `lr < worse * k` or `worse * k > 1` (`lr`, `worse` the
/// accuracy scales of the result and of the less accurate operand, `value::accuracy_scale`, as
/// computed in `f64`). `[inf, inf, 0]` (never passes) when `k < 100` or no ratio below 1/2 works.
///
/// Why. Write `u = 2^(1-p)`, `F` the scale of an exact value of the format
/// (`ops::exact_scale`), `m_x` the exact mean of a value's samples and `D_x` the Euclidean norm of
/// their deviations from it, so that the relative deviation `v_x` of `value::spread` is
/// `D_x^2 / m_x^2`; for three samples `|x_i - m_x| <= sqrt(2/3) D_x` and `|x_i - x_j| <= sqrt(2) D_x`.
/// Only `W k <= 1` matters, `W = worse >= F` (else no report). Then neither operand is noise nor
/// has a non-finite sample (their scale would be 1), and each has computed `C v' <= W`.
///
/// 1. Operands. When the computed deviations are small (here below 0.12), the samples have one
///    sign and `spread` computes each `r_i = x_i / m - 1` within `1.01 (1 + |r_i|) 2^-51` (sum,
///    quotient and product rounded, the final subtraction of 1 exact), so
///    `D_x <= sigma |m_x|` with `sigma = w (1 + 2^-51) + 2^-50`, `w = sqrt(W / C)`. (An operand
///    whose samples sum below `2^-1021`, where `3 / sum` overflows, is spread as its samples
///    scaled up by `2^600`, exactly: the same bound.)
/// 2. Result. `r_i = a_i + b_i + e_i` with the directed rounding error `|e_i| <= u |r_i|` (the
///    `r_i` are normal and finite, below). Deviations are linear, so by the triangle inequality
///    `D_r <= D_a + D_b + sqrt(3) u max|r_i| <= M tau`, `M = |m_a| + |m_b|`,
///    `tau = sigma + 2^-60 + sqrt(3) u (1 + sqrt(2/3) sigma + 2^-60) / (1 - u)`.
/// 3. The test. `s >= M (1 - sqrt(2/3) sigma - 2^-68)` and the two roundings of the test, so
///    `|r_0| >= rho A M` with `A = (1 - 2^-52)(1 - sqrt(2/3) sigma_max - 2^-68)`, and
///    `|m_r| >= M (rho A - sqrt(2/3) tau)`: `sqrt(v_r) = D_r / |m_r| <= tau / (rho A - sqrt(2/3) tau)`.
///    That is at most `Q = 0.99 min(w sqrt(k), 0.18) - 2^-50` when
///    `rho A >= tau (1 / Q + sqrt(2/3))`. The computed `lr` is then at most
///    `C (Q + 2^-50)^2 (1 + 2^-50) < min(W k, 0.099)`: below the clamp of noise to 1
///    (`sqrt(0.1 / C) > 0.18`), and below `W k` (`F < W k` as `k >= 100`). No report.
/// 4. `w` ranges over `[w0, wm]`, `w0 = sqrt(F / C)`, `wm = sqrt((1 + 2^-52) / (C k))`;
///    `tau / Q` decreases while `w sqrt(k) <= 0.18` and increases after, so its largest value is
///    at an end, and `tau` grows with `w`: `rho` takes both ends (and `sigma_max = sigma(wm)` where
///    a bound needs it), with 1% to spare for its own rounding.
/// 5. Ranges. `|r_0| >= rho A M >= 5 sqrt(2) tau M >= 5 sqrt(2) D_r` makes every `|r_i| >= |r_0| / 2`,
///    normal when `lo >= 2^(e_min + 2) / rho`; `|r_i| <= (|a_i| + |b_i|) / (1 - u) <= 2 s`, finite
///    when `hi = 2^(e_max - 2)` (and binary64 sums of operand samples stay below `2^1023`).
pub(crate) fn cancel_ratio_for(k: f64, precision: u32) -> [f64; 3] {
    const NEVER: [f64; 3] = [f64::INFINITY, f64::INFINITY, 0.0];
    let (floor, e_min, e_max) = match precision {
        53 => (crate::ops::exact_scale::<f64>(), -1022, 1023),
        24 => (crate::ops::exact_scale::<f32>(), -126, 127),
        11 => (crate::ops::exact_scale::<half::f16>(), -14, 15),
        _ => (crate::ops::exact_scale::<half::bf16>(), -126, 127),
    };
    if !(k >= 100.0 && floor * k <= 1.0) {
        return NEVER;
    }
    let c = crate::value::C;
    let u = 2f64.powi(1 - precision as i32);
    let s23 = (2.0f64 / 3.0).sqrt() * (1.0 + 1e-12);
    let sk = k.sqrt();
    let w0 = (floor / c).sqrt() * (1.0 - 1e-12);
    let wm = ((1.0 + 2f64.powi(-52)) / (c * k)).sqrt() * (1.0 + 1e-12);
    let sigma = |w: f64| w * (1.0 + 2f64.powi(-51)) + 2f64.powi(-50);
    let sigma_max = sigma(wm);
    let tau = |w: f64| sigma(w) + 2f64.powi(-60) + 3f64.sqrt() * u * (1.0 + s23 * sigma_max + 2f64.powi(-60)) / (1.0 - u);
    let q = |w: f64| 0.99 * (w * sk).min(0.18) - 2f64.powi(-50);
    let a = (1.0 - 2f64.powi(-52)) * (1.0 - s23 * sigma_max - 2f64.powi(-68));
    let (q0, qm) = (q(w0), q(wm));
    if !(sigma_max <= 0.12 && q0 > 0.0 && qm > 0.0) {
        return NEVER;
    }
    let rho = ((tau(w0) / q0).max(tau(wm) / qm) + s23 * tau(wm)) / a * 1.01;
    if rho.is_nan() || rho > 0.5 {
        return NEVER;
    }
    let mut lo = 2f64.powi(e_min + 2) / rho;
    if precision == 53 {
        lo = lo.max(2f64.powi(-900));
    }
    // A power of two at or above.
    let lo = 2f64.powi(lo.log2().ceil() as i32);
    [rho, lo, 2f64.powi(e_max - 2)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_ratio_follows_the_default_threshold() {
        for (i, p) in PRECISIONS.into_iter().enumerate() {
            assert_eq!(DEFAULT_RATIO[i], cancel_ratio_for(1e8, p), "precision {p}");
        }
    }

    #[test]
    fn detection_lists_name_kinds_by_key() {
        assert_eq!(parse_detected("overflow"), Ok(vec![Instability::Overflow]));
        assert_eq!(parse_detected(" overflow, underflow ,"), Ok(vec![Instability::Overflow, Instability::Underflow]));
        assert_eq!(parse_detected("all"), Ok(Instability::ALL.to_vec()));
        assert_eq!(parse_detected("none"), Ok(vec![]));
        assert_eq!(parse_detected(""), Ok(vec![]));
        let e = parse_detected("overflow,cancelation").expect_err("a misspelt kind");
        assert!(e.contains("\"cancelation\"") && e.contains("cancellation"), "{e}");
    }

    #[test]
    fn default_ulps_follow_the_default_threshold() {
        assert_eq!(DEFAULT_ULPS, [cancel_ulps_for(1e8, 53), cancel_ulps_for(1e8, 24)]);
        assert_eq!(cancel_ulps_for(1.0, 53), 0);
        assert_eq!(cancel_ulps_for(1e40, 24), 0);
    }
}

/// The cancellation threshold in digits.
pub fn cancellation_threshold() -> u32 {
    CANCEL.load(Ordering::Relaxed)
}

/// This thread's counts (for tests that must not see other threads').
#[cfg(test)]
pub(crate) fn thread_counts() -> [u64; KINDS] {
    COUNTERS.with(|c| std::array::from_fn(|i| c[i].load(Ordering::Relaxed)))
}

/// Counts one instability of `kind` on the calling thread (and, under
/// [`STOP_ON_OVERFLOW_ENV`], ends the process at the first overflow).
#[cold]
#[inline(never)]
pub(crate) fn record(kind: Instability) {
    // Only this thread writes its counters: a load and a store, not a locked read-modify-write
    // (a 16-bit run can count tens of millions of underflows). Other threads only read them,
    // and `reset` (meant between runs) stores zeros.
    COUNTERS.with(|c| {
        let n = &c[kind as usize];
        n.store(n.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
    });
    if kind == Instability::Overflow && stop_on_overflow() {
        eprintln!("fptune: stopped at the first overflow of a 16-bit format ({STOP_ON_OVERFLOW_ENV} is set)");
        std::process::exit(OVERFLOW_EXIT_CODE);
    }
}

/// A native single build's operation overflowed a 16-bit format (a finite value rounded to an
/// infinity): under [`STOP_ON_OVERFLOW_ENV`], the process ends as a DSA run's does; otherwise the
/// infinity goes on, as in the configuration's own native build. (An overflow makes a candidate
/// invalid under DSA, and the configuration's native code overflows there too.) Inlined, the
/// test is a plain load, and the call it makes does not return: a loop that can overflow keeps
/// no call that could write the formats its operations read ([`crate::startup`]).
#[inline(always)]
pub(crate) fn native_overflow() {
    if stop_on_overflow() {
        stop_at_native_overflow();
    }
}

#[cold]
#[inline(never)]
fn stop_at_native_overflow() -> ! {
    eprintln!("fptune: stopped at the first overflow of a 16-bit format in a native run ({STOP_ON_OVERFLOW_ENV} is set)");
    std::process::exit(OVERFLOW_EXIT_CODE);
}

/// [`STOP_ON_OVERFLOW_ENV`] as read before `main` ([`crate::startup`]).
static STOP_ON_OVERFLOW: Plain<bool> = Plain::new(false);

#[inline(always)]
fn stop_on_overflow() -> bool {
    STOP_ON_OVERFLOW.get()
}

/// Reads [`STOP_ON_OVERFLOW_ENV`].
///
/// # Safety
/// No other thread may run (it is called before `main`).
pub(crate) unsafe fn read_stop_on_overflow() {
    let stop = std::env::var_os(STOP_ON_OVERFLOW_ENV).is_some_and(|v| !v.is_empty() && v != "0");
    // SAFETY: the caller's promise.
    unsafe { STOP_ON_OVERFLOW.set(stop) }
}

/// [`NOISE_ORDER_ENV`] as read before `main` ([`crate::startup`]): whether a noisy order
/// comparison follows the mean.
static NOISE_ORDER_BY_MEAN: Plain<bool> = Plain::new(false);

/// Whether an order comparison on numerical noise follows the samples' mean ([`NOISE_ORDER_ENV`]).
#[inline(always)]
pub(crate) fn noise_order_by_mean() -> bool {
    NOISE_ORDER_BY_MEAN.get()
}

/// Reads [`NOISE_ORDER_ENV`].
///
/// # Safety
/// No other thread may run (it is called before `main`).
pub(crate) unsafe fn read_noise_order() {
    let by_mean = std::env::var_os(NOISE_ORDER_ENV).is_some_and(|v| v == crate::contract::NOISE_ORDER_MEAN);
    // SAFETY: the caller's promise.
    unsafe { NOISE_ORDER_BY_MEAN.set(by_mean) }
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
    detect_from_env();
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
    Report { counts, per_thread, detected: DETECT.load(Ordering::Relaxed) & ALL_ON }
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

