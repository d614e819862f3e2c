//! [`machine_dot`] (`fptune::dot`): the dot product a user writes, computed by the matrix unit of the run's machine that
//! takes the operands' and the accumulator's formats, so that a knob's format selects the unit.
//!
//! The machine is [`crate::contract::MACHINE_ENV`] (`FPTUNE_MACHINE=h200`; the tuner sets it
//! from the target's `machine`). For operands of format `T` and an accumulator of format `A`,
//! [`unit_for`] finds the machine's preset: on an H100/H200 binary16, bfloat16, TF32 and FP8
//! operands into binary32, binary16 into binary16; on an A100 and a V100 their units; on an
//! MI200 the DOT4 unit for binary16. Without a machine, or without a unit for the pair (binary32
//! or binary64 operands, a custom format), the dot product is `c + a[0] b[0] + ...` in the
//! accumulator's format, each product and sum rounded to nearest there, as the loop a CPU runs.
//! Natively the unit's result is bit for bit the model's (`accel::dot`); under DSA each sample
//! goes through the model with its rounding points drawn at random (`accel::dot_stochastic`), or
//! through the loop's stochastic operations.

use std::sync::OnceLock;

use super::presets::*;
use super::Unit;
use crate::format::{Format, Repr};
use crate::formats::arith::{self, Rounding};
use crate::formats::Spec;
use crate::value::Stochastic;

/// A machine with matrix units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Machine {
    /// NVIDIA H100 or H200 (Hopper; the presets the H200's recorded tiles confirm).
    H100,
    /// NVIDIA A100 (Ampere).
    A100,
    /// NVIDIA V100 (Volta).
    V100,
    /// AMD MI200 (CDNA2, DOT4 with flushing).
    Mi200,
}

impl Machine {
    /// The machine of a name (`h100`, `h200`, `a100`, `v100`, `mi200`).
    pub fn parse(name: &str) -> Option<Machine> {
        match name.trim().to_ascii_lowercase().as_str() {
            "h100" | "h200" => Some(Machine::H100),
            "a100" => Some(Machine::A100),
            "v100" => Some(Machine::V100),
            "mi200" | "mi250" | "mi250x" => Some(Machine::Mi200),
            _ => None,
        }
    }

    /// The machine this run models ([`crate::contract::MACHINE_ENV`]), read once; `None` when
    /// unset. A name that is no machine ends the process with a message.
    pub fn of_run() -> Option<Machine> {
        static MACHINE: OnceLock<Option<Machine>> = OnceLock::new();
        *MACHINE.get_or_init(|| {
            let name = std::env::var(crate::contract::MACHINE_ENV).ok()?;
            if name.trim().is_empty() {
                return None;
            }
            match Machine::parse(&name) {
                Some(m) => Some(m),
                None => {
                    eprintln!("fptune: {}={name:?} is no machine (h100, h200, a100, v100, mi200)", crate::contract::MACHINE_ENV);
                    std::process::exit(2);
                }
            }
        })
    }
}

/// The unit `machine` computes a dot product of `input` operands into an `acc` accumulator with,
/// if it has one.
pub fn unit_for(machine: Machine, input: Spec, acc: Spec) -> Option<&'static Unit> {
    let (f16, bf16, tf32, e4m3, e5m2) = (input == Spec::F16, input == Spec::BF16, input == Spec::TF32, input == Spec::E4M3, input == Spec::E5M2);
    let (to32, to16) = (acc == Spec::F32, acc == Spec::F16);
    Some(match machine {
        Machine::H100 if to32 && f16 => &H100_F16_F32,
        Machine::H100 if to32 && bf16 => &H100_BF16_F32,
        Machine::H100 if to32 && tf32 => &H100_TF32_F32,
        Machine::H100 if to32 && e4m3 => &H200_CUBLASLT_E4M3_F32,
        Machine::H100 if to32 && e5m2 => &H100_E5M2_F32,
        Machine::H100 if to16 && f16 => &H100_F16_F16,
        Machine::A100 if to32 && f16 => &A100_F16_F32,
        Machine::A100 if to32 && bf16 => &A100_BF16_F32,
        Machine::A100 if to32 && tf32 => &A100_TF32_F32,
        Machine::A100 if to16 && f16 => &A100_F16_F16,
        Machine::V100 if to32 && f16 => &V100_F16_F32,
        Machine::V100 if to16 && f16 => &V100_F16_F16,
        Machine::Mi200 if to32 && f16 => &MI200_DOT4_F16_F32,
        _ => return None,
    })
}

/// Values [`machine_dot`] takes: the native formats (`f64`, `f32`, `f16`, `bf16`, `fptune::Fx`) and their
/// stochastic values.
pub trait Dot<A>: Copy {
    /// `c + sum a[i] b[i]`, see [`machine_dot`].
    fn dot(a: &[Self], b: &[Self], c: A) -> A;
}

impl<T: Format, A: Format> Dot<A> for T {
    fn dot(a: &[T], b: &[T], c: A) -> A {
        assert_eq!(a.len(), b.len(), "dot: the operands differ in length");
        let value = |x: T| x.to_repr().to_f64();
        if let Some(unit) = Machine::of_run().and_then(|m| unit_for(m, T::SPEC, A::SPEC)) {
            let (a, b): (Vec<f64>, Vec<f64>) = (a.iter().map(|&x| value(x)).collect(), b.iter().map(|&x| value(x)).collect());
            return A::from_repr(A::nearest(super::dot(unit, &a, &b, c.to_repr().to_f64())));
        }
        let (s, near) = (A::SPEC, Rounding::NearestEven);
        let mut acc = c.to_repr().to_f64();
        for (&x, &y) in a.iter().zip(b) {
            let p = arith::mul(s, arith::round(s, value(x), near), arith::round(s, value(y), near), near);
            acc = arith::add(s, acc, p, near);
        }
        A::from_repr(A::exact(acc))
    }
}

impl<F: Format, G: Format> Dot<Stochastic<G>> for Stochastic<F> {
    fn dot(a: &[Self], b: &[Self], c: Stochastic<G>) -> Stochastic<G> {
        assert_eq!(a.len(), b.len(), "dot: the operands differ in length");
        if let Some(unit) = Machine::of_run().and_then(|m| unit_for(m, F::SPEC, G::SPEC)) {
            return super::dot_stochastic(unit, a, b, c);
        }
        a.iter().zip(b).fold(c, |acc, (&x, &y)| acc + x.cast::<G>() * y.cast::<G>())
    }
}

/// `c + a[0] b[0] + a[1] b[1] + ...` as the run's machine computes it: by its matrix unit for
/// these formats (a tensor core: [`unit_for`]), else as the accumulator format's loop (see the
/// module documentation). The accumulator's type is `c`'s: `dot(&x, &y, 0.0f32)` accumulates in
/// binary32. Lowering the operands' knob to bfloat16 or E4M3 then moves the product onto the
/// tensor core that format has. Panics when `a` and `b` differ in length.
pub fn machine_dot<T: Dot<A>, A>(a: &[T], b: &[T], c: A) -> A {
    T::dot(a, b, c)
}

/// The probe build's knobs (compiled, never run): operands and accumulator need no common type
/// (a matrix unit mixes formats by design), so the result is the accumulator's.
impl<F: Format, K: crate::rt::Ids, A> Dot<A> for crate::rt::Probe<F, K> {
    fn dot(_: &[Self], _: &[Self], c: A) -> A {
        c
    }
}
