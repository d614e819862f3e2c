#!/usr/bin/env bash
# Times fptune (this working tree's stochastic/) against CADNA in one process, row block by row
# block, each with every instability detected and with none, beside the native type (paired.rs
# says how). On this project's VM, separate runs of one binary move by 2x to 4x; ratios within
# one run of this harness do not. Prints a Markdown table, one row per run, then the median of
# the runs' ratio of fptune with every instability detected to CADNA with none.
#
# Usage: stochastic/benches/cadna/paired.sh [--native] RUNS
#   --native   fptune built with RUSTFLAGS="-C target-cpu=native", CADNA with -march=native
#              (default: the default x86-64 target, and CADNA with its own flags plus -O3)
#   RUNS       runs of the harness (each about 20 s for sf64 at n = 500)
#   Environment: CADNA_PREFIX (an installed CADNA 3.1.12 with half emulation, as build.sh
#   expects; /tmp/cadna/install), and, passed to the harness, N (500), STEP (10), TY (sf64,
#   sf32, sf16).
# Example:
#   TY=sf32 stochastic/benches/cadna/paired.sh 5
set -euo pipefail

native=0
if [ "${1:-}" = "--native" ]; then
    native=1
    shift
fi
if [ $# -ne 1 ]; then
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
fi
runs=$1
here=$(cd "$(dirname "$0")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)
prefix=${CADNA_PREFIX:-/tmp/cadna/install}
if [ ! -f "$prefix/include/cadna.h" ] || [ ! -f "$prefix/lib/libcadnaC.a" ]; then
    echo "no CADNA under $prefix: install it as docs/benchmarks-method.md says, or set CADNA_PREFIX" >&2
    exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cxxflags="-O3 -std=c++11 -frounding-math"
rustflags=""
if [ $native = 1 ]; then
    cxxflags="$cxxflags -march=native"
    rustflags="-C target-cpu=native"
fi
# shellcheck disable=SC2086 # the flags are words
g++ $cxxflags -I"$prefix/include" -c "$here/paired.cc" -o "$work/paired.o"
ar rcs "$work/libcadnapaired.a" "$work/paired.o"

mkdir -p "$work/harness/src"
cp "$here/paired.rs" "$work/harness/src/main.rs"
cp -r "$repo/stochastic/benches/common" "$work/harness/src/"
cat >"$work/harness/build.rs" <<EOF
fn main() {
    println!("cargo:rustc-link-search=native=$work");
    println!("cargo:rustc-link-search=native=$prefix/lib");
    println!("cargo:rustc-link-lib=static=cadnapaired");
    println!("cargo:rustc-link-lib=static=cadnaC");
    println!("cargo:rustc-link-lib=dylib=stdc++");
}
EOF
cat >"$work/harness/Cargo.toml" <<EOF
[package]
name = "cadna-paired"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
fptune = { path = "$repo/stochastic" }

[profile.release]
debug = true
EOF
cp "$repo/Cargo.lock" "$work/harness/"

echo "building fptune (working tree${rustflags:+, $rustflags}) and CADNA ($cxxflags)" >&2
RUSTFLAGS="$rustflags" CARGO_TARGET_DIR="$work/target" cargo build --quiet --release --manifest-path "$work/harness/Cargo.toml"

echo "| type | n | fptune all (ns) | fptune off | CADNA all | CADNA off | native | fptune all / native | CADNA all / native | CADNA off / native | fptune all / CADNA off | block median | largest difference | instabilities fptune / CADNA |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
results=$work/results
for _ in $(seq "$runs"); do
    "$work/target/release/cadna-paired" | tee -a "$results"
done
awk -F'|' '{ gsub(/ /, "", $12); print $12 }' "$results" | sort -n |
    awk '{ v[NR] = $1 } END { printf "\nfptune all / CADNA off over %d runs: median %.3f, range %.3f to %.3f\n", NR, v[int((NR + 1) / 2)], v[1], v[NR] }'
