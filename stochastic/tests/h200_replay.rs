//! The H200 as judge: every tensor-core tile a real H200 computed (`../shared/hardware-truth/`)
//! replayed through the H100/H200 preset of its mode, every output entry required bit-identical.
//!
//! Each `tc_<mode>.npz` holds sets of 16 x 16 tiles `D = A B + C` (README there): `acc = C`, then
//! for each of the `kc` chained instructions `acc = mma(A chunk, B chunk, acc)`, `D = acc`, which
//! is [`fptune::accel::matmul`] with the unit's `k` equal to the recorded `k_per_mma`. The test
//! prints, per mode and family, the tiles and entries bit-identical out of all recorded, and
//! fails on any difference (printing the first few). Skipped, with a message, without
//! `../shared`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use fptune::accel::{self, Unit};
#[path = "common/npz.rs"]
mod npz;
use npz::Archive;

fn truth_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/hardware-truth");
    dir.is_dir().then_some(dir)
}

/// The value of `field` in the set's JSON metadata (a string or a number), as text.
fn meta_field(meta: &str, field: &str) -> String {
    let at = meta.find(&format!("\"{field}\"")).unwrap_or_else(|| panic!("{field} not in {meta}")) + field.len() + 2;
    let rest = meta[at..].trim_start_matches([':', ' ']);
    if let Some(s) = rest.strip_prefix('"') {
        s[..s.find('"').expect("the hardware-truth files are as their README describes")].to_string()
    } else {
        rest[..rest.find([',', '}']).expect("the hardware-truth files are as their README describes")].trim().to_string()
    }
}

/// A mode's preset, the values of an element's bits in its input and accumulator formats, and the
/// bits of an accumulator value.
type Mode = (Unit, fn(u32) -> f64, fn(u32) -> f64, fn(f64) -> u32);

/// The [`Mode`] of a file's name.
fn mode(name: &str) -> Mode {
    fn f16v(b: u32) -> f64 { half::f16::from_bits(b as u16).to_f64() }
    fn bf16v(b: u32) -> f64 { half::bf16::from_bits(b as u16).to_f64() }
    fn f32v(b: u32) -> f64 { f64::from(f32::from_bits(b)) }
    fn f16b(x: f64) -> u32 { u32::from(half::f16::from_f64(x).to_bits()) }
    fn f32b(x: f64) -> u32 { (x as f32).to_bits() }
    match name {
        "f16f32" => (accel::H100_F16_F32, f16v, f32v, f32b),
        "f16f16" => (accel::H100_F16_F16, f16v, f16v, f16b),
        "bf16f32" => (accel::H100_BF16_F32, bf16v, f32v, f32b),
        "tf32f32" => (accel::H100_TF32_F32, f32v, f32v, f32b),
        _ => panic!("unknown mode {name}"),
    }
}

/// Counts of one family: tiles and entries, bit-identical and all.
#[derive(Default)]
struct Count {
    tiles_ok: usize,
    tiles: usize,
    entries_ok: usize,
    entries: usize,
}

#[test]
fn h200_tiles_replay_bit_for_bit() {
    let Some(dir) = truth_dir() else {
        println!("h200_replay: ../shared/hardware-truth is absent; skipped");
        return;
    };
    let mut failures = Vec::new();
    let mut total = Count::default();
    for name in ["f16f32", "f16f16", "bf16f32", "tf32f32"] {
        let path = dir.join(format!("tc_{name}.npz"));
        let mut z = Archive::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let (unit, input, acc, acc_bits) = mode(name);
        let kpm = z.scalar("k_per_mma");
        assert_eq!(kpm as usize, unit.k, "{name}: the preset's k is not the recorded k_per_mma");
        let labels = z.strings("crafted_labels");
        let mut sets: Vec<String> = z.names().into_iter().filter(|n| n.ends_with("_meta")).map(|n| n.trim_end_matches("_meta").to_string()).collect();
        sets.sort();
        let mut families: BTreeMap<String, Count> = BTreeMap::new();
        for set in sets {
            let meta = z.strings(&format!("{set}_meta")).remove(0);
            let family = meta_field(&meta, "set");
            let family_key = family.split(' ').next().expect("the hardware-truth files are as their README describes").to_string();
            let kc: usize = meta_field(&meta, "kc").parse().expect("the hardware-truth files are as their README describes");
            let (a, shape) = z.bits(&format!("{set}_A"));
            let (b, _) = z.bits(&format!("{set}_B"));
            let (c, _) = z.bits(&format!("{set}_C"));
            let (d, _) = z.bits(&format!("{set}_D"));
            let (tiles, k) = (shape[0], shape[2]);
            assert_eq!(k, unit.k * kc, "{name} {family}: k is not k_per_mma x kc");
            let count = families.entry(format!("{family_key} kc={kc}")).or_default();
            for t in 0..tiles {
                let at: Vec<f64> = a[t * 16 * k..(t + 1) * 16 * k].iter().map(|&x| input(x)).collect();
                // B is stored transposed (row j is column j): make it k x 16 row-major.
                let mut bm = vec![0.0; k * 16];
                for j in 0..16 {
                    for l in 0..k {
                        bm[l * 16 + j] = input(b[(t * 16 + j) * k + l]);
                    }
                }
                let mut ct: Vec<f64> = c[t * 256..(t + 1) * 256].iter().map(|&x| acc(x)).collect();
                accel::matmul(&unit, 16, 16, k, &at, &bm, &mut ct);
                let mut tile_ok = true;
                for e in 0..256 {
                    let want = d[t * 256 + e];
                    let got = acc_bits(ct[e]);
                    let same = got == want || (acc(want).is_nan() && ct[e].is_nan());
                    count.entries += 1;
                    if same {
                        count.entries_ok += 1;
                    } else {
                        tile_ok = false;
                        if failures.len() < 12 {
                            let label = if family == "crafted" && e % 17 == 0 { labels[16 * t + e / 16].clone() } else { String::new() };
                            failures.push(format!("{name} {family} kc={kc} tile {t} entry ({}, {}) {label}: H200 {:e} ({want:#x}), model {:e} ({got:#x})", e / 16, e % 16, acc(want), ct[e]));
                        }
                    }
                }
                count.tiles += 1;
                count.tiles_ok += usize::from(tile_ok);
            }
        }
        for (family, n) in &families {
            println!("{name:8} {family:14} tiles {:>4}/{:<4} entries {:>6}/{:<6}", n.tiles_ok, n.tiles, n.entries_ok, n.entries);
            total.tiles += n.tiles;
            total.tiles_ok += n.tiles_ok;
            total.entries += n.entries;
            total.entries_ok += n.entries_ok;
        }
    }
    println!("all modes: tiles {}/{} entries {}/{} bit-identical", total.tiles_ok, total.tiles, total.entries_ok, total.entries);
    assert!(failures.is_empty(), "entries differ from the H200:\n{}", failures.join("\n"));
}
