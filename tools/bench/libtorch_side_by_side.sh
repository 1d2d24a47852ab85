#!/usr/bin/env bash
# Runs Ember's aten/mm benchmarks and the same workloads on Debian's libtorch
# in one invocation, both pinned to THREADS threads (default 1), as
# DESIGN.md's performance budget asks. Needs `apt-get install libtorch-dev`
# (kept out of the default build and tests).
#   tools/bench/libtorch_side_by_side.sh [THREADS]
set -euo pipefail
cd "$(dirname "$0")/../.."
threads=${1:-1}
export OMP_NUM_THREADS=$threads OPENBLAS_NUM_THREADS=$threads MKL_NUM_THREADS=$threads
if ! dpkg-query -W -f='${db:Status-Abbrev}' libtorch-dev 2>/dev/null | grep -q '^ii'; then
  echo "libtorch_side_by_side: install Debian's libtorch-dev first:" >&2
  echo "  sudo apt-get install -y libtorch-dev" >&2
  exit 1
fi
out=$(mktemp -d)
g++ -std=c++17 -O3 -march=native tools/bench/libtorch_ops.cc \
  -I/usr/include/torch/csrc/api/include \
  -ltorch -ltorch_cpu -lc10 -lbenchmark_main -lbenchmark -pthread \
  -o "$out/libtorch_ops"
./bazelw build --config=opt //tools/bench:aten_bench //tools/bench:mm_bench
args=(--benchmark_repetitions=3 --benchmark_report_aggregates_only=true)
echo "== Ember (threads=$threads)"
./bazelw run --config=opt //tools/bench:aten_bench -- "${args[@]}" 2>/dev/null | grep median
./bazelw run --config=opt //tools/bench:mm_bench -- "${args[@]}" 2>/dev/null | grep median
echo "== libtorch 1.13.1 (threads=$threads)"
"$out/libtorch_ops" "${args[@]}" 2>/dev/null | grep median
