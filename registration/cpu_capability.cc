// registration/cpu_capability.cc — see cpu_capability.h.
#include "registration/cpu_capability.h"

#include <cstdlib>
#include <string>

#include "c10/core/DeviceType.h"
#include "c10/util/Exception.h"
#include "registration/plugin_loader.h"

namespace c10 {

// Note [CPU capability]
// ~~~~~~~~~~~~~~~~~~~~~
// The CPU kernels are plain C++ loops that the compiler vectorizes for the
// instructions it may use. Compiled for x86-64's baseline (SSE2) they run
// everywhere but use a quarter of an AVX-512 machine's vector width;
// compiled with -march=native they are fast but run only on machines like
// the one that built them, and depend on the flags of whoever builds. So the
// plugin is built three times, and the loader picks at run time: the best
// of avx512 (AVX-512 F, BW, CD, DQ, VL), avx2 (AVX2, FMA, F16C, BMI1/2) and
// default that the CPU supports (GCC's __builtin_cpu_supports, which also
// checks that the OS saves the vector registers). EMBER_CPU_CAPABILITY forces
// one: for tests (each capability runs the op-conformance suite), and for
// users comparing them. A capability the CPU lacks is refused: running
// AVX-512 code there would die of SIGILL at the first kernel.
namespace {

bool supports_avx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __builtin_cpu_supports("bmi2");
}

bool supports_avx512() {
  __builtin_cpu_init();
  return supports_avx2() && __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512cd");
}

// Each capability's name and plugin file, indexed by CpuCapability.
struct CapabilityInfo {
  const char* name;
  const char* file;
};
constexpr CapabilityInfo kCapabilities[] = {
    {"default", "libember_cpu.so"},
    {"avx2", "libember_cpu.avx2.so"},
    {"avx512", "libember_cpu.avx512.so"},
};
constexpr int kNumCapabilities = sizeof(kCapabilities) / sizeof(kCapabilities[0]);
static_assert(kNumCapabilities == static_cast<int>(CpuCapability::kAvx512) + 1,
              "one kCapabilities entry per CpuCapability, in its order");

const CapabilityInfo& info(CpuCapability c) { return kCapabilities[static_cast<int>(c)]; }

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

const char* cpu_capability_name(CpuCapability c) { return info(c).name; }

CpuCapability cpu_capability_supported() {
  if (supports_avx512()) return CpuCapability::kAvx512;
  if (supports_avx2()) return CpuCapability::kAvx2;
  return CpuCapability::kDefault;
}

CpuCapability cpu_capability_wanted(bool* explicitly) {
  const CpuCapability supported = cpu_capability_supported();
  const char* env = std::getenv("EMBER_CPU_CAPABILITY");
  if (explicitly != nullptr) *explicitly = env != nullptr && *env != '\0';
  if (env == nullptr || *env == '\0') return supported;
  const std::string v = env;
  int index = 0;
  while (index < kNumCapabilities && v != kCapabilities[index].name) ++index;
  TORCH_CHECK(index < kNumCapabilities, "EMBER_CPU_CAPABILITY='", v, "' is not a CPU "
              "capability; use default, avx2 or avx512, or unset it to use the best this CPU "
              "supports (", cpu_capability_name(supported), ").");
  const auto wanted = static_cast<CpuCapability>(index);
  TORCH_CHECK(static_cast<int>(wanted) <= static_cast<int>(supported),
              "EMBER_CPU_CAPABILITY=", v, ", but this CPU supports only up to ",
              cpu_capability_name(supported), " (",
              wanted == CpuCapability::kAvx512
                  ? "avx512 needs AVX-512 F, BW, CD, DQ and VL"
                  : "avx2 needs AVX2, FMA and BMI2",
              "); its kernels would stop with an illegal instruction. Use ",
              cpu_capability_name(supported), " or lower, or unset it.");
  return wanted;
}

std::vector<std::string> cpu_plugin_files(bool* explicitly_out) {
  bool explicitly = false;
  const CpuCapability wanted = cpu_capability_wanted(&explicitly);
  if (explicitly_out != nullptr) *explicitly_out = explicitly;
  std::vector<std::string> files = {info(wanted).file};
  if (!explicitly) {
    for (int c = static_cast<int>(wanted) - 1; c >= 0; --c) files.push_back(kCapabilities[c].file);
  }
  return files;
}

std::string cpu_capability() {
  auto loaded = [] {
    for (const PluginInfo& p : loaded_plugins()) {
      if (p.name == "cpu") return p.path;
    }
    return std::string();
  };
  std::string path = loaded();
  if (path.empty()) {
    impl::autoload_backend_plugin(DeviceType::CPU);
    path = loaded();
  }
  TORCH_CHECK(!path.empty(), "cpu_capability: no CPU plugin is loaded, and none was found "
              "on the search path (", info(CpuCapability::kDefault).file, "); see "
              "EMBER_PLUGIN_DEBUG=1 for where it was looked for.");
  for (const CapabilityInfo& c : kCapabilities) {
    if (ends_with(path, std::string("/") + c.file)) return c.name;
  }
  return "default";  // a CPU plugin loaded by hand from a file of another name
}

}  // namespace c10
