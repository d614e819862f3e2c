//! Unit tests of the accelerator model: each rounding point on small crafted cases, the entry of
//! values, and the DSA evaluation.

use super::*;
use crate::value::Stochastic;

fn p2(e: i32) -> f64 {
    2f64.powi(e)
}

/// `a_l b_l` pairs whose products are the powers of two `2^e_l` (signs `s_l`), split so that both
/// factors are normal binary16 values.
fn powers(terms: &[(f64, i32)]) -> (Vec<f64>, Vec<f64>) {
    terms.iter().map(|&(s, e)| (s * p2(e / 2), p2(e - e / 2))).unzip()
}

#[test]
fn alignment_drops_the_bits_below_the_datapath() {
    // 2^30 - 2^30 + 2^n: aligned to 2^30 with 25 bits below it, 2^5 stays and 2^4 is lost, in
    // whatever order (one block of 16).
    let (a, b) = powers(&[(1.0, 30), (-1.0, 30), (1.0, 5)]);
    assert_eq!(dot(&H100_F16_F32, &a, &b, 0.0), 32.0);
    let (a, b) = powers(&[(1.0, 4), (1.0, 30), (-1.0, 30)]);
    assert_eq!(dot(&H100_F16_F32, &a, &b, 0.0), 0.0);
    // A wider datapath keeps it.
    assert_eq!(dot(&Unit { fraction_bits: 26, ..H100_F16_F32 }, &a, &b, 0.0), 16.0);
}

#[test]
fn alignment_is_by_exponent_sum_or_leading_bit() {
    // 1.5 x 1.5 = 2.25 has exponent sum 0 and leading bit 1: 2.25 - 2.25 + 2^-25 keeps 2^-25 on
    // the grid of the exponent sum (2^-25), loses it on the leading bit's (2^-24).
    let a = [1.5, -1.5, p2(-12)];
    let b = [1.5, 1.5, p2(-13)];
    assert_eq!(dot(&H100_F16_F32, &a, &b, 0.0), p2(-25));
    assert_eq!(dot(&Unit { alignment: Alignment::LeadingBit, ..H100_F16_F32 }, &a, &b, 0.0), 0.0);
}

#[test]
fn alignment_truncates_toward_zero_or_rounds() {
    // 1 - 2^-26 - 2^-26 with 25 bits: each small term truncates to 0 (toward zero), rounds to
    // -2^-25 downward; with nearest even the tie goes to 0.
    let a = [1.0, -p2(-13), -p2(-13)];
    let b = [1.0, p2(-13), p2(-13)];
    assert_eq!(dot(&H100_F16_F32, &a, &b, 0.0), 1.0);
    let down = Unit { align_rounding: Rounding::Down, ..H100_F16_F32 };
    assert_eq!(dot(&down, &a, &b, 0.0), 1.0 - p2(-24));
    let nearest = Unit { align_rounding: Rounding::NearestEven, ..H100_F16_F32 };
    assert_eq!(dot(&nearest, &a, &b, 0.0), 1.0);
}

#[test]
fn the_block_sum_is_truncated_or_rounded_into_the_accumulator() {
    // 1 + 2^-23 + 2^-24: truncated to 1 + 2^-23 (the H200's result), a tie to even upward.
    let (a, b) = powers(&[(1.0, 0), (1.0, -23), (1.0, -24)]);
    assert_eq!(dot(&H100_F16_F32, &a, &b, 0.0), 1.0 + p2(-23));
    assert_eq!(dot(&Unit { acc_rounding: Rounding::NearestEven, ..H100_F16_F32 }, &a, &b, 0.0), 1.0 + p2(-22));
    // Negative: toward zero again.
    let (a, b) = powers(&[(-1.0, 0), (-1.0, -23), (-1.0, -24)]);
    assert_eq!(dot(&H100_F16_F32, &a, &b, 0.0), -1.0 - p2(-23));
    // Binary16 accumulator: 1 + 2^-11 + 2^-12 rounds to nearest, up.
    let (a, b) = powers(&[(1.0, 0), (1.0, -11), (1.0, -12)]);
    assert_eq!(dot(&H100_F16_F16, &a, &b, 0.0), 1.0 + p2(-10));
}

