#!/usr/bin/env bash
# The command line of //tools:train: --help, unknown flags and bad values end
# with one message and a non-zero exit; --metrics and --plot write their files.
set -u
train="$1"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
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
check bad_plot_folder 1 "cannot create a file next to" -- --train_samples=300 --test_samples=100 --epochs=1 \
  --plot="$tmp/no/such/folder/p.png" --threads=1
exit $fail
