#!/usr/bin/env bash
# Runs check_snippets.py over the guide from the runfiles root, then checks
# that it fails on a guide whose block drifted from its file.
set -euo pipefail
check="$1"
shift
python3 "$check" . "$@"
drifted="${TEST_TMPDIR:-/tmp}/drifted.md"
sed '0,/^  m.def("mymul(Tensor self, Tensor other) -> Tensor");$/s//  m.def("mymul(Tensor self) -> Tensor");/' "$1" > "$drifted"
if cmp -s "$1" "$drifted"; then
  echo "FAIL: the drift edit matched nothing in $1; update this test" >&2
  exit 1
fi
if python3 "$check" . "$drifted" 2>err.txt; then
  echo "FAIL: a drifted block was accepted" >&2
  exit 1
fi
grep -qF "the block differs from examples/custom_op/my_ops.cc#registrations" err.txt ||
  { echo "FAIL: message: $(cat err.txt)" >&2; exit 1; }
echo PASS
