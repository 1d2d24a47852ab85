#include "registration/plugin_loader.h"

#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "c10/core/impl/StaticRegistration.h"
#include "c10/util/Exception.h"
#include "registration/cpu_capability.h"
#include "registration/plugin_descriptor.h"
#include "registration/plugin_file.h"

namespace c10 {
namespace {

using impl::errno_text;
using impl::read_plugin_descriptor;

// Bazel's name for this repository: runfiles of the project live under it.
constexpr const char* kWorkspaceName = "ember";

// ---------------------------------------------------------------- helpers

bool debug_enabled() {
  const char* v = std::getenv("EMBER_PLUGIN_DEBUG");
  return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}

template <typename... Args>
void debug(const Args&... args) {
  if (debug_enabled()) {
    std::fprintf(stderr, "[ember plugin] %s\n", c10::str(args...).c_str());
  }
}

// The canonical absolute path, or "" with the reason in `*err`.
std::string realpath_or_empty(const std::string& path, int* err = nullptr) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) != nullptr) return buf;
  if (err != nullptr) *err = errno;
  return "";
}

std::string join_path(const std::string& dir, const std::string& name) {
  if (dir.empty() || dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

// ------------------------------------------------------------ loader state

// Registration errors reported by the static initializers of the plugin this
// thread is loading. See c10::impl::report_registration_error.
struct LoadScope {
  std::exception_ptr first_error;
  size_t errors = 0;
};
thread_local LoadScope* tls_load_scope = nullptr;

struct AutoloadAttempt {
  enum Status { kLoading, kLoaded, kNotFound, kFailed };
  Status status = kLoading;
  std::thread::id loader;  // the thread that searches, while kLoading
  std::string error;       // the load failure, when kFailed
};

struct LoaderState {
  // Serializes torch::load_library. Recursive: a plugin's static initializer
  // may load another plugin (or trigger an autoload) on the same thread.
  std::recursive_mutex load_mutex;
  std::vector<std::string> loading_paths;  // guarded by load_mutex

  std::mutex info_mutex;
  std::vector<PluginInfo> plugins;  // guarded by info_mutex

  // Autoload attempts by file name; std::map keeps references stable while
  // waiters sleep on `autoload_cv`.
  std::mutex autoload_mutex;
  std::condition_variable autoload_cv;
  std::map<std::string, AutoloadAttempt> attempts;  // guarded by autoload_mutex
};

// Leaked on purpose: plugins are never unloaded, and their static
// destructors at exit may still call into the loader.
LoaderState& state() {
  static LoaderState* s = new LoaderState();
  return *s;
}

std::string exception_text(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const c10::Error& err) {
    return err.what_without_backtrace();
  } catch (const std::exception& err) {
    return err.what();
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

void check_compatible(const std::string& path, const PluginDescriptor& d) {
  TORCH_CHECK(d.abi_version == EMBER_ABI_VERSION, "load_library: plugin ", path,
              " (\"", d.name, "\") was built for Ember ABI version ",
              d.abi_version, ", but this Ember has ABI version ",
              EMBER_ABI_VERSION, ". Rebuild the plugin against this Ember.");
  const std::string core_fingerprint = core_build_fingerprint();
  TORCH_CHECK(core_fingerprint == d.fingerprint, "load_library: plugin ", path,
              " (\"", d.name, "\") was built against core build fingerprint \"",
              d.fingerprint, "\", but this core's fingerprint is \"",
              core_fingerprint, "\" (the SDK headers it was compiled against "
              "differ: a class layout, the dispatch keys or inline code "
              "changed). Rebuild the plugin against this Ember.");
  std::lock_guard<std::mutex> lock(state().info_mutex);
  for (const PluginInfo& p : state().plugins) {
    TORCH_CHECK(p.name != d.name, "load_library: plugin ", path, " is named \"",
                d.name, "\", but a plugin of that name is already loaded from ",
                p.path, ". Load only one copy of each plugin (check ",
                "EMBER_PLUGIN_PATH for a second copy).");
  }
}

// dlopen with a registration-error scope around the plugin's initializers.
void open_plugin(const std::string& path) {
  LoadScope scope;
  struct ScopeGuard {
    LoadScope* outer;
    ~ScopeGuard() { tls_load_scope = outer; }
  } guard{tls_load_scope};
  tls_load_scope = &scope;
  ::dlerror();
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  tls_load_scope = guard.outer;
  if (handle == nullptr) {
    const char* err = ::dlerror();
    std::string why = err != nullptr ? err : "unknown dlopen error";
    if (why.compare(0, path.size() + 2, path + ": ") == 0) {
      why.erase(0, path.size() + 2);  // glibc starts with the path
    }
    C10_THROW_ERROR(Error, "load_library: cannot load plugin ", path, ": ", why,
                    ". If a symbol is undefined, rebuild the plugin against "
                    "this Ember, or link the library that defines it.");
  }
  if (scope.errors == 0) return;  // the handle stays open for good

  // Take the message while the plugin's code (which may own the exception's
  // type and destructor) is still mapped, then unload: the plugin's static
  // destructors remove the registrations it did make.
  std::string what = scope.first_error ? exception_text(scope.first_error)
                                       : std::string("unknown error");
  scope.first_error = nullptr;
  ::dlclose(handle);
  std::string more;
  if (scope.errors > 1) {
    more = c10::str(" (and ", scope.errors - 1, " more registration error",
                    scope.errors > 2 ? "s" : "", ")");
  }
  if (void* again = ::dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD)) {
    ::dlclose(again);
    more +=
        " [the plugin could not be unloaded, so its other registrations "
        "stay in effect; build it with -fno-gnu-unique]";
  }
  C10_THROW_ERROR(Error, "load_library: plugin ", path,
                  " failed to register its kernels: ", what, more);
}

const char kCoreAnchor = 0;  // an address inside the core, for dladdr

std::string dirname(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return "";
  return path.substr(0, slash == 0 ? 1 : slash);
}

// The directory the core was loaded from, then the one its file really is in
// (they differ when the core is reached through a symlink, as in Bazel's
// _solib directories).
std::vector<std::string> core_directories() {
  Dl_info info;
  if (::dladdr(&kCoreAnchor, &info) == 0 || info.dli_fname == nullptr) {
    return {};
  }
  const std::string loaded = info.dli_fname;
  return {loaded.empty() || loaded[0] != '/' ? "" : dirname(loaded),
          dirname(realpath_or_empty(loaded))};
}

}  // namespace

namespace impl {

PluginInfo inspect_plugin(const std::string& path) {
  const PluginDescriptor d = read_plugin_descriptor(path);
  return PluginInfo{d.name, path, static_cast<int>(d.abi_version), d.fingerprint};
}

}  // namespace impl

std::vector<PluginInfo> loaded_plugins() {
  std::lock_guard<std::mutex> lock(state().info_mutex);
  return state().plugins;
}

// core_build_fingerprint is defined at the top of the core, in
// core/abi_fingerprint.cc: it hashes every layer's headers.

std::vector<std::string> plugin_search_path(DeviceType type) {
  std::vector<std::string> dirs;
  auto add = [&dirs](std::string dir) {
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    if (dir.empty()) return;
    for (const std::string& d : dirs) {
      if (d == dir) return;
    }
    dirs.push_back(std::move(dir));
  };
  if (const char* env = std::getenv("EMBER_PLUGIN_PATH")) {
    const std::string list = env;
    size_t start = 0;
    while (start <= list.size()) {
      size_t colon = list.find(':', start);
      if (colon == std::string::npos) colon = list.size();
      add(list.substr(start, colon - start));
      start = colon + 1;
    }
  }
  for (const std::string& dir : core_directories()) add(dir);
  const std::string backend_dir =
      c10::str("/", kWorkspaceName, "/backends/", DeviceTypeName(type, true));
  for (const char* var : {"RUNFILES_DIR", "TEST_SRCDIR"}) {
    const char* root = std::getenv(var);
    if (root != nullptr && *root != '\0') add(root + backend_dir);
  }
  const std::string exe = realpath_or_empty("/proc/self/exe");
  if (!exe.empty()) add(exe + ".runfiles" + backend_dir);
  return dirs;
}

std::vector<PluginCandidate> plugins_on_search_path() {
  std::vector<DeviceType> types = {DeviceType::CPU, DeviceType::CUDA};
  if (!get_privateuse1_backend(true).empty() &&
      get_privateuse1_backend(true) != "privateuseone") {
    types.push_back(DeviceType::PrivateUse1);
  }
  std::vector<std::string> dirs;
  for (DeviceType type : types) {
    for (std::string& dir : plugin_search_path(type)) {
      if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) {
        dirs.push_back(std::move(dir));
      }
    }
  }
  std::vector<std::string> loaded_paths;
  for (const PluginInfo& p : loaded_plugins()) loaded_paths.push_back(p.path);
  std::vector<PluginCandidate> found;
  std::vector<std::string> names;
  for (const std::string& dir : dirs) {
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) continue;
    std::vector<std::string> files;
    while (const struct dirent* e = ::readdir(d)) {
      const std::string file = e->d_name;
      if (file.size() > 12 && file.compare(0, 9, "libember_") == 0 &&
          file.compare(file.size() - 3, 3, ".so") == 0 && file != "libember_core.so") {
        files.push_back(file);
      }
    }
    ::closedir(d);
    std::sort(files.begin(), files.end());
    for (const std::string& file : files) {
      if (std::find(names.begin(), names.end(), file) != names.end()) continue;
      names.push_back(file);
      PluginCandidate c;
      c.path = join_path(dir, file);
      // libember_<device>.so, or libember_<device>.<capability>.so (the CPU
      // plugin's builds: See Note [CPU capability] in cpu_capability.cc).
      std::string device = file.substr(9, file.size() - 12);
      device = device.substr(0, device.find('.'));
      for (DeviceType type : types) {
        if (DeviceTypeName(type, true) == device) c.autoload_device = device;
      }
      const std::string real = realpath_or_empty(c.path);
      c.loaded = std::find(loaded_paths.begin(), loaded_paths.end(), real) !=
                 loaded_paths.end();
      try {
        c.info = impl::inspect_plugin(c.path);
        if (c.info->abi_version != EMBER_ABI_VERSION) {
          c.problem = c10::str("ABI version ", c.info->abi_version, ", this core has ",
                               EMBER_ABI_VERSION);
        } else if (c.info->fingerprint != core_build_fingerprint()) {
          c.problem = c10::str("built against fingerprint ", c.info->fingerprint,
                               ", this core has ", core_build_fingerprint());
        }
        c.compatible = c.problem.empty();
      } catch (const c10::Error& e) {
        c.problem = e.what_without_backtrace();
      }
      found.push_back(std::move(c));
    }
  }
  return found;
}

