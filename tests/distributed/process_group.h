// run_group: the multi-process tests of process groups and DDP fork `world`
// processes (multiprocess.h) that each join a default group on a fresh
// loopback port, run body(rank), and leave it.
//
//   auto codes = ember_test::run_group(2, [](int rank) { ... dist::all_reduce(t); ... });
//   EXPECT_THAT(codes, Each(0));
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include <torch/distributed.h>

#include "tests/distributed/multiprocess.h"

namespace ember_test {

inline std::vector<int> run_group(int world, const std::function<void(int rank)>& body,
                                  std::chrono::milliseconds timeout = std::chrono::seconds(20),
                                  double time_limit_s = 40.0) {
  const int port = free_port();
  return run_workers(
      world,
      [&](int rank, const auto&) {
        torch::distributed::InitProcessGroupOptions o;
        o.init_method = "tcp://127.0.0.1:" + std::to_string(port);
        o.rank = rank;
        o.world_size = world;
        o.timeout = timeout;
        torch::distributed::init_process_group("gloo", o);
        body(rank);
        torch::distributed::destroy_process_group();
      },
      time_limit_s);
}

}  // namespace ember_test
