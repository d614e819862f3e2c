//! Overhead of discrete stochastic arithmetic on a sparse matrix-vector product shaped like NPB
//! CG's: `q[i] = sum_k a[k] * p[colidx[k]]` over the row's nonzeros (CSR), with inexact values.
//!
//! Run: `cargo bench -p fptune --bench spmv`. `FPTUNE_BENCH_N=7000` chooses the order (CG class W),
//! `FPTUNE_BENCH_REPS=3` the repetitions (the minimum is kept), `FPTUNE_BENCH_TYPES=sf64,sf32`
//! restricts the other rows to some of `nknobs sf64 sf32 sf16 sbf16 sdyn64 sdyn32 sdyn16 knobs`
//! (native f64 and f32 always run; `sdyn*` are the single build's run-time-format values, `DynStochastic`,
//! of one format, which the tuner's candidates compute with; `knobs` is the single build's mixed
//! path, a binary16 matrix times a binary32 vector summed into a binary16 knob; `nknobs` the same
//! with the native single build's knobs, `DynNative`, which candidates' native runs compute with), `FPTUNE_BENCH_DETECTION=all` (or `off`)
//! runs the stochastic types with that detection only. Times are the thread's CPU time where Linux reports it, else wall-clock time.
//!
//! Each row has 8 to 70 nonzeros (uniform) in random columns. The matrix entries are `x / 3` with
//! `x` uniform in [0, 1) and the vector entries `y / 3` with `y` uniform in [-1, 1), each computed
//! in the row's type as `(x + x 2^e) - x 2^e` with `x = v / 3` (`e` = 18, 8, 4, 3 for binary64, binary32, binary16,
//! bfloat16; cancellation detection off meanwhile): under DSA every operand is inexact and has
//! lost about a third of its digits, as the vectors of CG have after a few iterations, so no
//! operation takes the exact-operand shortcuts, the sums' samples are too far apart for the
//! cancellation check's ulp test, and the sums of mixed-sign products exercise its full path. One timed run is 10 products; the table gives nanoseconds per
//! multiply-add and the ratio to the native type (`Sf64` against `f64`, the others against `f32`).

use std::hint::black_box;
use std::ops::{Add, Div, Mul, Sub};
use std::time::Duration;

mod common;
use common::{thread_cpu_time, Clock, Inputs};

use fptune::__rt::{DynFloat, FloatFormat, Knob, DynNative, DynStochastic};
use fptune::{Sbf16, Sf16, Sf32, Sf64};

/// The CSR pattern: row starts and column indices.
struct Pattern {
    rowstr: Vec<usize>,
    colidx: Vec<usize>,
}

fn pattern(n: usize) -> Pattern {
    let mut g = Inputs(0xC6_5EED);
    let mut rowstr = vec![0];
    let mut colidx = Vec::new();
    for _ in 0..n {
        let nz = 8 + (g.next() % 63) as usize;
        let start = colidx.len();
        colidx.extend((0..nz).map(|_| (g.next() % n as u64) as usize));
        colidx[start..].sort_unstable();
        rowstr.push(colidx.len());
    }
    Pattern { rowstr, colidx }
}

/// CG's inner product loop (`conj_grad`, `q = A p`).
#[inline(never)]
fn spmv<T>(m: &Pattern, a: &[T], p: &[T], q: &mut [T], zero: T)
where
    T: Copy + Add<Output = T> + Mul<Output = T>,
{
    for (i, qi) in q.iter_mut().enumerate() {
        let mut sum = zero;
        for k in m.rowstr[i]..m.rowstr[i + 1] {
            sum = sum + a[k] * p[m.colidx[k]];
        }
        *qi = sum;
    }
}

/// [`spmv`] with knobs of the single build as a tuned CG's inner loop has them when its matrix
/// is binary16 and its vector binary32 (units 0 and 1) and its sum a binary16 knob (unit 2): each
/// product widens the matrix entry to binary32, and each partial sum is computed in binary32 and
/// stored into the knob, rounded at random onto binary16.
fn spmv_knobs<V: DynFloat>(m: &Pattern, a: &[Knob<f64, 0, V>], p: &[Knob<f64, 1, V>], q: &mut [Knob<f64, 2, V>]) {
    for (i, qi) in q.iter_mut().enumerate() {
        let mut sum = Knob::<f64, 2, V>::default();
        for k in m.rowstr[i]..m.rowstr[i + 1] {
            sum = Knob::from_dyn(sum.get() + a[k].get() * p[m.colidx[k]].get());
        }
        *qi = sum;
    }
}

