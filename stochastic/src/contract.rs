//! The contract between the runtime and the tuner (`cargo fptune`), in one place: the environment
//! variables a tuned program reads, the exit code of a run stopped at its first overflow, and the
//! JSON record a checked value is written as.
//!
//! The runtime reads and writes these names from here; the tuner sets and parses them from here
//! too, so that neither side spells them as string literals of its own. The older paths
//! (`fptune::stochastic::SIMD_ENV`, `fptune::__rt::FORMATS_ENV`, ...) are re-exports of these.
//!
//! When a variable is read: [`FORMATS_ENV`], [`STOP_ON_OVERFLOW_ENV`], [`NOISE_ORDER_ENV`] and
//! [`SIMD_ENV`] once, before `main` (`startup.rs`); [`DETECT_ENV`] and [`SEED_ENV`] at the first
//! operation that rounds; [`OUT_ENV`] at the first `check!`; [`PRINTED_ENV`] at the first printed
//! value.

// ----------------------------------------------------------------------------------------------
// Environment variables
// ----------------------------------------------------------------------------------------------

/// The run seed of the random rounding: a decimal `u64` (`0` counts as `1`). Unset (or not a
/// number), each run draws a seed from the clock and the process id. Runs of a deterministic
/// program with the same seed round the same way (`rng.rs`).
pub const SEED_ENV: &str = "FPTUNE_SEED";

/// The file every checked value (`fptune::check!`, and printed values under [`PRINTED_ENV`]) is
/// appended to, one JSON line each (see [`record`]). Unset, a run writes nothing.
pub const OUT_ENV: &str = "FPTUNE_OUT";

/// The environment variable that gives each unit's format in the single build: short names (`f64`,
/// `f32`, `f16`, `bf16`) separated by commas, unit 0 first. A unit not named keeps its declared
/// format. A list that is not one ends the process with exit code 2, before `main`.
pub const FORMATS_ENV: &str = "FPTUNE_FORMATS";

/// The environment variable that makes a run end at its first overflow of a 16-bit format, with
/// exit code [`OVERFLOW_EXIT_CODE`]. The tuner sets it for candidates: an overflow makes a
/// candidate invalid, so the rest of its run (often the slowest part: values gone infinite or
/// NaN keep every check on its slow path) would only be thrown away. The values checked before
/// it are written as usual. Set to anything but the empty string or `0` (the tuner sets
/// [`STOP_ON_OVERFLOW_ON`]).
pub const STOP_ON_OVERFLOW_ENV: &str = "FPTUNE_STOP_ON_OVERFLOW";

/// The value the tuner gives [`STOP_ON_OVERFLOW_ENV`].
pub const STOP_ON_OVERFLOW_ON: &str = "1";

/// The exit code of a run ended by [`STOP_ON_OVERFLOW_ENV`].
pub const OVERFLOW_EXIT_CODE: i32 = 86;

/// The environment variable that chooses which instabilities a run detects from its start:
/// `all`, `none`, or kinds by `fptune::stochastic::Instability::key` separated by commas
/// (`overflow,underflow`). Read once, before the first operation rounds or the program first
/// sets the detection itself, so that the program's own `set_detected` calls win. The tuner sets
/// it to [`DETECT_OVERFLOW`] for its DSA runs: a candidate's validity needs no other kind, and
/// the others' checks cost run time (the operands' noise tests of every product, the
/// cancellation test of every sum).
pub const DETECT_ENV: &str = "FPTUNE_DETECT";

/// The value the tuner gives [`DETECT_ENV`]: only overflows are detected.
pub const DETECT_OVERFLOW: &str = "overflow";

/// The environment variable that decides an order comparison (`<`, `<=`, `>`, `>=`) whose
/// difference is numerical noise by the sign of the samples' mean difference, where CADNA's
/// relational operators answer as for equal operands. Set to [`NOISE_ORDER_MEAN`] (anything
/// else, or unset: CADNA's answer). The unstable branching is counted either way.
///
/// CADNA's rule makes `s < f64::EPSILON` false for every noisy `s` near machine precision, so a
/// loop that stops on it when the native run reaches a fixed point (`|del - 1| < EPS`,
/// Numerical Recipes' continued fractions) never stops under random rounding; by the mean it
/// stops at the first iteration whose samples lie below on average, as one randomly rounded run
/// would. The tuner sets it only when the program's DSA reference fails under CADNA's rule, and
/// says so.
pub const NOISE_ORDER_ENV: &str = "FPTUNE_NOISE_ORDER";

/// The value of [`NOISE_ORDER_ENV`] that makes noisy order comparisons follow the mean.
pub const NOISE_ORDER_MEAN: &str = "mean";

/// The environment variable that makes a run record the floats it prints (set to
/// [`PRINTED_ON`]): each as a record named [`PRINTED_PREFIX`]` file:line expression`.
pub const PRINTED_ENV: &str = "FPTUNE_PRINTED";

