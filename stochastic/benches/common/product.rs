//! The i-j-k matrix product that `matmul.rs` times, and `paired/harness.rs` by blocks of rows.

use std::ops::{Add, Mul, Range};

/// Seed of the matrices' inputs (`common::Inputs`): `A`'s entries first, then `B`'s.
pub const SEED: u64 = 0x05EE_D0FF_970E;

/// Rows `rows` of `C = A B` for n x n row-major matrices: the classic triple loop, the
/// accumulator in a local, B indexed as in `cadna/matmul.cc`.
#[inline(never)]
pub fn matmul_rows<T>(a: &[T], b: &[T], c: &mut [T], n: usize, rows: Range<usize>, zero: T)
where
    T: Copy + Add<Output = T> + Mul<Output = T>,
{
    for i in rows {
        let row = &a[i * n..(i + 1) * n];
        for j in 0..n {
            let mut s = zero;
            for (k, &aik) in row.iter().enumerate() {
                s = s + aik * b[k * n + j];
            }
            c[i * n + j] = s;
        }
    }
}
