#!/bin/bash
# tools/gpu/run.sh [PHASE...] — on the GPU machine, in the repository root
# with .gpu/ from tools/gpu/pack.sh. Phases, in the default order (most
# telling first, so that a short lease spends itself on them):
#   suite     the GPU suite (cuda_gpu_test: every kernel against the CPU)
#   bench     cuda_bench (the card's limits and Ember against them)
#   nccl      ProcessGroupNCCL on one rank (nccl_test)
#   train     two epochs of //tools:train --device=cuda (checkpoint written),
#             a third resumed from it on the CPU, one CNN epoch on the GPU
#   ops       the packed op-conformance suites on cuda:0 (ops_*.log)
#   memcheck  compute-sanitizer's memcheck over the GPU suite
# Each phase prints its wall time. The device tool allows 600 s a command:
# run the phases over several commands when the lease is short, e.g.
# `bash tools/gpu/run.sh suite bench` then `bash tools/gpu/run.sh nccl train`.
# Logs go to $OUT (default /tmp/ember_gpu_out). cuBLAS, cuDNN and NCCL come
# from $CUDA_HOME/lib64 there.
REPO=$(pwd)
OUT=${OUT:-/tmp/ember_gpu_out}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
PHASES=${*:-suite bench nccl train ops memcheck}
mkdir -p "$OUT"
W=$(mktemp -d)
cd "$W" && tar xJf "$REPO/.gpu/pack.tar.xz" || exit 1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | tee "$OUT/card.txt"
ls "$CUDA_HOME"/lib64/libcudnn.so.* "$CUDA_HOME"/lib64/libnccl.so.* 2>&1 | tee "$OUT/libraries.txt"
# Every folder of the runfiles that holds a shared object, and the system
# libraries packed beside them.
LIBS=$W/lib
for tree in cuda_gpu_test cuda_bench train; do
  LIBS=$LIBS:$(find "$W/$tree.runfiles/ember/_solib_k8" -name '*.so' -printf '%h\n' | sort -u | paste -sd:)
done
export LD_LIBRARY_PATH=$LIBS:$CUDA_HOME/lib64
D=$REPO/.gpu/data/fashion-mnist

suite() {
  timeout 120 ./cuda_gpu_test > "$OUT/gpu_test.log" 2>&1
  echo "cuda_gpu_test rc=$?"
  grep -E '^cudnn_is_available|^\[  (FAILED|PASSED|SKIPPED) ' "$OUT/gpu_test.log"
  grep -B1 -A6 Failure "$OUT/gpu_test.log" | head -60
}

bench() {
  timeout 150 ./cuda_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true 2>&1 |
    tee "$OUT/bench.log" | grep -E 'median|ERROR'
}

nccl() {
  # ProcessGroupNCCL on one rank (tests/distributed/nccl_test.cc).
  RUNFILES_DIR=$W/cuda_gpu_test.runfiles LD_LIBRARY_PATH=$W/ops/lib:$LD_LIBRARY_PATH \
    timeout 120 ./ops/nccl_test > "$OUT/nccl_test.log" 2>&1
  echo "nccl_test rc=$? $(grep -cE '^\[       OK \]' "$OUT/nccl_test.log") ok," \
    "$(grep -cE '^\[  SKIPPED \]' "$OUT/nccl_test.log") skipped"
  grep -B1 -A6 Failure "$OUT/nccl_test.log" | head -30
}

train() {
  timeout 120 ./train --device=cuda --epochs=2 --progress=quiet --data="$D" \
    --save="$W/checkpoint.safetensors" 2>&1 | tee "$OUT/train_cuda.log"
  timeout 120 ./train --device=cpu --epochs=3 --progress=quiet --data="$D" \
    --resume="$W/checkpoint.safetensors" 2>&1 | tee "$OUT/train_cpu_resume.log"
  # The CNN (convolutions through cuDNN where the machine has it).
  timeout 180 ./train --device=cuda --model=cnn --epochs=1 --progress=quiet --data="$D" \
    2>&1 | tee "$OUT/train_cnn_cuda.log"
}

ops() {
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
}

memcheck() {
  CS=$(command -v compute-sanitizer || echo "$CUDA_HOME/bin/compute-sanitizer")
  timeout 240 "$CS" --tool memcheck --leak-check no ./cuda_gpu_test 2>&1 | tail -3 |
    tee "$OUT/memcheck.log"
}

for phase in $PHASES; do
  case "$phase" in
    suite|bench|nccl|train|ops|memcheck) ;;
    *) echo "run.sh: unknown phase '$phase' (suite bench nccl train ops memcheck)"; exit 2 ;;
  esac
  start=$(date +%s)
  echo "=== $phase"
  "$phase"
  echo "=== $phase: $(( $(date +%s) - start )) s"
done
rm -rf "$W"
