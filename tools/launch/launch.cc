// launch: starts N local processes of a distributed program, as torchrun
// does on one machine.
//
//   ./bazelw run //tools:launch -- --nproc=2 bazel-bin/examples/rpc_ping_pong
//   launch --nproc=4 [--master_addr=127.0.0.1] [--master_port=0] PROGRAM ARGS...
//   launch --nproc=2 --nnodes=2 --node_rank=0 --master_addr=10.0.0.1 --master_port=29500 P
//
// Each process gets RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and
// MASTER_PORT (a free port unless --master_port is given). Every line a
// process prints is prefixed with "[rank R] ". When one process fails (a
// non-zero exit or a signal), the others get SIGTERM, then SIGKILL after
// 3 s; launch exits with the first failure's status (128 + signal for a
// signal), or 0 when all succeed.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tools/launch/launcher.h"

namespace {

void usage() {
  std::fprintf(stderr,
               "usage: launch --nproc=N [--nnodes=M --node_rank=K] [--master_addr=ADDR] "
               "[--master_port=PORT] PROGRAM [ARGS...]\n");
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  tools::launch::Options o;
  o.nproc = -1;
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--nproc=", 0) == 0) {
      o.nproc = std::atoi(a.c_str() + 8);
    } else if (a.rfind("--nnodes=", 0) == 0) {
      o.nnodes = std::atoi(a.c_str() + 9);
    } else if (a.rfind("--node_rank=", 0) == 0) {
      o.node_rank = std::atoi(a.c_str() + 12);
    } else if (a.rfind("--master_addr=", 0) == 0) {
      o.master_addr = a.substr(14);
    } else if (a.rfind("--master_port=", 0) == 0) {
      o.master_port = std::atoi(a.c_str() + 14);
    } else if (a == "--") {
      ++i;
      break;
    } else if (a.rfind("--", 0) == 0) {
      std::fprintf(stderr, "launch: unknown flag %s\n", a.c_str());
      usage();
    } else {
      break;
    }
  }
  if (i >= argc) usage();
  const std::string problem = tools::launch::check(o);
  if (!problem.empty()) {
    std::fprintf(stderr, "launch: %s\n", problem.c_str());
    usage();
  }
  return tools::launch::run(o, std::vector<std::string>(argv + i, argv + argc));
}
