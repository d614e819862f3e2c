#!/usr/bin/env bash
# Compares two builds of the stochastic arithmetic in one process, row block by row block, on the
# same matrices (paired/harness.rs says how): on this project's VM the ratio of two builds comes
# out within a few percent, where separate runs (alternate.sh) move by 2x to 4x. Prints a Markdown
# table, one row per run, then the median of the runs' B/A.
#
# Usage: stochastic/benches/paired.sh [--native] RUNS REV_A REV_B
#   --native   build with RUSTFLAGS="-C target-cpu=native" (default: the default x86-64 target)
#   RUNS       runs of the harness (each about 5 to 10 s at n = 500)
#   REV_A/B    git revisions of this repository, or "." for the working tree's stochastic/
#   Environment, passed to the harness: N (500), STEP (10), TY (sf64, sf32, sf16), DETECT (all, off)
# Examples:
#   stochastic/benches/paired.sh 5 HEAD .             # the working tree's changes against HEAD
#   stochastic/benches/paired.sh 5 HEAD HEAD          # A/A: the harness's own spread
#   TY=sf32 stochastic/benches/paired.sh --native 5 HEAD~3 HEAD
set -euo pipefail

native=0
if [ "${1:-}" = "--native" ]; then
    native=1
    shift
fi
if [ $# -ne 3 ]; then
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
fi
runs=$1 rev_a=$2 rev_b=$3
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The workspace's versions of the runtime's dependencies, for the two renamed copies.
dep() { sed -n "s/^$1 = /$1 = /p" "$repo/Cargo.toml" | head -n 1; }

for side in a b; do
    rev=$rev_a
    [ $side = b ] && rev=$rev_b
    mkdir -p "$work/$side"
    if [ "$rev" = . ]; then
        cp -r "$repo/stochastic/src" "$work/$side/"
    else
        git -C "$repo" archive "$rev" stochastic/src | tar -x -C "$work/$side" --strip-components=1
    fi
    cat >"$work/$side/Cargo.toml" <<EOF
[package]
name = "fptune-$side"
version = "0.0.0"
edition = "2021"
publish = false

[lib]
path = "src/lib.rs"

[dependencies]
$(dep half)
$(dep ctor)
typeid = "1.0.3"
fptune-macros = { path = "$repo/macros" }
# The format data (the working tree's: a revision before it existed does not use it).
fptune-spec = { path = "$repo/spec" }
EOF
done

mkdir -p "$work/harness/src"
cp "$repo/stochastic/benches/paired/harness.rs" "$work/harness/src/main.rs"
cp -r "$repo/stochastic/benches/common" "$work/harness/src/"
cat >"$work/harness/Cargo.toml" <<EOF
[package]
name = "paired"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
fptune-a = { path = "../a" }
fptune-b = { path = "../b" }

[profile.release]
debug = true
EOF
cp "$repo/Cargo.lock" "$work/harness/"

flags=""
[ $native = 1 ] && flags="-C target-cpu=native"
echo "building A = $rev_a and B = $rev_b${flags:+ ($flags)}" >&2
RUSTFLAGS="$flags" CARGO_TARGET_DIR="$work/target" cargo build --quiet --release --manifest-path "$work/harness/Cargo.toml"

echo "| type | n | detection | A (ns) | B (ns) | f64 (ns) | B/A | block median B/A | same samples |"
echo "|---|---:|---|---:|---:|---:|---:|---:|---|"
results=$work/results
for _ in $(seq "$runs"); do
    "$work/target/release/paired" | tee -a "$results"
done
awk -F'|' '{ gsub(/ /, "", $8); print $8 }' "$results" | sort -n |
    awk '{ v[NR] = $1 } END { printf "\nB/A over %d runs: median %.3f, range %.3f to %.3f\n", NR, v[int((NR + 1) / 2)], v[1], v[NR] }'
