#!/usr/bin/env bash
# Compares builds of the matmul bench on a noisy machine: runs each binary once per round, in turn,
# for ROUNDS rounds, and prints a Markdown table of the fastest and the median time per multiply-add
# of each (binary, type, detection; for an even number of runs, the lower of the two middle ones).
# On this project's VM the same binary moves by up to 4x from one run to the next (other tenants
# share the L3 cache and memory); alternating spreads those phases over every binary, and the
# median of many rounds is what two builds can be compared by.
#
# Usage: stochastic/benches/alternate.sh ROUNDS N TYPES BINARY[:DETECTION]...
#   ROUNDS     rounds (each runs every binary once, one repetition per run)
#   N          matrix size (FPTUNE_BENCH_N)
#   TYPES      FPTUNE_BENCH_TYPES, e.g. sf64 or sf64,sf32
#   BINARY     a matmul bench binary (cargo bench -p fptune --bench matmul --no-run prints its
#              path; copy it aside before rebuilding), optionally :all or :off for the detection
#              (default: all)
# Example:
#   stochastic/benches/alternate.sh 20 500 sf64 /tmp/mm-before /tmp/mm-after /tmp/mm-after:off
set -euo pipefail

if [ $# -lt 4 ]; then
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
fi
rounds=$1 n=$2 types=$3
shift 3
for spec in "$@"; do
    bin=${spec%%:*}
    if [ ! -x "$bin" ]; then
        echo "alternate.sh: $bin is not an executable bench binary" >&2
        exit 2
    fi
done

results=$(mktemp)
trap 'rm -f "$results"' EXIT
for _ in $(seq "$rounds"); do
    for spec in "$@"; do
        bin=${spec%%:*}
        detection=all
        [ "$spec" != "$bin" ] && detection=${spec#*:}
        FPTUNE_BENCH_N=$n FPTUNE_BENCH_REPS=1 FPTUNE_BENCH_TYPES=$types FPTUNE_BENCH_DETECTION=$detection "$bin" |
            awk -F'|' -v spec="$spec" '/^\| S/ { gsub(/ /, "", $2); gsub(/ /, "", $3); print spec, $2, $3, $5 }' >>"$results"
    done
done

echo "| binary | type | detection | runs | fastest (ns) | median (ns) |"
echo "|---|---|---|---:|---:|---:|"
sort -k1,1 -k2,2 -k3,3 -k4,4n "$results" | awk '
    { key = $1 " " $2 " " $3; if (!(key in n)) order[++keys] = key; v[key, ++n[key]] = $4 }
    END {
        for (i = 1; i <= keys; i++) {
            k = order[i]; split(k, f, " ")
            printf "| %s | %s | %s | %d | %.2f | %.2f |\n", f[1], f[2], f[3], n[k], v[k, 1], v[k, int((n[k] + 1) / 2)]
        }
    }'
