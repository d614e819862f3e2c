//! fptune against CADNA in one process (`paired.sh` builds it with `paired.cc`; not a bench
//! target of the workspace). The i-j-k product of `../common/product.rs` (CADNA's: `product.h`)
//! runs in blocks of rows; each block runs five times, the order rotating from block to block:
//! fptune with every instability detected, fptune with none, CADNA with every instability
//! detected, CADNA with none, and the native type. A noisy machine's phases (other tenants in the
//! caches and on the memory bus) then fall on every contestant alike, where separate runs of one
//! binary move by 2x to 4x on this project's VM: the ratios of one run are what to compare.
//!
//! Environment: `N` (matrix size, 500), `STEP` (rows per block, 10), `TY` (`sf64` against
//! `double_st` and native `f64`; `sf32` against `float_st` and `f32`; `sf16` against `half_st`
//! and `f32`). Prints one Markdown table row: ns per multiply-add of each contestant, the
//! overheads against the native type, fptune's time with every instability detected over CADNA's
//! with none (over the whole run, and the median of the blocks), the largest relative difference
//! between the two libraries' results (a check that both computed the same product: they draw
//! different random roundings, so it is a few units of the format's precision, not zero), and the
//! instabilities each counted.

use std::ffi::c_void;
use std::hint::black_box;
use std::ops::{Add, Mul};

mod common;
use common::{Clock, Inputs};
#[path = "common/product.rs"]
mod product;
use product::matmul_rows;

unsafe extern "C" {
    fn cadna_paired_init();
    fn cadna_paired_new(kind: i32, n: i32, a: *const f64, b: *const f64) -> *mut c_void;
    fn cadna_paired_rows(m: *mut c_void, lo: i32, hi: i32, detect: i32);
    fn cadna_paired_sample(m: *mut c_void, idx: usize, out: *mut f64);
    fn cadna_paired_instabilities() -> u64;
    fn cadna_paired_free(m: *mut c_void);
}

/// CADNA's matrices of one type (`paired.cc` owns them).
struct Cadna(*mut c_void);

impl Cadna {
    fn new(kind: i32, n: usize, a: &[f64], b: &[f64]) -> Cadna {
        assert!(a.len() == n * n && b.len() == n * n);
        // SAFETY: `a` and `b` hold n * n entries each, copied before the call returns.
        Cadna(unsafe { cadna_paired_new(kind, n as i32, a.as_ptr(), b.as_ptr()) })
    }
    fn rows(&self, lo: usize, hi: usize, detect: bool) {
        // SAFETY: `self.0` is a live handle; the rows are within the matrices (checked by the caller).
        unsafe { cadna_paired_rows(self.0, lo as i32, hi as i32, i32::from(detect)) }
    }
    fn samples(&self, idx: usize) -> [f64; 3] {
        let mut out = [0.0; 3];
        // SAFETY: a live handle, an entry of C, three doubles written.
        unsafe { cadna_paired_sample(self.0, idx, out.as_mut_ptr()) };
        out
    }
}

