#!/usr/bin/env bash
# The command line of //tools:train: --help, unknown flags and bad values end
# with one message and a non-zero exit; --metrics, --plot and --graph write
# their files.
set -u
train="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
# Under --config=tsan: --nproc=2 runs gRPC (the store) and Gloo, which are
# not instrumented; tests/distributed/tsan.supp says why and what it ignores.
# (Only --config=tsan sets TSAN_OPTIONS before this line.)
under_tsan=${TSAN_OPTIONS:+1}
export TSAN_OPTIONS="${TSAN_OPTIONS:-}:suppressions=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")"
fail=0
check() {  # check NAME EXPECTED_STATUS PATTERN -- ARGS...
  local name="$1" want="$2" pattern="$3"
  shift 4
  local got=0
  "$train" "$@" >"$tmp/out" 2>&1 || got=$?
  if [ "$got" != "$want" ] || ! grep -q -- "$pattern" "$tmp/out"; then
    echo "FAIL $name: exit $got (want $want), output:"; cat "$tmp/out"; fail=1
  else
    echo "ok   $name"
  fi
}
check help 1 "--batch_size (training batch size); default: 128;" -- --help
check help_lists_plot 1 "--plot (draw loss and accuracy" -- --help
check unknown_flag 1 "Unknown command line flag 'epocs'" -- --epocs=3
check bad_number 1 "Illegal value '3x' specified for flag 'epochs'" -- --epochs=3x
check bad_model 1 "train: error: train: --model must be mlp or cnn, got 'vgg'" -- --model=vgg
check stray_argument 1 "unexpected argument 'mlp'" -- mlp
check missing_data 1 "train: error: .*$tmp/nowhere" -- --data="$tmp/nowhere"
check hyphens 1 "train: error: train: --batch_size must be at least 1, got 0" -- --batch-size=0
check run 0 "test accuracy" -- --train-samples=1000 --test_samples=500 --epochs=2 \
  --metrics="$tmp/m.csv" --plot="$tmp/p.png" --threads=1
if [ "$(wc -l <"$tmp/m.csv")" != 3 ] || ! head -1 "$tmp/m.csv" | grep -q "^epoch,train_loss"; then
  echo "FAIL metrics file:"; cat "$tmp/m.csv"; fail=1
fi
if ! head -c 8 "$tmp/p.png" | od -An -tx1 | grep -q "89 50 4e 47 0d 0a 1a 0a"; then
  echo "FAIL plot: $tmp/p.png is not a PNG"; fail=1
fi
# Issue 21: --profile prints the table and writes a trace; --graph writes DOT.
# 1000 samples (8 batches): the loader's worker keeps 2 batches ready, so it
# must make more during the 2 profiled steps (with 3 batches it could finish
# them all before the profiler starts, as it did once under ASan).
check profile 0 "Self CPU time total: " -- --train_samples=1000 --test_samples=100 --epochs=1 \
  --threads=1 --profile="$tmp/trace.json" --profile_steps=2 --graph="$tmp/g.dot"
if ! grep -q '"ph": "f"' "$tmp/trace.json" || ! grep -q 'ProfilerStep#1' "$tmp/trace.json"; then
  echo "FAIL profile: $tmp/trace.json has no flow or no second step"; fail=1
fi
# The trace also holds memory, the optimizer's steps, the loader's batches
# (on its worker's track) and oneDNN's primitive creations; the table has
# the memory columns.
for what in '"name": "\[memory\]"' '"name": "CPU memory"' 'Optimizer.step#SGD.step' \
    'DataLoader worker: get_batch' 'oneDNN::create matmul' '"cat": "backend"'; do
  if ! grep -q "$what" "$tmp/trace.json"; then
    echo "FAIL profile: $tmp/trace.json has no $what"; fail=1
  fi
done
if ! grep -q "Self CPU Mem" "$tmp/out"; then
  echo "FAIL profile: the table has no memory columns:"; cat "$tmp/out"; fail=1
