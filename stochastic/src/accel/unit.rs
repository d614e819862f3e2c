//! The model of a matrix unit's dot product, as data: formats, block size, datapath width,
//! rounding points, subnormals and where the accumulator enters.
//!
//! One instruction of a unit computes `d = sum_(l < k) a_l b_l + c` for each output entry. The
//! model ([`Unit`]) splits the `k` products into blocks of [`Unit::block`] and, block after block:
//!
//! 1. forms each product exactly (two input significands, an integer product);
//! 2. aligns the block's products (and the accumulator, when [`Unit::acc_entry`] is
//!    [`AccEntry::Fused`]) to the largest exponent among them ([`Alignment`] says which exponent a
//!    product has), keeping [`Unit::fraction_bits`] bits below it: bits further down are dropped
//!    at the first rounding point, [`Unit::align_rounding`] (truncation on NVIDIA's units);
//! 3. adds the aligned terms exactly (a wide integer adder);
//! 4. normalises the sum, optionally first cut to [`Unit::normalise_bits`] bits (the V100's
//!    24-bit normaliser before its binary16 rounding), and rounds it into the accumulator's format
//!    by [`Unit::acc_rounding`];
//! 5. with [`AccEntry::Added`], adds that block result to the accumulator in a separate
//!    floating-point addition rounded by [`Unit::add_rounding`].
//!
//! A dot product longer than `k` is a chain of instructions through the accumulator, as a GEMM
//! kernel issues them, or with [`Unit::promote`] chains of `N` products added to a total one after
//! the other. Subnormal inputs and results are kept or flushed ([`Subnormals`]).

pub use super::exact::{Rounding, Subnormals};
use crate::formats::Spec;

/// The format a unit reads its `a` and `b` inputs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InputFormat {
    /// IEEE binary16.
    F16,
    /// bfloat16.
    Bf16,
    /// NVIDIA TF32 (8 exponent bits, 10 fraction bits), held in binary32 storage.
    Tf32,
    /// OCP FP8 E4M3 (max 448, no infinities).
    E4m3,
    /// OCP FP8 E5M2.
    E5m2,
}

impl InputFormat {
    /// The format's name as the papers write it.
    pub const fn name(self) -> &'static str {
        match self {
            InputFormat::F16 => "fp16",
            InputFormat::Bf16 => "bf16",
            InputFormat::Tf32 => "tf32",
            InputFormat::E4m3 => "fp8-e4m3",
            InputFormat::E5m2 => "fp8-e5m2",
        }
    }

    pub(crate) const fn grid(self) -> Spec {
        match self {
            InputFormat::F16 => Spec::F16,
            InputFormat::Bf16 => Spec::BF16,
            InputFormat::Tf32 => Spec::TF32,
            InputFormat::E4m3 => Spec::E4M3,
            InputFormat::E5m2 => Spec::E5M2,
        }
    }
}

/// The accumulator's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccFormat {
    /// IEEE binary32.
    F32,
    /// IEEE binary16.
    F16,
}

impl AccFormat {
    /// The format's name.
    pub const fn name(self) -> &'static str {
        match self {
            AccFormat::F32 => "fp32",
            AccFormat::F16 => "fp16",
        }
    }

    pub(crate) const fn grid(self) -> Spec {
        match self {
            AccFormat::F32 => Spec::F32,
            AccFormat::F16 => Spec::F16,
        }
    }
}

/// The exponent a product is aligned by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Alignment {
    /// The sum of the two inputs' exponents: the product's significand, in `[1, 4)`, keeps its
    /// possible carry bit above the alignment point (an adder that aligns before it normalises
    /// the products, as the NVIDIA units do).
    ExponentSum,
    /// The exponent of the product's leading bit (products normalised before alignment).
    LeadingBit,
}

/// Where the accumulator `c` meets a block's products.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccEntry {
    /// `c` is one more term of the block: aligned with its products, in the same exact sum, the
    /// same rounding (NVIDIA's units from the V100's fp32 path on).
    Fused,
    /// The block sum is rounded into the accumulator's format, then added to `c` by a
    /// floating-point addition rounded by [`Unit::add_rounding`] (AMD's DOT4 unit).
    Added,
}

/// A matrix unit's dot-product arithmetic (see the module documentation for the steps).
///
/// The presets ([`super::presets`]) describe published and measured units; a unit of your own is
/// a struct literal or a preset with fields changed:
/// `Unit { fraction_bits: 23, ..fptune::accel::H100_F16_F32 }`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Unit {
    /// A short name for reports (`"H100 fp16->fp32"`).
    pub name: &'static str,
    /// The format of the `a` inputs (and of the `b` inputs unless [`Unit::input_b`] says).
    pub input: InputFormat,
    /// The format of the `b` inputs when it differs from `a`'s (FP8 E5M2 times E4M3).
    pub input_b: Option<InputFormat>,
    /// The accumulator's format (of `c` and of the result).
    pub acc: AccFormat,
    /// Products per instruction (the `k` of the `mma`): a longer dot product is a chain of
    /// instructions through the accumulator.
    pub k: usize,
    /// Products summed together in one aligned block (1 to 64; a divisor of `k`, or the last
    /// block of an instruction is shorter).
    pub block: usize,
    /// The exponent a product is aligned by.
    pub alignment: Alignment,
    /// Bits kept below the largest term's alignment exponent: the datapath's width past the
    /// binary point (23 for a binary32-wide adder with no extra bit; at most 64).
    pub fraction_bits: u32,
    /// How the bits below the kept ones are dropped from each aligned term.
    pub align_rounding: Rounding,
    /// An intermediate precision (bits) the block sum is cut to, toward zero, before its rounding
    /// into the accumulator (`None`: rounded at once).
    pub normalise_bits: Option<u32>,
    /// How the block sum is rounded into the accumulator's format.
    pub acc_rounding: Rounding,
    /// Where the accumulator enters a block.
    pub acc_entry: AccEntry,
    /// How the block result is added to the accumulator with [`AccEntry::Added`] (and a chain's
    /// result to the total with [`Unit::promote`]).
    pub add_rounding: Rounding,
    /// Promotion of the accumulator (a GEMM kernel's choice, part of what its users get): every
    /// `N` products the unit's accumulator is added to a total in the accumulator's format by an
    /// addition rounded by [`Unit::add_rounding`], and the unit starts again from zero; `c` starts
    /// the total. cuBLASLt's FP8 GEMM without fast accumulation does this every 128 products.
    /// `None`: one chain through the unit's accumulator over the whole dot product.
    pub promote: Option<usize>,
    /// Subnormal inputs read as such or as zero.
    pub input_subnormals: Subnormals,
    /// Subnormal results (and accumulator inputs) kept or flushed.
    pub output_subnormals: Subnormals,
}

impl Unit {
    /// The format of the `b` inputs.
    pub fn b_format(&self) -> InputFormat {
        self.input_b.unwrap_or(self.input)
    }

    /// The instruction count of one chain of `n` products: `ceil(n / k)` (at least one, so that
    /// an empty product still passes `c` through the unit).
    pub fn instructions(&self, n: usize) -> usize {
        n.div_ceil(self.k).max(1)
    }
}
