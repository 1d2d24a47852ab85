#!/usr/bin/env bash
# bazel/codegen/gen_aten.py on small op lists: what `dispatch=` and
# `autogen` generate, and the op lists it refuses, with their messages.
# Usage: gen_aten_test.sh GEN_ATEN_PY
set -euo pipefail
gen=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run NAME LINES...: writes LINES as NAME.txt, runs the core and the backend
# (CPU, namespace demo) generators; output under $tmp/NAME, errors in err.
run() {
  local name=$1
  shift
  mkdir -p "$tmp/$name"
  printf '%s\n' "$@" >"$tmp/$name/ops.txt"
  (cd "$tmp/$name" &&
    python3 "$OLDPWD/$gen" ops.txt Operators.h Functions.h TensorMethods.inc TensorMethods.h \
      RegisterSchemas.cc RegisterCompositeOut.cc Operators_0.cc Operators_1.cc Operators_2.cc \
      Operators_3.cc 2>err &&
    python3 "$OLDPWD/$gen" --backend CPU --namespace demo --header demo/CPUKernels.h \
      ops.txt CPUKernels.h RegisterCPU.cc 2>>err)
}
expect_refused() { # expect_refused NAME MESSAGE LINES...
  local name=$1 message=$2
  shift 2
  if run "$name" "$@"; then fail "$name: accepted"; fi
  grep -qF "$message" "$tmp/$name/err" || fail "$name: expected '$message', got: $(cat "$tmp/$name/err")"
}

# ---- dispatch= declares and registers each kernel, qualified names in their namespace
run ok \
  'hyp(Tensor self, Tensor other) -> Tensor | variants=function,method | dispatch=CPU:hyp' \
  'hyp.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!) | dispatch=CPU:other::hyp_out' \
  'frac(Tensor self, *, ScalarType? dtype=None) -> Tensor' \
  'frac.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!) | autogen=exact' \
  'pair(Tensor self) -> (Tensor, Tensor)' \
  'pair.out(Tensor self, *, Tensor(a!) out0, Tensor(b!) out1) -> (Tensor(a!), Tensor(b!)) | autogen' \
  || fail "ok: refused: $(cat "$tmp/ok/err")"
k=$tmp/ok/CPUKernels.h r=$tmp/ok/RegisterCPU.cc c=$tmp/ok/RegisterCompositeOut.cc

# ---- Operators.h declares at::_ops::<op>::call; one Operators_<k>.cc shard defines it
# (Note [Out-of-line operator calls]): the 6 ops above go 2 per shard, in order.
o=$tmp/ok/Operators.h
grep -qF '  static at::Tensor call(const at::Tensor& self, const at::Tensor& other);' "$o" ||
  fail "hyp::call not declared: $(cat "$o")"
grep -q 'handle().call' "$o" && fail "Operators.h defines a call inline"
grep -qF 'at::Tensor hyp::call(const at::Tensor& self, const at::Tensor& other) {' "$tmp/ok/Operators_0.cc" ||
  fail "hyp::call not defined in shard 0: $(cat "$tmp/ok/Operators_0.cc")"
grep -qF 'at::Tensor& hyp_out::redispatch(c10::DispatchKeySet ks, ' "$tmp/ok/Operators_0.cc" ||
  fail "hyp_out::redispatch not defined in shard 0"
grep -qF 'frac::call(' "$tmp/ok/Operators_1.cc" || fail "frac::call not in shard 1"
grep -qF 'pair_out::call(' "$tmp/ok/Operators_2.cc" || fail "pair_out::call not in shard 2"
grep -q '::call(' "$tmp/ok/Operators_3.cc" && fail "shard 3 of 6 ops is not empty"
grep -qF 'namespace demo {' "$k" || fail "no namespace demo in CPUKernels.h"
grep -qF 'at::Tensor hyp(const at::Tensor& self, const at::Tensor& other);  // hyp' "$k" ||
  fail "hyp not declared: $(cat "$k")"
grep -qF 'namespace other {' "$k" || fail "qualified kernel not in its namespace"
grep -qF 'at::Tensor& hyp_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out);' "$k" ||
  fail "hyp_out not declared"
grep -qF '#include "demo/CPUKernels.h"' "$r" || fail "RegisterCPU.cc does not include its header"
grep -qF 'TORCH_LIBRARY_IMPL(aten, CPU, m) {' "$r" || fail "no CPU block"
grep -qF 'm.impl("hyp", TORCH_FN(demo::hyp));' "$r" || fail "hyp not registered: $(cat "$r")"
grep -qF 'm.impl("hyp.out", TORCH_FN(other::hyp_out));' "$r" || fail "hyp.out not registered"
grep -q 'frac' "$k" && fail "an op without dispatch=CPU got a CPU declaration"

# ---- autogen: the functional op (extra None arguments passed as nullopt), then checks and copies
grep -qF 'TORCH_LIBRARY_IMPL(aten, CompositeExplicitAutograd, m) {' "$c" || fail "no composite block"
grep -qF 'm.impl("frac.out", TORCH_FN(at::autogen_frac_out));' "$c" || fail "frac.out not registered"
grep -qF 'at::_ops::frac::call(self, ::std::nullopt)' "$c" || fail "frac.out does not call frac: $(cat "$c")"
grep -qF 'OutDtype::Exact, "frac", "out")' "$c" || fail "autogen=exact does not check the exact dtype"
grep -qF 'at::native::check_result_defined(std::get<1>(all), 1, "pair")' "$c" ||
  fail "pair.out does not check its second result"
grep -qF 'OutDtype::Any, "pair", "out1")' "$c" || fail "plain autogen is not OutDtype::Any"
grep -qF 'copy_to_out(ks, out1, std::get<1>(all), "pair", "out1")' "$c" || fail "pair.out does not copy out1"
grep -q 'hyp' "$c" && fail "an out= form with a kernel got a generated one"

# ---- refusals
expect_refused no_functional "is marked autogen, but no overload of lone takes its arguments" \
  'lone.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!) | autogen'
expect_refused not_out "is marked autogen but is not an out= overload" \
  'plain(Tensor self) -> Tensor | autogen'
expect_refused both "is marked autogen and has dispatch entries" \
  'two(Tensor self) -> Tensor' \
  'two.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!) | autogen | dispatch=CPU:two_out'
expect_refused bad_rule "autogen=loose; expected autogen, autogen=exact or autogen=castable" \
  'r(Tensor self) -> Tensor' 'r.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!) | autogen=loose'
expect_refused bad_entry "dispatch entry 'CPU' is not KEY:kernel" \
  'd(Tensor self) -> Tensor | dispatch=CPU'
expect_refused twice "two dispatch entries for CPU" \
  'd(Tensor self) -> Tensor | dispatch=CPU:a,CPU:b'
expect_refused count "returns 1 values for 2 outs" \
  'c(Tensor self) -> Tensor' \
  'c.out(Tensor self, *, Tensor(a!) out0, Tensor(b!) out1) -> (Tensor(a!), Tensor(b!)) | autogen'
echo "PASS"