#[test]
fn normalisation_cuts_the_sum_before_its_rounding() {
    // 1 + 2^-11 + 2^-30 into binary16: above the tie, so up; cut to 24 bits first, the 2^-30 is
    // gone and the tie goes to even (down).
    let wide = Unit { fraction_bits: 40, acc: AccFormat::F16, acc_rounding: Rounding::NearestEven, ..H100_F16_F32 };
    let (a, b) = powers(&[(1.0, 0), (1.0, -11), (1.0, -30)]);
    assert_eq!(dot(&wide, &a, &b, 0.0), 1.0 + p2(-10));
    assert_eq!(dot(&Unit { normalise_bits: Some(24), ..wide }, &a, &b, 0.0), 1.0);
    // The FP8 preset keeps 14 significant bits: 2^16 + 2^3 stays, 2^16 + 2^3 + 2^2 loses 2^2.
    assert_eq!(dot(&H100_E4M3_F32, &[256.0, 8.0], &[256.0, 1.0], 0.0), 65544.0);
    assert_eq!(dot(&H100_E4M3_F32, &[256.0, 8.0, 4.0], &[256.0, 1.0, 1.0], 0.0), 65544.0);
}

#[test]
fn blocks_meet_the_accumulator_in_order() {
    // TF32 on the H200: two blocks of 4 per instruction. 2^30 - 2^30 in the first block, 1 in the
    // second: 1; 2^30 alone first, then -2^30 + 1: the 1 is aligned to 2^30 and lost.
    let big = p2(15);
    let a = [big, -big, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0];
    let b = [big, big, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0];
    assert_eq!(dot(&H100_TF32_F32, &a, &b, 0.0), 1.0);
    let a = [big, 0.0, 0.0, 0.0, -big, 1.0, 0.0, 0.0];
    let b = [big, 0.0, 0.0, 0.0, big, 1.0, 0.0, 0.0];
    assert_eq!(dot(&H100_TF32_F32, &a, &b, 0.0), 0.0);
    // In one block of 8 both give 0.
    assert_eq!(dot(&Unit { block: 8, ..H100_TF32_F32 }, &a, &b, 0.0), 0.0);
}

#[test]
fn c_is_aligned_with_the_products_or_added_after() {
    // 2^10 - 2^10 + c: c is aligned to 2^10 with the products, 2^-15 stays, 2^-18 is lost.
    let (a, b) = powers(&[(1.0, 10), (-1.0, 10)]);
    assert_eq!(dot(&H100_F16_F32, &a, &b, p2(-15)), p2(-15));
    assert_eq!(dot(&H100_F16_F32, &a, &b, p2(-18)), 0.0);
    // Added after the block (MI200): c survives, and the sum rounds to nearest: 1 + 3 x 2^-25
    // gives 1 + 2^-23 where the fused truncation gives 1.
    assert_eq!(dot(&MI200_DOT4_F16_F32, &a, &b, p2(-18)), p2(-18));
    let (a, b) = powers(&[(1.0, -25), (1.0, -25), (1.0, -25)]);
    assert_eq!(dot(&MI200_DOT4_F16_F32, &a, &b, 1.0), 1.0 + p2(-23));
    assert_eq!(dot(&H100_F16_F32, &a, &b, 1.0), 1.0);
}

#[test]
fn promotion_adds_chains_to_a_total_rounding_to_nearest() {
    // 2^16 then 255 products of 1: the FP8 unit keeps 13 bits below 2^16, so every 1 is lost in
    // one chain; promoted every 128 products, the first chain (2^16 and 127 ones) still loses its
    // ones, the second (128 ones) is exact and the binary32 total keeps it.
    let mut a = vec![256.0; 1];
    a.extend(std::iter::repeat_n(1.0, 255));
    let mut b = vec![256.0; 1];
    b.extend(std::iter::repeat_n(1.0, 255));
    assert_eq!(dot(&H100_E4M3_F32, &a, &b, 0.0), 65536.0);
    assert_eq!(dot(&H200_CUBLASLT_E4M3_F32, &a, &b, 0.0), 65536.0 + 128.0);
    // c starts the total and is not cut to the unit's 14 bits.
    assert_eq!(dot(&H200_CUBLASLT_E4M3_F32, &[1.0], &[1.0], 1.0 + p2(-20)), 2.0 + p2(-20));
    assert_eq!(dot(&H100_E4M3_F32, &[1.0], &[1.0], 1.0 + p2(-20)), 2.0);
}