impl Drop for Cadna {
    fn drop(&mut self) {
        // SAFETY: the handle is freed once, here.
        unsafe { cadna_paired_free(self.0) }
    }
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// Times the product of `a64` and `b64` (entries in [0, 1)) block by block for every contestant:
/// fptune's type `S` (converted with `from`), CADNA's type `kind`, the native type `P` (`native`).
/// Returns the seconds each took (in the order fptune all, fptune off, CADNA all, CADNA off,
/// native), the blocks' ratios of fptune all over CADNA off, and the largest relative difference
/// of a sample of C between the two libraries.
fn race<S, P>(
    n: usize,
    step: usize,
    (a64, b64): (&[f64], &[f64]),
    from: impl Fn(f64) -> S,
    samples: impl Fn(&S) -> [f64; 3],
    kind: i32,
    native: impl Fn(f64) -> P,
) -> ([f64; 5], Vec<f64>, f64)
where
    S: Copy + Default + Add<Output = S> + Mul<Output = S>,
    P: Copy + Default + Add<Output = P> + Mul<Output = P>,
{
    let (sa, sb): (Vec<S>, Vec<S>) = (
        a64.iter().map(|&x| from(x)).collect(),
        b64.iter().map(|&x| from(x)).collect(),
    );
    let (pa, pb): (Vec<P>, Vec<P>) = (
        a64.iter().map(|&x| native(x)).collect(),
        b64.iter().map(|&x| native(x)).collect(),
    );
    let (mut c_all, mut c_off, mut c_native) = (
        vec![S::default(); n * n],
        vec![S::default(); n * n],
        vec![P::default(); n * n],
    );
    let cadna = Cadna::new(kind, n, a64, b64);
    let mut total = [0f64; 5];
    let mut ratios = Vec::new();
    for (block, lo) in (0..n).step_by(step).enumerate() {
        let hi = (lo + step).min(n);
        let mut t = [0f64; 5];
        for turn in 0..5 {
            let who = (block + turn) % 5;
            let clock = Clock::start();
            match who {
                0 | 1 => {
                    fptune::stochastic::set_all_detected(who == 0);
                    let c = if who == 0 { &mut c_all } else { &mut c_off };
                    matmul_rows(
                        black_box(&sa),
                        black_box(&sb),
                        black_box(c),
                        n,
                        lo..hi,
                        S::default(),
                    );
                }
                2 | 3 => cadna.rows(lo, hi, who == 2),
                _ => matmul_rows(
                    black_box(&pa),
                    black_box(&pb),
                    black_box(&mut c_native),
                    n,
                    lo..hi,
                    P::default(),
                ),
            }
            t[who] = clock.elapsed().as_secs_f64();
        }
        for (sum, x) in total.iter_mut().zip(t) {
            *sum += x;
        }
        ratios.push(t[0] / t[3]);
    }
    fptune::stochastic::set_all_detected(true);
    let diff = (0..n * n)
        .flat_map(|i| samples(&c_all[i]).into_iter().zip(cadna.samples(i)))
        .map(|(x, y)| ((x - y) / y).abs())
        .fold(0.0, f64::max);
    black_box((&c_all, &c_off, &c_native));
    (total, ratios, diff)
}

fn main() {
    let n = env("N", 500);
    let step = env("STEP", 10).clamp(1, n);
    let ty = std::env::var("TY").unwrap_or_else(|_| "sf64".into());
    // SAFETY: called once, before any CADNA arithmetic.
    unsafe { cadna_paired_init() };
    fptune::stochastic::set_seed(1);
    let mut g = Inputs(product::SEED);
    let a64: Vec<f64> = (0..n * n).map(|_| g.next_unit()).collect();
    let b64: Vec<f64> = (0..n * n).map(|_| g.next_unit()).collect();
    let m = (&a64[..], &b64[..]);
    let (total, mut ratios, diff) = match ty.trim() {
        "sf32" => race(
            n,
            step,
            m,
            fptune::Sf32::from,
            |x| x.samples().map(f64::from),
            1,
            |x| x as f32,
        ),
        "sf16" => race(
            n,
            step,
            m,
            fptune::Sf16::from,
            |x| x.samples().map(f64::from),
            2,
            |x| x as f32,
        ),
        _ => race(n, step, m, fptune::Sf64::from, |x| x.samples(), 0, |x| x),
    };
    ratios.sort_by(f64::total_cmp);
    let ns = total.map(|t| t * 1e9 / (n * n * n) as f64);
    let fptune_count = fptune::stochastic::report().total();
    // SAFETY: no CADNA call runs concurrently.
    let cadna_count = unsafe { cadna_paired_instabilities() };
    println!(
        "| {} | {n} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.1}x | {:.1}x | {:.1}x | {:.3} | {:.3} | {diff:.1e} | {fptune_count} / {cadna_count} |",
        ty.trim(),
        ns[0],
        ns[1],
        ns[2],
        ns[3],
        ns[4],
        ns[0] / ns[4],
        ns[2] / ns[4],
        ns[3] / ns[4],
        ns[0] / ns[3],
        ratios[ratios.len() / 2],
    );
}
