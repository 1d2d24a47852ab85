#!/usr/bin/env bash
# Checks every code block of docs/backends.md against this workspace's files
# (Ember's check_snippets.py; the guide names them by their path in Ember's
# tree, examples/out_of_tree_backend/...), then that the check fails on a
# guide whose block drifted from its file.
# Usage: docs_test.sh CHECK_SNIPPETS.py BACKENDS.md
set -euo pipefail
check=$1 guide=$2
root="${TEST_TMPDIR:-$(mktemp -d)}/root"
mkdir -p "$root/examples"
ln -sfn "$PWD" "$root/examples/out_of_tree_backend"  # the runfiles of this workspace
python3 "$check" "$root" "$guide"

drifted="${TEST_TMPDIR:-/tmp}/drifted.md"
sed '0,/^  m.impl("copy_", &npu_copy_);$/s//  m.impl("copy_", \&other_copy_);/' "$guide" > "$drifted"
if cmp -s "$guide" "$drifted"; then
  echo "FAIL: the drift edit matched nothing in $guide; update this test" >&2
  exit 1
fi
if python3 "$check" "$root" "$drifted" 2>err.txt; then
  echo "FAIL: a drifted block was accepted" >&2
  exit 1
fi
grep -qF "the block differs from examples/out_of_tree_backend/npu_kernels.cc#registrations" err.txt ||
  { echo "FAIL: message: $(cat err.txt)" >&2; exit 1; }
echo PASS
