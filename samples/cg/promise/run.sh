#!/usr/bin/env bash
# Runs PROMISE (cadnaPromise 0.4.1) on cg.cc: half/single/double (--precs=hsd), DIGITS required
# digits on zeta, NPB class CLASS.
#
# Usage: ./run.sh [CLASS] [DIGITS] [TAG]        (defaults: W 4 run-<date>)
#
# PROMISE copies the whole current directory for every compilation, so it runs in a scratch
# directory holding only cg.cc and promise.yml; its log, output and final sources are copied to
# runs/TAG/ here. PROMISE is taken from $PROMISE_VENV (default /tmp/promise-venv: a venv with
# `pip install cadnapromise==0.4.1` and `activate-promise` run once, which builds CADNA).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
CLASS=${1:-W}
DIGITS=${2:-4}
TAG=${3:-run-$(date +%Y%m%d-%H%M%S)}
PROMISE_VENV=${PROMISE_VENV:-/tmp/promise-venv}
PROMISE="$PROMISE_VENV/bin/promise"

OUT="$HERE/runs/$TAG"
mkdir -p "$OUT"
SCRATCH=$(mktemp -d /tmp/promise-cg-XXXXXX)
mkdir "$SCRATCH/src"
cp "$HERE/cg.cc" "$SCRATCH/src/"
sed "s/@CLASS@/$CLASS/" "$HERE/promise.yml.in" > "$SCRATCH/src/promise.yml"
cd "$SCRATCH/src"

CMD="$PROMISE --precs=hsd --nbDigits=$DIGITS --conf=promise.yml --log=$SCRATCH/promise.log --verbosityLog=2"
echo "machine: $(grep 'model name' /proc/cpuinfo | head -1 | sed 's/.*: //'), nproc $(nproc)" | tee "$OUT/summary.txt"
echo "promise: $("$PROMISE" --version 2>&1 | head -1 | sed 's/\x1b\[[0-9;]*[A-Za-z]//g')" | tee -a "$OUT/summary.txt"
echo "class $CLASS, $DIGITS digits, scratch $SCRATCH" | tee -a "$OUT/summary.txt"
echo "command (in the scratch directory): $CMD" | tee -a "$OUT/summary.txt"
echo "compile: $(grep -- '- g++' promise.yml | sed 's/^ *- //')" | tee -a "$OUT/summary.txt"

set +e
T0=$(date +%s.%N)
/usr/bin/time -f "%e s elapsed, %U s user, %S s system, %M KB max RSS" -o "$OUT/time.txt" \
    $CMD > "$OUT/promise.stdout" 2> "$OUT/promise.stderr"
RC=$?
T1=$(date +%s.%N)
set -e

# PROMISE leaves one mkdtemp directory per compilation in /tmp: remove those of this run.
for d in /tmp/tmp*; do
    if [ -d "$d" ] && [ "$d" -nt "$SCRATCH" ] && [ -f "$d/cadnaizer" ] && [ -f "$d/cg.cc" ] \
        && grep -q "^run: cg" "$d/promise.yml" 2>/dev/null; then
        rm -rf "$d"
    fi
done

cp "$SCRATCH/promise.log" "$OUT/" 2>/dev/null || true
cp -r "$SCRATCH/src/result" "$OUT/" 2>/dev/null || true
strip() { sed 's/\x1b\[[0-9;]*[A-Za-z]//g' "$@"; }
{
    echo "exit status: $RC (PROMISE's console script exits with its result dictionary: 1 even on success)"
    echo "wall: $(echo "$T1 - $T0" | bc) s (date +%s.%N around promise)"
    echo "/usr/bin/time: $(cat "$OUT/time.txt")"
    echo "--- PROMISE's summary:"
    strip "$OUT/promise.stdout" "$OUT/promise.stderr" | tr '\r' '\n' \
        | grep -E "final result|It tooks|compilations|executions|enough|lower your|\{'|Error|error" || true
    if [ -f "$OUT/result/cg.cc" ]; then
        echo "--- types in the final sources (result/cg.cc):"
        python3 - "$HERE/cg.cc" "$OUT/result/cg.cc" <<'PY'
import re, sys
# Map each named PROMISE type to the type PROMISE wrote at its occurrences.
orig = open(sys.argv[1]).read()
final = open(sys.argv[2]).read()
parts = re.split(r'__PR_([^_]+)__', orig)
# Rebuild a regex from the original text with a capture group at each PROMISE type.
pattern = ''
names = []
for i, p in enumerate(parts):
    if i % 2 == 0:
        pattern += re.escape(p)
    else:
        pattern += r'(half_float::half|float|double|flx::floatx<[^>]*>)'
        names.append(p)
body = final.split('\n', 2)[2]  # drop the two #include lines PROMISE adds
body = re.sub(r'PROMISE_CHECK_VAR\(\w+\);', '', body)
m = re.fullmatch(pattern.replace(re.escape('PROMISE_CHECK_VAR(zeta);'), ''), body, re.S)
if not m:
    print("could not match the final sources to cg.cc")
    sys.exit(0)
types = {}
for n, t in zip(names, m.groups()):
    if types.setdefault(n, t) != t:
        print("variable %s has several types" % n)
by = {}
for n, t in types.items():
    by.setdefault(t, []).append(n)
short = {'half_float::half': 'half', 'float': 'single', 'double': 'double'}
print("#half-#single-#double: %d-%d-%d (of %d)" % (len(by.get('half_float::half', [])),
      len(by.get('float', [])), len(by.get('double', [])), len(types)))
for t in ['half_float::half', 'float', 'double']:
    print("%-7s %s" % (short[t] + ':', ', '.join(sorted(by.get(t, [])))))
PY
    fi
} | tee -a "$OUT/summary.txt"