fi
# With the ops on every core (the default --threads) the batches are made on
# the training thread: no loader worker to preempt them. Not under TSan:
# every core means a multi-thread OpenMP team, and libgomp is not
# instrumented (false races; .bazelrc).
if [ -n "$under_tsan" ]; then
  echo "skip profile_all_cores: a multi-thread OpenMP team under TSan reports false races"
else
  check profile_all_cores 0 "Self CPU time total: " -- --train_samples=1000 \
    --test_samples=100 --epochs=1 --profile="$tmp/trace_all.json" --profile_steps=2
  if grep -q 'DataLoader worker: get_batch' "$tmp/trace_all.json"; then
    echo "FAIL profile_all_cores: a loader worker ran beside op threads on every core"; fail=1
  fi
fi
# --memory-report makes the batches on the training thread even with a core
# free: a loader thread's batch would land in whichever category was being
# measured (Note [What --memory-report measures]).
check memory_report_loader 0 "optimizer state  " -- --train_samples=1000 --test_samples=100 \
  --epochs=1 --threads=1 --memory-report --profile="$tmp/trace_mem.json" --profile_steps=2
if grep -q 'DataLoader worker: get_batch' "$tmp/trace_mem.json"; then
  echo "FAIL memory_report_loader: a loader worker allocated beside the measured windows"; fail=1
fi
# tools/profiling/trace_timeline.py draws that trace (a PNG of some size)
# and names a window it cannot find.
timeline="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
if ! python3 "$timeline" "$tmp/trace.json" "$tmp/timeline.png" --window 'ProfilerStep#1' \
    >"$tmp/out" 2>&1 || ! head -c 8 "$tmp/timeline.png" | od -An -tx1 | grep -q "89 50 4e 47" ||
    [ "$(stat -c %s "$tmp/timeline.png")" -lt 20000 ]; then
  echo "FAIL timeline:"; cat "$tmp/out"; fail=1
else
  echo "ok   timeline"
fi
if python3 "$timeline" "$tmp/trace.json" "$tmp/t2.png" --window nowhere >"$tmp/out" 2>&1 ||
    ! grep -q "trace_timeline: error: no range named 'nowhere' in the trace" "$tmp/out"; then
  echo "FAIL timeline_bad_window:"; cat "$tmp/out"; fail=1
fi
# --nproc=2 (issue 20): two processes with DistributedDataParallel train the
# same steps as one process with the same global batch (Note [Data-parallel
# training]): the same losses and accuracy, printed once, by rank 0.
"$train" --train_samples=1000 --test_samples=300 --epochs=2 --threads=1 --progress=lines \
  --batch_size=100 >"$tmp/one" 2>&1 || { echo "FAIL nproc: one process failed"; cat "$tmp/one"; fail=1; }
"$train" --train_samples=1000 --test_samples=300 --epochs=2 --threads=1 --progress=lines \
  --batch_size=100 --nproc=2 >"$tmp/two" 2>&1 || { echo "FAIL nproc: two processes failed"; cat "$tmp/two"; fail=1; }
one_losses=$(grep -o 'train loss [0-9.]*, test accuracy [0-9.]*%' "$tmp/one")
two_losses=$(grep -o 'train loss [0-9.]*, test accuracy [0-9.]*%' "$tmp/two")
if [ -z "$one_losses" ] || [ "$one_losses" != "$two_losses" ] ||
    [ "$(grep -c '^\[rank 0\] epoch' "$tmp/two")" != 2 ] || grep -q '^\[rank 1\]' "$tmp/two" ||
    ! grep -q "2 processes (data-parallel)" "$tmp/two"; then
  echo "FAIL nproc: one process vs two:"; cat "$tmp/one" "$tmp/two"; fail=1
else
  echo "ok   nproc"
fi
check bad_nproc 1 "train: error: --nproc must be 1 to 1024, got 0" -- --nproc=0 --nnodes=2
check nnodes_without_port 1 "master_port must be given with --nnodes > 1" -- --nproc=1 --nnodes=2
# --memory-report: the categories and the allocator's summary.
check memory_report 0 "  parameters and buffers                         2.04 MiB" -- \
  --train_samples=300 --test_samples=100 --epochs=1 --threads=1 --memory-report
