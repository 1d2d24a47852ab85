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

namespace c10 {
namespace {

static_assert(sizeof(void*) == 8, "the plugin loader reads 64-bit ELF only");

#if defined(__x86_64__)
constexpr uint16_t kHostMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kHostMachine = EM_AARCH64;
#elif defined(__powerpc64__)
constexpr uint16_t kHostMachine = EM_PPC64;
#elif defined(__riscv)
constexpr uint16_t kHostMachine = EM_RISCV;
#elif defined(__s390x__)
constexpr uint16_t kHostMachine = EM_S390;
#else
#error "plugin_loader: add this machine's ELF e_machine value"
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr unsigned char kHostData = ELFDATA2LSB;
#else
constexpr unsigned char kHostData = ELFDATA2MSB;
#endif

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

// strerror_r is the GNU one (returns the text) or the XSI one (returns 0 and
// fills the buffer) depending on feature macros; accept both.
[[maybe_unused]] const char* strerror_result(const char* text, const char*) {
  return text;
}
[[maybe_unused]] const char* strerror_result(int rc, const char* buf) {
  return rc == 0 ? buf : "unknown error";
}

std::string errno_text(int err) {
  char buf[256] = {0};
  return strerror_result(strerror_r(err, buf, sizeof(buf)), buf);
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

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

const char* machine_name(unsigned machine) {
  switch (machine) {
    case EM_X86_64:
      return "x86-64";
    case EM_AARCH64:
      return "AArch64";
    case EM_386:
      return "i386";
    case EM_ARM:
      return "ARM";
    case EM_PPC64:
      return "PowerPC64";
    case EM_RISCV:
      return "RISC-V";
    case EM_S390:
      return "s390";
    default:
      return "unknown";
  }
}

const char* elf_type_name(unsigned type) {
  switch (type) {
    case ET_REL:
      return "a relocatable object file (ELF type ET_REL)";
    case ET_EXEC:
      return "an executable (ELF type ET_EXEC)";
    case ET_CORE:
      return "a core dump (ELF type ET_CORE)";
    default:
      return "an ELF file of an unknown type";
  }
}

// The file being checked, read with plain I/O: none of its code runs.
class PluginFile {
 public:
  explicit PluginFile(const std::string& path) : path_(path) {
    // O_NONBLOCK: open() of a FIFO would wait for a writer for ever; the
    // descriptor is only pread, once fstat says it is a regular file.
    fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) {
      const int err = errno;
      C10_THROW_ERROR(Error, "load_library: cannot read plugin ", path, ": ",
                      errno_text(err), ". ",
                      err == EACCES ? "Make the file readable by this process."
                                    : "Check the file.");
    }
    struct stat st;
    std::memset(&st, 0, sizeof(st));
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
      const bool is_dir = S_ISDIR(st.st_mode);
      ::close(fd_);
      C10_THROW_ERROR(Error, "load_library: ", path, " is ",
                      is_dir ? "a directory" : "not a regular file",
                      ", not a shared object. Pass the path of the plugin's "
                      ".so file.");
    }
    size_ = static_cast<uint64_t>(st.st_size);
  }
  ~PluginFile() { ::close(fd_); }
  PluginFile(const PluginFile&) = delete;
  PluginFile& operator=(const PluginFile&) = delete;

  uint64_t size() const { return size_; }

