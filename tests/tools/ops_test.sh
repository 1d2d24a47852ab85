#!/usr/bin/env bash
# The ops inspector: list, dump, plugins, and its errors.
set -euo pipefail
ops="$1"
plugin="$2"
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$("$ops" --load="$plugin" list)
grep -qF "opstool::double_it(Tensor self) -> Tensor" <<<"$out" || fail "list: $out"

out=$("$ops" --load="$plugin" dump opstool::double_it)
grep -qF "schema: opstool::double_it(Tensor self) -> Tensor" <<<"$out" || fail "dump schema: $out"
grep -qE "^CPU: kernel registered at tests/tools/ops_plugin.cc" <<<"$out" || fail "dump CPU: $out"
grep -qE "^CUDA: missing" <<<"$out" || fail "dump CUDA: $out"
# Ops without a derivative reach the autograd fallback (autograd/fallback.cc).
grep -qE "^AutogradCPU: backend fallback registered at autograd/fallback.cc" <<<"$out" || fail "dump AutogradCPU: $out"

out=$("$ops" dump aten::add.Tensor)
grep -qE "^CPU: kernel registered at bazel-out/[^/]+/bin/backends/cpu/RegisterCPU.cc:" <<<"$out" || fail "dump aten::add.Tensor: $out"

out=$("$ops" --load="$plugin" plugins)
grep -qE "^opstool .*libember_opstool.so \(ABI 1, fingerprint [0-9a-f]+\)" <<<"$out" || fail "plugins: $out"
# The CPU plugin's build for this CPU (docs/cpu_capability.md), and which.
grep -qE "^cpu .*libember_cpu(\.(avx2|avx512))?\.so " <<<"$out" || fail "plugins (cpu): $out"
grep -qE "^cpu capability: (default|avx2|avx512) \(this CPU supports " <<<"$out" ||
  fail "plugins (cpu capability): $out"
out=$(EMBER_CPU_CAPABILITY=default "$ops" plugins)
grep -qE "^cpu .*/libember_cpu\.so " <<<"$out" || fail "plugins (forced default): $out"
grep -qE "^cpu capability: default .*EMBER_CPU_CAPABILITY=default" <<<"$out" ||
  fail "plugins (forced default capability): $out"

# Without --load, the plugins of the search path: EMBER_PLUGIN_PATH first.
dir=$(mktemp -d)
cp "$plugin" "$dir/"
out=$(EMBER_PLUGIN_PATH="$dir" "$ops" plugins)
grep -qE "^  opstool $dir/libember_opstool.so \(loaded\), load with torch::load_library" <<<"$out" || fail "plugins (search path): $out"
grep -qE "^opstool $dir/libember_opstool.so" <<<"$out" || fail "plugins (loaded from the search path): $out"
out=$(EMBER_PLUGIN_PATH="$dir" "$ops" --no-search plugins)
grep -qE "^  opstool $dir/libember_opstool.so \(loadable\)" <<<"$out" || fail "plugins --no-search: $out"
out=$(EMBER_PLUGIN_PATH="$dir" "$ops" dump opstool::double_it)
grep -qE "^CPU: kernel registered at tests/tools/ops_plugin.cc" <<<"$out" || fail "dump (search path): $out"
# A file that is not a plugin is listed with the reason and skipped.
echo "not an ELF file" > "$dir/libember_bogus.so"
out=$(EMBER_PLUGIN_PATH="$dir" "$ops" plugins 2>err.txt)
grep -qE "^  \? $dir/libember_bogus.so \(refused: .*libember_bogus.so" <<<"$out" || fail "plugins (bogus): $out"
grep -qF "ops: skipping $dir/libember_bogus.so" err.txt || fail "bogus skipped: $(cat err.txt)"
rm -rf "$dir"

if "$ops" dump nosuch::op 2>err.txt; then fail "dump of an unknown op succeeded"; fi
grep -qF "no operator named nosuch::op" err.txt || fail "unknown op message: $(cat err.txt)"
if "$ops" --load=/nonexistent.so list 2>err.txt; then fail "bad plugin succeeded"; fi
grep -qF "/nonexistent.so" err.txt || fail "bad plugin message: $(cat err.txt)"
if "$ops" frobnicate 2>err.txt; then fail "unknown command succeeded"; fi
grep -qF "usage: ops" err.txt || fail "usage: $(cat err.txt)"
echo PASS
