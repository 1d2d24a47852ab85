#!/usr/bin/env bash
# //tools:launch runs a two-worker program whose workers call ops on each
# other, prefixing their output by rank; when one rank fails, the launcher
# stops the rest and exits with its status.
set -uo pipefail
launch=$1
program=$2
# Under --config=tsan: tsan.supp, the list the gtest suites get compiled in
# (an example program does not link it).
export TSAN_OPTIONS="${TSAN_OPTIONS:-}:suppressions=$3"
out=$(timeout 30 "$launch" --nproc=2 "$program" 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "launch failed ($rc): $out" >&2; exit 1; }
grep -qF "[rank 0] worker0: add on worker1 = 1, remote mul = 2" <<<"$out" ||
  { echo "unexpected output: $out" >&2; exit 1; }
grep -qF "[rank 1] worker1: add on worker0 = 2, remote mul = 3" <<<"$out" ||
  { echo "unexpected output: $out" >&2; exit 1; }
# Rank 1 exits 3 at once; rank 0 would wait for it at rendezvous: the
# launcher must stop it and report 3, quickly.
start=$(date +%s)
out=$(timeout 30 "$launch" --nproc=2 "$program" --fail-rank=1 2>&1)
rc=$?
[ $rc -eq 3 ] || { echo "expected status 3, got $rc: $out" >&2; exit 1; }
grep -qF "launch: rank 1 failed (exit 3); stopping the others" <<<"$out" ||
  { echo "unexpected output: $out" >&2; exit 1; }
[ $(( $(date +%s) - start )) -lt 15 ] || { echo "took too long" >&2; exit 1; }
echo PASS
