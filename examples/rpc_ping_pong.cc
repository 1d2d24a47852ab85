// Two (or more) workers call operators on each other over RPC. Start it with
// the launcher, which sets RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT:
//
//   ./bazelw build //examples:rpc_ping_pong //tools:launch
//   bazel-bin/tools/launch --nproc=2 bazel-bin/examples/rpc_ping_pong
//
// --fail-rank=K makes rank K exit with status 3 at once (to see the launcher
// stop the others, which would wait for it at rendezvous).
#include <torch/distributed.h>
#include <torch/torch.h>

#include <cstdlib>
#include <iostream>
#include <string>

namespace rpc = torch::distributed::rpc;

int main(int argc, char** argv) {
  int fail_rank = -1;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--fail-rank=", 0) == 0) fail_rank = std::atoi(a.c_str() + 12);
  }
  const char* rank_env = std::getenv("RANK");
  const int rank = rank_env ? std::atoi(rank_env) : 0;
  if (rank == fail_rank) return 3;
  rpc::init_rpc("worker" + std::to_string(rank));  // RANK, WORLD_SIZE from env
  const int world = static_cast<int>(rpc::get_all_worker_infos().size());
  const std::string peer = "worker" + std::to_string((rank + 1) % world);
  at::Tensor sum = at::Tensor(
      rpc::rpc_sync(peer, "aten::add.Tensor",
                    {torch::full({2}, static_cast<double>(rank)), torch::ones({2})})
          .toTensorBase());
  rpc::RRef rr = rpc::remote(peer, "aten::mul.Scalar", {torch::ones({2}), rank + 2});
  at::Tensor product = at::Tensor(rr.to_here().toTensorBase());
  std::cout << rpc::get_worker_info().name << ": add on " << rr.owner_name()
            << " = " << sum[0].item<double>() << ", remote mul = "
            << product[1].item<double>() << std::endl;
  rpc::shutdown();
  return 0;
}