/// The value of [`PRINTED_ENV`] that turns the recording of printed floats on.
pub const PRINTED_ON: &str = "1";

/// The machine whose matrix units [`crate::accel::machine_dot`] (`fptune::dot`) models (`h100`, `h200`, `a100`, `v100`,
/// `mi200`): the tuner sets it from the target's `machine`; unset, a dot product is the
/// accumulator format's own loop.
pub const MACHINE_ENV: &str = "FPTUNE_MACHINE";

/// The environment variable that caps the kernels a build for the default x86_64 target chooses
/// when it starts (before `main`), to test and time the others on a CPU that has more:
/// [`SIMD_SSE2`] keeps the SSE2 kernels (what a CPU without FMA or AVX-512 runs), [`SIMD_FMA`]
/// adds the FMA ones (what a CPU with AVX2 and FMA but no AVX-512 runs). A build with its
/// kernels compiled in has nothing to choose. `fptune::stochastic::kernels()` says which
/// kernels a run uses.
pub const SIMD_ENV: &str = "FPTUNE_SIMD";

/// [`SIMD_ENV`]'s cap at the SSE2 kernels.
pub const SIMD_SSE2: &str = "sse2";

/// [`SIMD_ENV`]'s cap at the FMA kernels (binary64 products with an FMA residual).
pub const SIMD_FMA: &str = "fma";

// ----------------------------------------------------------------------------------------------
// Records
// ----------------------------------------------------------------------------------------------

/// How the name of a printed value's record starts (`printed src/main.rs:42 x`): the tuner
/// tells printed values from `check!`s by it.
pub const PRINTED_PREFIX: &str = "printed ";

pub mod record {
    //! The fields of the JSON line a checked value is written as (to [`super::OUT_ENV`]'s file),
    //! in this order:
    //!
    //! ```json
    //! {"name":"d","index":0,"format":"binary64","stochastic":true,"samples":[4.6e-4,4.6e-4,4.6e-4],"digits":14.4}
    //! ```
    //!
    //! A sample or `digits` that is not finite is a string, [`INF`], [`NEG_INF`] or [`NAN`]. A check
    //! given a metric adds [`METRIC`] and the fields after it, before [`INSTABILITIES`]:
    //! `"metric":"max_rel","bound":1e-6,"floor":1e-12,"dsa_digits":false`.

    /// The name the value was checked under (`check!("name", x)`, or the expression's text).
    pub const NAME: &str = "name";
    /// The position of the value among those one `check!` recorded (elements of a slice, say).
    pub const INDEX: &str = "index";
    /// The IEEE name of the value's format (`binary64`, `binary32`, `binary16`, `bfloat16`).
    pub const FORMAT: &str = "format";
    /// Whether the value was stochastic (`false`: a native value, its one value three times).
    pub const STOCHASTIC: &str = "stochastic";
    /// The three samples, exactly (shortest round-trip decimals).
    pub const SAMPLES: &str = "samples";
    /// The exact decimal digits DSA estimates of the mean.
    pub const DIGITS: &str = "digits";
    /// Present when the check was given a metric (`check!("name", x, fptune::metric::max_rel(1e-6))`):
    /// its name, [`METRIC_DIGITS`], [`METRIC_MAX_REL`], [`METRIC_MAX_EPS_DIFF`] or [`METRIC_RMS`].
    /// Absent: the default rule (agreement to the required digits, and the DSA digits).
    pub const METRIC: &str = "metric";
    /// The metric's bound (every metric but [`METRIC_DIGITS`], whose bound is the requirement).
    pub const BOUND: &str = "bound";
    /// [`METRIC_MAX_REL`]'s floor, present when not 0: values whose `|reference|` is at most it are ignored.
    pub const FLOOR: &str = "floor";
    /// `false` when the check does not require the DSA digits (absent: required).
    pub const DSA_DIGITS: &str = "dsa_digits";
    /// [`METRIC`]: the default rule, every value within `10^-N` relative of the reference.
    pub const METRIC_DIGITS: &str = "digits";
    /// [`METRIC`]: the largest `|c - r| / |r|` over the values with `|r|` above [`FLOOR`].
    pub const METRIC_MAX_REL: &str = "max_rel";
    /// [`METRIC`]: the largest `|c - r|` in units of the last place of the value's format at `r`.
    pub const METRIC_MAX_EPS_DIFF: &str = "max_eps_diff";
    /// [`METRIC`]: the RMS of the differences relative to the RMS of the reference.
    pub const METRIC_RMS: &str = "rms";
    /// Present when instabilities were detected so far in the run: an object of their nonzero
    /// counts by `fptune::stochastic::Instability::key` (`{"overflow":2}`).
    pub const INSTABILITIES: &str = "instabilities";
    /// A sample or digit count of `+inf`.
    pub const INF: &str = "inf";
    /// A sample or digit count of `-inf`.
    pub const NEG_INF: &str = "-inf";
    /// A sample or digit count that is NaN.
    pub const NAN: &str = "NaN";
}
