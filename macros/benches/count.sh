#!/usr/bin/env bash
# Instruction counts (callgrind: exact and repeatable, unlike wall-clock time on a shared
# machine) of one elimination (n = 150) without and with #[fptune::tune], all knobs f64.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo bench -p fptune-macros --bench zero_cost --no-run 2>/dev/null
bin=$(ls -t target/release/deps/zero_cost-* | grep -v '\.d$' | head -1)
for which in plain tuned; do
  count=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" --count "$which" 2>&1 | awk '/Collected/ {print $4}')
  echo "$which: $count instructions"
done
