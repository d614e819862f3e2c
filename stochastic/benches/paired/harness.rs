//! Paired timing of two builds of the `fptune` crate in one process (`paired.sh` builds it; not a
//! bench target of the workspace). Build A and build B are the package renamed `fptune-a` and
//! `fptune-b`, so both are linked into this binary. The i-j-k matrix product of `matmul.rs` runs
//! in blocks of rows, each block once with A's types and once with B's (which goes first
//! alternates), then with native `f64`, on the same matrices: B's values are A's memory viewed
//! through B's type (both are the same `repr(C)` struct), so both builds walk the same physical
//! pages. A noisy machine's phases (other tenants in the L3 cache and on the memory bus) then fall
//! on both builds alike, and the ratio B/A comes out within a few percent where separate runs of
//! the two builds move by 2x to 4x.
//!
//! Environment: `N` (matrix size, 500), `STEP` (rows per block, 10), `TY` (`sf64`, `sf32`,
//! `sf16`), `DETECT` (`all` or `off`). Prints one Markdown table row: ns per multiply-add of A,
//! B and `f64`, B/A over the whole run and the median of the blocks' B/A, and whether both
//! builds computed the same samples (with the same seed they must, unless B changes results).
//! Times are the thread's CPU time where Linux reports it, as `matmul.rs` measures them.

use std::hint::black_box;

// `paired.sh` compiles this file as `src/main.rs` beside a copy of `benches/common/`, the layout
// `matmul.rs` has in `benches/`: the same loop, inputs and clock.
mod common;
use common::{Clock, Inputs};
#[path = "common/product.rs"]
mod product;
use product::matmul_rows;

/// `A` and `B` as `matmul.rs` fills them (values in [0, 1) converted to `T`).
fn inputs<T>(n: usize, conv: impl Fn(f64) -> T) -> (Vec<T>, Vec<T>) {
    let mut g = Inputs(product::SEED);
    let a = (0..n * n).map(|_| conv(g.next_unit())).collect();
    let b = (0..n * n).map(|_| conv(g.next_unit())).collect();
    (a, b)
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

fn main() {
    let n = env("N", 500);
    let step = env("STEP", 10).clamp(1, n);
    let ty = std::env::var("TY").unwrap_or_else(|_| "sf64".into());
    let detect = std::env::var("DETECT").map_or(true, |v| v.trim() != "off");
    for seed in [
        fptune_a::stochastic::set_seed,
        fptune_b::stochastic::set_seed,
    ] {
        seed(1);
    }
    fptune_a::stochastic::set_all_detected(detect);
    fptune_b::stochastic::set_all_detected(detect);
    let (a64, b64) = inputs(n, |x| x);
    let mut c64 = vec![0.0f64; n * n];

    macro_rules! paired {
        ($ta:ty, $tb:ty) => {{
            let (aa, ba) = inputs(n, <$ta>::from);
            assert_eq!(std::mem::size_of::<$ta>(), std::mem::size_of::<$tb>());
            assert_eq!(std::mem::align_of::<$ta>(), std::mem::align_of::<$tb>());
            // SAFETY: `fptune_a` and `fptune_b` are two builds of one `repr(C)` struct of three
            // samples (size and alignment checked above); every bit pattern is a valid sample.
            let (ab, bb): (&[$tb], &[$tb]) = unsafe {
                (
                    std::slice::from_raw_parts(aa.as_ptr().cast(), aa.len()),
                    std::slice::from_raw_parts(ba.as_ptr().cast(), ba.len()),
                )
            };
            let (mut ca, mut cb) = (vec![<$ta>::default(); n * n], vec![<$tb>::default(); n * n]);
            let (mut ta, mut tb, mut tn) = (0f64, 0f64, 0f64);
            let mut ratios = Vec::new();
            let mut i = 0;
            while i < n {
                let block = i..(i + step).min(n);
                let (mut da, mut db) = (0.0, 0.0);
                for a_turn in if (i / step) % 2 == 0 {
                    [true, false]
                } else {
                    [false, true]
                } {
                    let t = Clock::start();
                    if a_turn {
                        matmul_rows(
                            black_box(&aa),
                            black_box(&ba),
                            black_box(&mut ca),
                            n,
                            block.clone(),
                            <$ta>::default(),
                        );
                        da = t.elapsed().as_secs_f64();
                    } else {
                        matmul_rows(
                            black_box(ab),
                            black_box(bb),
                            black_box(&mut cb),
                            n,
                            block.clone(),
                            <$tb>::default(),
                        );
                        db = t.elapsed().as_secs_f64();
                    }
                }
                let t = Clock::start();
                matmul_rows(
                    black_box(&a64),
                    black_box(&b64),
                    black_box(&mut c64),
                    n,
                    block.clone(),
                    0.0,
                );
                tn += t.elapsed().as_secs_f64();
                (ta, tb) = (ta + da, tb + db);
                ratios.push(db / da);
                i = block.end;
            }
            ratios.sort_by(f64::total_cmp);
            let same = ca
                .iter()
                .zip(&cb)
                .all(|(x, y)| x.samples().map(|s| s.to_bits()) == y.samples().map(|s| s.to_bits()));
            let ns = |t: f64| t * 1e9 / (n * n * n) as f64;
            println!(
                "| {ty} | {n} | {} | {:.2} | {:.2} | {:.2} | {:.3} | {:.3} | {} |",
                if detect { "all" } else { "off" },
                ns(ta),
                ns(tb),
                ns(tn),
                tb / ta,
                ratios[ratios.len() / 2],
                if same { "yes" } else { "no" }
            );
            black_box((&ca, &cb, &c64));
        }};
    }
    match ty.trim() {
        "sf32" => paired!(fptune_a::Sf32, fptune_b::Sf32),
        "sf16" => paired!(fptune_a::Sf16, fptune_b::Sf16),
        _ => paired!(fptune_a::Sf64, fptune_b::Sf64),
    }
}
