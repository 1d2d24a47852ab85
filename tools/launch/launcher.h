// tools/launch/launcher.h — starts the local processes of a distributed
// program, as torchrun does: what //tools:launch and //tools:train --nproc
// run.
//
//   tools::launch::Options o;
//   o.nproc = 2;
//   int status = tools::launch::run(o, {"/path/to/program", "--flag"});
//
// Each process gets RANK (node_rank * nproc + local rank), LOCAL_RANK,
// LOCAL_WORLD_SIZE (nproc), WORLD_SIZE (nnodes * nproc), MASTER_ADDR and MASTER_PORT (a free port of
// this machine unless given; several machines must agree on one). Every line
// a process prints is prefixed with "[rank R] ". When one process fails (a
// non-zero exit or a signal), the others get SIGTERM, then SIGKILL after
// 3 s; run() returns the first failure's status (128 + signal for a
// signal), or 0 when all succeed.
#pragma once

#include <string>
#include <vector>

namespace tools {
namespace launch {

struct Options {
  int nproc = 1;     // processes on this machine
  int nnodes = 1;    // machines
  int node_rank = 0;  // this machine's index, 0 ... nnodes - 1
  std::string master_addr = "127.0.0.1";
  int master_port = 0;  // 0: a free port (one machine only)
};

// Checks the options; returns an error message, or "" when they are good.
std::string check(const Options& options);

// Runs argv[0] with argv[1...] in options.nproc processes; see above.
int run(const Options& options, const std::vector<std::string>& argv);

}  // namespace launch
}  // namespace tools
