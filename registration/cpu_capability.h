// registration/cpu_capability.h — which build of the CPU plugin to load.
//
// The CPU plugin is built once per capability (backends/cpu/capability.bzl):
// libember_cpu.so (x86-64's baseline), libember_cpu.avx2.so (x86-64-v3) and
// libember_cpu.avx512.so (x86-64-v4). Autoload picks the best one this CPU
// runs, or the one EMBER_CPU_CAPABILITY names (PyTorch's
// ATEN_CPU_CAPABILITY):
//
//   EMBER_CPU_CAPABILITY=avx2 ./my_program      # force the AVX2 build
//   c10::cpu_capability()                       // "avx512": the loaded one
//
// See Note [CPU capability] in cpu_capability.cc.
#pragma once

#include <string>
#include <vector>

namespace c10 {

enum class CpuCapability { kDefault = 0, kAvx2 = 1, kAvx512 = 2 };

// "default", "avx2" or "avx512".
const char* cpu_capability_name(CpuCapability c);

// The best capability this CPU (and its operating system) supports.
CpuCapability cpu_capability_supported();

// The capability autoload wants: EMBER_CPU_CAPABILITY's (throws c10::Error
// naming the accepted values, or what this CPU lacks), else the supported
// one. `explicitly` tells whether the variable chose it.
CpuCapability cpu_capability_wanted(bool* explicitly = nullptr);

// The CPU plugin's file names autoload tries, in order: the wanted
// capability's file, then (unless it was asked for explicitly) the lower
// ones, down to libember_cpu.so. `explicitly`: whether EMBER_CPU_CAPABILITY
// chose (then only its file is tried).
std::vector<std::string> cpu_plugin_files(bool* explicitly = nullptr);

// The capability of the CPU plugin that is loaded, from its file name
// ("default" for libember_cpu.so or any other name); loads the plugin first
// if no CPU plugin is loaded yet (as the first CPU op would).
std::string cpu_capability();

}  // namespace c10