#[test]
fn subnormals_are_kept_or_flushed() {
    // A binary16 subnormal input (2^-20) times 1.
    assert_eq!(dot(&H100_F16_F32, &[p2(-20)], &[1.0], 0.0), p2(-20));
    assert_eq!(dot(&MI200_DOT4_F16_F32, &[p2(-20)], &[1.0], 0.0), 0.0);
    // A binary32 subnormal result from bfloat16 inputs: 2^-70 x 2^-70.
    let bf = H100_BF16_F32;
    assert_eq!(dot(&bf, &[p2(-70)], &[p2(-70)], 0.0), p2(-140));
    assert_eq!(dot(&Unit { output_subnormals: Subnormals::Flush, ..bf }, &[p2(-70)], &[p2(-70)], 0.0), 0.0);
}

#[test]
fn overflow_and_special_values() {
    // 2^16 + 2^16 overflows binary16: infinity with rounding to nearest, and it stays through the
    // next instruction.
    let a = vec![256.0f64; 18];
    let b = vec![256.0f64; 18];
    assert_eq!(dot(&H100_F16_F16, &a, &b, 0.0), f64::INFINITY);
    assert!(dot(&H100_F16_F32, &[f64::NAN], &[1.0], 0.0).is_nan());
    assert_eq!(dot(&H100_F16_F32, &[f64::INFINITY, 1.0], &[1.0, 1.0], 0.0), f64::INFINITY);
    // Sums of zeros keep IEEE 754's sign rules.
    assert_eq!(dot(&H100_F16_F32, &[-0.0], &[1.0], -0.0).to_bits(), (-0.0f64).to_bits());
    assert_eq!(dot(&H100_F16_F32, &[1.0, -1.0], &[1.0, 1.0], 0.0).to_bits(), 0.0f64.to_bits());
}

#[test]
fn values_off_the_input_format_are_rounded_to_nearest_on_entry() {
    // 1 + 2^-12 is not binary16: it enters as 1 (a tie to even); 1 + 3 x 2^-12 as 1 + 2^-10.
    assert_eq!(dot(&H100_F16_F32, &[1.0 + p2(-12)], &[1.0f64], 0.0), 1.0);
    assert_eq!(dot(&H100_F16_F32, &[1.0 + 3.0 * p2(-12)], &[1.0f64], 0.0), 1.0 + p2(-10));
    // c enters binary32.
    assert_eq!(dot(&H100_F16_F32, &[0.0f32], &[0.0f32], 1.0 + p2(-30)), 1.0);
    // f32, f16 and bf16 inputs alike.
    assert_eq!(dot(&H100_F16_F32, &[half::f16::from_f64(1.5)], &[half::f16::from_f64(2.0)], 0.0), 3.0);
    assert_eq!(dot(&H100_BF16_F32, &[half::bf16::from_f64(1.5)], &[half::bf16::from_f64(2.0)], 0.0), 3.0);
}

#[test]
fn matmul_is_dot_entry_by_entry() {
    let (m, n, k) = (3, 2, 37);
    let a: Vec<f32> = (0..m * k).map(|i| ((i * 7919) % 97) as f32 / 13.0 - 3.0).collect();
    let b: Vec<f32> = (0..k * n).map(|i| ((i * 104_729) % 89) as f32 / 11.0 - 4.0).collect();
    for unit in ALL {
        let mut c: Vec<f64> = (0..m * n).map(|i| i as f64 / 3.0).collect();
        let c0 = c.clone();
        matmul(&unit, m, n, k, &a, &b, &mut c);
        for i in 0..m {
            for j in 0..n {
                let col: Vec<f32> = (0..k).map(|l| b[l * n + j]).collect();
                assert_eq!(c[i * n + j].to_bits(), dot(&unit, &a[i * k..(i + 1) * k], &col, c0[i * n + j]).to_bits(), "{}", unit.name);
            }
        }
    }
}

