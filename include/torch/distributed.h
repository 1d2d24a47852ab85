// <torch/distributed.h>: Ember's distributed package, as libtorch's
// <torch/csrc/distributed/...> offers it to C++ (RPC, RRef, distributed
// autograd, process groups and their stores, the functional collectives).
// Link
// //:ember_distributed.
//
//   #include <torch/distributed.h>
//   namespace rpc = torch::distributed::rpc;
//   rpc::init_rpc("worker0", 0, 2);
//   c10::IValue r = rpc::rpc_sync("worker1", "aten::add.Tensor", {a, b});
//   rpc::shutdown();
#pragma once

#include "distributed/autograd/autograd.h"
#include "distributed/c10d/FileStore.h"
#include "distributed/c10d/ProcessGroupGloo.h"
#include "distributed/c10d/TCPStore.h"
#include "distributed/c10d/ddp.h"
#include "distributed/c10d/distributed_c10d.h"
#include "distributed/rpc/rpc.h"
