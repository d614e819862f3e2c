//! Presets: the dot-product arithmetic of NVIDIA's V100, A100 and H100/H200 tensor cores and of
//! AMD's MI200 DOT4 unit, as the papers describe them and as the recorded H200 data showed.
//!
//! Sources: Hickmann and Bradford (V100), Fasi, Higham, Mikaitis and Pranesh 2021 (V100, T4,
//! A100), Khattak and Mikaitis 2025 (through Hopper), the verification-metrics slides (MI200),
//! and for the H100/H200 presets above all `../shared/hardware-truth/`, which the test
//! `tests/h200_replay.rs` replays bit for bit. `docs/accelerators.md` says, preset by preset,
//! which parameters the data confirmed and which follow the papers unconfirmed.

use super::unit::{AccEntry, AccFormat, Alignment, InputFormat, Rounding, Subnormals, Unit};

/// The shape shared by NVIDIA's units: exact products aligned by their exponent sums to the
/// largest term with `c` among them, truncated, summed exactly, the sum truncated into binary32.
const NVIDIA: Unit = Unit {
    name: "",
    input: InputFormat::F16,
    input_b: None,
    acc: AccFormat::F32,
    k: 16,
    block: 16,
    alignment: Alignment::ExponentSum,
    fraction_bits: 23,
    align_rounding: Rounding::TowardZero,
    normalise_bits: None,
    acc_rounding: Rounding::TowardZero,
    acc_entry: AccEntry::Fused,
    add_rounding: Rounding::NearestEven,
    promote: None,
    input_subnormals: Subnormals::Keep,
    output_subnormals: Subnormals::Keep,
};

/// V100, binary16 into binary32 (Hickmann and Bradford; Fasi et al.): blocks of 4 products with
/// `c`, aligned with no bit past binary32's 24, truncated, normalised toward zero; the 16 products
/// of a `wmma` step are four such blocks in a chain. Binary32 subnormal results are flushed.
pub const V100_F16_F32: Unit = Unit { name: "V100 fp16->fp32", k: 16, block: 4, output_subnormals: Subnormals::Flush, ..NVIDIA };

/// V100, binary16 into binary16 (Hickmann and Bradford): the 4-product block is aligned and
/// truncated to 24 bits, normalised by truncation to 24 bits, rounded to nearest even into
/// binary16, then added to `c` in binary16 with rounding to nearest even.
pub const V100_F16_F16: Unit = Unit {
    name: "V100 fp16->fp16",
    acc: AccFormat::F16,
    k: 16,
    block: 4,
    normalise_bits: Some(24),
    acc_rounding: Rounding::NearestEven,
    acc_entry: AccEntry::Added,
    ..NVIDIA
};

/// A100, binary16 into binary32 (Fasi et al. 2021): blocks of 8 products with `c`, aligned to 24
/// bits plus the carries (the exact integer adder keeps them), truncated into binary32.
pub const A100_F16_F32: Unit = Unit { name: "A100 fp16->fp32", k: 16, block: 8, ..NVIDIA };

/// A100, bfloat16 into binary32 (Fasi et al. 2021): as binary16.
pub const A100_BF16_F32: Unit = Unit { name: "A100 bf16->fp32", input: InputFormat::Bf16, ..A100_F16_F32 };

/// A100, TF32 into binary32 (Fasi et al. 2021): blocks of 4 products, `k` = 8.
pub const A100_TF32_F32: Unit = Unit { name: "A100 tf32->fp32", input: InputFormat::Tf32, k: 8, block: 4, ..A100_F16_F32 };

/// A100, binary16 into binary16 (Fasi et al. 2021): the binary32 path's block, its sum cut to 24
/// bits, then rounded to nearest even into binary16.
pub const A100_F16_F16: Unit = Unit {
    name: "A100 fp16->fp16",
    acc: AccFormat::F16,
    normalise_bits: Some(24),
    acc_rounding: Rounding::NearestEven,
    ..A100_F16_F32
};

/// H100/H200, binary16 into binary32: one block of all 16 products and `c`, aligned by exponent
/// sums with 25 bits kept below the largest, truncated, the sum truncated into binary32
/// (bit-exact on every recorded H200 tile).
pub const H100_F16_F32: Unit = Unit { name: "H100 fp16->fp32", k: 16, block: 16, fraction_bits: 25, ..NVIDIA };

