#!/usr/bin/env bash
# Runs Ember's aten/mm/nn benchmarks and the same workloads on Debian's
# libtorch in one invocation, both pinned to the same thread count, as
# DESIGN.md's performance budget asks, once per thread count given (default:
# 1, then 2), and prints each pair's ratio Ember/libtorch (median real and CPU
# time; below 1 means Ember is faster). Needs `apt-get install libtorch-dev` (kept
# out of the default build and tests).
#   tools/bench/libtorch_side_by_side.sh [THREADS...]
set -euo pipefail
cd "$(dirname "$0")/../.."
thread_counts=("$@")
if [ ${#thread_counts[@]} -eq 0 ]; then thread_counts=(1 2); fi
if ! dpkg-query -W -f='${db:Status-Abbrev}' libtorch-dev 2>/dev/null | grep -q '^ii'; then
  echo "libtorch_side_by_side: install Debian's libtorch-dev first:" >&2
  echo "  sudo apt-get install -y libtorch-dev" >&2
  exit 1
fi
# Debian's libtorch calls whatever libblas.so.3 the alternatives system picks;
# the reference BLAS makes its matmuls 5-10x slower than the OpenBLAS that
# DESIGN.md's anchors were measured with.
if ! readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3 | grep -q openblas; then
  echo "libtorch_side_by_side: libtorch would run on the reference BLAS; install OpenBLAS:" >&2
  echo "  sudo apt-get install -y libopenblas0-pthread" >&2
  exit 1
fi
out=$(mktemp -d)
g++ -std=c++17 -O3 -march=native tools/bench/libtorch_ops.cc \
  -I/usr/include/torch/csrc/api/include \
  -ltorch -ltorch_cpu -lc10 -lbenchmark_main -lbenchmark -pthread \
  -o "$out/libtorch_ops"
benches=(aten_bench mm_bench nn_bench autograd_bench train_step_bench)
./bazelw build --config=opt //tools/bench:aten_bench //tools/bench:mm_bench //tools/bench:nn_bench //tools/bench:autograd_bench //tools/bench:train_step_bench
args=(--benchmark_repetitions=3 --benchmark_report_aggregates_only=true)
# On a shared machine a benchmark gets a fraction of a core and its real time
# inflates (CPU time stays right). As root, run each side under SCHED_FIFO so
# it has a whole core for its duration: the real times are then those of a
# quiet machine. EMBER_BENCH_FIFO=0 turns this off. See docs/benchmarks.md.
prefix=()
if [[ $(id -u) -eq 0 && ${EMBER_BENCH_FIFO:-1} != 0 ]] && command -v chrt >/dev/null; then
  prefix=(chrt -f 50)
fi
for threads in "${thread_counts[@]}"; do
  export OMP_NUM_THREADS=$threads OPENBLAS_NUM_THREADS=$threads MKL_NUM_THREADS=$threads
  echo "== Ember (threads=$threads)"
  for b in "${benches[@]}"; do
    # bazel-bin is the --config=opt tree just built above.
    "${prefix[@]}" "bazel-bin/tools/bench/$b" "${args[@]}" 2>/dev/null | grep median
  done | tee "$out/ember.txt"
  echo "== libtorch 1.13.1 (threads=$threads)"
  "${prefix[@]}" "$out/libtorch_ops" "${args[@]}" 2>/dev/null | grep median | tee "$out/libtorch.txt"
  echo "== ratio Ember/libtorch (threads=$threads)"
  # Pairs BM_At<X> or BM_<X> with BM_Libtorch<X>: medians of real and CPU
  # time (CPU time is the steadier one on a shared machine).
  python3 - "$out/ember.txt" "$out/libtorch.txt" <<'EOF'
import re, sys
units = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
def read(path, prefix):
    times = {}
    for line in open(path):
        m = re.match(r"BM_(\S+)_median\s+([\d.]+) (ns|us|ms|s)\s+([\d.]+) (ns|us|ms|s)\s", line)
        if not m:
            continue
        name = m.group(1)
        if prefix:
            if not name.startswith(prefix):
                continue
            name = name[len(prefix):]
        elif name.startswith("At"):
            name = name[2:]
        times[name] = (float(m.group(2)) * units[m.group(3)],
                       float(m.group(4)) * units[m.group(5)])
    return times
ember, torch = read(sys.argv[1], None), read(sys.argv[2], "Libtorch")
print("%-28s %12s %12s %8s %12s %12s %8s" % ("workload", "Ember real", "torch real",
      "ratio", "Ember CPU", "torch CPU", "ratio"))
for name in sorted(set(ember) & set(torch)):
    (er, ec), (tr, tc) = ember[name], torch[name]
    print("%-28s %9.1f us %9.1f us %7.2fx %9.1f us %9.1f us %7.2fx" % (
        name, er * 1e6, tr * 1e6, er / tr, ec * 1e6, tc * 1e6, ec / tc))
EOF
done
