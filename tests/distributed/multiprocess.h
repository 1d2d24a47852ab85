// Multi-process tests on loopback: run_workers forks one process per rank,
// each running `body(rank, options)` with a rendezvous address on a free
// loopback port, and returns each process's exit status. gtest assertions
// work in the children (a failing one makes the child exit 1); the parent
// kills every child that outlives the time limit, so a hang fails instead
// of blocking the suite.
//
//   auto codes = ember_test::run_workers(2, [](int rank, auto opts) {
//     rpc::init_rpc("w" + std::to_string(rank), rank, 2, opts);
//     ...
//     rpc::shutdown();
//   });
//   EXPECT_THAT(codes, Each(0));
//
// The parent must not start gRPC (or any thread) itself: the children are
// forked from it.
#pragma once

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "distributed/rpc/rpc.h"

namespace ember_test {

// A port that was free a moment ago (bound to port 0, read back, closed).
inline int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

// Exit status of a child: its exit code, or 128 + the signal that ended it.
inline int status_code(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

constexpr int kTimedOut = 255;

using WorkerBody = std::function<void(
    int rank, const torch::distributed::rpc::RpcBackendOptions& options)>;

inline std::vector<int> run_workers(int world_size, const WorkerBody& body,
                                    double time_limit_s = 25.0) {
  torch::distributed::rpc::RpcBackendOptions options;
  options.init_method = "tcp://127.0.0.1:" + std::to_string(free_port());
  options.init_timeout = 15.0;
  std::fflush(stdout);
  std::fflush(stderr);
  std::vector<pid_t> pids;
  for (int rank = 0; rank < world_size; ++rank) {
    pid_t pid = fork();
    if (pid == 0) {
      int code = 0;
      try {
        body(rank, options);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "[rank %d] uncaught: %s\n", rank, e.what());
        code = 2;
      }
      if (::testing::Test::HasFailure()) code = 1;
      std::fflush(stdout);
      std::fflush(stderr);
      _exit(code);
    }
    pids.push_back(pid);
  }
  std::vector<int> codes(world_size, -1);
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(
                            static_cast<int64_t>(time_limit_s * 1000));
  int left = world_size;
  while (left > 0) {
    for (int r = 0; r < world_size; ++r) {
      if (codes[r] != -1) continue;
      int status = 0;
      if (waitpid(pids[r], &status, WNOHANG) == pids[r]) {
        codes[r] = status_code(status);
        --left;
      }
    }
    if (left > 0 && std::chrono::steady_clock::now() > deadline) {
      for (int r = 0; r < world_size; ++r) {
        if (codes[r] != -1) continue;
        kill(pids[r], SIGKILL);
        int status = 0;
        waitpid(pids[r], &status, 0);
        codes[r] = kTimedOut;
        std::fprintf(stderr, "rank %d killed: over the %.0f s limit\n", r,
                     time_limit_s);
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return codes;
}

inline std::string worker_name(int rank) {
  return "worker" + std::to_string(rank);
}

}  // namespace ember_test
