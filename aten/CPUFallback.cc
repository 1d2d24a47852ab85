// at::native::cpu_fallback: See aten/CPUFallback.h.
#include "aten/CPUFallback.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <set>
#include <utility>

#include "aten/Functions.h"  // the inline Tensor methods (to, copy_, resize_)
#include "aten/Tensor.h"
#include "c10/core/impl/LocalDispatchKeySet.h"
#include "c10/util/Exception.h"

namespace at {
namespace native {
namespace {

CpuFallbackMode mode_from_environment() {
  const char* env = std::getenv("EMBER_CPU_FALLBACK");
  if (env == nullptr || *env == '\0' || std::strcmp(env, "warn") == 0) {
    return CpuFallbackMode::kWarnOnce;
  }
  if (std::strcmp(env, "error") == 0) return CpuFallbackMode::kError;
  if (std::strcmp(env, "silent") == 0) return CpuFallbackMode::kSilent;
  TORCH_WARN("cpu_fallback: EMBER_CPU_FALLBACK=", env, " is not one of warn, error, "
             "silent; using warn.");
  return CpuFallbackMode::kWarnOnce;
}

std::atomic<CpuFallbackMode>& mode() {
  static std::atomic<CpuFallbackMode> m{mode_from_environment()};
  return m;
}

struct SeenOps {
  std::mutex mutex;
  std::set<std::string> names;
};
SeenOps& seen_ops() {
  static SeenOps* s = new SeenOps();  // leaked: used until exit
  return *s;
}

// The device the call is about: the first tensor (or Device) argument that
// is not on the CPU.
std::optional<c10::Device> device_of(const torch::jit::Stack& args) {
  for (const c10::IValue& v : args) {
    if (v.isTensor()) {
      const at::TensorBase& t = v.toTensorBase();
      if (t.defined() && !t.device().is_cpu()) return t.device();
    } else if (v.isTensorList()) {
      for (const at::TensorBase& t : v.toTensorBaseVector()) {
        if (t.defined() && !t.device().is_cpu()) return t.device();
      }
    } else if (v.isOptionalTensorList()) {
      for (const auto& t : v.toOptionalTensorVector()) {
        if (t && t->defined() && !t->device().is_cpu()) return t->device();
      }
    } else if (v.isDevice() && !v.toDevice().is_cpu()) {
      return v.toDevice();
    }
  }
  return std::nullopt;
}

at::TensorBase to_cpu(const at::TensorBase& t) {
  if (!t.defined() || t.device().is_cpu()) return t;
  return at::Tensor(t).to(at::TensorOptions(c10::Device(c10::kCPU)));
}

at::TensorBase to_device(const at::TensorBase& t, std::optional<c10::Device> device) {
  if (!t.defined() || !device.has_value() || t.device() == *device) return t;
  return at::Tensor(t).to(at::TensorOptions(*device));
}

// Copies the CPU result `cpu` of a written argument into the device tensor
// `original`, resizing it first if the op resized the CPU copy.
void write_back(const at::TensorBase& original, const at::TensorBase& cpu) {
  if (!original.defined() || original.device().is_cpu()) return;
  at::Tensor dst(original);
  if (dst.sizes() != cpu.sizes()) dst.resize_(cpu.sizes());
  dst.copy_(at::Tensor(cpu));
}

}  // namespace

void set_cpu_fallback_mode(CpuFallbackMode m) { mode().store(m, std::memory_order_relaxed); }
CpuFallbackMode cpu_fallback_mode() { return mode().load(std::memory_order_relaxed); }

std::vector<std::string> cpu_fallback_ops() {
  SeenOps& s = seen_ops();
  std::lock_guard<std::mutex> lock(s.mutex);
  return std::vector<std::string>(s.names.begin(), s.names.end());
}

// Note [The boxed CPU fallback]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Which arguments an op writes comes from its schema's alias annotations
// (`Tensor(a!)`), never from watching version counters: a kernel may write
// without bumping a counter (the CPU copy's counter is not the device
// tensor's anyway), and a bumped counter does not say which tensor an out=
// return aliases. Returns annotated `(a!)` are the written argument of the
// same alias set, returned as the caller's own device tensor, so in-place
// and out= ops keep their aliasing. A return annotated `(a)` without `!` is
// a view of an input: on the CPU copy it would alias the copy, not the
// device tensor, so such ops are refused rather than silently returning a
// tensor whose writes go nowhere. The op runs below autograd: a backend's
// Autograd kernel (or AutogradPrivateUse1's generated one) has already
// recorded the graph before the call reached the backend key.
void cpu_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const c10::FunctionSchema& schema = op.schema();
  const std::string name = op.operator_name().str();
  const size_t num_args = schema.arguments().size();
  TORCH_INTERNAL_ASSERT(stack->size() >= num_args, "cpu_fallback: ", name,
                        " expects ", num_args, " arguments on the stack");
  const auto first = stack->end() - static_cast<std::ptrdiff_t>(num_args);
  torch::jit::Stack originals(first, stack->end());
  const std::optional<c10::Device> device = device_of(originals);
  const std::string where =
      device.has_value() ? c10::str(device->type()) : std::string("this backend");
  const c10::DispatchKey key =
      device.has_value() ? c10::computeDispatchKey(device->type()) : c10::DispatchKey::Undefined;

