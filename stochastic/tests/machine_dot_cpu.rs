//! `fptune::dot` with no machine set: the accumulator format's own loop, whatever the operands.

use fptune::{f16, Stochastic};

#[test]
fn without_a_machine_a_dot_is_the_accumulators_loop() {
    assert!(std::env::var_os(fptune::contract::MACHINE_ENV).is_none(), "run without FPTUNE_MACHINE");
    let a: Vec<f16> = [1.0, 2f64.powi(-23), 2f64.powi(-24)].iter().map(|&x| f16::from_f64(x)).collect();
    let b = vec![f16::ONE; 3];
    // 1 + 2^-23 + 2^-24 in binary32: the tie rounds to even.
    assert_eq!(f64::from(fptune::dot(&a, &b, 0.0f32)), 1.0 + 2f64.powi(-22));
    assert_eq!(fptune::dot(&[1.5f64, 2.0], &[2.0, 0.25], 1.0f64), 4.5);
    let s: Vec<Stochastic<f64>> = vec![Stochastic::from_f64(0.1); 10];
    let r = fptune::dot(&s, &s, Stochastic::<f64>::from_f64(0.0));
    assert!((r.mean() - 0.1).abs() < 1e-15);
}
