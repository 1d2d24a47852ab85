#!/usr/bin/env bash
# //examples:parameter_server on Fashion-MNIST's first images, a few steps:
# with one trainer its loss and test accuracy equal //tools:train's with the
# same seed and settings (the same run, step for step, across processes);
# with two trainers it trains and every worker ends with no live context.
set -uo pipefail
launch=$1
program=$2
train=$3
export TSAN_OPTIONS="${TSAN_OPTIONS:-}:suppressions=$4"
flags=(--epochs=1 --train_samples=512 --test_samples=200 --batch_size=64 --threads=1)

local_out=$(timeout 120 "$train" "${flags[@]}" --progress=lines 2>&1) ||
  { echo "train failed: $local_out" >&2; exit 1; }
local_line=$(grep -oE 'epoch 1/1: train loss [0-9.]+, test accuracy [0-9.]+%' <<<"$local_out") ||
  { echo "no epoch line from train: $local_out" >&2; exit 1; }

out=$(timeout 120 "$launch" --nproc=2 "$program" "${flags[@]}" 2>&1) ||
  { echo "parameter_server (1 trainer) failed: $out" >&2; exit 1; }
ps_line=$(grep -oE 'trainer1 epoch 1/1: train loss [0-9.]+, test accuracy [0-9.]+%' <<<"$out") ||
  { echo "no epoch line from trainer1: $out" >&2; exit 1; }
[[ "trainer1 $local_line" == "$ps_line" ]] ||
  { echo "one trainer differs from //tools:train: '$ps_line' vs '$local_line'" >&2; exit 1; }
for who in "[rank 0] ps" "[rank 1] trainer1"; do
  grep -qF "$who: live distributed autograd contexts 0" <<<"$out" ||
    { echo "$who: contexts left: $out" >&2; exit 1; }
done

out=$(timeout 120 "$launch" --nproc=3 "$program" "${flags[@]}" 2>&1) ||
  { echo "parameter_server (2 trainers) failed: $out" >&2; exit 1; }
for r in 1 2; do
  grep -qE "\[rank $r\] trainer$r epoch 1/1: train loss [0-9.]+, test accuracy" <<<"$out" ||
    { echo "trainer$r did not finish its epoch: $out" >&2; exit 1; }
done
acc=$(grep -oE 'ps: test accuracy [0-9.]+% after 2 trainers' <<<"$out" | grep -oE '[0-9.]+%') ||
  { echo "no final accuracy: $out" >&2; exit 1; }
# 16 steps of SGD on 512 images: far above chance (10%).
awk -v a="${acc%\%}" 'BEGIN { exit !(a > 40) }' ||
  { echo "2 trainers reached only $acc: $out" >&2; exit 1; }
[[ $(grep -c 'live distributed autograd contexts 0' <<<"$out") -eq 3 ]] ||
  { echo "contexts left: $out" >&2; exit 1; }

# A bad flag is refused with its name.
out=$(timeout 60 "$launch" --nproc=2 "$program" --epochs=0 2>&1) &&
  { echo "--epochs=0 was accepted: $out" >&2; exit 1; }
grep -qF "parameter_server: --epochs, --batch_size, --lr and --threads must be positive" <<<"$out" ||
  { echo "unexpected error: $out" >&2; exit 1; }
echo "PASS: $ps_line; 2 trainers: $acc"
