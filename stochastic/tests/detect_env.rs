//! `FPTUNE_DETECT` chooses the kinds a run detects from its first operation, and the program's
//! own settings made afterwards win. (A process of its own: the detection is global.)

use fptune::stochastic::{self, Instability, DETECT_ENV};
use fptune::{Sf16, Sf64};

#[test]
fn the_environment_chooses_the_kinds_detected_and_the_program_can_change_them() {
    // Set before the first operation of the process: the tuner sets it in a candidate's
    // environment.
    std::env::set_var(DETECT_ENV, "overflow");
    stochastic::set_seed(7);

    let unstable_product = |x: f64| {
        // Both factors are numerical noise: the difference of two nearly equal sums.
        let a = (Sf64::from(x) + Sf64::from(1e-17)) - Sf64::from(x);
        let b = (Sf64::from(x) + Sf64::from(1e-17)) - Sf64::from(x);
        (a * b).mean()
    };
    let big = Sf16::from(60000.0);
    let product = unstable_product(1.0);
    let overflowed = big * Sf16::from(2.0);
    // The samples rounded up (never all three down) became infinite.
    assert!(overflowed.samples().iter().any(|s| s.is_infinite()));
    let after_env = stochastic::report();
    assert_eq!(after_env.count(Instability::Overflow), 1, "{after_env}");
    assert_eq!(after_env.count(Instability::UnstableMultiplication), 0, "{after_env}");
    assert_eq!(after_env.count(Instability::Cancellation), 0, "{after_env}");
    assert!(stochastic::is_detected(Instability::Overflow));
    assert!(!stochastic::is_detected(Instability::Cancellation));

    // The program turns the rest back on: its own setting wins over the environment's.
    stochastic::set_all_detected(true);
    stochastic::set_seed(7);
    assert_eq!(unstable_product(1.0).to_bits(), product.to_bits(), "detection changes no value");
    let after_program = stochastic::report();
    assert!(after_program.count(Instability::UnstableMultiplication) >= 1, "{after_program}");
    assert!(after_program.count(Instability::Cancellation) >= 1, "{after_program}");
}
