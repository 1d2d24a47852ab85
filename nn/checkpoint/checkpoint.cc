#include "nn/checkpoint/checkpoint.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "aten/Functions.h"  // the inline Tensor methods (detach, to)
#include "c10/util/Exception.h"
#include "nn/serialize/safetensors.h"

namespace torch {
namespace {

constexpr const char* kKindKey = "ember.kind";

// The kind recorded in `file`, checked against what the caller loads.
void check_kind(const safetensors::File& file, const char* expected, const std::string& path,
                const char* what) {
  const auto it = file.metadata.find(kKindKey);
  TORCH_CHECK(it != file.metadata.end(), "torch::load(", what, "): ", path,
              " was not written by torch::save of ", what, " (it has no \"", kKindKey,
              "\" metadata); a module's checkpoint loads with torch::load(module, path), any "
              "safetensors file with torch::safetensors::load.");
  TORCH_CHECK(it->second == expected, "torch::load(", what, "): ", path, " holds ",
              it->second == "tensor"      ? "a tensor"
              : it->second == "tensors"   ? "a vector of tensors"
              : it->second == "optimizer" ? "an optimizer's state"
                                          : it->second.c_str(),
              " (\"", kKindKey, "\" is \"", it->second, "\"), not ", what,
              "; load it into the matching type.");
}

at::Tensor to_cpu(const at::Tensor& t) { return t.is_cpu() ? t : t.cpu(); }

// Tensor i of a "tensor"/"tensors" file: entries are named by their index;
// an undefined tensor is recorded in the metadata instead of as an entry.
std::vector<at::Tensor> read_indexed(const safetensors::File& file, const std::string& path,
                                     const char* what) {
  const auto count_it = file.metadata.find("ember.count");
  TORCH_CHECK(count_it != file.metadata.end(), "torch::load(", what, "): ", path,
              " has no \"ember.count\" metadata; the file is damaged or was not written by "
              "torch::save.");
  size_t count = 0;
  try {
    count = static_cast<size_t>(std::stoull(count_it->second));
  } catch (const std::exception&) {
    TORCH_CHECK(false, "torch::load(", what, "): ", path, ": \"ember.count\" is \"",
                count_it->second, "\", not a count; the file is damaged.");
  }
  std::map<std::string, at::Tensor> by_name(file.tensors.begin(), file.tensors.end());
  std::vector<at::Tensor> out(count);
  for (size_t i = 0; i < count; ++i) {
    const std::string name = std::to_string(i);
    auto it = by_name.find(name);
    if (it == by_name.end()) {
      TORCH_CHECK(file.metadata.count("ember.undefined." + name), "torch::load(", what, "): ",
                  path, " lacks tensor ", i, " of ", count, "; the file is damaged.");
      continue;
    }
    out[i] = it->second;
    by_name.erase(it);
  }
  TORCH_CHECK(by_name.empty(), "torch::load(", what, "): ", path, " holds ", file.tensors.size(),
              " tensors but \"ember.count\" says ", count, " (unexpected entry \"",
              by_name.empty() ? "" : by_name.begin()->first, "\"); the file is damaged.");
  return out;
}

void write_indexed(const std::vector<at::Tensor>& tensors, const std::string& path,
                   const char* kind) {
  std::vector<std::pair<std::string, at::Tensor>> named;
  std::map<std::string, std::string> metadata{{kKindKey, kind},
                                              {"ember.count", std::to_string(tensors.size())}};
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].defined()) {
      named.emplace_back(std::to_string(i), to_cpu(tensors[i]).detach());
    } else {
      metadata["ember.undefined." + std::to_string(i)] = "1";
    }
  }
  safetensors::save(path, named, metadata);
}

std::string group_sizes(const optim::Optimizer& optimizer) {
  std::string s;
  for (const auto& group : optimizer.param_groups()) {
    if (!s.empty()) s += ",";
    s += std::to_string(group.params().size());
  }
  return s;
}

}  // namespace

void save(const at::Tensor& tensor, const std::string& path) {
  write_indexed({tensor}, path, "tensor");
}

void load(at::Tensor& tensor, const std::string& path) {
  const safetensors::File file = safetensors::load(path);
  check_kind(file, "tensor", path, "a tensor");
  std::vector<at::Tensor> v = read_indexed(file, path, "a tensor");
  TORCH_CHECK(v.size() == 1, "torch::load(a tensor): ", path, " records ", v.size(),
              " tensors instead of 1; the file is damaged.");
  tensor = std::move(v[0]);
}

void save(const std::vector<at::Tensor>& tensors, const std::string& path) {
  write_indexed(tensors, path, "tensors");
}

void load(std::vector<at::Tensor>& tensors, const std::string& path) {
  const safetensors::File file = safetensors::load(path);
  check_kind(file, "tensors", path, "a vector of tensors");
  tensors = read_indexed(file, path, "a vector of tensors");
}

void save(const optim::Optimizer& optimizer, const std::string& path) {
  std::vector<std::pair<std::string, at::Tensor>> state = optimizer.named_state();
  for (auto& entry : state) entry.second = to_cpu(entry.second).detach();
  safetensors::save(path, state,
                    {{kKindKey, "optimizer"}, {"ember.param_groups", group_sizes(optimizer)}});
}

void load(optim::Optimizer& optimizer, const std::string& path) {
  const safetensors::File file = safetensors::load(path);
  check_kind(file, "optimizer", path, "an optimizer");
  const auto it = file.metadata.find("ember.param_groups");
  const std::string saved = it == file.metadata.end() ? "?" : it->second;
  TORCH_CHECK(saved == group_sizes(optimizer), "torch::load(an optimizer): ", path,
              " holds the state of an optimizer with parameter groups of sizes [", saved,
              "], but this one has [", group_sizes(optimizer), "]; build the optimizer over the "
              "same parameters (in the same groups) before loading its state.");
  optimizer.load_named_state(file.tensors);
}

}  // namespace torch
