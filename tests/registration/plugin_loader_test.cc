// tests/registration/plugin_loader_test.cc — proves registration/
// plugin_loader.h: torch::load_library checks a plugin's file and descriptor
// before running any of its code and names the file, the reason and the fix
// in every refusal; a loaded plugin resolves its core symbols against the
// host's core (one core per process); registration errors unload the plugin;
// autoload finds a backend's plugin through EMBER_PLUGIN_PATH, does not loop
// and tries each backend once.
//
// The test plugins (tests/registration/plugins/) are found in, in order:
//   $EMBER_TEST_PLUGIN_DIR;
//   $TEST_SRCDIR/ember/tests/registration/plugins (Bazel: the plugins are
//     `data` of this test);
//   <directory of this executable>/plugins.
// The directory holds libember_testgood.so, libember_testdev.so,
// no_descriptor_plugin.so, wrong_abi_plugin.so, wrong_fingerprint_plugin.so,
// unresolved_symbol_plugin.so and registration_error_plugin.so (each linked
// with -shared and without the core's implementation).
//
// Plugins stay loaded for the life of the process, and autoload remembers
// each backend it tried, so each test uses its own plugins and backends.
#include "registration/plugin_loader.h"

#include <dlfcn.h>
#include <elf.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "c10/util/Exception.h"
#include "registration/plugin_descriptor.h"

namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

std::string real_path(const std::string& path) {
  char buf[PATH_MAX];
  return ::realpath(path.c_str(), buf) ? std::string(buf) : path;
}

std::string plugin_dir() {
  if (const char* dir = std::getenv("EMBER_TEST_PLUGIN_DIR")) return dir;
  if (const char* srcdir = std::getenv("TEST_SRCDIR")) {
    return std::string(srcdir) + "/ember/tests/registration/plugins";
  }
  const std::string exe = real_path("/proc/self/exe");
  return exe.substr(0, exe.rfind('/')) + "/plugins";
}

std::string plugin(const std::string& file) {
  return real_path(plugin_dir() + "/" + file);
}

// The message load_library throws for `path`; fails the test if it loads.
std::string load_error(const std::string& path) {
  try {
    torch::load_library(path);
  } catch (const c10::Error& e) {
    return e.what_without_backtrace();
  }
  ADD_FAILURE() << "load_library(" << path << ") did not throw";
  return "";
}

bool is_mapped(const std::string& path) {
  void* handle = ::dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (handle != nullptr) ::dlclose(handle);
  return handle != nullptr;
}

bool is_listed(const std::string& path) {
  for (const c10::PluginInfo& p : c10::loaded_plugins()) {
    if (p.path == path) return true;
  }
  return false;
}

// Records the warnings of the calling thread, where plugins' static
// initializers and destructors run.
class WarningRecorder : public c10::WarningHandler {
 public:
  WarningRecorder() : guard_(this) {}
  void process(const c10::Warning& warning) override {
    messages.push_back(warning.msg());
  }
  std::vector<std::string> messages;

 private:
  c10::WarningUtils::WarningHandlerGuard guard_;
};

