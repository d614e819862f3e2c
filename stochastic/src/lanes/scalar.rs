//! The three-sample kernels on targets other than x86_64: the scalar kernels of `round.rs`, lane
//! by lane.

use super::dirs;
use crate::round;

#[inline(always)]
pub(crate) fn add3_f64(a: [f64; 3], b: [f64; 3], bits: u64, _cpu: u32) -> [f64; 3] {
    let d = dirs(bits);
    std::array::from_fn(|i| round::add_f64(a[i], b[i], d[i]))
}
#[inline(always)]
pub(crate) fn mul3_f64(a: [f64; 3], b: [f64; 3], bits: u64, _cpu: u32) -> [f64; 3] {
    let d = dirs(bits);
    std::array::from_fn(|i| round::mul_f64(a[i], b[i], d[i]))
}
#[inline(always)]
pub(crate) fn add3_f32(a: [f32; 3], b: [f32; 3], bits: u64, _cpu: u32) -> [f32; 3] {
    let d = dirs(bits);
    std::array::from_fn(|i| round::add_f32(a[i], b[i], d[i]))
}
#[inline(always)]
pub(crate) fn mul3_f32(a: [f32; 3], b: [f32; 3], bits: u64, _cpu: u32) -> [f32; 3] {
    let d = dirs(bits);
    std::array::from_fn(|i| round::mul_f32(a[i], b[i], d[i]))
}

#[inline(always)]
pub(crate) fn mul3_exact_f64(a: f64, b: f64, bits: u64, cpu: u32) -> [f64; 3] {
    mul3_f64([a; 3], [b; 3], bits, cpu)
}

#[inline(always)]
pub(crate) fn all_nonzero_finite_f32(s: [f32; 3]) -> bool {
    s.iter().all(|r| r.abs() > 0.0 && r.abs() < f32::INFINITY)
}

#[inline(always)]
pub(crate) fn range_events_f32(r: [f32; 3], a: [f32; 3], b: [f32; 3], exact_nonzero: bool) -> u32 {
    let mut events = 0;
    for i in 0..3 {
        let finite = a[i].is_finite() && b[i].is_finite();
        if finite && r[i].is_infinite() {
            events |= super::OVERFLOWED;
        }
        if exact_nonzero && finite && r[i] == 0.0 && a[i] != 0.0 && b[i] != 0.0 {
            events |= super::UNDERFLOWED;
        }
    }
    events
}

#[inline(always)]
pub(crate) fn exact_finite_f64(s: [f64; 3]) -> bool {
    let [a, b, c] = s.map(f64::to_bits);
    (a == b) & (b == c) & f64::from_bits(a).is_finite()
}

pub(crate) type Grid16 = round::Grid;
pub(crate) const F16: Grid16 = round::GRID_F16;
pub(crate) const BF16: Grid16 = round::GRID_BF16;

#[inline(always)]
pub(crate) fn add3_grid(a: [f32; 3], b: [f32; 3], bits: u64, g: &Grid16, _cpu: u32) -> [f32; 3] {
    let d = dirs(bits);
    std::array::from_fn(|i| round::add_grid(a[i], b[i], d[i], *g))
}
#[inline(always)]
pub(crate) fn mul3_f16(a: [f32; 3], b: [f32; 3], bits: u64, _cpu: u32) -> [f32; 3] {
    let d = dirs(bits);
    std::array::from_fn(|i| round::mul_grid(a[i], b[i], d[i], F16))
}
#[inline(always)]
pub(crate) fn mul3_bf16(a: [f32; 3], b: [f32; 3], bits: u64, _cpu: u32) -> [f32; 3] {
    let d = dirs(bits);
    std::array::from_fn(|i| round::mul_grid(a[i], b[i], d[i], BF16))
}
#[inline(always)]
pub(crate) fn round3_f32(x: [f64; 3], bits: u64, _cpu: u32) -> [f32; 3] {
    super::round3_f32_each(x, bits)
}
#[inline(always)]
pub(crate) fn round3_f16(x: [f64; 3], bits: u64, _cpu: u32) -> [f32; 3] {
    super::round3_f16_each(x, bits)
}