/// H100/H200, bfloat16 into binary32: as binary16 (bit-exact on every recorded H200 tile).
pub const H100_BF16_F32: Unit = Unit { name: "H100 bf16->fp32", input: InputFormat::Bf16, ..H100_F16_F32 };

/// H100/H200, TF32 into binary32: `k` = 8 in two blocks of 4 products, the first with `c`, the
/// second with the first's result truncated into binary32, each aligned by exponent sums with 25
/// bits kept below the largest (bit-exact on every recorded H200 tile).
pub const H100_TF32_F32: Unit = Unit { name: "H100 tf32->fp32", input: InputFormat::Tf32, k: 8, block: 4, ..H100_F16_F32 };

/// H100/H200, binary16 into binary16 (bit-exact on every recorded H200 tile).
pub const H100_F16_F16: Unit = Unit {
    name: "H100 fp16->fp16",
    acc: AccFormat::F16,
    acc_rounding: Rounding::NearestEven,
    ..H100_F16_F32
};

/// H100/H200, FP8 E4M3 into binary32, fitted to the recorded cuBLASLt products (Khattak and
/// Mikaitis 2025 and DeepSeek-V3's report agree that the FP8 accumulator keeps fewer bits than
/// binary32's): one block of 32 products and `c`, 13 bits kept below the largest exponent sum,
/// truncated, the sum truncated to 14 significant bits, then into binary32.
pub const H100_E4M3_F32: Unit = Unit { name: "H100 e4m3->fp32", input: InputFormat::E4m3, k: 32, block: 32, fraction_bits: 13, normalise_bits: Some(14), ..NVIDIA };

/// H100/H200, FP8 E5M2 into binary32: as E4M3.
pub const H100_E5M2_F32: Unit = Unit { name: "H100 e5m2->fp32", input: InputFormat::E5m2, ..H100_E4M3_F32 };

/// H100/H200, FP8 E5M2 (`a`) times E4M3 (`b`) into binary32: as E4M3.
pub const H100_E5M2XE4M3_F32: Unit = Unit { name: "H100 e5m2xe4m3->fp32", input: InputFormat::E5m2, input_b: Some(InputFormat::E4m3), ..H100_E4M3_F32 };

/// What PyTorch's `torch._scaled_mm` computes through cuBLASLt on the H200 with E4M3 operands and
/// `use_fast_accum=False`: the FP8 unit ([`H100_E4M3_F32`]) for 128 products at a time, each
/// result added to a binary32 total with rounding to nearest (bit-exact on every recorded
/// product of N(0, 16) data, K = 32 to 16384).
pub const H200_CUBLASLT_E4M3_F32: Unit = Unit { name: "H200 cuBLASLt e4m3->fp32", promote: Some(128), ..H100_E4M3_F32 };

/// [`H200_CUBLASLT_E4M3_F32`] with an E5M2 `a` operand.
pub const H200_CUBLASLT_E5M2XE4M3_F32: Unit = Unit { name: "H200 cuBLASLt e5m2xe4m3->fp32", promote: Some(128), ..H100_E5M2XE4M3_F32 };

/// AMD MI200 `DOT4_F32_F16` (the verification-metrics slides): four binary16 products summed
/// exactly (in binary64: 52 bits kept), the sum truncated to binary32, added to the binary32
/// accumulator with rounding to nearest even; binary16 subnormal inputs (below 2^-14) flushed.
pub const MI200_DOT4_F16_F32: Unit = Unit {
    name: "MI200 dot4 fp16->fp32",
    k: 4,
    block: 4,
    alignment: Alignment::LeadingBit,
    fraction_bits: 52,
    acc_entry: AccEntry::Added,
    input_subnormals: Subnormals::Flush,
    ..NVIDIA
};

/// Every preset, for reports and tests.
pub const ALL: [Unit; 16] = [
    V100_F16_F32,
    V100_F16_F16,
    A100_F16_F32,
    A100_BF16_F32,
    A100_TF32_F32,
    A100_F16_F16,
    H100_F16_F32,
    H100_BF16_F32,
    H100_TF32_F32,
    H100_F16_F16,
    H100_E4M3_F32,
    H100_E5M2_F32,
    H100_E5M2XE4M3_F32,
    H200_CUBLASLT_E4M3_F32,
    H200_CUBLASLT_E5M2XE4M3_F32,
    MI200_DOT4_F16_F32,
];
