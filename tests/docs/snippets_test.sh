#!/usr/bin/env bash
# Runs check_snippets.py over the guides from the runfiles root, then checks
# that it fails on a guide whose block drifted from its file.
set -euo pipefail
check="$1"
shift
python3 "$check" . "$@"
drifted="${TEST_TMPDIR:-/tmp}/drifted.md"
sed '0,/^  m.impl("copy_", &npu_copy_);$/s//  m.impl("copy_", \&other_copy_);/' "$1" > "$drifted"
if python3 "$check" . "$drifted" 2>err.txt; then
  echo "FAIL: a drifted block was accepted" >&2
  exit 1
fi
grep -qF "the block differs from tests/backends/npu/npu_plugin.cc#registrations" err.txt ||
  { echo "FAIL: message: $(cat err.txt)" >&2; exit 1; }
echo PASS
