#!/usr/bin/env bash
# The example builds, finds the CPU plugin in its runfiles, and prints.
set -euo pipefail
out=$("$1")
grep -qF "[ CPUFloatType{2,4} ]" <<<"$out" || { echo "unexpected output: $out" >&2; exit 1; }
grep -qF "y[0][0] = 2.5" <<<"$out" || { echo "unexpected output: $out" >&2; exit 1; }
echo PASS
