#!/usr/bin/env bash
# tests/fuzz/run_fuzzers.sh [SECONDS] [TARGET…] — runs each fuzz target (all
# by default) for SECONDS (default 25) from a copy of its checked-in corpus,
# EMBER_FUZZ_JOBS at a time (default: one per core), with -rss_limit_mb=2048 (an input-driven blow-up is a
# finding). Build first: ./bazelw build --config=asan //tests/fuzz/...
# (the asan config is the libFuzzer build; See Note [One build for ASan and
# fuzzing] in .bazelrc).
#
# Prints one line per target in Bazel's summary format, which .ci/run counts:
#   //tests/fuzz:json_fuzz   PASSED in 25s (fuzzing: 812345 runs, cov 1021 ft 3311)
# A finding is FAILED, with the tail of libFuzzer's log and the crashing
# input kept under $EMBER_FUZZ_ARTIFACTS (default: a temporary folder). Add
# it to tests/fuzz/<target>_corpus/ as crash-<what> together with the fix.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

seconds=${1:-25}
shift || true
targets=("$@")
if ((${#targets[@]} == 0)); then
  for d in tests/fuzz/*_corpus; do
    t=$(basename "$d")
    targets+=("${t%_corpus}")
  done
fi
bin=$(./bazelw info --config=asan bazel-bin 2>/dev/null)
artifacts=${EMBER_FUZZ_ARTIFACTS:-$(mktemp -d)}
mkdir -p "$artifacts"
# One target: fuzz it, then write its summary line (and on a finding the
# tail of its log) to $artifacts/$t.result; the exit status says PASSED.
fuzz_one() {
  local t=$1
  local work log start rc took runs cov
  work=$(mktemp -d)
  cp tests/fuzz/"$t"_corpus/* "$work"/
  log="$artifacts/$t.log"
  start=$(date +%s)
  ASAN_OPTIONS=detect_leaks=1:intercept_tls_get_addr=0 OMP_NUM_THREADS=1 \
    "$bin/tests/fuzz/$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$artifacts/$t-" "$work" >"$log" 2>&1
  rc=$?
  took=$(($(date +%s) - start))
  runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo "?")
  cov=$(grep -oE '(INITED|DONE|#[0-9]+).*cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 |
    grep -oE 'cov: [0-9]+ ft: [0-9]+' || echo "cov ?")
  rm -rf "$work"
  if [[ $rc -eq 0 ]]; then
    echo "//tests/fuzz:$t   PASSED in ${took}s (fuzzing: $runs runs, $cov)" >"$artifacts/$t.result"
    return 0
  fi
  {
    echo "//tests/fuzz:$t   FAILED in ${took}s (fuzzing: exit $rc; log $log)"
    tail -40 "$log"
  } >"$artifacts/$t.result"
  return 1
}

# EMBER_FUZZ_JOBS targets at a time (default: one per core); each target is
# single-threaded, so the wall time is about SECONDS × targets / jobs.
jobs=${EMBER_FUZZ_JOBS:-$(nproc)}
# The result files, not exit statuses, decide (wait -n has already reaped
# some of the jobs); a target with no result line did not finish.
for t in "${targets[@]}"; do
  while (($(jobs -rp | wc -l) >= jobs)); do
    wait -n || true
  done
  fuzz_one "$t" &
done
wait
status=0
for t in "${targets[@]}"; do
  if [[ -s "$artifacts/$t.result" ]]; then
    cat "$artifacts/$t.result"
    grep -q "^//tests/fuzz:$t   PASSED" "$artifacts/$t.result" || status=1
  else
    echo "//tests/fuzz:$t   FAILED (no result: the run did not finish)"
    status=1
  fi
done
exit $status
