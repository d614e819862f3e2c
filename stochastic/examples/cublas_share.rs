//! What share of cuBLAS's and cuBLASLt's products on the H200 the tensor-core model reproduces
//! bit for bit (`../shared/hardware-truth/cublas.npz`): a report, not a gate.
//!
//! cuBLAS chooses its own kernels (tile shapes, split-K, where FP8 partial sums are promoted to
//! binary32), so each key group is tried under a few assumptions built from the H100/H200
//! presets, and the table gives, per group, the share of output entries of each and the best:
//!
//! - `chain`: one dot product per entry, `k` products per instruction chained through the
//!   accumulator over the whole of K (the tile replay's semantics), then rounded to nearest into
//!   the output type when it is narrower;
//! - `splitK=s`: K cut into `s` contiguous parts, each a `chain` from zero, the partial results
//!   added in binary32 (rounded to nearest) in order;
//! - `promote=N` (FP8): the unit with `promote: Some(N)`, chains of N products from zero, each
//!   added to a binary32 total with rounding to nearest (cuBLASLt's promotion of the FP8
//!   accumulator to binary32 registers);
//! - for TF32 (binary32 inputs that cuBLAS converts): the conversion to TF32 by rounding to
//!   nearest even (`rne`), to nearest with ties away (`rna`) or by truncation (`rz`).
//!
//! Run: `cargo run --release -p fptune --example cublas_share` (prints a Markdown table).

use std::collections::BTreeMap;
use std::path::PathBuf;

use fptune::accel::{self, Unit};
use fptune::formats::{codes, Spec};
#[path = "../tests/common/npz.rs"]
mod npz;
use npz::Archive;

/// An OCP E4M3 code's value.
fn e4m3(code: u32) -> f64 {
    codes::decode(Spec::E4M3, u64::from(code))
}

/// An OCP E5M2 code's value.
fn e5m2(code: u32) -> f64 {
    codes::decode(Spec::E5M2, u64::from(code))
}

/// A binary32 value cut to TF32 (10 fraction bits) by `mode`: "rne", "rna" or "rz".
fn tf32(x: u32, mode: &str) -> f64 {
    let low = x & 0x1fff;
    let keep = x & !0x1fff;
    let up = match mode {
        "rne" => low > 0x1000 || (low == 0x1000 && keep & 0x2000 != 0),
        "rna" => low >= 0x1000,
        _ => false,
    };
    let r = if up && (x >> 23) & 0xff != 0xff { keep + 0x2000 } else { keep };
    f64::from(f32::from_bits(r))
}

/// One entry's dot product through `unit`, K cut into `splits` contiguous parts (split-K) whose
/// results are added in binary32 with rounding to nearest.
fn entry(unit: &Unit, a: &[f64], b: &[f64], splits: usize) -> f64 {
    let part = a.len().div_ceil(splits).max(1);
    let mut total = 0f32;
    for (s, (pa, pb)) in a.chunks(part).zip(b.chunks(part)).enumerate() {
        let r = accel::dot(unit, pa, pb, 0.0) as f32;
        total = if s == 0 { r } else { total + r };
    }
    f64::from(total)
}

/// A group's operands as values: `a` rows (m x k) and `b` columns (n x k), the recorded output
/// bits (m x n), and how to turn a model value into output bits.
struct Group {
    a: Vec<Vec<f64>>,
    b: Vec<Vec<f64>>,
    d: Vec<u32>,
    out: fn(f64) -> u32,
}

/// Whether output bits are a NaN of the output type (binary32, or binary16 and bfloat16 by the
/// bits set).
fn nan_bits(d: u32, out: fn(f64) -> u32) -> bool {
    // The exponent field is infinity's bits; the fraction field is below its lowest bit.
    let exponent = out(f64::INFINITY);
    let fraction = (exponent & exponent.wrapping_neg()) - 1;
    d & exponent == exponent && d & fraction != 0
}

fn f16_bits(x: f64) -> u32 { u32::from(half::f16::from_f64(x).to_bits()) }
fn bf16_bits(x: f64) -> u32 { u32::from(half::bf16::from_f64(x).to_bits()) }
fn f32_bits(x: f64) -> u32 { (x as f32).to_bits() }

/// Rows of a row-major `rows x cols` array.
fn rows(v: &[u32], rows: usize, cols: usize, f: impl Fn(u32) -> f64) -> Vec<Vec<f64>> {
    (0..rows).map(|i| v[i * cols..(i + 1) * cols].iter().map(|&x| f(x)).collect()).collect()
}

/// Columns of a row-major `rows x cols` array, each as a vector.
fn cols(v: &[u32], rows: usize, cols: usize, f: impl Fn(u32) -> f64) -> Vec<Vec<f64>> {
    (0..cols).map(|j| (0..rows).map(|i| f(v[i * cols + j])).collect()).collect()
}

/// The share of entries (bit-identical, all) of `g` under an assumption. A NaN matches any NaN
/// (the H200 writes `0x7fffffff`, the model a quiet NaN: payloads are not modelled).
fn share(g: &Group, unit: &Unit, splits: usize) -> (usize, usize) {
    let mut ok = 0;
    let n = g.b.len();
    for (i, a) in g.a.iter().enumerate() {
        for (j, b) in g.b.iter().enumerate() {
            let x = entry(unit, a, b, splits);
            let want = g.d[i * n + j];
            ok += usize::from((g.out)(x) == want || (x.is_nan() && nan_bits(want, g.out)));
        }
    }
    (ok, g.a.len() * n)
}

