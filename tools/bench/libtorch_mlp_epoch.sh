#!/usr/bin/env bash
# Times the Fashion-MNIST MLP epoch (tools/bench/mlp_epoch.cc, one source) on
# Ember and on Debian's libtorch in one invocation, both on THREADS threads
# (default 1, as DESIGN.md's anchor), and prints the epoch times.
#   tools/bench/libtorch_mlp_epoch.sh [THREADS] [EPOCHS]
set -euo pipefail
cd "$(dirname "$0")/../.."
threads=${1:-1}
epochs=${2:-3}
if ! dpkg-query -W -f='${db:Status-Abbrev}' libtorch-dev 2>/dev/null | grep -q '^ii'; then
  echo "libtorch_mlp_epoch: install Debian's libtorch-dev first" >&2
  exit 1
fi
if ! readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3 | grep -q openblas; then
  echo "libtorch_mlp_epoch: install OpenBLAS (apt-get install -y libopenblas0-pthread)" >&2
  exit 1
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mkdir "$out/data"
for f in /usr/share/datasets/fashion-mnist/*.gz; do
  zcat "$f" > "$out/data/$(basename "$f" .gz)"
done
g++ -std=c++17 -O3 -march=native tools/bench/mlp_epoch.cc \
  -I/usr/include/torch/csrc/api/include -ltorch -ltorch_cpu -lc10 -pthread \
  -o "$out/libtorch_mlp_epoch"
./bazelw build --config=opt //tools/bench:mlp_epoch
export OMP_NUM_THREADS=$threads OPENBLAS_NUM_THREADS=$threads MKL_NUM_THREADS=$threads
echo "== Ember (threads=$threads)"
bazel-bin/tools/bench/mlp_epoch "$out/data" "$threads" "$epochs"
echo "== libtorch 1.13.1 (threads=$threads)"
"$out/libtorch_mlp_epoch" "$out/data" "$threads" "$epochs"