const PRODUCTS: usize = 10;

/// The matrix entries and vector elements of a run: `entry` of uniform draws in [0, 1), then
/// `element` of uniform draws in [-1, 1), made with cancellation detection off (their loss of
/// digits is made on purpose: see the module documentation).
fn inputs<A, P>(m: &Pattern, entry: impl Fn(f64) -> A, element: impl Fn(f64) -> P) -> (Vec<A>, Vec<P>) {
    use fptune::stochastic::{is_detected, set_detected, Instability::Cancellation};
    let mut g = Inputs(0x05EE_D0FF_970E);
    let cancellation = is_detected(Cancellation);
    set_detected(Cancellation, false);
    let a = (0..m.colidx.len()).map(|_| entry(g.next_unit())).collect();
    let p = (0..m.rowstr.len() - 1).map(|_| element(2.0 * g.next_unit() - 1.0)).collect();
    set_detected(Cancellation, cancellation);
    (a, p)
}

/// The fastest of `reps` timed runs of `PRODUCTS` calls of `product`.
fn fastest(reps: usize, mut product: impl FnMut()) -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..reps {
        let t = Clock::start();
        for _ in 0..PRODUCTS {
            product();
        }
        best = best.min(t.elapsed());
    }
    best
}

/// Fills the values (computed in `T`, about a third of the digits lost to the sum with `x 2^e`)
/// and times `PRODUCTS` products, the fastest of `reps` runs.
fn time<T>(m: &Pattern, reps: usize, conv: impl Fn(f64) -> T, e: i32, zero: T) -> Duration
where
    T: Copy + Add<Output = T> + Sub<Output = T> + Mul<Output = T> + Div<Output = T>,
{
    let (three, big) = (conv(3.0), conv(2f64.powi(e)));
    let value = |v: f64| {
        let x = conv(v) / three;
        (x + x * big) - x * big
    };
    let (a, p) = inputs(m, value, value);
    let mut q = vec![zero; p.len()];
    fastest(reps, || spmv(black_box(m), black_box(&a), black_box(&p), black_box(&mut q), zero))
}

/// [`time`] of [`spmv_knobs`]: the matrix and vector made as [`time`] makes them in binary16 and
/// binary32, then stored into their knobs: stochastic ones (`DynStochastic`, the DSA single build's) or
/// native ones (`DynNative`, the native single build's).
fn time_knobs<V: DynFloat>(m: &Pattern, reps: usize) -> Duration {
    // SAFETY: the bench runs on one thread.
    unsafe { fptune::__rt::set_formats("f16,f32,f16") }.expect("three formats");
    let value = |v: f64, f: FloatFormat, e: i32| {
        let x = V::from_f64(v, f) / V::from_f64(3.0, f);
        let big = V::from_f64(2f64.powi(e), f);
        (x + x * big) - x * big
    };
    type Entries<V> = Vec<Knob<f64, 0, V>>;
    let (a, p): (Entries<V>, Vec<Knob<f64, 1, V>>) =
        inputs(m, |v| Knob::from_dyn(value(v, FloatFormat::F16, 4)), |v| Knob::from_dyn(value(v, FloatFormat::F32, 8)));
    let mut q = vec![Knob::<f64, 2, V>::default(); p.len()];
    fastest(reps, || spmv_knobs(black_box(m), black_box(&a), black_box(&p), black_box(&mut q)))
}