namespace impl {

bool report_registration_error(std::exception_ptr error) noexcept {
  LoadScope* scope = tls_load_scope;
  if (scope == nullptr) return false;
  if (scope->errors++ == 0) scope->first_error = std::move(error);
  return true;
}

namespace {
// c10's registrars (C10_REGISTER_GUARD_IMPL, C10_REGISTER_DEFAULT_GENERATOR)
// cannot call up into this package; they report through the slot in
// c10/core/impl/StaticRegistration.h, filled when the core is loaded, before
// any plugin can be.
[[maybe_unused]] const bool g_static_registration_reporter_installed = [] {
  set_static_registration_error_reporter(&report_registration_error);
  return true;
}();
}  // namespace

bool autoload_backend_plugin(DeviceType type) {
  if (!isValidDeviceType(type)) return false;
  if (type == DeviceType::PrivateUse1 &&
      get_privateuse1_backend(true) == "privateuseone") {
    debug("autoload: PrivateUse1 has no name yet, so there is no file to ",
          "look for; call c10::register_privateuse1_backend first.");
    return false;
  }
  const std::string file = "libember_" + DeviceTypeName(type, true) + ".so";
  LoaderState& s = state();
  std::map<std::string, AutoloadAttempt>::iterator it;
  {
    std::unique_lock<std::mutex> lock(s.autoload_mutex);
    it = s.attempts.find(file);
    if (it != s.attempts.end()) {
      AutoloadAttempt& a = it->second;
      if (a.status == AutoloadAttempt::kLoading) {
        // Waiting from inside a load could deadlock against the loader.
        if (a.loader == std::this_thread::get_id() || tls_load_scope) {
          debug("autoload: ", file, " is being loaded already; not waiting");
          return false;
        }
        debug("autoload: waiting for another thread to load ", file);
        s.autoload_cv.wait(
            lock, [&a] { return a.status != AutoloadAttempt::kLoading; });
        if (a.status == AutoloadAttempt::kFailed) {
          C10_THROW_ERROR(Error, a.error);
        }
        return a.status == AutoloadAttempt::kLoaded;
      }
      if (a.status == AutoloadAttempt::kFailed) C10_THROW_ERROR(Error, a.error);
      debug("autoload: ", file, " was tried before; not searching again");
      return false;
    }
    for (const PluginInfo& p : loaded_plugins()) {
      if (p.name == DeviceTypeName(type, true)) {
        debug("autoload: plugin \"", p.name, "\" is loaded already, from ",
              p.path);
        return false;
      }
    }
    it = s.attempts.emplace(file, AutoloadAttempt()).first;
    it->second.loader = std::this_thread::get_id();
  }

  AutoloadAttempt::Status status = AutoloadAttempt::kNotFound;
  std::string error;
  try {
    // The CPU plugin's build for this CPU first (See Note [CPU capability]
    // in cpu_capability.cc), in each directory in search-path order.
    bool forced = false;  // EMBER_CPU_CAPABILITY named the CPU plugin's build
    const std::vector<std::string> files =
        type == DeviceType::CPU ? cpu_plugin_files(&forced) : std::vector<std::string>{file};
    for (const std::string& dir : plugin_search_path(type)) {
      for (const std::string& name : files) {
        const std::string candidate = join_path(dir, name);
        struct stat st;
        if (::stat(candidate.c_str(), &st) != 0 || S_ISDIR(st.st_mode)) {
          debug("autoload: ", candidate, ": not found");
          continue;
        }
        debug("autoload: ", candidate, ": found, loading");
        torch::load_library(candidate);
        status = AutoloadAttempt::kLoaded;
        break;
      }
      if (status == AutoloadAttempt::kLoaded) break;
    }
    TORCH_CHECK(status == AutoloadAttempt::kLoaded || !forced || files[0] == file,
                "EMBER_CPU_CAPABILITY asks for ", files[0], ", which is not on the search path "
                "(the sanitizer builds make only ", file, "); unset it there");
  } catch (const std::exception& e) {
    status = AutoloadAttempt::kFailed;
    const auto* err = dynamic_cast<const c10::Error*>(&e);
    error =
        c10::str("autoload of the ", DeviceTypeName(type, true),
                 " backend: ", err ? err->what_without_backtrace() : e.what());
  }
  if (status == AutoloadAttempt::kNotFound) {
    debug("autoload: no ", file, " in the search path; will not look again");
  }
  {
    std::lock_guard<std::mutex> lock(s.autoload_mutex);
    it->second.status = status;
    it->second.error = error;
  }
  s.autoload_cv.notify_all();
  if (status == AutoloadAttempt::kFailed) C10_THROW_ERROR(Error, error);
  return status == AutoloadAttempt::kLoaded;
}

}  // namespace impl
}  // namespace c10

