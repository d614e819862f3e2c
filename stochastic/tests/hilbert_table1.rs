//! Table 1 of the PROMISE half-precision paper (section 6.1): the pivots p1, p2, p3 and the
//! determinant D of Hilbert's matrix of size 3 by Gaussian elimination without pivoting, with
//! CADNA in double and in half precision. The paper: "CADNA displays only the digits not affected
//! by rounding errors: 14 or 15 digits in double precision and 1 to 3 digits in half precision. No
//! numerical instability, nor underflow, nor overflow is detected. The digits displayed by CADNA
//! in double and half precision are those of the exact results."
//!
//! The program is CADNA's `examples_half/ex2_cad.cc` (the paper's code), generic over the format.
//! It runs with 20 seeds. Our digits are compared the way CADNA displays them: the estimate
//! rounded to an integer, capped at 15 in double and 3 in half (an exact value has 15.95 and 3.31
//! digits here). For every seed: no value is noise, the digits shown are exact (to within one),
//! no instability, underflow or overflow is reported, and the digits shown are in the paper's
//! range, 1 to 3 in half, 14 or 15 in double give or take one: the estimate is a random variable
//! and the table one draw of it (CADNA's `examplesC/ex3`, whose pivot 2 is this p3 computed by the
//! same operations, prints it with 14 digits, and CADNA's own runs with other seeds print 13 for
//! it in a fifth of them; ours: 13 for p3 or D in 2.5% of the seeds). For every value, the median
//! of our digits over the seeds is within one of the table's.
//!
//! CADNA 3.1.12 built here with `--enable-half-emulation` prints p3 and D as `@.0` in a fifth of
//! its runs with other seeds: its half emulation spreads the samples wider than exact random
//! rounding does (median estimate for p3 0.89 digit, against 1.20 for an exact simulation in
//! rational arithmetic, which ours matches), and its display rounds the estimate down by 0.15 to
//! 0.3 digit. The paper's 1 digit is what ours shows.

// The ports keep CADNA's C statements (`x = x * y`, index loops) as they are.
#![allow(clippy::assign_op_pattern, clippy::needless_range_loop)]

mod common;

use std::sync::{Mutex, MutexGuard, PoisonError};

use fptune::stochastic::{self, Report};
use fptune::{f16, Format, Stochastic};

const SEEDS: std::ops::Range<u64> = 1..21;

/// The exact pivots 1, 1/12, 1/180 and determinant 1/2160.
const EXACT: [f64; 4] = [1.0, 1.0 / 12.0, 1.0 / 180.0, 1.0 / 2160.0];

/// Table 1, with CADNA: the significant digits shown for p1, p2, p3, D.
/// Double: 1.0000000000000000e+00, 8.333333333333333e-02, 5.55555555555555e-03,
/// 4.6296296296296e-04 (the first two are wider than the 15 digits CADNA's display holds: 15).
const DOUBLE: [u32; 4] = [15, 15, 15, 14];
/// Half: 1.00e+00, 8.3e-02, 5.e-03, 4.e-04.
const HALF: [u32; 4] = [3, 2, 1, 1];

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(PoisonError::into_inner)
}

/// `examples_half/ex2_cad.cc`: returns p1, p2, p3 and D.
fn hilbert_3<F: Format>() -> [Stochastic<F>; 4] {
    let (p, d) = common::cadna_hilbert::<F>(3);
    [p[0], p[1], p[2], d]
}

/// Runs the program with each seed and checks the table's verdicts for one format (see the file's
/// documentation).
fn check_table<F: Format>(paper: [u32; 4], range: std::ops::RangeInclusive<u32>) {
    let cap = F::MAX_DIGITS.floor() as u32;
    let mut shown_by_value: [Vec<u32>; 4] = Default::default();
    for seed in SEEDS {
        stochastic::set_seed(seed);
        stochastic::reset();
        let values = hilbert_3::<F>();
        let report: Report = stochastic::report();
        assert_eq!(report.total(), 0, "{}: seed {seed}:\n{report}", F::NAME);
        for (k, ((x, n), exact)) in values.iter().zip(paper).zip(EXACT).enumerate() {
            let what = format!("{} seed {seed} {}", F::NAME, ["p1", "p2", "p3", "D"][k]);
            assert!(!x.is_noise(), "{what}: {x:?} is noise");
            let shown = (x.digits().round() as u32).min(cap);
            shown_by_value[k].push(shown);
            assert!(
                range.contains(&shown),
                "{what}: {x} {x:?} shows {shown} digits, paper {n}"
            );
            // The digits shown are exact: the mean's error is below one unit of the last digit
            // shown (for an exact value, to within the format's own rounding of 1/n).
            let error = (x.mean() - exact).abs() / exact;
            let exact_digits = if error == 0.0 {
                f64::INFINITY
            } else {
                -error.log10()
            };
            let needed = f64::from(shown).min(F::MAX_DIGITS - 0.5) - 1.0;
            assert!(
                exact_digits >= needed,
                "{what}: {x} has {exact_digits:.2} exact digits, shows {shown}"
            );
        }
    }
    for (k, (mut shown, n)) in shown_by_value.into_iter().zip(paper).enumerate() {
        shown.sort_unstable();
        let median = shown[shown.len() / 2];
        assert!(
            median.abs_diff(n) <= 1,
            "{} {}: median {median} digits over the seeds {shown:?}, paper {n}",
            F::NAME,
            ["p1", "p2", "p3", "D"][k]
        );
    }
}

#[test]
fn double_precision_shows_14_or_15_exact_digits_without_instability() {
    let _serial = serial();
    check_table::<f64>(DOUBLE, 13..=15);
}

#[test]
fn half_precision_shows_1_to_3_exact_digits_without_instability_underflow_or_overflow() {
    let _serial = serial();
    check_table::<f16>(HALF, 1..=3);
}
