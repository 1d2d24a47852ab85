// allreduce_bench: Ember's ProcessGroupGloo allreduce between two processes
// on loopback, against Gloo's own allreduce called directly on a context
// built the same way, in the same run (issue 20's anchor).
//
//   ./bazelw run -c opt //tools/bench:allreduce_bench [-- --rounds=3]
//
// For float32 tensors of 1 KiB to 64 MiB: the median time of single calls
// of each, interleaved call by call in rotating order (Ember, Gloo, Gloo on
// a fresh thread per call; the median of Gloo against itself moved by -55%
// to +77% when each was timed as a batch of calls after the other's), the
// bus bandwidth (bytes * 2 (n - 1) / n per second; n = 2) and Ember's
// overhead over Gloo in percent. "Gloo on a fresh thread" shows what handing
// a call to another thread costs on the machine, the part of Ember's
// overhead that its worker thread (Note [The Gloo group's worker]) pays.
// A plain binary: the measurement needs a second process and a rendezvous.
#include <gloo/allreduce.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ATen/ATen.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <string>
#include <vector>

#include <torch/distributed.h>

#include "tools/launch/launcher.h"

using Clock = std::chrono::steady_clock;

namespace {

class Adapter : public gloo::rendezvous::Store {
 public:
  explicit Adapter(c10::intrusive_ptr<c10d::Store> s) : s_(std::move(s)) {}
  void set(const std::string& k, const std::vector<char>& v) override {
    s_->set(k, std::vector<uint8_t>(v.begin(), v.end()));
  }
  std::vector<char> get(const std::string& k) override {
    auto v = s_->get(k);
    return std::vector<char>(v.begin(), v.end());
  }
  void wait(const std::vector<std::string>& k) override { s_->wait(k); }
  void wait(const std::vector<std::string>& k, const std::chrono::milliseconds& t) override {
    s_->wait(k, t);
  }

 private:
  c10::intrusive_ptr<c10d::Store> s_;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int run(int rank, int port, int rounds) {
  c10d::TCPStoreOptions so;
  so.port = static_cast<uint16_t>(port);
  so.isServer = rank == 0;
  so.numWorkers = 2;
  auto store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", so);
  auto pg = c10::make_intrusive<c10d::ProcessGroupGloo>(
      c10::make_intrusive<c10d::PrefixStore>("ember", store), rank, 2);
  gloo::transport::tcp::attr attr;
  attr.hostname = "127.0.0.1";
  auto device = gloo::transport::tcp::CreateDevice(attr);
  auto context = std::make_shared<gloo::rendezvous::Context>(rank, 2);
  Adapter adapter(c10::make_intrusive<c10d::PrefixStore>("raw", store));
  context->connectFullMesh(adapter, device);
  uint32_t tag = 0;
  if (rank == 0) {
    std::printf("%10s %12s %12s %12s %12s %12s %9s\n", "bytes", "ember us", "gloo us",
                "gloo+thread", "ember GB/s", "gloo GB/s", "overhead");
  }
  for (int64_t bytes = 1024; bytes <= (int64_t{64} << 20); bytes *= 4) {
    at::Tensor t = at::ones({bytes / 4});
    const int iters = static_cast<int>(std::max<int64_t>(5, std::min<int64_t>(200, (int64_t{256} << 20) / bytes / 4)));
    std::vector<double> ember, raw, handed;
    auto gloo_sum = [&](float* data, size_t n) {
      gloo::AllreduceOptions o(context);
      o.setOutput(data, n);
      o.setReduceFunction(
          static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::sum<float>));
      o.setTag(tag++);
      gloo::allreduce(o);
    };
    auto gloo_allreduce = [&] { gloo_sum(t.data_ptr<float>(), static_cast<size_t>(t.numel())); };
    auto ember_allreduce = [&] {
      std::vector<at::Tensor> ts = {t};
      pg->allreduce(ts)->wait();
    };
    auto handed_allreduce = [&] { std::async(std::launch::async, gloo_allreduce).wait(); };
    // Each timed call starts right after a one-float allreduce, so that
    // neither rank's time includes waiting for the other to finish its
    // previous call.
    float token = 0.0f;
    auto align = [&] { gloo_sum(&token, 1); };
    auto time_one = [&](const auto& f) {
      align();
      const auto start = Clock::now();
      f();
      return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
    };
    // Calls interleaved one by one, the order rotating, so that the
    // machine's drift (other tenants, frequency) falls on all three alike;
    // the medians of the single calls are compared.
    for (int i = 0; i < iters / 4 + 1; ++i) {  // warm-up
      ember_allreduce();
      gloo_allreduce();
    }
    for (int i = 0; i < iters * rounds; ++i) {
      for (int k = 0; k < 3; ++k) {
        switch ((i + k) % 3) {
          case 0:
            ember.push_back(time_one(ember_allreduce));
            break;
          case 1:
            raw.push_back(time_one(gloo_allreduce));
            break;
          default:
            handed.push_back(time_one(handed_allreduce));
        }
      }
      if (i % 16 == 15) t.fill_(1.0);  // keep the values finite
    }
    const double e = median(ember), g = median(raw), h = median(handed);
    if (rank == 0) {
      // Bus bandwidth of a 2-rank allreduce: bytes * 2 (n - 1) / n = bytes.
      std::printf("%10lld %12.1f %12.1f %12.1f %12.3f %12.3f %8.1f%%\n",
                  static_cast<long long>(bytes), e, g, h, static_cast<double>(bytes) / e / 1e3,
                  static_cast<double>(bytes) / g / 1e3, 100.0 * (e - g) / g);
      std::fflush(stdout);
    }
  }
  if (rank == 0) {
    std::printf("Ember's allreduces run on the waiting thread: %lld (the rest on the group's worker)\n",
                static_cast<long long>(pg->collectives_run_on_waiters()));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 3;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--rounds=", 9) == 0) rounds = std::max(1, std::atoi(argv[i] + 9));
  }
  if (std::getenv("RANK") != nullptr) {
    return run(std::atoi(std::getenv("RANK")), std::atoi(std::getenv("MASTER_PORT")), rounds);
  }
  tools::launch::Options o;
  o.nproc = 2;
  std::vector<std::string> args = {"/proc/self/exe"};
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  return tools::launch::run(o, args);
}