  // Reads [offset, offset + len) or throws naming what was being read.
  void read(uint64_t offset, void* out, uint64_t len, const char* what) const {
    TORCH_CHECK(offset <= size_ && len <= size_ - offset,
                "load_library: ", path_, " is truncated or corrupt: its ", what,
                " spans bytes ", offset, "..", offset + len,
                " but the file has ", size_, " bytes. Rebuild the plugin.");
    char* dst = static_cast<char*>(out);
    while (len > 0) {
      const ssize_t n = ::pread(fd_, dst, len, static_cast<off_t>(offset));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const int err = n < 0 ? errno : EIO;
        C10_THROW_ERROR(Error, "load_library: cannot read plugin ", path_, ": ",
                        errno_text(err), ". Check the file.");
      }
      dst += n;
      offset += static_cast<uint64_t>(n);
      len -= static_cast<uint64_t>(n);
    }
  }

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

// Checks that `path` is a 64-bit shared object for this machine and returns
// its descriptor (See Note [Plugin descriptor]).
PluginDescriptor read_plugin_descriptor(const std::string& path) {
  PluginFile file(path);
  const std::string not_so =
      c10::str("load_library: ", path, " is not a shared object: it is ");
  const char* kRebuild = " Rebuild the plugin.";

  Elf64_Ehdr eh;
  std::memset(&eh, 0, sizeof(eh));
  file.read(0, eh.e_ident, std::min<uint64_t>(EI_NIDENT, file.size()),
            "ELF identification");
  TORCH_CHECK(std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0, not_so,
              "not an ELF file (it does not start with \\x7fELF). Pass the "
              "path of a plugin built as a shared library.");
  TORCH_CHECK(
      eh.e_ident[EI_CLASS] == ELFCLASS64, "load_library: ", path, " is ",
      eh.e_ident[EI_CLASS] == ELFCLASS32 ? "a 32-bit ELF file"
                                         : "an ELF file of unknown class",
      ", but this process is 64-bit. Build the plugin for this machine.");
  TORCH_CHECK(eh.e_ident[EI_DATA] == kHostData, "load_library: ", path,
              " has the wrong byte order for this machine (ELF data encoding ",
              int(eh.e_ident[EI_DATA]), ", expected ", int(kHostData),
              "). Build the plugin for this machine.");
  file.read(0, &eh, sizeof(eh), "ELF header");
  TORCH_CHECK(eh.e_type == ET_DYN, not_so, elf_type_name(eh.e_type),
              ", expected a shared object (ET_DYN). Link the plugin with "
              "-shared (in Bazel: cc_binary(linkshared = True)).");
  TORCH_CHECK(eh.e_machine == kHostMachine, "load_library: ", path,
              " was built for ", machine_name(eh.e_machine), " (e_machine ",
              eh.e_machine, "), but this process runs on ",
              machine_name(kHostMachine), " (e_machine ", kHostMachine,
              "). Build the plugin for this machine.");

  const std::string not_plugin =
      c10::str("load_library: ", path, " is not an Ember plugin: it has no ",
               ".ember_plugin descriptor");
  const char* kUseMacro =
      ". Build it with EMBER_PLUGIN(name) (from "
      "sdk/plugin.h) in one of its source files.";
  TORCH_CHECK(eh.e_shoff != 0, not_plugin,
              " (it has no section headers; strip plugins with `strip`, "
              "which keeps them)",
              kUseMacro);
  TORCH_CHECK(eh.e_shentsize == sizeof(Elf64_Shdr), "load_library: ", path,
              " is corrupt: its section headers are ", eh.e_shentsize,
              " bytes each, expected ", sizeof(Elf64_Shdr), ".", kRebuild);

  // With 0xff00 sections or more, the counts live in section header 0.
  Elf64_Shdr first;
  file.read(eh.e_shoff, &first, sizeof(first), "section header table");
  const uint64_t shnum = eh.e_shnum != 0 ? eh.e_shnum : first.sh_size;
  const uint64_t shstrndx =
      eh.e_shstrndx != SHN_XINDEX ? eh.e_shstrndx : first.sh_link;
  TORCH_CHECK(shnum <= file.size() / sizeof(Elf64_Shdr), "load_library: ", path,
              " is truncated or corrupt: it claims ", shnum,
              " sections but has only ", file.size(), " bytes.", kRebuild);
  std::vector<Elf64_Shdr> sections(shnum);
  file.read(eh.e_shoff, sections.data(), shnum * sizeof(Elf64_Shdr),
            "section header table");
  TORCH_CHECK(shstrndx < shnum && sections[shstrndx].sh_type == SHT_STRTAB,
              "load_library: ", path, " is corrupt: its section-name table (",
              "index ", shstrndx, ") is missing.", kRebuild);
  const Elf64_Shdr& names_hdr = sections[shstrndx];
  std::vector<char> names(names_hdr.sh_size <= file.size() ? names_hdr.sh_size
                                                           : 0);
  file.read(names_hdr.sh_offset, names.data(), names_hdr.sh_size,
            "section-name table");

  const char kSectionName[] = ".ember_plugin";
  const Elf64_Shdr* section = nullptr;
  for (const Elf64_Shdr& sh : sections) {
    if (sh.sh_name < names.size() &&
        names.size() - sh.sh_name >= sizeof(kSectionName) &&
        std::memcmp(names.data() + sh.sh_name, kSectionName,
                    sizeof(kSectionName)) == 0) {
      section = &sh;
      break;
    }
  }
  TORCH_CHECK(section != nullptr, not_plugin, kUseMacro);
  TORCH_CHECK(section->sh_type != SHT_NOBITS, "load_library: ", path,
              " is corrupt: its .ember_plugin section has no contents in the "
              "file.",
              kRebuild);

  // Every layout starts with the magic and the layout version.
  PluginDescriptor d;
  std::memset(&d, 0, sizeof(d));
  constexpr uint64_t kPrefix = offsetof(PluginDescriptor, abi_version);
  TORCH_CHECK(section->sh_size >= kPrefix, not_plugin, " (its .ember_plugin ",
              "section is ", section->sh_size, " bytes, too small for one)",
              kUseMacro);
  file.read(section->sh_offset, &d, kPrefix, ".ember_plugin section");
  TORCH_CHECK(d.magic == kPluginDescriptorMagic, not_plugin, " (its ",
              ".ember_plugin section starts with ", hex(d.magic),
              ", expected the magic value ", hex(kPluginDescriptorMagic), ")",
              kUseMacro);
  TORCH_CHECK(d.layout_version == kPluginDescriptorLayout,
              "load_library: plugin ", path,
              " has a descriptor of layout version ", d.layout_version,
              ", but this Ember reads layout ", kPluginDescriptorLayout,
              ". Rebuild the plugin against this Ember.");
  const uint64_t n = section->sh_size / sizeof(PluginDescriptor);
  TORCH_CHECK(n <= 1 || section->sh_size % sizeof(PluginDescriptor) != 0,
              "load_library: plugin ", path, " carries ", n,
              " descriptors. Write EMBER_PLUGIN(name) exactly once per "
              "shared object.");
  TORCH_CHECK(section->sh_size == sizeof(PluginDescriptor),
              "load_library: plugin ", path, " has a .ember_plugin section of ",
              section->sh_size, " bytes, expected ", sizeof(PluginDescriptor),
              " for descriptor layout ", kPluginDescriptorLayout,
              ". Rebuild the plugin against this Ember.");
  file.read(section->sh_offset, &d, sizeof(d), ".ember_plugin section");
  TORCH_CHECK(
      std::memchr(d.name, '\0', sizeof(d.name)) != nullptr &&
          d.name[0] != '\0' &&
          std::memchr(d.fingerprint, '\0', sizeof(d.fingerprint)) != nullptr,
      "load_library: plugin ", path, " has a corrupt descriptor (its ",
      "name or fingerprint is empty or not terminated). Rebuild the "
      "plugin with EMBER_PLUGIN(name).");
  return d;
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
    const std::vector<std::string> files =
        type == DeviceType::CPU ? cpu_plugin_files() : std::vector<std::string>{file};
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
  } catch (const std::exception& e) {
    status = AutoloadAttempt::kFailed;
    const auto* err = dynamic_cast<const c10::Error*>(&e);
    error =
        c10::str("autoload of the ", DeviceTypeName(type, true),
                 " backend: ", err ? err->what_without_backtrace() : e.what());
  }
  bool forced = false;
  if (status == AutoloadAttempt::kNotFound && type == DeviceType::CPU && error.empty()) {
    try {
      const CpuCapability wanted = cpu_capability_wanted(&forced);
      if (forced && wanted != CpuCapability::kDefault) {
        status = AutoloadAttempt::kFailed;
        error = c10::str("autoload of the cpu backend: EMBER_CPU_CAPABILITY=",
                         cpu_capability_name(wanted), ", but no libember_cpu.",
                         cpu_capability_name(wanted), ".so is on the search path (the "
                         "sanitizer builds make only libember_cpu.so); unset it there");
      }
    } catch (const c10::Error&) {
      // Reported by cpu_plugin_files() above.
    }
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
