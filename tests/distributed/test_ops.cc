// Operators the distributed tests call remotely: identity-style echoes of
// every IValue kind (one boxed kernel that leaves the arguments as the
// results), a sleep, a failure, a crash, and the callee's RRef and shared
// tensor counts.
#include <signal.h>

#include <chrono>
#include <thread>

#include <ATen/ATen.h>
#include <torch/library.h>

#include "distributed/rpc/rpc.h"

namespace {

// Arguments become results: the stack already holds them.
void echo_boxed(const c10::OperatorHandle&, torch::jit::Stack*) {}

int64_t sleep_ms(int64_t ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  return ms;
}

at::Tensor sleep_sum(at::Tensor x, int64_t ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  return x.sum();
}

std::vector<int64_t> shared_counts() {
  auto c = torch::distributed::rpc::debug::shared_tensor_counts();
  return {c.sent, c.received, c.pinned_bytes};
}

int64_t fail(std::string message) { TORCH_CHECK(false, message); }

int64_t die() {
  raise(SIGKILL);
  return 0;
}

std::vector<int64_t> live_rrefs() {
  auto c = torch::distributed::rpc::debug::rref_counts();
  return {c.owners, c.users};
}

}  // namespace

TORCH_LIBRARY(rpc_test, m) {
#define EMBER_RPC_ECHO_(schema) \
  m.def(schema, torch::CppFunction::makeFromBoxedFunction<&echo_boxed>())
  EMBER_RPC_ECHO_("echo_tensor(Tensor x) -> Tensor");
  EMBER_RPC_ECHO_("echo_float(float x) -> float");
  EMBER_RPC_ECHO_("echo_int(int x) -> int");
  EMBER_RPC_ECHO_("echo_bool(bool x) -> bool");
  EMBER_RPC_ECHO_("echo_device(Device x) -> Device");
  EMBER_RPC_ECHO_("echo_str(str x) -> str");
  EMBER_RPC_ECHO_("echo_ints(int[] x) -> int[]");
  EMBER_RPC_ECHO_("echo_floats(float[] x) -> float[]");
  EMBER_RPC_ECHO_("echo_bools(bool[] x) -> bool[]");
  EMBER_RPC_ECHO_("echo_tensors(Tensor[] x) -> Tensor[]");
  EMBER_RPC_ECHO_("echo_opt_tensors(Tensor?[] x) -> Tensor?[]");
  EMBER_RPC_ECHO_("echo_opt(Tensor? x) -> Tensor?");
  // Several results (PyTorch's tuple returns).
  EMBER_RPC_ECHO_("echo_pair(Tensor x, Tensor y) -> (Tensor, Tensor)");
  EMBER_RPC_ECHO_("echo_tensor_int(Tensor x, int n) -> (Tensor, int)");
#undef EMBER_RPC_ECHO_
  m.def("sleep_ms", &sleep_ms);
  m.def("fail", &fail);
  m.def("die", &die);
  m.def("live_rrefs", &live_rrefs);
  m.def("sleep_sum", &sleep_sum);
  m.def("shared_counts", &shared_counts);
}