namespace torch {

void load_library(const std::string& path) {
  using namespace c10;
  TORCH_CHECK(!path.empty(),
              "load_library: the path is empty. Pass the path of a plugin's "
              "shared object (.so).");
  int err = 0;
  const std::string real = realpath_or_empty(path, &err);
  if (real.empty()) {
    C10_THROW_ERROR(Error, "load_library: cannot open plugin ", path, ": ",
                    errno_text(err), ". ",
                    err == ENOENT ? "Check the path, or build the plugin first."
                                  : "Check the path and its permissions.");
  }
  LoaderState& s = state();
  std::lock_guard<std::recursive_mutex> lock(s.load_mutex);
  for (const std::string& p : s.loading_paths) {
    if (p == real) return;  // a plugin's initializer loading itself
  }
  for (const PluginInfo& p : loaded_plugins()) {
    if (p.path == real) {
      debug("load_library: ", real, " is loaded already");
      return;
    }
  }
  debug("load_library: checking ", real);
  const PluginDescriptor d = read_plugin_descriptor(real);
  check_compatible(real, d);
  debug("load_library: ", real, " is plugin \"", d.name, "\" (ABI ",
        d.abi_version, ", fingerprint ", d.fingerprint, "); dlopen");
  s.loading_paths.push_back(real);
  struct PopGuard {
    std::vector<std::string>& v;
    ~PopGuard() { v.pop_back(); }
  } pop{s.loading_paths};
  open_plugin(real);
  {
    std::lock_guard<std::mutex> info_lock(s.info_mutex);
    s.plugins.push_back(PluginInfo{
        d.name, real, static_cast<int>(d.abi_version), d.fingerprint});
  }
  debug("load_library: loaded \"", d.name, "\" from ", real);
}

}  // namespace torch
