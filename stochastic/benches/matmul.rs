//! Overhead of discrete stochastic arithmetic on the classic i-j-k matrix product.
//!
//! Run: `cargo bench -p fptune --bench matmul` (optionally with `RUSTFLAGS="-C target-cpu=native"`,
//! which gives the kernels AVX and a hardware FMA). `FPTUNE_BENCH_N=300,500` chooses the sizes,
//! `FPTUNE_BENCH_REPS=3` the repetitions (the minimum time is kept; without it the stochastic types
//! run twice), `FPTUNE_BENCH_TYPES=sf64,f16`
//! restricts the rows to some of `f16 e4m3 e11m40 sf64 sf32 sf16 sbf16 se4m3 se11m40` (the native f64 and f32 always run),
//! `FPTUNE_BENCH_DETECTION=all` (or `off`) runs the stochastic types with that detection only (for
//! instruction counts under callgrind), `FPTUNE_BENCH_INPUTS=inexact` makes every input entry
//! the quotient `x / 3` computed in the row's type (under DSA its samples differ, as in a real
//! computation, so no operation takes the exact-operand shortcuts), and in a build for the default
//! target `FPTUNE_SIMD=sse2` (or `fma`) caps the kernels chosen at run time at SSE2 (or FMA
//! products), what a CPU without AVX-512 runs.
//! Times are the thread's CPU time where Linux reports it (robust to a loaded machine), else
//! wall-clock time.
//!
//! For each size it times `C[i][j] = sum_k A[i][k] * B[k][j]` (row-major `Vec` storage, the sum in
//! a local) for native `f64` and `f32`, for `Sf64`, `Sf32`, `Sf16` and `Sbf16` with every
//! instability detected (the default), and for the stochastic types again with detection off,
//! and prints a Markdown table of the times and of the overhead ratios against the native type
//! (`Sf64/f64`, `Sf32/f32`, and `Sf16`, `Sbf16` against `f32`). `f16 (half)` is the `half`
//! crate's plain round-to-nearest binary16, for reference. The inputs are random values in
//! [0, 1) from a fixed seed. See BENCHMARKS.md for the figures and CADNA's on the same loop.

use std::hint::black_box;
use std::ops::{Add, Div, Mul};
use std::time::Duration;

mod common;
use common::{thread_cpu_time, Clock, Inputs};
#[path = "common/product.rs"]
mod product;

use fptune::{f16, Fx, Sbf16, Sf16, Sf32, Sf64, Stochastic, E4M3};

/// Whether the inputs are computed quotients (`FPTUNE_BENCH_INPUTS=inexact`).
fn inexact_inputs() -> bool {
    std::env::var("FPTUNE_BENCH_INPUTS").is_ok_and(|v| v.trim() == "inexact")
}

/// Times the product `reps` times and returns the fastest run. Each run has matrices of its own,
/// allocated and filled from the fixed seed (values in [0, 1) converted to `T`, divided by 3 in
/// `T` with inexact inputs) before the clock starts: at n = 500 the column walk of B misses the
/// caches more or less with the physical pages the matrices happen to get (4 KiB pages, so the
/// physically indexed caches see another layout each time), and one allocation timed several
/// times would only repeat its luck.
fn time<T>(n: usize, reps: usize, conv: impl Fn(f64) -> T, zero: T) -> Duration
where
    T: Copy + Add<Output = T> + Mul<Output = T> + Div<Output = T>,
{
    let inexact = inexact_inputs();
    let three = conv(3.0);
    let entry = |g: &mut Inputs| {
        let x = conv(g.next_unit());
        if inexact { x / three } else { x }
    };
    let mut best = Duration::MAX;
    for _ in 0..reps {
        let mut g = Inputs(product::SEED);
        let a: Vec<T> = (0..n * n).map(|_| entry(&mut g)).collect();
        let b: Vec<T> = (0..n * n).map(|_| entry(&mut g)).collect();
        let mut c = vec![zero; n * n];
        let t = Clock::start();
        product::matmul_rows(black_box(&a), black_box(&b), black_box(&mut c), n, 0..n, zero);
        best = best.min(t.elapsed());
        black_box(&c);
    }
    best
}