  const CpuFallbackMode m = cpu_fallback_mode();
  TORCH_CHECK(m != CpuFallbackMode::kError, "cpu_fallback: ", name, " has no kernel for ",
              where, " (dispatch key ", key, ") and the CPU fallback is in strict "
              "mode (at::native::set_cpu_fallback_mode(CpuFallbackMode::kError) or "
              "EMBER_CPU_FALLBACK=error). Register a kernel for it with "
              "TORCH_LIBRARY_IMPL(aten, ", key, ", m) { m.impl(\"",
              op.operator_name().name.substr(op.operator_name().name.find("::") + 2),
              op.operator_name().overload_name.empty()
                  ? std::string()
                  : "." + op.operator_name().overload_name,
              "\", …); }, or allow the fallback.");
  bool first_time = false;
  {
    SeenOps& s = seen_ops();
    std::lock_guard<std::mutex> lock(s.mutex);
    first_time = s.names.insert(name).second;
  }
  if (first_time && m == CpuFallbackMode::kWarnOnce) {
    TORCH_WARN("cpu_fallback: ", name, " has no kernel for ", where, " (dispatch key ",
               key, "); it runs on the CPU, with its tensors copied there and "
               "back. Register a kernel for ", key, " to keep it on the device. "
               "(Shown once per operator.)");
  }

  for (const c10::Argument& r : schema.returns()) {
    TORCH_CHECK(!r.alias_info().has_value() || r.alias_info()->is_write,
                "cpu_fallback: ", name, " returns a view of its input (schema: ",
                schema, "); a view of a CPU copy would not alias the ", where,
                " tensor, so the CPU fallback cannot run it. Register a kernel "
                "for ", key, " that makes the view on the device.");
  }
  TORCH_CHECK(op.operator_name().name != "aten::copy_", "cpu_fallback: aten::copy_ "
              "is how the fallback itself moves tensors between the CPU and ", where,
              ", so it cannot run through the fallback. Register copy_ for ", key,
              " (copies to, from and within the device).");
  TORCH_CHECK(op.operator_name().name != "aten::resize_", "cpu_fallback: aten::resize_ "
              "must grow the ", where, " tensor's own storage, which a CPU copy "
              "cannot do. Register resize_ for ", key, " (out= ops through the "
              "fallback need it too).");

  // The CPU copies.
  torch::jit::Stack cpu_args;
  cpu_args.reserve(num_args);
  for (const c10::IValue& v : originals) {
    if (v.isTensor()) {
      cpu_args.emplace_back(to_cpu(v.toTensorBase()));
    } else if (v.isTensorList()) {
      std::vector<at::TensorBase> list = v.toTensorBaseVector();
      for (auto& t : list) t = to_cpu(t);
      cpu_args.emplace_back(std::move(list));
    } else if (v.isOptionalTensorList()) {
      auto list = v.toOptionalTensorVector();
      for (auto& t : list) {
        if (t) t = to_cpu(*t);
      }
      cpu_args.emplace_back(std::move(list));
    } else if (v.isDevice() && !v.toDevice().is_cpu()) {
      cpu_args.emplace_back(c10::Device(c10::kCPU));
    } else {
      cpu_args.push_back(v);
    }
  }
  stack->erase(first, stack->end());
  torch::jit::Stack call_stack = cpu_args;
  {
    at::AutoDispatchBelowADInplaceOrView guard;
    op.callBoxed(&call_stack);
  }

  // Written arguments back to the device.
  for (size_t i = 0; i < num_args; ++i) {
    const auto& alias = schema.arguments()[i].alias_info();
    if (!alias.has_value() || !alias->is_write) continue;
    const c10::IValue& orig = originals[i];
    const c10::IValue& cpu = cpu_args[i];
    if (orig.isTensor()) {
      write_back(orig.toTensorBase(), cpu.toTensorBase());
    } else if (orig.isTensorList()) {
      const auto o = orig.toTensorBaseVector();
      const auto c = cpu.toTensorBaseVector();
      for (size_t j = 0; j < o.size(); ++j) write_back(o[j], c[j]);
    }
  }

  // Returns: the written argument itself, or a copy on the device.
  const auto& returns = schema.returns();
  TORCH_INTERNAL_ASSERT(call_stack.size() == returns.size(), "cpu_fallback: ", name,
                        " returned ", call_stack.size(), " values, its schema has ",
                        returns.size());
  for (size_t j = 0; j < returns.size(); ++j) {
    const auto& alias = returns[j].alias_info();
    if (alias.has_value()) {  // a written argument (views were refused above)
      std::optional<size_t> arg;
      for (size_t i = 0; i < num_args && !arg; ++i) {
        const auto& a = schema.arguments()[i].alias_info();
        if (a.has_value() && a->is_write && a->set == alias->set) arg = i;
      }
      TORCH_INTERNAL_ASSERT(arg.has_value(), "cpu_fallback: ", name, " return ", j,
                            " aliases set ", alias->set, " that no argument writes");
      stack->push_back(originals[*arg]);
      continue;
    }
    c10::IValue& v = call_stack[j];
    if (v.isTensor()) {
      stack->emplace_back(to_device(v.toTensorBase(), device));
    } else if (v.isTensorList()) {
      std::vector<at::TensorBase> list = v.toTensorBaseVector();
      for (auto& t : list) t = to_device(t, device);
      stack->emplace_back(std::move(list));
    } else {
      stack->push_back(std::move(v));
    }
  }
}

}  // namespace native
}  // namespace at
