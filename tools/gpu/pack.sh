#!/bin/bash
# tools/gpu/pack.sh — packs the GPU suite, the CUDA benchmark and the
# training program for a GPU machine that has the CUDA driver and toolkit
# but neither Bazel nor this project's Debian packages (docs/cuda.md,
# "Running on a lent GPU machine"). Builds them -c opt, then writes
#   .gpu/pack.tar.xz   the binaries with their runfiles (the plugins), and the
#                      Debian libraries they load (oneDNN, gRPC, absl, ...)
#   .gpu/data/         the Fashion-MNIST files, for //tools:train
# Run it from the repository root; then tools/gpu/run.sh there.
set -euo pipefail
ROOT=$(pwd)
./bazelw build -c opt //tests/backends/cuda:cuda_gpu_test //tools/bench:cuda_bench //tools:train
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
            backends/cpu/libember_cpu.so backends/cuda/libember_cuda.so; do
  ldd "$B/$prog" | awk '$3 ~ /^\/lib/ {print $3}'
done | sort -u | grep -v -E '/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt)\.so' |
  xargs -I{} cp -L {} lib/
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