struct Row {
    name: &'static str,
    detection: &'static str,
    time: Duration,
    /// (label, time of the native type it is compared with)
    against: Option<(&'static str, Duration)>,
}

fn main() {
    let sizes: Vec<usize> = std::env::var("FPTUNE_BENCH_N")
        .ok()
        .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![300, 500]);
    let reps: usize = std::env::var("FPTUNE_BENCH_REPS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(3)
        .max(1);
    let only: Option<Vec<String>> = std::env::var("FPTUNE_BENCH_TYPES")
        .ok()
        .map(|v| v.split(',').map(|s| s.trim().to_lowercase()).collect());
    let detections: Vec<bool> = match std::env::var("FPTUNE_BENCH_DETECTION").ok().as_deref() {
        Some("all") => vec![true],
        Some("off") => vec![false],
        _ => vec![true, false],
    };
    let want = |name: &str| only.as_ref().is_none_or(|o| o.iter().any(|x| x == &name.to_lowercase()));
    fptune::stochastic::set_seed(1);
    // The stochastic types run at most twice unless the repetitions were given.
    let slow_reps = if std::env::var("FPTUNE_BENCH_REPS").is_ok() { reps } else { reps.min(2) };
    println!(
        "matmul bench: i-j-k loop, {} inputs, min of {reps} runs ({slow_reps} for the slow types), each on matrices of its own, {} time; kernels: {}",
        if inexact_inputs() { "inexact (x / 3)" } else { "exact" },
        if thread_cpu_time().is_some() { "thread CPU" } else { "wall-clock" },
        fptune::stochastic::kernels()
    );

    for n in sizes {
        let mut rows = Vec::new();
        let mut notes = Vec::new();
        let t64 = time(n, reps, |x| x, 0.0f64);
        let t32 = time(n, reps, |x| x as f32, 0.0f32);
        rows.push(Row { name: "f64", detection: "-", time: t64, against: None });
        rows.push(Row { name: "f32", detection: "-", time: t32, against: None });
        if want("f16") {
            let th = time(n, slow_reps, f16::from_f64, f16::ZERO);
            rows.push(Row { name: "f16 (half, RN)", detection: "-", time: th, against: Some(("f16/f32", t32)) });
        }
        // Formats beyond the four (`fptune::Fx`): f64 arithmetic rounded after each operation.
        if want("e4m3") {
            let t = time(n, slow_reps, E4M3::from_f64, E4M3::ZERO);
            rows.push(Row { name: "E4M3 (Fx, RN)", detection: "-", time: t, against: Some(("E4M3/f32", t32)) });
        }
        if want("e11m40") {
            let t = time(n, slow_reps, Fx::<11, 40>::from_f64, Fx::<11, 40>::ZERO);
            rows.push(Row { name: "Fx<11, 40> (RN)", detection: "-", time: t, against: Some(("Fx/f32", t32)) });
        }

        for &on in &detections {
            fptune::stochastic::set_all_detected(on);
            fptune::stochastic::reset();
            let detection = if on { "all" } else { "off" };
            if want("sf64") {
                let t = time(n, slow_reps, Sf64::from, Sf64::default());
                rows.push(Row { name: "Sf64", detection, time: t, against: Some(("Sf64/f64", t64)) });
            }
            if want("sf32") {
                let t = time(n, slow_reps, Sf32::from, Sf32::default());
                rows.push(Row { name: "Sf32", detection, time: t, against: Some(("Sf32/f32", t32)) });
            }
            if want("sf16") {
                let t = time(n, slow_reps, Sf16::from, Sf16::default());
                rows.push(Row { name: "Sf16", detection, time: t, against: Some(("Sf16/f32", t32)) });
            }
            if want("sbf16") {
                let t = time(n, slow_reps, Sbf16::from, Sbf16::default());
                rows.push(Row { name: "Sbf16", detection, time: t, against: Some(("Sbf16/f32", t32)) });
            }
            if want("se4m3") {
                let t = time(n, slow_reps, Stochastic::<E4M3>::from_f64, Stochastic::<E4M3>::default());
                rows.push(Row { name: "Stochastic<E4M3>", detection, time: t, against: Some(("SE4M3/f32", t32)) });
            }
            if want("se11m40") {
                let t = time(n, slow_reps, Stochastic::<Fx<11, 40>>::from_f64, Stochastic::<Fx<11, 40>>::default());
                rows.push(Row { name: "Stochastic<Fx<11, 40>>", detection, time: t, against: Some(("SFx/f32", t32)) });
            }
            if on {
                // Sums of products of values in [0, 1): no cancellation; only the 16-bit
                // formats may underflow (tiny inputs and products).
                let report = fptune::stochastic::report();
                let found: Vec<String> =
                    report.iter().map(|(k, c)| format!("{c} {}", k.key())).collect();
                if !found.is_empty() {
                    notes.push(format!("instabilities detected (all types): {}", found.join(", ")));
                }
            }
        }
        fptune::stochastic::set_all_detected(true);

        println!();
        println!("n = {n} ({} multiply-adds)", n * n * n);
        println!();
        println!("| type | detection | time (s) | ns / multiply-add | overhead |");
        println!("|---|---|---:|---:|---|");
        let ops = (n * n * n) as f64;
        for r in &rows {
            let secs = r.time.as_secs_f64();
            let ratio = match r.against {
                Some((label, base)) => format!("{label} = {:.1}x", secs / base.as_secs_f64()),
                None => "1x".to_string(),
            };
            println!(
                "| {} | {} | {:.3} | {:.2} | {} |",
                r.name,
                r.detection,
                secs,
                secs * 1e9 / ops,
                ratio
            );
        }
        for note in notes {
            println!("\n{note}");
        }
    }
}
