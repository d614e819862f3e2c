#!/usr/bin/env bash
# Fault injection: kills `cargo fptune` with SIGKILL at random points of a search, again and
# again, and shows after each kill that
#   - no file of the user's crate changed (a hash of the whole tree, byte for byte),
#   - no process of the killed run is left (its candidates die with it),
#   - the next run removes the scratch directories the killed one left,
# and at the end that a run to completion reuses the cache the killed runs wrote.
#
# Usage: tuner/scripts/kill-at-random.sh [KILLS] [CRATE]
#   KILLS  how many runs to kill (default 20)
#   CRATE  the crate to tune (default: samples/hilbert); it is copied, never touched
# Environment: DIGITS (3), MAX_DELAY seconds before a kill (default 20), FPTUNE (the binary:
# default target/release/cargo-fptune, built if missing).
set -euo pipefail

kills=${1:-20}
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
source_crate=${2:-$repo/samples/hilbert}
digits=${DIGITS:-3}
max_delay=${MAX_DELAY:-20}
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

# The first, unkilled, build of fptune's runtime would make every early kill land in it.
echo "warming the builds (one run to the end)" >&2
(cd "$crate" && "$fptune" fptune --digits "$digits" >/dev/null 2>&1) || true
rm -rf "$crate/fptune.out"

echo "| kill | after (s) | stage | user tree | processes left | scratch dirs it left | of the previous kill's, left |"
echo "|---:|---:|---|---|---:|---:|---:|"
failed=0
previous=()
for i in $(seq "$kills"); do
    delay=$(awk -v m="$max_delay" -v s="$RANDOM" 'BEGIN { srand(s); printf "%.1f", 0.5 + rand() * m }')
    (cd "$crate" && exec "$fptune" fptune --digits "$digits" >"$work/out" 2>"$work/err") &
    pid=$!
    sleep "$delay"
    stage=$(grep -o 'fptune: [a-z ,()-]*' "$work/err" | tail -n 1 | cut -c9-50 || true)
    kill -0 "$pid" 2>/dev/null || stage="$stage (ended before the kill)"
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    sleep 2
    # What the killed run started and is still running: programs of its scratch copies and
    # builds (candidates, single builds); cargo's rustc jobs may finish their unit and are not
    # counted.
    left=$(pgrep -f "^($scratch|$CARGO_TARGET_DIR/fptune)/" | wc -l || true)
    mapfile -t mine < <(find "$scratch" -maxdepth 1 -name 'fptune-*' -type d)
    # A run that got as far as its first stage made its scratch copies, and removed then what
    # the killed run before it left.
    old=0
    if [ -n "$stage" ]; then
        for d in "${previous[@]}"; do [ -d "$d" ] && old=$((old + 1)); done
    fi
    previous=("${mine[@]}")
    same=$([ "$(tree_hash)" = "$before" ] && echo unchanged || echo CHANGED)
    if [ "$same" != unchanged ] || [ "$left" -ne 0 ] || [ "$old" -ne 0 ]; then
        failed=1
    fi
    echo "| $i | $delay | ${stage:-(starting)} | $same | $left | ${#mine[@]} | $old |"
done

# A run to the end: it removes what the killed runs left and reuses their cache.
(cd "$crate" && "$fptune" fptune --digits "$digits" --json >"$work/final.json" 2>"$work/err") || {
    cat "$work/err" >&2
    exit 1
}
stale=$(find "$scratch" -maxdepth 1 -name 'fptune-*' -type d | wc -l)
cached=$(sed -n 's/.*"cached": \([0-9]*\).*/\1/p' "$work/final.json" | head -n 1)
echo
echo "final run: ${cached:-0} candidate runs from the cache of the killed runs; scratch directories left after it: $stale; user tree $([ "$(tree_hash)" = "$before" ] && echo unchanged || echo CHANGED)"
[ "$failed" -eq 0 ] && [ "$stale" -eq 0 ] && [ "$(tree_hash)" = "$before" ]