fn main() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/hardware-truth/cublas.npz");
    let Ok(mut z) = Archive::open(&path) else {
        println!("cublas_share: {} is absent; nothing to report", path.display());
        return;
    };
    let mut groups: Vec<String> = z.names().into_iter().filter_map(|n| n.strip_suffix("_D").map(str::to_string)).collect();
    groups.sort_by_key(|g| (g.split('_').take(2).collect::<Vec<_>>().join("_"), g.split("_K").nth(1).and_then(|s| s.split('_').next()).and_then(|s| s.parse::<usize>().ok()).unwrap_or(0), g.clone()));
    let f16v = |x: u32| half::f16::from_bits(x as u16).to_f64();
    let bf16v = |x: u32| half::bf16::from_bits(x as u16).to_f64();
    let mut best_by_kind: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    println!("| group | entries | NaN | assumption | bit-identical | next best |");
    println!("|---|---:|---:|---|---:|---|");
    for key in groups {
        let (d, dshape) = z.bits(&format!("{key}_D"));
        let (n_out_r, n_out_c) = (dshape[0], dshape[1]);
        // (label, unit, splits, group) candidates.
        let mut tries: Vec<(String, Unit, usize, Group)> = Vec::new();
        if key.starts_with("smm_") {
            let (a, ash) = z.bits(&format!("{key}_A"));
            let (bt, _) = z.bits(&format!("{key}_Bt"));
            let k = ash[1];
            let mixed = key.contains("e5m2x");
            let fa = if mixed { e5m2 } else { e4m3 };
            let unit = if mixed { accel::H100_E5M2XE4M3_F32 } else { accel::H100_E4M3_F32 };
            let mk = || Group { a: rows(&a, ash[0], k, fa), b: rows(&bt, n_out_c, k, e4m3), d: d.clone(), out: f32_bits };
            tries.push(("chain".into(), unit, 1, mk()));
            for p in [64, 128, 256, 512, 1024, 2048, 4096, 8192] {
                if p < k {
                    tries.push((format!("promote={p}"), Unit { promote: Some(p), ..unit }, 1, mk()));
                }
            }
            for s in [2, 4, 8] {
                if k >= 1024 * s {
                    tries.push((format!("splitK={s}"), unit, s, mk()));
                    tries.push((format!("splitK={s} promote=128"), Unit { promote: Some(128), ..unit }, s, mk()));
                }
            }
        } else if key.starts_with("mm_tf32") {
            let (a, ash) = z.bits(&format!("{key}_A"));
            let (b, bsh) = z.bits(&format!("{key}_B"));
            for mode in ["rne", "rna", "rz"] {
                let g = Group { a: rows(&a, ash[0], ash[1], |x| tf32(x, mode)), b: cols(&b, bsh[0], bsh[1], |x| tf32(x, mode)), d: d.clone(), out: f32_bits };
                tries.push((format!("{mode} chain"), accel::H100_TF32_F32, 1, g));
            }
        } else {
            let (a, ash) = z.bits(&format!("{key}_A"));
            let (b, bsh) = z.bits(&format!("{key}_B"));
            let bf = key.starts_with("mm_bf16");
            let val = if bf { bf16v } else { f16v };
            let out: fn(f64) -> u32 = if key.contains("out32") { f32_bits } else if bf { bf16_bits } else { f16_bits };
            let unit = if bf { accel::H100_BF16_F32 } else { accel::H100_F16_F32 };
            let mk = || Group { a: rows(&a, ash[0], ash[1], val), b: cols(&b, bsh[0], bsh[1], val), d: d.clone(), out };
            tries.push(("chain".into(), unit, 1, mk()));
            if !bf && !key.contains("out32") {
                tries.push(("fp16 acc chain".into(), accel::H100_F16_F16, 1, mk()));
            }
            for s in [2, 4, 8] {
                if ash[1] >= 16 * s {
                    tries.push((format!("splitK={s}"), unit, s, mk()));
                }
            }
        }
        let mut results: Vec<(String, usize, usize)> = tries.iter().map(|(label, unit, s, g)| {
            let (ok, all) = share(g, unit, *s);
            (label.clone(), ok, all)
        }).collect();
        let _ = n_out_r;
        results.sort_by_key(|r| std::cmp::Reverse(r.1));
        let (label, ok, all) = results[0].clone();
        let mut others: Vec<String> = results[1..].iter().take(3).map(|(l, o, a)| format!("{l} {:.1}%", 100.0 * *o as f64 / *a as f64)).collect();
        if results.len() > 4 {
            others.push(format!("{} more", results.len() - 4));
        }
        let out = tries[0].3.out;
        let nans = d.iter().filter(|&&x| nan_bits(x, out)).count();
        println!("| `{key}` | {all} | {nans} | {label} | {ok} ({:.1}%) | {} |", 100.0 * ok as f64 / all as f64, others.join(", "));
        let kind = key.split("_K").next().expect("the hardware-truth files are as their README describes").to_string() + key.rsplit_once("_K").map(|(_, r)| r.split_once('_').map(|(_, t)| t).unwrap_or("")).map(|t| if t.is_empty() { String::new() } else { format!(" {t}") }).unwrap_or_default().as_str();
        let e = best_by_kind.entry(kind).or_default();
        e.0 += ok;
        e.1 += all;
        e.2 += nans;
    }
    println!();
    println!("| kind (all K) | NaN entries | bit-identical (best assumption per group) |");
    println!("|---|---:|---:|");
    for (kind, (ok, all, nans)) in best_by_kind {
        println!("| `{kind}` | {nans} | {ok}/{all} ({:.1}%) |", 100.0 * ok as f64 / all as f64);
    }
}