#[test]
fn dsa_samples_of_an_exact_product_agree() {
    crate::rng::set_seed(7);
    let a: Vec<Stochastic<f32>> = [1.0f32, 2.0, 0.5].iter().map(|&x| Stochastic::new(x)).collect();
    let b: Vec<Stochastic<f32>> = [3.0f32, 0.25, 8.0].iter().map(|&x| Stochastic::new(x)).collect();
    let r = dot_stochastic(&H100_F16_F32, &a, &b, Stochastic::<f32>::new(1.0));
    assert_eq!(r.samples(), [8.5f32; 3]);
}

#[test]
fn dsa_samples_bracket_the_unit_truncation() {
    // 1 + 2^-23 + 2^-24: one inexact point (the rounding into binary32); samples 1 and 2 round it
    // opposite ways, so they are the two neighbours of the exact sum.
    let (a, b) = powers(&[(1.0, 0), (1.0, -23), (1.0, -24)]);
    let sa: Vec<Stochastic<f32>> = a.iter().map(|&x| Stochastic::new(x as f32)).collect();
    let sb: Vec<Stochastic<f32>> = b.iter().map(|&x| Stochastic::new(x as f32)).collect();
    for seed in 1..20 {
        crate::rng::set_seed(seed);
        let s = dot_stochastic(&H100_F16_F32, &sa, &sb, Stochastic::<f32>::new(0.0)).samples_f64();
        let mut pair = [s[1], s[2]];
        pair.sort_by(f64::total_cmp);
        assert_eq!(pair, [1.0 + p2(-23), 1.0 + p2(-22)]);
    }
}

#[test]
fn dsa_digits_cover_the_lost_bits_of_the_alignment() {
    // 2^30 - 2^30 + 16: the unit loses the 16 (natively 0). Under DSA the alignment rounds it to 0
    // or 32 at random: the result is numerical noise, as it should be.
    let (a, b) = powers(&[(1.0, 30), (-1.0, 30), (1.0, 4)]);
    let sa: Vec<Stochastic<f32>> = a.iter().map(|&x| Stochastic::new(x as f32)).collect();
    let sb: Vec<Stochastic<f32>> = b.iter().map(|&x| Stochastic::new(x as f32)).collect();
    crate::rng::set_seed(3);
    let r = dot_stochastic(&H100_F16_F32, &sa, &sb, Stochastic::<f32>::new(0.0));
    assert!(r.samples_f64().iter().all(|&x| x == 0.0 || x == 32.0));
    assert!(r.is_noise(), "{:?}", r.samples());
    // A value that does not fit binary16 enters it by a random rounding too.
    let x = [Stochastic::<f64>::new(1.0 + p2(-12))];
    let one = [Stochastic::<f64>::new(1.0)];
    crate::rng::set_seed(5);
    let r = dot_stochastic(&H100_F16_F32, &x, &one, Stochastic::<f64>::new(0.0)).samples_f64();
    let mut pair = [r[1], r[2]];
    pair.sort_by(f64::total_cmp);
    assert_eq!(pair, [1.0, 1.0 + p2(-10)]);
}

#[test]
fn dsa_matmul_is_dsa_dot_entry_by_entry_in_distribution() {
    // Exact data: the same numbers as the native matmul, for every preset.
    let (m, n, k) = (2, 2, 20);
    let a: Vec<f32> = (0..m * k).map(|i| (i % 5) as f32 - 2.0).collect();
    let b: Vec<f32> = (0..k * n).map(|i| (i % 3) as f32 * 0.5).collect();
    let sa: Vec<Stochastic<f32>> = a.iter().map(|&x| Stochastic::new(x)).collect();
    let sb: Vec<Stochastic<f32>> = b.iter().map(|&x| Stochastic::new(x)).collect();
    for unit in ALL {
        let mut c = vec![0.0f64; m * n];
        matmul(&unit, m, n, k, &a, &b, &mut c);
        let mut sc = vec![Stochastic::<f32>::new(0.0); m * n];
        matmul_stochastic(&unit, m, n, k, &sa, &sb, &mut sc);
        for (x, s) in c.iter().zip(&sc) {
            assert_eq!(s.samples_f64(), [*x; 3], "{}", unit.name);
        }
    }
}
