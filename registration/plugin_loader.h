// registration/plugin_loader.h — loading backend plugins into the one core.
//
// Backends (and libraries of custom ops) are shared objects whose static
// initializers register kernels with the TORCH_LIBRARY* macros. This header
// loads them, either explicitly:
//
//   torch::load_library("/opt/npu/libember_npu.so");
//   for (const c10::PluginInfo& p : c10::loaded_plugins())
//     std::cout << p.name << " from " << p.path << "\n";
//
// or automatically: the first time an op is dispatched to a backend that has
// no kernel, the dispatcher calls c10::impl::autoload_backend_plugin, which
// looks for libember_<device>.so on the plugin search path.
//
// A plugin links only Ember's headers; its references to the core resolve
// against the process's libember_core.so when it is loaded, so it registers
// into the one Dispatcher (DESIGN.md, "One process, one core"). Before any of
// its code runs, the loader checks the file and the descriptor written by
// EMBER_PLUGIN (sdk/plugin.h); every failure throws
// c10::Error naming the file, the reason, and what to do.
//
// Environment:
//   EMBER_PLUGIN_PATH   colon-separated directories searched first by autoload.
//   EMBER_PLUGIN_DEBUG  "1" prints each step of loading and searching to
//   stderr.
#pragma once

#include <exception>
#include <string>
#include <optional>
#include <vector>

#include "c10/core/DeviceType.h"

namespace torch {

// torch::load_library
//
// Loads the plugin at `path` (relative paths are taken from the current
// directory) and runs its registrations. Loading the same file again, by any
// path that resolves to it, is a no-op. A plugin whose descriptor name is
// already loaded from another file is refused. Thread-safe: loads are
// serialized. A plugin that loaded is never unloaded; one whose registrations
// failed is unloaded again (which undoes the registrations it did make) and
// the failure is thrown.
void load_library(const std::string& path);

}  // namespace torch

namespace c10 {

// c10::PluginInfo
//
// One loaded plugin: its descriptor's name, the canonical absolute path of
// its file, and the ABI version and build fingerprint it was built with
// (equal to the core's, or it would not have loaded).
struct PluginInfo {
  std::string name;
  std::string path;
  int abi_version = 0;
  std::string fingerprint;
};

// c10::loaded_plugins
//
// The plugins loaded so far, in load order. Thread-safe; returns a copy.
std::vector<PluginInfo> loaded_plugins();

// c10::core_build_fingerprint
//
// The ABI fingerprint of the SDK headers the core was built from; a plugin
// must carry the same one (See Note [ABI fingerprint] in
// bazel/abi_fingerprint.py). Defined in core/abi_fingerprint.cc, the top of
// the core, since it covers every layer's headers.
std::string core_build_fingerprint();

// c10::plugin_search_path
//
// The directories autoload searches for `type`'s plugin, in order:
//  1. each directory of $EMBER_PLUGIN_PATH;
//  2. the directory libember_core.so was loaded from (and, if that is a
//     symlink, the directory of the file it points to);
//  3. <runfiles>/ember/backends/<device>/ for each Bazel runfiles directory
//     found: $RUNFILES_DIR, $TEST_SRCDIR, and <this executable>.runfiles.
// Duplicates are dropped. For diagnostics and tests; reads the environment
// on every call.
std::vector<std::string> plugin_search_path(DeviceType type);

// c10::PluginCandidate
//
// A plugin file found on the search path (See plugins_on_search_path):
// its path, what its descriptor says (when it could be read), whether the
// loader would accept it (ABI version and fingerprint equal to the core's),
// the backend it is autoloaded for ("" if it is loaded only by
// torch::load_library), whether it is loaded, and why it cannot be, if so.
struct PluginCandidate {
  std::string path;
  std::optional<PluginInfo> info;
  bool compatible = false;
  std::string autoload_device;
  bool loaded = false;
  std::string problem;
};

// c10::plugins_on_search_path
//
// Every file named libember_<name>.so in the directories of
// plugin_search_path() for the CPU, CUDA and PrivateUse1 (if named)
// backends, in search order; of several files with one name only the first
// (the one autoload would pick) is listed. Each is inspected without being
// loaded (impl::inspect_plugin). For `ops plugins` and diagnostics.
std::vector<PluginCandidate> plugins_on_search_path();

namespace impl {

// c10::impl::inspect_plugin
//
// Reads the ELF headers and the descriptor of the plugin at `path` with
// plain reads, as load_library does before anything else, and returns what
// the descriptor says; loads and runs nothing and checks no compatibility.
// Throws c10::Error as load_library does for a file that is not a plugin.
// For diagnostics and the fuzz target (tests/fuzz).
PluginInfo inspect_plugin(const std::string& path);

// c10::impl::autoload_backend_plugin
//
// Called by the dispatcher when a call reaches a backend key with no kernel.
// Looks for libember_<device>.so (DeviceTypeName(type, true); PrivateUse1
// only once it has been given a name) in plugin_search_path(type) and loads
// the first one found.
//
// Returns true if this call loaded the plugin, or waited for another thread
// that did: the caller should look for the kernel again, once. Returns false
// if nothing new was loaded: no file was found, the plugin was loaded
// earlier, or this thread is already loading it (a plugin whose static
// initializer dispatches to its own backend does not loop).
//
// Each file name is tried at most once per process. A file that was found
// but failed to load throws c10::Error, now and on every later call for that
// backend. Thread-safe. Do not call it while holding a lock that a plugin's
// registrations take: loading runs the plugin's static initializers.
bool autoload_backend_plugin(DeviceType type);

// c10::impl::report_registration_error
//
// For the registration macros. A plugin's static initializer must not let an
// exception escape (it would unwind through the dynamic loader). The macros
// catch it and call this:
//
//   try { … register … } catch (...) {
//     if (!c10::impl::report_registration_error(std::current_exception()))
//       throw;
//   }
//
// If the calling thread is inside torch::load_library, the error is kept
// (the first one; later ones are counted), this returns true and the macro
// swallows the exception; load_library then unloads the plugin and throws
// "load_library: plugin <path> failed to register its kernels: <message>".
// Otherwise (e.g. registrations of the executable itself) returns false and
// the macro rethrows.
bool report_registration_error(std::exception_ptr error) noexcept;

}  // namespace impl
}  // namespace c10
