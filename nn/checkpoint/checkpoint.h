// nn/checkpoint/checkpoint.h — torch::save / torch::load of a tensor, a
// std::vector of tensors and an optimizer's state, the overloads libtorch
// programs use for checkpoints beside torch::save(module, path)
// (nn/serialize/module.h).
//
//   torch::save(x, "x.pt");                          // one tensor
//   torch::Tensor y;  torch::load(y, "x.pt");        // y equals x
//   torch::save(std::vector<torch::Tensor>{a, b}, "ab.pt");
//   torch::save(optimizer, "optim.pt");  torch::load(optimizer, "optim.pt");
//
// Files are safetensors (docs/serialize.md), whatever the extension, not
// libtorch's TorchScript archives: a file written by libtorch does not load
// here, nor the reverse. Each file records what it holds in its metadata
// ("ember.kind": "tensor", "tensors" or "optimizer"), and load refuses a file
// of another kind with a message naming both. Tensors are saved from any
// device (copied to the CPU) and load on the CPU; a loaded tensor does not
// require grad. Thread safety as torch::safetensors.
#pragma once

#include <string>
#include <vector>

#include "aten/Tensor.h"
#include "nn/optim/optimizer.h"

namespace torch {

// torch::save(tensor, path) / torch::load(tensor, path)
//
// load replaces `tensor` with the saved one (a new tensor: other handles to
// the old one are unchanged), as libtorch's. An undefined tensor round-trips
// as undefined.
void save(const at::Tensor& tensor, const std::string& path);
void load(at::Tensor& tensor, const std::string& path);

// torch::save(tensors, path) / torch::load(tensors, path)
//
// The tensors in order; load replaces the vector's contents.
void save(const std::vector<at::Tensor>& tensors, const std::string& path);
void load(std::vector<at::Tensor>& tensors, const std::string& path);

// torch::save(optimizer, path) / torch::load(optimizer, path)
//
// The optimizer's state (Optimizer::named_state: momentum buffers, Adam's
// moments and step counts), not its options or parameters: load into an
// optimizer of the same type built over parameters of the same shapes, as
// with libtorch. The file records the optimizer's parameter count per group
// and load checks it (then load_named_state checks names, shapes, dtypes).
void save(const optim::Optimizer& optimizer, const std::string& path);
void load(optim::Optimizer& optimizer, const std::string& path);

}  // namespace torch
