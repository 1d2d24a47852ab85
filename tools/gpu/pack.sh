#!/bin/bash
# tools/gpu/pack.sh — packs the GPU suite, the CUDA benchmark and the
# training program for a GPU machine that has the CUDA driver and toolkit
# but neither Bazel nor this project's Debian packages (docs/cuda.md,
# "Running on a lent GPU machine"). Builds them -c opt, then writes
#   .gpu/pack.tar.xz   the binaries with their runfiles (the plugins), and the
#                      Debian libraries they load (oneDNN, gRPC, absl, ...);
#                      in ops/, the op-conformance suites of OPS_SUITES (run
#                      on cuda:0 by run.sh) and the shared objects of theirs
#                      that cuda_gpu_test's runfiles do not have
#   .gpu/data/         the Fashion-MNIST files, for //tools:train
# Run it from the repository root; then tools/gpu/run.sh there.
set -euo pipefail
ROOT=$(pwd)
# The tests/ops suites the GPU run stamps for CUDA (tests/ops/BUILD.bazel's
# *_cuda targets, without Bazel there).
OPS_SUITES=${OPS_SUITES:-"arithmetic_test conversion_test factories_test pointwise_activation_test
  pointwise_binary_test pointwise_ternary_test pointwise_unary_test reductions_test
  reductions_long_runs_test
  nn_softmax_test nn_loss_test shape_test indexing_sort_test"}
./bazelw build -c opt //tests/backends/cuda:cuda_gpu_test //tools/bench:cuda_bench //tools:train \
  //tests/distributed:nccl_test $(for s in $OPS_SUITES; do echo "//tests/ops:$s"; done)
B=$ROOT/bazel-bin
P=$(mktemp -d)
trap 'rm -rf "$P"' EXIT
mkdir -p "$P/lib"
cd "$P"
cp -L "$B/tests/backends/cuda/cuda_gpu_test" "$B/tools/bench/cuda_bench" "$B/tools/train" .
for prog in tests/backends/cuda/cuda_gpu_test tools/bench/cuda_bench tools/train; do
  cp -rL "$B/$prog.runfiles" "$(basename "$prog").runfiles"
done
# Every library the programs load from the system, except glibc's and the
# compiler runtime (resolved in bazel-bin, where the runfiles paths hold).
for prog in tests/backends/cuda/cuda_gpu_test tools/bench/cuda_bench tools/train \
            tests/distributed/nccl_test backends/cpu/libember_cpu.so backends/cuda/libember_cuda.so; do
  ldd "$B/$prog" | awk '$3 ~ /^\/lib/ {print $3}'
done | sort -u | grep -v -E '/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt)\.so' |
  xargs -I{} cp -L {} lib/
mkdir -p ops/lib
# The NCCL group's test (one rank) goes with the suites: the plugins from
# cuda_gpu_test's runfiles, its other shared objects in ops/lib.
for s in $OPS_SUITES nccl_test; do
  dir=tests/ops
  [ "$s" = nccl_test ] && dir=tests/distributed
  cp -L "$B/$dir/$s" ops/
  find -L "$B/$dir/$s.runfiles/ember/_solib_k8" -name '*.so' | while read -r so; do
    name=$(basename "$so")
    if [ -z "$(find cuda_gpu_test.runfiles -name "$name" -print -quit)" ]; then
      cp -L "$so" ops/lib/
    fi
  done
done
# Identical files of the three runfiles trees become hard links (tar stores
# them once).
for other in cuda_gpu_test train; do
  (cd "$other.runfiles" && find . -type f) | while read -r f; do
    if [ -f "cuda_bench.runfiles/$f" ] && cmp -s "cuda_bench.runfiles/$f" "$other.runfiles/$f"; then
      ln -f "cuda_bench.runfiles/$f" "$other.runfiles/$f"
    fi
  done
done
mkdir -p "$ROOT/.gpu/data"
tar cf - . | xz -T2 -6 > "$ROOT/.gpu/pack.tar.xz"
cp -r /usr/share/datasets/fashion-mnist "$ROOT/.gpu/data/"
ls -la "$ROOT/.gpu/pack.tar.xz"
