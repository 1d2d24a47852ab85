// distributed/c10d/distributed_c10d.h — the default process group and the
// functional collectives, as torch.distributed offers them in Python,
// spelled in C++ (<torch/distributed.h>):
//
//   namespace dist = torch::distributed;
//   dist::init_process_group("gloo");          // RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT
//   dist::all_reduce(grad);                    // in place, waits
//   auto work = dist::all_reduce(grad, c10d::ReduceOp::SUM, /*async_op=*/true);
//   work->wait();
//   dist::destroy_process_group();
//
// The environment is torchrun's (//tools:launch sets it): RANK, WORLD_SIZE,
// MASTER_ADDR, MASTER_PORT; rank 0 serves the TCPStore at
// MASTER_ADDR:MASTER_PORT. Gloo listens on 127.0.0.1 when MASTER_ADDR is a
// loopback address, else on this machine's host name; GLOO_SOCKET_IFNAME
// names an interface instead (as in PyTorch). docs/distributed.md has the
// details and the multi-machine launch.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "distributed/c10d/ProcessGroup.h"
#include "distributed/c10d/Store.h"

namespace torch {
namespace distributed {

struct InitProcessGroupOptions {
  // "env://" (the environment above) or "tcp://host:port".
  std::string init_method = "env://";
  int world_size = -1;  // -1: WORLD_SIZE
  int rank = -1;        // -1: RANK
  // Of the rendezvous and of every collective (PyTorch's default: 30 min).
  std::chrono::milliseconds timeout = std::chrono::minutes(30);
};

// Starts the default group with `backend`: "gloo" (CPU tensors), or "nccl"
// (CUDA tensors) in a program that links //distributed/c10d:nccl (else the
// error says so), or any backend registered below. Throws c10::Error with
// what is missing or wrong; a second call without destroy_process_group()
// is an error.
void init_process_group(const std::string& backend = "gloo",
                        const InitProcessGroupOptions& options = InitProcessGroupOptions());
bool is_initialized();

// A process-group backend a library linked into the program adds
// (ProcessGroupNCCL.cc registers "nccl" at load): init_process_group(name)
// makes its group with the rendezvous store (under the default prefix), the
// rank, the size and the timeout. "gloo" is built in and cannot be replaced.
using ProcessGroupFactory = std::function<c10::intrusive_ptr<c10d::ProcessGroup>(
    const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
    std::chrono::milliseconds timeout)>;
void register_process_group_backend(const std::string& name, ProcessGroupFactory factory);
// Whether init_process_group(name) can make a group in this program
// ("gloo" always; "nccl" where //distributed/c10d:nccl is linked).
bool is_backend_available(const std::string& name);
inline bool is_nccl_available() { return is_backend_available("nccl"); }
// Ends the default group (after its queued collectives) and its store.
void destroy_process_group();
// The default group; throws if init_process_group() was not called.
c10::intrusive_ptr<c10d::ProcessGroup> default_pg();
int get_rank();
int get_world_size();
// The default group's store (under its prefix), for user keys.
c10::intrusive_ptr<c10d::Store> default_store();

// Functional collectives on the default group. Each waits unless
// `async_op`, and returns the Work either way.
c10::intrusive_ptr<c10d::Work> all_reduce(at::Tensor& tensor,
                                          c10d::ReduceOp op = c10d::ReduceOp::SUM,
                                          bool async_op = false);
c10::intrusive_ptr<c10d::Work> broadcast(at::Tensor& tensor, int src, bool async_op = false);
// tensor_list[r] receives rank r's `tensor`.
c10::intrusive_ptr<c10d::Work> all_gather(std::vector<at::Tensor>& tensor_list,
                                          const at::Tensor& tensor, bool async_op = false);
// `output` receives the reduction of input_list[rank] over the ranks.
c10::intrusive_ptr<c10d::Work> reduce_scatter(at::Tensor& output,
                                              std::vector<at::Tensor>& input_list,
                                              c10d::ReduceOp op = c10d::ReduceOp::SUM,
                                              bool async_op = false);
c10::intrusive_ptr<c10d::Work> barrier(bool async_op = false);
c10::intrusive_ptr<c10d::Work> send(const at::Tensor& tensor, int dst, int tag = 0);
c10::intrusive_ptr<c10d::Work> recv(at::Tensor& tensor, int src, int tag = 0);

}  // namespace distributed
}  // namespace torch
