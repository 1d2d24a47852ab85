#!/usr/bin/env bash
# Runs Ember's aten/mm/nn/autograd/train-step benchmarks, built both as a
# plain `-c opt` and with --config=native, and the same workloads on Debian's
# libtorch in one invocation, all pinned to the same thread count, as
# DESIGN.md's performance budget asks, once per thread count given (default:
# 1, then 2); prints each pair's ratio Ember/libtorch (median real time; below
# 1 means Ember is faster) and the train steps against their FLOP floors.
# Needs `apt-get install libtorch-dev` (kept out of the default build and
# tests).
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
targets=()
for b in "${benches[@]}"; do targets+=("//tools/bench:$b"); done
# Ember built both ways: the plain `-c opt` a user's program gets (the CPU
# plugin picks its AVX2/AVX-512 build at run time, docs/cpu_capability.md)
# and --config=native (-O3 -march=native for everything).
flavors=(plain native)
declare -A flavor_flags=([plain]="-c opt" [native]="--config=native")
declare -A flavor_bin
for f in "${flavors[@]}"; do
  # shellcheck disable=SC2086
  ./bazelw build ${flavor_flags[$f]} "${targets[@]}"
  # shellcheck disable=SC2086
  flavor_bin[$f]=$(./bazelw info ${flavor_flags[$f]} bazel-bin 2>/dev/null)
done
args=(--benchmark_repetitions=3 --benchmark_report_aggregates_only=true)
# On a shared machine a benchmark gets a fraction of a core and its real time
# inflates (CPU time stays right). As root, run each side under SCHED_FIFO so
# it has a whole core for its duration: the real times are then those of a
# quiet machine. EMBER_BENCH_FIFO=0 turns this off. See docs/benchmarks.md.
prefix=()
if [[ $(id -u) -eq 0 && ${EMBER_BENCH_FIFO:-1} != 0 ]] && command -v chrt >/dev/null; then
  prefix=(chrt -f 50)
fi
lscpu | grep -m1 'Model name' || true
for threads in "${thread_counts[@]}"; do
  export OMP_NUM_THREADS=$threads OPENBLAS_NUM_THREADS=$threads MKL_NUM_THREADS=$threads
  for f in "${flavors[@]}"; do
    echo "== Ember ${flavor_flags[$f]} (threads=$threads)"
    for b in "${benches[@]}"; do
      "${prefix[@]}" "${flavor_bin[$f]}/tools/bench/$b" "${args[@]}" 2>/dev/null | grep median
    done | tee "$out/ember_$f.txt"
  done
  echo "== libtorch 1.13.1 (threads=$threads)"
  "${prefix[@]}" "$out/libtorch_ops" "${args[@]}" 2>/dev/null | grep median | tee "$out/libtorch.txt"
  echo "== ratios Ember/libtorch and to the FLOP floor (threads=$threads)"
  # Pairs BM_At<X> or BM_<X> with BM_Libtorch<X> (median real times). The
  # FLOP floor of a train step is its matmul/conv FLOPs at oneDNN's own
  # sgemm rate (BM_AnchorOneDNNSgemm/1024 of the native run, same threads).
  python3 - "$out/ember_plain.txt" "$out/ember_native.txt" "$out/libtorch.txt" <<'EOF'
import re, sys
units = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
def read(path, prefix):
    times, rates = {}, {}
    for line in open(path):
        m = re.match(r"BM_(\S+)_median\s+([\d.]+) (ns|us|ms|s)\s+([\d.]+) (ns|us|ms|s)\s", line)
        if not m:
            continue
        name = m.group(1)
        g = re.search(r"GFLOP/s=([\d.]+)([GT]?)/s", line)
        if g:
            rates[name] = float(g.group(1)) * (1000 if g.group(2) == "T" else 1)
        if prefix:
            if not name.startswith(prefix):
                continue
            name = name[len(prefix):]
        elif name.startswith("At"):
            name = name[2:]
        times[name] = float(m.group(2)) * units[m.group(3)]
    return times, rates
plain, _ = read(sys.argv[1], None)
native, rates = read(sys.argv[2], None)
torch, _ = read(sys.argv[3], "Libtorch")
print("%-28s %11s %11s %11s %8s %8s" % ("workload (median real)", "-c opt", "native",
      "libtorch", "opt/lt", "nat/lt"))
for name in sorted(set(plain) & set(native) & set(torch)):
    p, n, t = plain[name], native[name], torch[name]
    print("%-28s %8.1f us %8.1f us %8.1f us %7.2fx %7.2fx" % (
        name, p * 1e6, n * 1e6, t * 1e6, p / t, n / t))
sgemm = rates.get("AnchorOneDNNSgemm/1024")
if sgemm:
    print("oneDNN sgemm 1024: %.1f GFLOP/s" % sgemm)
    # Matmul/conv FLOPs per step, forward and backward (train_step_workloads.h).
    for name, flop in (("MlpTrainStep", 308e6), ("CnnTrainStep", 1.46e9)):
        floor = flop / (sgemm * 1e9)
        ratios = [side[name] / floor if name in side else float("nan")
                  for side in (plain, native, torch)]
        print("%-14s floor %.2f ms: -c opt %.2fx, native %.2fx, libtorch %.2fx of it"
              % (name, floor * 1e3, *ratios))
EOF
done
