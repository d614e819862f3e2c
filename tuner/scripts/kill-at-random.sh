#!/usr/bin/env bash
# Fault injection: kills `cargo fptune` with SIGKILL at a random point of a search from scratch,
# again and again, and shows after each kill that
#   - no file of the user's crate changed (a hash of the whole tree, byte for byte),
#   - no process of the killed run is left (its candidates die with it),
#   - the next run, to the end, removes the scratch directories the killed one left, and
#     reuses the runs it had saved in the cache (how many: a kill before the first save leaves
#     none).
#
# Usage: tuner/scripts/kill-at-random.sh [KILLS] [CRATE]
#   KILLS  how many runs to kill (default 20)
#   CRATE  the crate to tune (default: samples/control); it is copied, never touched
# Environment: DIGITS (3), FPTUNE (the binary: default target/release/cargo-fptune, built if
# missing). Exits 1 when any kill left a changed tree, a process or a scratch directory.
set -euo pipefail

kills=${1:-20}
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
source_crate=${2:-$repo/samples/control}
digits=${DIGITS:-3}
fptune=${FPTUNE:-$repo/target/release/cargo-fptune}
[ -x "$fptune" ] || cargo build --release --quiet --manifest-path "$repo/Cargo.toml" -p cargo-fptune

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
crate="$work/$(basename "$source_crate")"
cp -r "$source_crate" "$crate"
rm -rf "$crate/fptune.out" "$crate/target"
# A crate inside fptune's workspace must be its own workspace once copied out.
grep -q '^\[workspace\]' "$crate/Cargo.toml" || printf '\n[workspace]\n' >>"$crate/Cargo.toml"
sed -i "s|path = \"\.\./\.\./stochastic\"|path = \"$repo/stochastic\"|" "$crate/Cargo.toml"
cp "$repo/Cargo.lock" "$crate/"
scratch="$work/tmp"
mkdir -p "$scratch"
export CARGO_TARGET_DIR="$work/target" TMPDIR="$scratch"

# The user's tree: every file but fptune's output, byte for byte.
tree_hash() { (cd "$crate" && find . -path ./fptune.out -prune -o -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum); }
before=$(tree_hash)

# A first run to the end: it builds fptune's runtime (a kill there would only stop cargo), and
# its time bounds where the kills land.
echo "timing one run to the end" >&2
(cd "$crate" && "$fptune" fptune --digits "$digits" >/dev/null 2>&1) || true
rm -rf "$crate/fptune.out"
t0=$(date +%s.%N)
(cd "$crate" && "$fptune" fptune --digits "$digits" >/dev/null 2>&1) || true
full=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
echo "a search from scratch takes $full s: each kill lands between 0.5 s and then" >&2

echo "| kill | after (s) | stage | user tree | processes left | scratch dirs left | left after the next run | runs saved by the killed run | runs the next run made |"
echo "|---:|---:|---|---|---:|---:|---:|---:|---:|"
failed=0
for i in $(seq "$kills"); do
    rm -rf "$crate/fptune.out"
    delay=$(awk -v m="$full" -v s="$RANDOM" 'BEGIN { srand(s); printf "%.1f", 0.5 + rand() * (m - 0.5) }')
    (cd "$crate" && exec "$fptune" fptune --digits "$digits" >"$work/out" 2>"$work/err") &
    pid=$!
    sleep "$delay"
    stage=$(grep -o 'fptune: [a-z ,()-]*' "$work/err" | tail -n 1 | cut -c9-50 || true)
    kill -0 "$pid" 2>/dev/null || stage="$stage (ended before the kill)"
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    sleep 1
    # What the killed run started and is still running: programs of its scratch copies and
    # builds (candidates, single builds); cargo's rustc jobs may finish their unit and are not
    # counted.
    left=$(pgrep -f "^($scratch|$CARGO_TARGET_DIR/fptune)/" | wc -l || true)
    stale=$(find "$scratch" -maxdepth 1 -name 'fptune-*' -type d | wc -l)
    saved=$(grep -o '"configuration"' "$crate/fptune.out/cache.json" 2>/dev/null | wc -l || true)
    same=$([ "$(tree_hash)" = "$before" ] && echo unchanged || echo CHANGED)
    # The next run, to the end: it removes what the killed one left, and reuses its runs.
    (cd "$crate" && "$fptune" fptune --digits "$digits" --json >"$work/next.json" 2>"$work/err") || {
        cat "$work/err" >&2
        failed=1
    }
    after=$(find "$scratch" -maxdepth 1 -name 'fptune-*' -type d | wc -l)
    total=$(grep -o '"executions": [0-9]*' "$work/next.json" | head -n 1 | grep -o '[0-9]*$' || echo 0)
    [ "$(tree_hash)" = "$before" ] || same=CHANGED
    if [ "$same" != unchanged ] || [ "$left" -ne 0 ] || [ "$after" -ne 0 ]; then
        failed=1
    fi
    echo "| $i | $delay | ${stage:-(starting)} | $same | $left | $stale | $after | $saved | $total |"
done
[ "$failed" -eq 0 ]