fn main() {
    let n: usize = std::env::var("FPTUNE_BENCH_N").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(7000);
    let reps: usize =
        std::env::var("FPTUNE_BENCH_REPS").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(3).max(1);
    let only: Option<Vec<String>> = std::env::var("FPTUNE_BENCH_TYPES")
        .ok()
        .map(|v| v.split(',').map(|s| s.trim().to_lowercase()).collect());
    let want = |name: &str| only.as_ref().is_none_or(|o| o.iter().any(|x| x == name));
    let detections: Vec<bool> = match std::env::var("FPTUNE_BENCH_DETECTION").ok().as_deref() {
        Some("all") => vec![true],
        Some("off") => vec![false],
        _ => vec![true, false],
    };
    let m = pattern(n);
    let nnz = m.colidx.len();
    fptune::stochastic::set_seed(1);
    println!(
        "spmv bench: CSR, n = {n}, {nnz} nonzeros ({:.1} per row), inexact values, {PRODUCTS} products per run, min of {reps} runs, {} time",
        nnz as f64 / n as f64,
        if thread_cpu_time().is_some() { "thread CPU" } else { "wall-clock" },
    );
    let ops = (nnz * PRODUCTS) as f64;
    let t64 = time(&m, reps, |x| x, 18, 0.0f64);
    let t32 = time(&m, reps, |x| x as f32, 8, 0.0f32);
    println!();
    println!("| type | detection | ns / multiply-add | overhead |");
    println!("|---|---|---:|---|");
    println!("| f64 | - | {:.2} | 1x |", t64.as_secs_f64() * 1e9 / ops);
    println!("| f32 | - | {:.2} | 1x |", t32.as_secs_f64() * 1e9 / ops);
    let row = |name: &str, detection: &str, t: Duration, label: &str, base: Duration| {
        println!(
            "| {name} | {detection} | {:.2} | {label} = {:.1}x |",
            t.as_secs_f64() * 1e9 / ops,
            t.as_secs_f64() / base.as_secs_f64()
        );
    };
    if want("nknobs") {
        row("native knobs f16 * f32 -> f16", "-", time_knobs::<DynNative>(&m, reps), "nknobs/f32", t32);
    }
    let mut notes = Vec::new();
    for &on in &detections {
        fptune::stochastic::set_all_detected(on);
        fptune::stochastic::reset();
        let detection = if on { "all" } else { "off" };
        if want("sf64") {
            row("Sf64", detection, time(&m, reps, Sf64::from, 18, Sf64::default()), "Sf64/f64", t64);
        }
        if want("sf32") {
            row("Sf32", detection, time(&m, reps, Sf32::from, 8, Sf32::default()), "Sf32/f32", t32);
        }
        if want("sf16") {
            row("Sf16", detection, time(&m, reps, Sf16::from, 4, Sf16::default()), "Sf16/f32", t32);
        }
        if want("sbf16") {
            row("Sbf16", detection, time(&m, reps, Sbf16::from, 3, Sbf16::default()), "Sbf16/f32", t32);
        }
        // The single build's run-time-format values (`DynStochastic`), each of one format.
        if want("sdyn64") {
            row("DynStochastic f64", detection, time(&m, reps, |x| DynStochastic::of(Sf64::from(x)), 18, DynStochastic::of(Sf64::default())), "DynStochastic/f64", t64);
        }
        if want("sdyn32") {
            row("DynStochastic f32", detection, time(&m, reps, |x| DynStochastic::of(Sf32::from(x)), 8, DynStochastic::of(Sf32::default())), "DynStochastic/f32", t32);
        }
        if want("sdyn16") {
            row("DynStochastic f16", detection, time(&m, reps, |x| DynStochastic::of(Sf16::from(x)), 4, DynStochastic::of(Sf16::default())), "DynStochastic/f32", t32);
        }
        if want("knobs") {
            row("knobs f16 * f32 -> f16", detection, time_knobs::<DynStochastic>(&m, reps), "knobs/f32", t32);
        }
        if on {
            let report = fptune::stochastic::report();
            let found: Vec<String> = report.iter().map(|(k, c)| format!("{c} {}", k.key())).collect();
            notes.push(format!(
                "instabilities detected (all types, all runs): {}",
                if found.is_empty() { "none".to_string() } else { found.join(", ") }
            ));
        }
    }
    fptune::stochastic::set_all_detected(true);
    for note in notes {
        println!("\n{note}");
    }
}