// A fresh directory, removed with its files at the end of the test.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TEST_TMPDIR");
    std::string tmpl = std::string(base ? base : "/tmp") + "/ember_plXXXXXX";
    path_ = ::mkdtemp(&tmpl[0]) ? tmpl : "";
    EXPECT_FALSE(path_.empty()) << "mkdtemp failed";
  }
  ~TempDir() {
    for (const std::string& f : files_) ::unlink(f.c_str());
    ::rmdir(path_.c_str());
  }
  const std::string& path() const { return path_; }

  // Writes `bytes` to `name` in this directory and returns the file's path.
  std::string write(const std::string& name, const std::string& bytes) {
    const std::string file = path_ + "/" + name;
    std::ofstream(file, std::ios::binary) << bytes;
    files_.push_back(file);
    return file;
  }

 private:
  std::string path_;
  std::vector<std::string> files_;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Sets an environment variable for a scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had_) {
      ::setenv(name_, old_.c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

// Core functions the test plugins call (Itanium-mangled names).
const char* const kCoreSymbols[] = {
    "_ZN3c104warnERKNS_7WarningE",
    "_ZN3c1028register_privateuse1_backendERKNSt7__cxx1112basic_stringIcSt11"
    "char_traitsIcESaIcEEE",
    "_ZN3c104impl23autoload_backend_pluginENS_10DeviceTypeE",
    "_ZN3c104impl25report_registration_errorENSt15__exception_ptr13exception_"
    "ptrE",
};

// The file that defines `symbol` as seen from `handle`'s scope, or "".
std::string definer(void* handle, const char* symbol) {
  void* address = ::dlsym(handle, symbol);
  Dl_info info;
  if (address == nullptr || ::dladdr(address, &info) == 0) return "";
  return real_path(info.dli_fname);
}

// ------------------------------------------------------------ loading

TEST(PluginLoader, LoadsAPluginOnceFromManyThreadsAndListsIt) {
  const std::string good = plugin("libember_testgood.so");
  // Only if tests were reordered has the plugin been loaded already.
  const bool loaded_before = is_listed(good);
  std::atomic<int> initialized{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      WarningRecorder warnings;
      torch::load_library(good);
      for (const std::string& m : warnings.messages) {
        if (m == "testgood plugin initialized") ++initialized;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(initialized.load(), loaded_before ? 0 : 1);

  // Again, through a symlink: the same file, so nothing happens.
  TempDir dir;
  const std::string link = dir.path() + "/link.so";
  ASSERT_EQ(::symlink(good.c_str(), link.c_str()), 0);
  {
    WarningRecorder warnings;
    torch::load_library(link);
    EXPECT_THAT(warnings.messages, IsEmpty());
  }
  ::unlink(link.c_str());

  int listed = 0;
  for (const c10::PluginInfo& p : c10::loaded_plugins()) {
    if (p.name != "testgood") continue;
    ++listed;
    EXPECT_EQ(p.path, good);
    EXPECT_EQ(p.abi_version, EMBER_ABI_VERSION);
    EXPECT_EQ(p.fingerprint, c10::core_build_fingerprint());
  }
  EXPECT_EQ(listed, 1);

  // Another file carrying the same plugin is refused.
  const std::string copy = dir.write("copy.so", read_file(good));
  EXPECT_THAT(load_error(copy),
              AllOf(StartsWith("load_library: plugin " + real_path(copy)),
                    HasSubstr("\"testgood\""),
                    HasSubstr("already loaded from " + good)));
}

TEST(PluginLoader, PluginResolvesCoreSymbolsAgainstTheHostCore) {
  const std::string good = plugin("libember_testgood.so");
  torch::load_library(good);
  void* handle = ::dlopen(good.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  ASSERT_NE(handle, nullptr);
  for (const char* symbol : kCoreSymbols) {
    EXPECT_THAT(definer(RTLD_DEFAULT, symbol), EndsWith("/libember_core.so"))
        << symbol;
    EXPECT_NE(definer(handle, symbol), good)
        << "the plugin carries its own copy of " << symbol;
  }
  ::dlclose(handle);
}

TEST(PluginLoader, MissingFileNamesThePathAndTheReason) {
  const std::string path = "/nonexistent/dir/libember_missing.so";
  EXPECT_THAT(load_error(path),
              AllOf(StartsWith("load_library: cannot open plugin " + path),
                    HasSubstr("No such file or directory"),
                    HasSubstr("Check the path")));
  EXPECT_THAT(load_error(""), HasSubstr("the path is empty"));
}

TEST(PluginLoader, DirectoryIsNotASharedObject) {
  TempDir dir;
  EXPECT_THAT(load_error(dir.path()),
              AllOf(HasSubstr(real_path(dir.path())), HasSubstr("a directory"),
                    HasSubstr("not a shared object")));
}

TEST(PluginLoader, UnreadableFileNamesTheReason) {
  if (::geteuid() == 0) GTEST_SKIP() << "root can read any file";
  TempDir dir;
  const std::string file =
      dir.write("locked.so", read_file(plugin("libember_testgood.so")));
  ASSERT_EQ(::chmod(file.c_str(), 0), 0);
  EXPECT_THAT(load_error(file), AllOf(HasSubstr(real_path(file)),
                                      HasSubstr("Permission denied")));
}

TEST(PluginLoader, TextFileIsNotAnElfFile) {
  TempDir dir;
  const std::string file = dir.write("notes.so", "just some text\n");
  EXPECT_THAT(
      load_error(file),
      AllOf(StartsWith("load_library: " + real_path(file)),
            HasSubstr("is not a shared object"), HasSubstr("not an ELF file")));
  const std::string tiny = dir.write("tiny.so", std::string(1, '\x7f') + "E");
  EXPECT_THAT(load_error(tiny), HasSubstr("not an ELF file"));
}

// A copy of the good plugin with `patch` applied to its bytes.
std::string patched_copy(TempDir& dir, const std::string& name,
                         const std::function<void(std::string&)>& patch) {
  std::string bytes = read_file(plugin("libember_testgood.so"));
  patch(bytes);
  return real_path(dir.write(name, bytes));
}

TEST(PluginLoader, RelocatableObjectIsNotASharedObject) {
  // The good plugin with its ELF type changed to that of a .o file.
  TempDir dir;
  const std::string object = patched_copy(dir, "object.o", [](std::string& b) {
    const uint16_t rel = ET_REL;
    std::memcpy(&b[offsetof(Elf64_Ehdr, e_type)], &rel, 2);
  });
  EXPECT_THAT(load_error(object),
              AllOf(StartsWith("load_library: " + object),
                    HasSubstr("relocatable object file (ELF type ET_REL)"),
                    HasSubstr("expected a shared object (ET_DYN)"),
                    HasSubstr("-shared")));
}

TEST(PluginLoader, PluginForAnotherMachineIsRefused) {
  TempDir dir;
  Elf64_Ehdr host;
  std::memcpy(&host, read_file(plugin("libember_testgood.so")).data(),
              sizeof(host));
  const uint16_t foreign =
      host.e_machine == EM_AARCH64 ? EM_X86_64 : EM_AARCH64;
  const std::string file = patched_copy(dir, "arm.so", [&](std::string& b) {
    std::memcpy(&b[offsetof(Elf64_Ehdr, e_machine)], &foreign, 2);
  });
  EXPECT_THAT(load_error(file),
              AllOf(StartsWith("load_library: " + file),
                    HasSubstr(c10::str("(e_machine ", foreign, ")")),
                    HasSubstr(c10::str("this process runs on")),
                    HasSubstr(c10::str("(e_machine ", host.e_machine, ")"))));
}

TEST(PluginLoader, TruncatedFileIsRefused) {
  TempDir dir;
  const std::string header_only =
      patched_copy(dir, "header.so", [](std::string& b) { b.resize(40); });
  EXPECT_THAT(load_error(header_only),
              AllOf(HasSubstr(header_only), HasSubstr("is truncated")));
  const std::string half = patched_copy(
      dir, "half.so", [](std::string& b) { b.resize(b.size() / 2); });
  EXPECT_THAT(load_error(half), AllOf(HasSubstr(half), HasSubstr("truncated"),
                                      HasSubstr("Rebuild the plugin")));
}

TEST(PluginLoader, SharedObjectWithoutDescriptorIsNotAPlugin) {
  const std::string path = plugin("no_descriptor_plugin.so");
  WarningRecorder warnings;
  EXPECT_THAT(load_error(path),
              AllOf(StartsWith("load_library: " + path),
                    HasSubstr("is not an Ember plugin: it has no "
                              ".ember_plugin descriptor"),
                    HasSubstr("Build it with EMBER_PLUGIN(name)")));
  EXPECT_THAT(warnings.messages, IsEmpty()) << "the plugin's code ran";
  EXPECT_FALSE(is_mapped(path));
}

// Offset of the descriptor in the good plugin's bytes, found by its first
// fields (the magic alone also appears in debug information).
size_t descriptor_offset(const std::string& bytes) {
  c10::PluginDescriptor d{c10::kPluginDescriptorMagic,
                          c10::kPluginDescriptorLayout, EMBER_ABI_VERSION,
                          "testgood", ""};
  const size_t prefix =
      offsetof(c10::PluginDescriptor, name) + sizeof("testgood");
  const size_t at =
      bytes.find(std::string(reinterpret_cast<const char*>(&d), prefix));
  EXPECT_NE(at, std::string::npos);
  EXPECT_EQ(bytes.find(std::string(reinterpret_cast<const char*>(&d), prefix),
                       at + 1),
            std::string::npos);
  return at;
}

TEST(PluginLoader, DescriptorWithWrongMagicOrLayoutIsRefused) {
  TempDir dir;
  const std::string bad_magic = patched_copy(
      dir, "magic.so", [](std::string& b) { b[descriptor_offset(b)] = 'X'; });
  EXPECT_THAT(load_error(bad_magic),
              AllOf(HasSubstr(bad_magic), HasSubstr("is not an Ember plugin"),
                    HasSubstr("expected the magic value 0x474c505245424d45")));
  const std::string bad_layout =
      patched_copy(dir, "layout.so", [](std::string& b) {
        const uint32_t layout = 7;
        std::memcpy(&b[descriptor_offset(b) + 8], &layout, 4);
      });
  EXPECT_THAT(load_error(bad_layout),
              AllOf(HasSubstr(bad_layout), HasSubstr("layout version 7"),
                    HasSubstr("this Ember reads layout 1"),
                    HasSubstr("Rebuild the plugin against this Ember")));
}

TEST(PluginLoader, WrongAbiVersionIsRefusedBeforeAnyCodeRuns) {
  const std::string path = plugin("wrong_abi_plugin.so");
  WarningRecorder warnings;
  EXPECT_THAT(
      load_error(path),
      AllOf(
          StartsWith("load_library: plugin " + path), HasSubstr("\"wrongabi\""),
          HasSubstr("built for Ember ABI version 999"),
          HasSubstr(c10::str("this Ember has ABI version ", EMBER_ABI_VERSION)),
          HasSubstr("Rebuild the plugin against this Ember")));
  EXPECT_THAT(warnings.messages, IsEmpty()) << "the plugin's code ran";
  EXPECT_FALSE(is_mapped(path));
  EXPECT_FALSE(is_listed(path));
}

TEST(PluginLoader, WrongFingerprintIsRefusedWithBothFingerprints) {
  const std::string path = plugin("wrong_fingerprint_plugin.so");
  WarningRecorder warnings;
  EXPECT_THAT(load_error(path),
              AllOf(StartsWith("load_library: plugin " + path),
                    HasSubstr("core build fingerprint \"not-this-core\""),
                    HasSubstr("this core's fingerprint is \"" +
                              c10::core_build_fingerprint() + "\""),
                    HasSubstr("Rebuild the plugin against this Ember")));
  EXPECT_THAT(warnings.messages, IsEmpty());
  EXPECT_FALSE(is_mapped(path));
}

TEST(PluginLoader, UnresolvedSymbolGivesTheDynamicLoadersReason) {
  const std::string path = plugin("unresolved_symbol_plugin.so");
  EXPECT_THAT(load_error(path),
              AllOf(StartsWith("load_library: cannot load plugin " + path),
                    HasSubstr("undefined symbol"),
                    HasSubstr("ember_test_function_that_does_not_exist")));
  EXPECT_FALSE(is_listed(path));
}

TEST(PluginLoader, RegistrationErrorUnloadsThePluginAndThrows) {
  const std::string path = plugin("registration_error_plugin.so");
  for (int attempt = 0; attempt < 2; ++attempt) {
    WarningRecorder warnings;
    EXPECT_EQ(load_error(path),
              "load_library: plugin " + path +
                  " failed to register its kernels: duplicate kernel for "
                  "test::op on CPU (and 1 more registration error)");
    // The registration that succeeded was undone by unloading.
    EXPECT_THAT(warnings.messages,
                ElementsAre("registration_error plugin: registered",
                            "registration_error plugin: unregistered"));
    EXPECT_FALSE(is_mapped(path));
    EXPECT_FALSE(is_listed(path));
  }
}

TEST(PluginLoader, RegistrationErrorOutsideALoadIsNotSwallowed) {
  auto error = std::make_exception_ptr(std::runtime_error("boom"));
  EXPECT_FALSE(c10::impl::report_registration_error(error));
}

// ------------------------------------------------------------ autoload

TEST(PluginAutoload, SearchPathIsEnvThenCoreDirectoryThenRunfiles) {
  ScopedEnv path("EMBER_PLUGIN_PATH", "/a:/b/::/a");
  ScopedEnv runfiles("RUNFILES_DIR", "/r");
  const std::vector<std::string> dirs =
      c10::plugin_search_path(c10::DeviceType::CPU);
  auto index_of = [&dirs](const std::string& dir) {
    return std::find(dirs.begin(), dirs.end(), dir) - dirs.begin();
  };
  ASSERT_GE(dirs.size(), 4u);
  EXPECT_EQ(dirs[0], "/a");
  EXPECT_EQ(dirs[1], "/b");
  struct stat st;
  EXPECT_EQ(::stat((dirs[2] + "/libember_core.so").c_str(), &st), 0)
      << dirs[2] << " is not the directory of libember_core.so";
  const auto bazel = index_of("/r/ember/backends/cpu");
  const auto exe =
      index_of(real_path("/proc/self/exe") + ".runfiles/ember/backends/cpu");
  EXPECT_LT(2, bazel);
  EXPECT_LT(bazel, exe);
  EXPECT_LT(exe, static_cast<long>(dirs.size()));
}

TEST(PluginAutoload, FindsABackendThroughEmberPluginPathOnce) {
  c10::register_privateuse1_backend("testdev");
  ScopedEnv path("EMBER_PLUGIN_PATH", "/nonexistent:" + plugin_dir());
  const std::vector<std::string> dirs =
      c10::plugin_search_path(c10::DeviceType::PrivateUse1);
  ASSERT_GE(dirs.size(), 2u);
  EXPECT_EQ(dirs[0], "/nonexistent");
  EXPECT_EQ(dirs[1], plugin_dir());

  // Several threads miss a kernel at once: one loads the plugin, the others
  // wait for it (true) or come after it (false).
  std::mutex mutex;
  std::vector<std::string> messages;
  std::atomic<int> loaded{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      WarningRecorder warnings;
      if (c10::impl::autoload_backend_plugin(c10::DeviceType::PrivateUse1)) {
        ++loaded;
      }
      std::lock_guard<std::mutex> lock(mutex);
      messages.insert(messages.end(), warnings.messages.begin(),
                      warnings.messages.end());
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_GE(loaded.load(), 1);
  // It initialized once, and its own autoload of its backend did not loop.
  EXPECT_THAT(messages, ElementsAre("testdev plugin initialized; nested "
                                    "autoload returned false"));
  EXPECT_TRUE(is_listed(plugin("libember_testdev.so")));

  WarningRecorder warnings;
  EXPECT_FALSE(
      c10::impl::autoload_backend_plugin(c10::DeviceType::PrivateUse1));
  EXPECT_THAT(warnings.messages, IsEmpty());
}

TEST(PluginAutoload, DoesNotRetryABackendThatWasNotFound) {
  TempDir dir;
  ScopedEnv path("EMBER_PLUGIN_PATH", dir.path());
  EXPECT_FALSE(c10::impl::autoload_backend_plugin(c10::DeviceType::CUDA));
  // A broken plugin appears afterwards; it is not even looked at.
  const std::string late = dir.write(
      "libember_cuda.so", read_file(plugin("no_descriptor_plugin.so")));
  EXPECT_FALSE(c10::impl::autoload_backend_plugin(c10::DeviceType::CUDA));
  EXPECT_FALSE(is_mapped(late));
}

TEST(PluginAutoload, BrokenPluginThrowsNowAndOnEveryLaterCall) {
  TempDir dir;
  ScopedEnv path("EMBER_PLUGIN_PATH", dir.path());
  const std::string file = real_path(
      dir.write("libember_cpu.so", read_file(plugin("wrong_abi_plugin.so"))));
  std::string first;
  try {
    c10::impl::autoload_backend_plugin(c10::DeviceType::CPU);
    ADD_FAILURE() << "autoload of a broken plugin did not throw";
  } catch (const c10::Error& e) {
    first = e.what_without_backtrace();
  }
  EXPECT_THAT(first, AllOf(StartsWith("autoload of the cpu backend: "),
                           HasSubstr(file), HasSubstr("ABI version 999")));
  ::unlink(file.c_str());  // not searched again: the failure is remembered
  try {
    c10::impl::autoload_backend_plugin(c10::DeviceType::CPU);
    ADD_FAILURE() << "the second autoload did not throw";
  } catch (const c10::Error& e) {
    EXPECT_EQ(e.what_without_backtrace(), first);
  }
}

}  // namespace
