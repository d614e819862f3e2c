//! `fptune::dot` on an H200 (`FPTUNE_MACHINE=h200`): the tensor core the operands' formats select,
//! bit for bit the model's; binary32 operands keep the loop.

use fptune::accel::{self, H100_F16_F32, H200_CUBLASLT_E4M3_F32};
use fptune::{f16, Stochastic, E4M3};

fn on_h200() {
    // Every test sets the same value before the first dot reads it (once per process).
    std::env::set_var(fptune::contract::MACHINE_ENV, "h200");
}

/// `1 + 2^-23 + 2^-24`: a binary32 loop rounds the tie to even (`1 + 2^-22`), the tensor core
/// truncates (`1 + 2^-23`).
fn crafted() -> (Vec<f64>, Vec<f64>) {
    (vec![1.0, 2f64.powi(-23), 2f64.powi(-24)], vec![1.0; 3])
}

#[test]
fn binary16_operands_go_through_the_tensor_core() {
    on_h200();
    let (a, b) = crafted();
    let (a16, b16): (Vec<f16>, Vec<f16>) = (a.iter().map(|&x| f16::from_f64(x)).collect(), b.iter().map(|&x| f16::from_f64(x)).collect());
    let got = fptune::dot(&a16, &b16, 0.0f32);
    assert_eq!(f64::from(got), 1.0 + 2f64.powi(-23));
    assert_eq!(f64::from(got), accel::dot(&H100_F16_F32, &a16, &b16, 0.0));
}

#[test]
fn binary32_operands_keep_the_loop() {
    on_h200();
    let (a, b) = crafted();
    let (a32, b32): (Vec<f32>, Vec<f32>) = (a.iter().map(|&x| x as f32).collect(), b.iter().map(|&x| x as f32).collect());
    assert_eq!(f64::from(fptune::dot(&a32, &b32, 0.0f32)), 1.0 + 2f64.powi(-22));
}

#[test]
fn fp8_operands_go_through_cublaslt_s_unit() {
    on_h200();
    let mut x = 0x1234_5678u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        E4M3::from_f64(((x >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 8.0)
    };
    let (a, b): (Vec<E4M3>, Vec<E4M3>) = ((0..300).map(|_| next()).collect(), (0..300).map(|_| next()).collect());
    let (af, bf): (Vec<f64>, Vec<f64>) = (a.iter().map(|x| x.to_f64()).collect(), b.iter().map(|x| x.to_f64()).collect());
    assert_eq!(f64::from(fptune::dot(&a, &b, 0.0f32)), accel::dot(&H200_CUBLASLT_E4M3_F32, &af, &bf, 0.0));
}

#[test]
fn stochastic_operands_go_through_the_unit_with_random_roundings() {
    on_h200();
    fptune::stochastic::set_seed(3);
    let (a, b) = crafted();
    let a: Vec<Stochastic<f16>> = a.iter().map(|&x| Stochastic::from_f64(x)).collect();
    let b: Vec<Stochastic<f16>> = b.iter().map(|&x| Stochastic::from_f64(x)).collect();
    let r = fptune::dot(&a, &b, Stochastic::<f32>::from_f64(0.0));
    // The truncation's error (2^-24) shows in the samples: the digits are fewer than binary32's.
    assert!(r.samples_f64().iter().all(|&s| (s - 1.0).abs() < 2f64.powi(-21)), "{:?}", r.samples_f64());
    assert!(r.digits() < 7.2, "{}", r.digits());
}

#[test]
fn units_by_machine_and_formats() {
    use accel::{unit_for, Machine};
    use fptune::formats::Spec;
    assert_eq!(unit_for(Machine::H100, Spec::BF16, Spec::F32).map(|u| u.name), Some("H100 bf16->fp32"));
    assert_eq!(unit_for(Machine::H100, Spec::F32, Spec::F32).map(|u| u.name), None);
    assert_eq!(unit_for(Machine::V100, Spec::BF16, Spec::F32).map(|u| u.name), None, "no bfloat16 on Volta");
    assert_eq!(unit_for(Machine::Mi200, Spec::F16, Spec::F32).map(|u| u.name), Some(accel::MI200_DOT4_F16_F32.name));
    assert_eq!(Machine::parse("H200"), Some(Machine::H100));
    assert_eq!(Machine::parse("tpu"), None);
}
