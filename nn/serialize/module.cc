// nn/serialize/module.cc — see module.h.
#include "nn/serialize/module.h"

#include <map>

#include "autograd/grad_mode.h"
#include "c10/util/Exception.h"
#include "nn/serialize/safetensors.h"

namespace torch {

std::vector<std::pair<std::string, at::Tensor>> module_state(const nn::Module& module) {
  std::vector<std::pair<std::string, at::Tensor>> state;
  for (const auto& item : module.named_parameters()) state.emplace_back(item.key(), item.value());
  for (const auto& item : module.named_buffers()) state.emplace_back(item.key(), item.value());
  return state;
}

void load_module_state(nn::Module& module,
                       const std::vector<std::pair<std::string, at::Tensor>>& state,
                       const std::string& source) {
  std::map<std::string, const at::Tensor*> by_name;
  for (const auto& [name, t] : state) {
    TORCH_CHECK(by_name.emplace(name, &t).second, source, ": tensor '", name,
                "' appears twice");
  }
  std::vector<std::pair<std::string, at::Tensor>> targets = module_state(module);
  // Check everything before copying anything, so a mismatch leaves the
  // module as it was.
  for (const auto& [name, target] : targets) {
    auto it = by_name.find(name);
    TORCH_CHECK(it != by_name.end(), source, ": no tensor '", name, "', which the module ",
                module.name(), " needs; the file was saved from a different model");
    const at::Tensor& t = *it->second;
    TORCH_CHECK(t.sizes() == target.sizes(), source, ": tensor '", name, "' has shape ",
                t.sizes(), " but the module expects ", target.sizes(),
                "; the file was saved from a model of another size");
    TORCH_CHECK(t.scalar_type() == target.scalar_type(), source, ": tensor '", name,
                "' has dtype ", t.scalar_type(), " but the module expects ",
                target.scalar_type(), "; convert the module first with module->to(dtype)");
  }
  TORCH_CHECK(by_name.size() == targets.size(), source, ": holds ",
              by_name.size() - targets.size(), " tensor(s) the module ", module.name(),
              " does not have, e.g. '", [&] {
                for (const auto& [name, t] : by_name) {
                  bool known = false;
                  for (const auto& target : targets) known = known || target.first == name;
                  if (!known) return name;
                }
                return std::string();
              }(), "'; the file was saved from a different model");
  torch::NoGradGuard no_grad;
  for (auto& [name, target] : targets) target.copy_(*by_name.at(name));
}

void save(const nn::Module& module, const std::string& path,
          const std::map<std::string, std::string>& metadata) {
  safetensors::save(path, module_state(module), metadata);
}

void load(nn::Module& module, const std::string& path) {
  safetensors::File file = safetensors::load(path);
  load_module_state(module, file.tensors, "'" + path + "'");
}

}  // namespace torch
