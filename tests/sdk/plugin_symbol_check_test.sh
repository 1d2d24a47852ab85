#!/usr/bin/env bash
# ember_plugin's core-symbol check: refuses a plugin that defines a core
# symbol (naming it and what to do), passes the CPU plugin.
set -euo pipefail
check="$1"
core="$2"
bad="$3"
good="$4"
fail() { echo "FAIL: $*" >&2; exit 1; }
out="${TEST_TMPDIR:-/tmp}/check.txt"

if python3 "$check" "$bad" "$core" "$out" 2>err.txt; then
  fail "the check accepted a plugin that defines c10::deleteNothing"
fi
grep -qF "defines 1 symbol(s) of the core (libember_core.so):" err.txt || fail "count: $(cat err.txt)"
grep -qF "c10::deleteNothing(void*)" err.txt || fail "symbol: $(cat err.txt)"
grep -qF "Depend on //:ember_plugin_sdk (headers only)" err.txt || fail "advice: $(cat err.txt)"

python3 "$check" "$good" "$core" "$out" || fail "the CPU plugin was refused"
grep -qF "no core symbols" "$out" || fail "summary: $(cat "$out")"
echo PASS
