// tools/train/checkpoint.cc — see checkpoint.h.
#include "tools/train/checkpoint.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>

namespace tools {
namespace train {
namespace {

constexpr const char* kFormat = "ember-train-1";

std::string history_to_string(const std::vector<EpochStats>& epochs) {
  std::ostringstream s;
  s << std::setprecision(17);
  for (const EpochStats& e : epochs) {
    s << e.epoch << ',' << e.train_loss << ',' << e.test_accuracy << ',' << e.seconds << ','
      << e.samples_per_second << ';';
  }
  return s.str();
}

// A name for messages, with control characters (a NUL included) shown as
// escapes so that they neither cut nor garble the message.
std::string printable(const std::string& s) {
  std::string out;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

// Every value of a floating tensor is finite; else throws naming it.
void check_finite(const std::string& path, const std::string& name, const at::Tensor& t) {
  if (!c10::isFloatingType(t.scalar_type()) || t.numel() == 0) return;
  const at::Tensor d = t.to(at::kDouble).contiguous();
  const double* p = d.data_ptr<double>();
  for (int64_t i = 0; i < d.numel(); ++i) {
    TORCH_CHECK(std::isfinite(p[i]), "train: checkpoint '", path, "': tensor '", printable(name),
                "' holds the non-finite value ", p[i], " (element ", i,
                "); the run that wrote it diverged or the file is damaged. Resume from an "
                "earlier checkpoint or start afresh");
  }
}

// Adam's step counts the updates: at least 1 once saved, and small enough
// that the bias corrections (beta^step) stay meaningful and +1 cannot
// overflow.
constexpr int64_t kMaxOptimizerStep = int64_t{1} << 53;

void check_optimizer_state(const std::string& path, const torch::nn::Sequential& model,
                           const std::vector<std::pair<std::string, at::Tensor>>& state,
                           const Config& config) {
  std::map<std::string, std::vector<std::string>> fields;  // "0.3" -> fields
  for (const auto& [name, t] : state) {
    const size_t dot = name.rfind('.');
    const std::string param = dot == std::string::npos ? name : name.substr(0, dot);
    const std::string field = dot == std::string::npos ? "" : name.substr(dot + 1);
    fields[param].push_back(field);
    if (field == "step") {
      TORCH_CHECK(t.numel() == 1 && !c10::isFloatingType(t.scalar_type()), "train: checkpoint '",
                  path, "': tensor 'optimizer.", printable(name),
                  "' must be one integer (the step count)");
      const int64_t step = t.to(at::kLong).item<int64_t>();
      TORCH_CHECK(step >= 1 && step <= kMaxOptimizerStep, "train: checkpoint '", path,
                  "': tensor 'optimizer.", printable(name), "' holds the step count ", step,
                  ", expected one in [1, 2^53]; the file is damaged");
    }
    if (field == "exp_avg_sq" || field == "max_exp_avg_sq") {
      TORCH_CHECK(t.numel() == 0 || t.min().item<double>() >= 0, "train: checkpoint '", path,
                  "': tensor 'optimizer.", printable(name), "' holds the negative value ",
                  t.numel() == 0 ? 0.0 : t.min().item<double>(),
                  "; a mean of squares cannot be negative, the file is damaged");
    }
  }
  const std::vector<std::string> expected =
      config.optimizer == "adam" ? std::vector<std::string>{"exp_avg", "exp_avg_sq", "step"}
                                 : std::vector<std::string>{"momentum_buffer"};
  const size_t params = model->parameters().size();
  for (size_t i = 0; i < params; ++i) {
    const std::string key = "0." + std::to_string(i);
    auto it = fields.find(key);
    std::vector<std::string> have = it == fields.end() ? std::vector<std::string>{} : it->second;
    std::sort(have.begin(), have.end());
    for (const std::string& f : expected) {
      TORCH_CHECK(std::binary_search(have.begin(), have.end(), f), "train: checkpoint '", path,
                  "' has no tensor 'optimizer.", key, ".", f, "' (the ", config.optimizer,
                  " state of parameter ", i,
                  "); the checkpoint is incomplete. Resume from a complete one or start afresh");
    }
  }
}

// The stored figures must be ones a run can produce.
void check_history(const std::string& path, const std::vector<EpochStats>& epochs) {
  for (size_t i = 0; i < epochs.size(); ++i) {
    const EpochStats& e = epochs[i];
    const bool sane = e.epoch == static_cast<int64_t>(i) + 1 && std::isfinite(e.train_loss) &&
                      e.train_loss >= 0 && std::isfinite(e.test_accuracy) &&
                      e.test_accuracy >= 0 && e.test_accuracy <= 1 && std::isfinite(e.seconds) &&
                      e.seconds >= 0 && std::isfinite(e.samples_per_second) &&
                      e.samples_per_second >= 0;
    TORCH_CHECK(sane, "train: checkpoint '", path, "' has an impossible 'history' entry ", i + 1,
                ": epoch ", e.epoch, ", train loss ", e.train_loss, ", test accuracy ",
                e.test_accuracy, ", ", e.seconds, " s, ", e.samples_per_second,
                " samples/s (expected epoch ", i + 1,
                ", accuracy in [0, 1], finite non-negative figures); the file is damaged");
  }
}

std::vector<EpochStats> history_from_string(const std::string& path, const std::string& text) {
  std::vector<EpochStats> epochs;
  std::istringstream s(text);
  std::string row;
  while (std::getline(s, row, ';')) {
    if (row.empty()) continue;
    EpochStats e;
    char c1, c2, c3, c4;
    std::istringstream r(row);
    r >> e.epoch >> c1 >> e.train_loss >> c2 >> e.test_accuracy >> c3 >> e.seconds >> c4 >>
        e.samples_per_second;
    TORCH_CHECK(!r.fail() && c1 == ',' && c2 == ',' && c3 == ',' && c4 == ',',
                "train: checkpoint '", path, "' has a malformed 'history' entry '", row,
                "'; the file is damaged or was not written by //tools:train");
    epochs.push_back(e);
  }
  return epochs;
}

std::map<std::string, std::string> settings(const Config& config, const std::string& data_kind) {
  return {{"format", kFormat},
          {"model", config.model},
          {"optimizer", config.optimizer},
          {"schedule", config.schedule},
          {"data", data_kind}};
}

}  // namespace

void save_checkpoint(const std::string& path, const Config& config, const std::string& data_kind,
                     torch::nn::Sequential& model, torch::optim::Optimizer& optimizer,
                     const std::vector<EpochStats>& history) {
  std::vector<std::pair<std::string, at::Tensor>> tensors;
  // CPU tensors, wherever the model trains (Note [Training on CUDA]).
  for (auto& [name, t] : torch::module_state(*model)) {
    tensors.emplace_back("model." + name, t.to(c10::kCPU));
  }
  for (auto& [name, t] : optimizer.named_state()) {
    tensors.emplace_back("optimizer." + name, t.to(c10::kCPU));
  }
  {
    const at::Generator& gen = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    tensors.emplace_back("rng", gen.get_state());
  }
  std::map<std::string, std::string> metadata = settings(config, data_kind);
  metadata["epochs_done"] = std::to_string(history.size());
  metadata["history"] = history_to_string(history);
  torch::safetensors::save(path, tensors, metadata);
}

std::vector<EpochStats> load_checkpoint(const std::string& path, const Config& config,
                                        const std::string& data_kind,
                                        torch::nn::Sequential& model,
                                        torch::optim::Optimizer& optimizer) {
  torch::safetensors::File file = torch::safetensors::load(path);
  auto meta = [&](const std::string& key) -> std::string {
    auto it = file.metadata.find(key);
    TORCH_CHECK(it != file.metadata.end(), "train: checkpoint '", path,
                "' has no metadata entry '", key,
                "'; it was not written by //tools:train --save");
    return it->second;
  };
  TORCH_CHECK(meta("format") == kFormat, "train: checkpoint '", path, "' has format '",
              meta("format"), "', expected '", kFormat, "'");
  for (const auto& [key, value] : settings(config, data_kind)) {
    TORCH_CHECK(meta(key) == value, "train: checkpoint '", path, "' was written with --",
                key == "data" ? "data (kind)" : key, "=", meta(key), ", but this run uses ",
                value, "; resume with the same setting");
  }
  std::vector<std::pair<std::string, at::Tensor>> model_state, optimizer_state;
  at::Tensor rng;
  for (auto& [name, t] : file.tensors) {
    if (name.rfind("model.", 0) == 0) {
      model_state.emplace_back(name.substr(6), t);
    } else if (name.rfind("optimizer.", 0) == 0) {
      optimizer_state.emplace_back(name.substr(10), t);
    } else if (name == "rng") {
      rng = t;
    } else {
      C10_THROW_ERROR(Error, "train: checkpoint '" + path + "' holds an unexpected tensor '" +
                                 printable(name) + "'");
    }
  }
  for (const auto& [name, t] : file.tensors) check_finite(path, name, t);
  std::vector<EpochStats> history = history_from_string(path, meta("history"));
  TORCH_CHECK(std::to_string(history.size()) == meta("epochs_done"), "train: checkpoint '",
              path, "' is inconsistent: epochs_done=", meta("epochs_done"), " but ",
              history.size(), " epochs of history");
  check_history(path, history);
  TORCH_CHECK(static_cast<int64_t>(history.size()) < config.epochs, "train: checkpoint '", path,
              "' has already done ", history.size(), " epochs, and --epochs=", config.epochs,
              " is the total to reach, so nothing is left to train (and --save, --metrics and "
              "--plot would not be written). Pass --epochs greater than ", history.size());
  if (!history.empty()) check_optimizer_state(path, model, optimizer_state, config);
  torch::load_module_state(*model, model_state, "checkpoint '" + path + "' (model)");
  // The optimizer's state lives where the parameters do.
  const c10::Device device = model->parameters().empty() ? c10::Device(c10::kCPU)
                                                          : model->parameters()[0].device();
  for (auto& [name, t] : optimizer_state) t = t.to(device);
  optimizer.load_named_state(optimizer_state);
  TORCH_CHECK(rng.defined(), "train: checkpoint '", path, "' has no 'rng' tensor");
  {
    at::Generator gen = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_state(rng);
  }
  return history;
}

}  // namespace train
}  // namespace tools
