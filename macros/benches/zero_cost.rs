//! Zero cost of `#[fptune::tune]`: the same kernels with the attribute (all knobs `f64`) and
//! without it, timed in one run, interleaved, best of many. A control row times two identical
//! copies of the plain code: its ratio is the noise floor of the run.
//! Run: `cargo bench -p fptune-macros --bench zero_cost`.

use std::hint::black_box;
use std::time::{Duration, Instant};

// The same code twice: with the attribute (every knob f64) and without it.
#[fptune::tune]
mod tuned {
    /// Gaussian elimination without pivoting on an n x n Hilbert-like matrix.
    pub fn elimination(n: usize) -> f64 {
        #[tune]
        let mut h: Vec<Vec<f64>> = (0..n)
            .map(|i| (0..n).map(|j| 1.0 / ((i + j + 1) as f64) + if i == j { 1.0 } else { 0.0 }).collect())
            .collect();
        #[tune]
        let mut det: f64 = 1.0;
        for k in 0..n {
            let pivot = h[k][k];
            det *= pivot;
            for i in k + 1..n {
                let factor = h[i][k] / pivot;
                for j in k + 1..n {
                    h[i][j] -= factor * h[k][j];
                }
            }
        }
        det
    }

    /// Dot products of long vectors, through slices.
    pub fn dots(#[tune] x: &[f64], #[tune] y: &[f64], rounds: usize) -> f64 {
        let mut total = 0.0;
        for r in 0..rounds {
            let s: f64 = x.iter().zip(y).map(|(a, b)| a * b).sum();
            total += s * (r as f64);
        }
        total
    }

    /// Horner's rule over many points.
    pub fn horner(points: usize) -> f64 {
        #[tune]
        let coefficients: [f64; 6] = [1.0, -0.5, 0.25, -0.125, 0.0625, -0.03125];
        let mut acc_all = 0.0;
        for i in 0..points {
            let x = (i as f64) / (points as f64);
            let mut acc: f64 = 0.0;
            for c in coefficients {
                acc = acc * x + c;
            }
            acc_all += acc;
        }
        acc_all
    }
}

/// The kernels without the attribute, written once and instantiated twice: the measured
/// plain code and the control (an identical copy).
macro_rules! plain_kernels {
    () => {
    pub fn elimination(n: usize) -> f64 {
        let mut h: Vec<Vec<f64>> = (0..n)
            .map(|i| (0..n).map(|j| 1.0 / ((i + j + 1) as f64) + if i == j { 1.0 } else { 0.0 }).collect())
            .collect();
        let mut det: f64 = 1.0;
        for k in 0..n {
            let pivot = h[k][k];
            det *= pivot;
            for i in k + 1..n {
                let factor = h[i][k] / pivot;
                for j in k + 1..n {
                    h[i][j] -= factor * h[k][j];
                }
            }
        }
        det
    }

    pub fn dots(x: &[f64], y: &[f64], rounds: usize) -> f64 {
        let mut total = 0.0;
        for r in 0..rounds {
            let s: f64 = x.iter().zip(y).map(|(a, b)| a * b).sum();
            total += s * (r as f64);
        }
        total
    }

    pub fn horner(points: usize) -> f64 {
        let coefficients: [f64; 6] = [1.0, -0.5, 0.25, -0.125, 0.0625, -0.03125];
        let mut acc_all = 0.0;
        for i in 0..points {
            let x = (i as f64) / (points as f64);
            let mut acc: f64 = 0.0;
            for c in coefficients {
                acc = acc * x + c;
            }
            acc_all += acc;
        }
        acc_all
    }
    };
}

#[allow(clippy::all)]
mod plain_impl {
    plain_kernels!();
}

#[allow(clippy::all)]
mod control_impl {
    plain_kernels!();
}

fn best_of(reps: usize, mut f: impl FnMut() -> f64) -> (Duration, f64) {
    let mut best = Duration::MAX;
    let mut value = 0.0;
    for _ in 0..reps {
        let t = Instant::now();
        value = black_box(f());
        best = best.min(t.elapsed());
    }
    (best, value)
}

fn main() {
    // `--count plain|tuned`: run one elimination once, for an instruction count under callgrind
    // (benches/count.sh), which this noisy machine's clocks cannot give.
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--count") {
        let r = match args.get(at + 1).map(String::as_str) {
            Some("tuned") => tuned::elimination(black_box(150)),
            _ => plain_impl::elimination(black_box(150)),
        };
        println!("{r}");
        return;
    }
    let n = 300;
    let x: Vec<f64> = (0..100_000).map(|i| (i as f64).sin()).collect();
    let y: Vec<f64> = (0..100_000).map(|i| (i as f64).cos()).collect();
    println!("| kernel | without attribute | with #[fptune::tune], all f64 | ratio | same result |");
    println!("|---|---:|---:|---:|---|");
    let rows: Vec<(&str, Box<dyn FnMut() -> f64>, Box<dyn FnMut() -> f64>)> = vec![
        ("elimination n=300", Box::new(|| plain_impl::elimination(black_box(n))), Box::new(|| tuned::elimination(black_box(n)))),
        ("control: elimination, plain vs an identical copy", Box::new(|| plain_impl::elimination(black_box(n))), Box::new(|| control_impl::elimination(black_box(n)))),
        ("dot 1e5 x 50", Box::new(|| plain_impl::dots(black_box(&x), black_box(&y), 50)), Box::new(|| tuned::dots(black_box(&x[..]), black_box(&y[..]), 50))),
        ("horner 1e6", Box::new(|| plain_impl::horner(black_box(1_000_000))), Box::new(|| tuned::horner(black_box(1_000_000)))),
    ];
    for (name, mut plain, mut tuned) in rows {
        // Interleave to share the machine's noise.
        let (mut tp, mut tt) = (Duration::MAX, Duration::MAX);
        let (mut vp, mut vt) = (0.0, 0.0);
        for _ in 0..8 {
            let (a, va) = best_of(3, &mut plain);
            let (b, vb) = best_of(3, &mut tuned);
            tp = tp.min(a);
            tt = tt.min(b);
            vp = va;
            vt = vb;
        }
        println!(
            "| {name} | {:.2} ms | {:.2} ms | {:.3} | {} |",
            tp.as_secs_f64() * 1e3,
            tt.as_secs_f64() * 1e3,
            tt.as_secs_f64() / tp.as_secs_f64(),
            if vp.to_bits() == vt.to_bits() { "bit-identical" } else { "DIFFERENT" }
        );
    }
}
