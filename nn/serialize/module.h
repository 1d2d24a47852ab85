// nn/serialize/module.h — torch::save / torch::load of a module's state (its
// parameters and buffers, by their dotted names) as a safetensors file, so a
// model moves to and from the Python ecosystem (safetensors.torch.load_file
// reads it; a state_dict saved by safetensors.torch.save_file loads here).
//
//   torch::save(model, "model.safetensors");
//   Net other;
//   torch::load(other, "model.safetensors");   // same names, shapes, dtypes
//
// libtorch's torch::save/load write a TorchScript zip archive instead; see
// docs/serialize.md. Loading is strict: every parameter and buffer must be in
// the file with its shape and dtype, and the file may hold nothing else.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "aten/Tensor.h"
#include "nn/module.h"
#include "nn/pimpl.h"

namespace torch {

// The module's parameters, then its buffers, by dotted name (what PyTorch's
// state_dict holds), sharing memory with the module.
std::vector<std::pair<std::string, at::Tensor>> module_state(const nn::Module& module);

// Copies `state` into the module's parameters and buffers (under no_grad).
// Throws c10::Error naming `source` and the tensor when a name is missing or
// extra, or a shape or dtype differs; the module is unchanged then.
void load_module_state(nn::Module& module,
                       const std::vector<std::pair<std::string, at::Tensor>>& state,
                       const std::string& source);

void save(const nn::Module& module, const std::string& path,
          const std::map<std::string, std::string>& metadata = {});
void load(nn::Module& module, const std::string& path);

template <typename M>
void save(const nn::ModuleHolder<M>& module, const std::string& path,
          const std::map<std::string, std::string>& metadata = {}) {
  save(*module, path, metadata);
}
template <typename M>
void load(nn::ModuleHolder<M>& module, const std::string& path) {
  load(*module, path);
}

}  // namespace torch
