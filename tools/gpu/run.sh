#!/bin/bash
# tools/gpu/run.sh — on the GPU machine, in the repository root with .gpu/
# from tools/gpu/pack.sh: the GPU suite, compute-sanitizer's memcheck over
# it, two epochs of //tools:train --device=cuda (checkpoint written), a third
# epoch resumed from it on the CPU, one CNN epoch on the GPU, cuda_bench, and
# the packed op-conformance suites on cuda:0 (ops_*.log: every op and dtype
# the suite checks, against its host references). Logs go to $OUT (default
# /tmp/ember_gpu_out). cuBLAS comes from $CUDA_HOME/lib64 there.
REPO=$(pwd)
OUT=${OUT:-/tmp/ember_gpu_out}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
mkdir -p "$OUT"
W=$(mktemp -d)
cd "$W" && tar xJf "$REPO/.gpu/pack.tar.xz" || exit 1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | tee "$OUT/card.txt"
# Every folder of the runfiles that holds a shared object, and the system
# libraries packed beside them.
LIBS=$W/lib
for tree in cuda_gpu_test cuda_bench train; do
  LIBS=$LIBS:$(find "$W/$tree.runfiles/ember/_solib_k8" -name '*.so' -printf '%h\n' | sort -u | paste -sd:)
done
export LD_LIBRARY_PATH=$LIBS:$CUDA_HOME/lib64
timeout 120 ./cuda_gpu_test > "$OUT/gpu_test.log" 2>&1
echo "cuda_gpu_test rc=$?"
grep -E '^\[  (FAILED|PASSED|SKIPPED) ' "$OUT/gpu_test.log"
grep -B1 -A6 Failure "$OUT/gpu_test.log" | head -60
D=$REPO/.gpu/data/fashion-mnist
timeout 120 ./train --device=cuda --epochs=2 --progress=quiet --data="$D" \
  --save="$W/checkpoint.safetensors" 2>&1 | tee "$OUT/train_cuda.log"
timeout 120 ./train --device=cpu --epochs=3 --progress=quiet --data="$D" \
  --resume="$W/checkpoint.safetensors" 2>&1 | tee "$OUT/train_cpu_resume.log"
# The CNN (convolutions and pools through the core's decompositions).
timeout 180 ./train --device=cuda --model=cnn --epochs=1 --progress=quiet --data="$D" \
  2>&1 | tee "$OUT/train_cnn_cuda.log"
# The op-conformance suites on cuda:0 only; the plugins come from
# cuda_gpu_test's runfiles. A failure names the op, dtype and layout.
for s in $(ls ops/*_test | grep -v nccl_test); do
  name=$(basename "$s")
  RUNFILES_DIR=$W/cuda_gpu_test.runfiles LD_LIBRARY_PATH=$W/ops/lib:$LD_LIBRARY_PATH \
    EMBER_CONFORMANCE_DEVICES=cuda:0 timeout 120 "./$s" --gtest_filter='*cuda0*' \
    > "$OUT/ops_$name.log" 2>&1
  echo "$name rc=$? $(grep -cE '^\[       OK \]' "$OUT/ops_$name.log") ok," \
    "$(grep -cE '^\[  FAILED  \] .*\(' "$OUT/ops_$name.log") failed," \
    "$(grep -cE '^\[  SKIPPED \]' "$OUT/ops_$name.log") skipped"
done
# ProcessGroupNCCL on one rank (tests/distributed/nccl_test.cc).
RUNFILES_DIR=$W/cuda_gpu_test.runfiles LD_LIBRARY_PATH=$W/ops/lib:$LD_LIBRARY_PATH \
  timeout 120 ./ops/nccl_test > "$OUT/nccl_test.log" 2>&1
echo "nccl_test rc=$? $(grep -cE '^\[       OK \]' "$OUT/nccl_test.log") ok," \
  "$(grep -cE '^\[  SKIPPED \]' "$OUT/nccl_test.log") skipped"
CS=$(command -v compute-sanitizer || echo "$CUDA_HOME/bin/compute-sanitizer")
timeout 120 "$CS" --tool memcheck --leak-check no ./cuda_gpu_test 2>&1 | tail -3 | tee "$OUT/memcheck.log"
timeout 120 ./cuda_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true 2>&1 |
  tee "$OUT/bench.log" | grep -E 'median|ERROR'
rm -rf "$W"
