#!/usr/bin/env bash
# Builds the CADNA matmul bench against an installed CADNA C++ library (cadna_c_half 3.1.12,
# configured with --enable-half-emulation), as CADNA's examples are compiled, plus -O3.
#   CADNA_PREFIX=/tmp/cadna/install bash stochastic/benches/cadna/build.sh && /tmp/cadna/matmul
# EXTRA_CXXFLAGS adds flags (e.g. -march=native, to compare with fptune's native build).
set -euo pipefail
prefix=${CADNA_PREFIX:-/tmp/cadna/install}
out=${OUT:-/tmp/cadna/matmul}
here=$(cd "$(dirname "$0")" && pwd)
g++ -O3 -std=c++11 -frounding-math ${EXTRA_CXXFLAGS:-} -I"$prefix/include" "$here/matmul.cc" -o "$out" \
  -L"$prefix/lib" -lcadnaC
echo "built $out"
