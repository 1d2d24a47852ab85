// dist_autograd_bench: seed 001's distributed autograd example per
// iteration, two processes on loopback.
//
//   ./bazelw run -c opt //tools/bench:dist_autograd_bench [-- --seconds=2]
//
// Rank 1 (a forked child) serves; rank 0 measures, in the same run:
//   - rpc_sync of aten::add.Tensor on two 3x3 floats (the RPC round trip,
//     the floor of each RPC below);
//   - one iteration of the seed's example: enter a context, rpc_sync add of
//     t1, t2 (which require grad), mul by t4, sum, dist_autograd::backward,
//     get_gradients, leave the context (its release goes to worker 1).
// Printed against the anchor of DESIGN.md: PyTorch 1.13 (TensorPipe),
// 1,958 us per iteration. A plain binary, not Google Benchmark: the
// measurement needs a second process and a rendezvous.
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <torch/distributed.h>
#include <torch/torch.h>

namespace rpc = torch::distributed::rpc;
namespace dist_autograd = torch::distributed::autograd;
using Clock = std::chrono::steady_clock;

namespace {

int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Mean microseconds per call of f over `seconds` (after a warm-up).
template <class F>
double time_per_call_us(double seconds, F&& f) {
  for (int i = 0; i < 50; ++i) f();
  int64_t n = 0;
  auto start = Clock::now();
  while (seconds_since(start) < seconds) {
    for (int i = 0; i < 20; ++i) f();
    n += 20;
  }
  return seconds_since(start) * 1e6 / static_cast<double>(n);
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 2.0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--seconds=", 0) == 0) seconds = std::atof(a.c_str() + 10);
  }
  rpc::RpcBackendOptions options;
  options.init_method = "tcp://127.0.0.1:" + std::to_string(free_port());
  std::fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    rpc::init_rpc("worker1", 1, 2, options);
    rpc::shutdown();  // waits at the barrier until rank 0 is done
    _exit(0);
  }
  rpc::init_rpc("worker0", 0, 2, options);
  at::Tensor t1 = torch::rand({3, 3}).requires_grad_(true);
  at::Tensor t2 = torch::rand({3, 3}).requires_grad_(true);
  at::Tensor t4 = torch::rand({3, 3}).requires_grad_(true);
  const double rtt_us = time_per_call_us(seconds, [&] {
    rpc::rpc_sync("worker1", "aten::add.Tensor", {t1.detach(), t2.detach()});
  });
  size_t grads = 0;
  const double iter_us = time_per_call_us(seconds, [&] {
    dist_autograd::context ctx;
    at::Tensor t3 = rpc::rpc_sync("worker1", "aten::add.Tensor", {t1, t2}).toTensor();
    at::Tensor loss = torch::mul(t3, t4).sum();
    dist_autograd::backward(ctx.id(), {loss});
    grads = dist_autograd::get_gradients(ctx.id()).size();
  });
  rpc::shutdown();
  int status = 0;
  waitpid(child, &status, 0);
  std::printf("%-56s %12s %s\n", "workload (2 processes, loopback)", "Ember", "anchor");
  std::printf("%-56s %9.1f us\n", "rpc_sync add 3x3 (round trip, this run)", rtt_us);
  std::printf("%-56s %9.1f us 1958 us -> %.1fx faster than PyTorch; %.1f round trips\n",
              "seed 001 example: ctx, rpc add, mul, sum, backward, grads", iter_us,
              1958.0 / iter_us, iter_us / rtt_us);
  if (grads != 3) {
    std::fprintf(stderr, "expected 3 gradients, got %zu\n", grads);
    return 1;
  }
  return status == 0 ? 0 : 1;
}