if ! grep -q "Ember CPU memory summary" "$tmp/out" || ! grep -q "peak during a training step" "$tmp/out"; then
  echo "FAIL memory_report:"; cat "$tmp/out"; fail=1
fi
if ! head -1 "$tmp/g.dot" | grep -q '^digraph autograd {' || ! grep -q 'label="1.weight' "$tmp/g.dot"; then
  echo "FAIL graph:"; cat "$tmp/g.dot"; fail=1
fi
check bad_profile_steps 1 "train: --profile_steps must be at least 1, got 0" -- --profile_steps=0
# --graph=*.png: the graph drawn by Graphviz's dot (a PNG of some size).
check graph_png 0 "epoch 1/1" -- --train_samples=300 --test_samples=100 --epochs=1 \
  --threads=1 --graph="$tmp/g.png"
if [[ "$(head -c 8 "$tmp/g.png" | od -An -tx1 | tr -d ' \n')" != 89504e470d0a1a0a ]] ||
  [[ $(stat -c %s "$tmp/g.png") -lt 10000 ]]; then
  echo "FAIL graph_png: $tmp/g.png is not a PNG of the graph"; fail=1
fi
# Without dot on PATH the message says what to install, and no file is left.
mkdir -p "$tmp/empty_path"
got=0
PATH="$tmp/empty_path" "$train" --train_samples=300 --test_samples=100 --epochs=1 --threads=1 \
  --graph="$tmp/h.png" >"$tmp/out" 2>&1 || got=$?
if [ "$got" != 1 ] || [ -e "$tmp/h.png" ] ||
  ! grep -q "train: --graph needs dot, which was not found on PATH; install Debian's graphviz" "$tmp/out"; then
  echo "FAIL graph_png_no_dot: exit $got, output:"; cat "$tmp/out"; fail=1
else
  echo "ok   graph_png_no_dot"
fi

check bad_plot_folder 1 "cannot create a temporary file next to" -- --train_samples=300 --test_samples=100 --epochs=1 \
  --plot="$tmp/no/such/folder/p.png" --threads=1
# Issue 22. A value after a space keeps its hyphens, even when it starts with one.
(cd "$tmp" && rm -f -- -m-1.csv -m_1.csv && "$train" --train_samples=300 --test_samples=100 \
  --epochs=1 --threads=1 --metrics -m-1.csv >"$tmp/out" 2>&1)
if [ ! -s "$tmp/-m-1.csv" ] || [ -e "$tmp/-m_1.csv" ]; then
  echo "FAIL hyphen_value: -m-1.csv not written as named:"; ls "$tmp"; cat "$tmp/out"; fail=1
else
  echo "ok   hyphen_value"
fi
# A --plot name is never gnuplot script: a newline and a quote in it run nothing.
# (Run in $tmp, where the old script would have run `touch pwned`.)
evil="$tmp/x'
system('touch pwned')
set output 'y.png"
(cd "$tmp" && "$train" --train_samples=300 --test_samples=100 --epochs=1 --threads=1 \
  --plot="$evil" >"$tmp/out" 2>&1) || { echo "FAIL plot_injection run:"; cat "$tmp/out"; fail=1; }
if [ -e "$tmp/pwned" ] || [ ! -s "$evil" ]; then
  echo "FAIL plot_injection: gnuplot ran the file name as commands or the PNG is missing"; fail=1
fi
# Outputs on a full disk: a non-zero exit, never an empty file and status 0.
check metrics_dev_full 1 "'/dev/full' is a character device, not a regular file" -- \
  --train_samples=300 --test_samples=100 --epochs=1 --threads=1 --metrics=/dev/full
got=0
"$train" --train_samples=300 --test_samples=100 --epochs=1 --threads=1 >/dev/full \
  2>"$tmp/err" || got=$?
if [ "$got" = 0 ] || ! grep -q "cannot write" "$tmp/err"; then
  echo "FAIL stdout_dev_full: exit $got:"; cat "$tmp/err"; fail=1
else
  echo "ok   stdout_dev_full"
fi
check threads_bound 1 "--threads must be in \[1, 1024\]" -- --threads=100000
check lr_bound 1 "--lr must be at most 1e+06" -- --lr=1e300
exit $fail
