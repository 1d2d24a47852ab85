// ops — inspect the operator registry.
//
//   ./bazelw run //tools:ops -- list                    every op and its schema
//   ./bazelw run //tools:ops -- dump aten::add.Tensor   key -> kernel table
//   ./bazelw run //tools:ops -- plugins                 plugins, loaded and found
//   ./bazelw run //tools:ops -- --load=PATH … list      load plugins first
//
// Before any command, every plugin the search path offers (libember_*.so in
// $EMBER_PLUGIN_PATH, next to libember_core.so, in the runfiles: See
// c10::plugin_search_path) is loaded if the core would accept it, as a
// program's first call on that backend (or its torch::load_library) would:
// `list` and `dump` then show their ops and kernels without --load.
// `--no-search` skips that.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include <torch/library.h>

#include "registration/cpu_capability.h"

namespace {

int usage(std::ostream& out, int code) {
  out << "usage: ops [--no-search] [--load=PLUGIN.so]... <command>\n"
         "commands:\n"
         "  list                 every operator and its schema\n"
         "  dump NAME[.OVERLOAD] which kernel each dispatch key resolves to and\n"
         "                       where it was registered; fallbacks\n"
         "  plugins              the plugins loaded in this process and those\n"
         "                       the search path offers (EMBER_PLUGIN_PATH, the\n"
         "                       core's directory, runfiles)\n"
         "options:\n"
         "  --no-search          load only the --load plugins (and the CPU one)\n";
  return code;
}

int list() {
  auto& d = c10::Dispatcher::singleton();
  for (const auto& name : d.getAllOpNames()) {
    auto op = d.findOp(name);
    if (op && op->hasSchema()) {
      std::cout << op->schema() << "\n";
    } else {
      std::cout << name << " (kernels only, no schema)\n";
    }
  }
  return 0;
}

int dump(const std::string& full_name) {
  const c10::OperatorName name = c10::parseName(full_name);
  auto op = c10::Dispatcher::singleton().findOp(name);
  if (!op) {
    std::cerr << "ops: no operator named " << full_name
              << "; `ops list` shows the known ones.\n";
    return 1;
  }
  std::cout << op->dumpState() << "\ncomputed table:\n" << op->dumpComputedTable();
  return 0;
}

int plugins() {
  const auto loaded = c10::loaded_plugins();
  if (loaded.empty()) std::cout << "no plugins loaded\n";
  for (const auto& p : loaded) {
    std::cout << p.name << " " << p.path << " (ABI " << p.abi_version
              << ", fingerprint " << p.fingerprint << ")\n";
  }
  std::cout << "core build fingerprint: " << c10::core_build_fingerprint() << "\n";
  // See Note [CPU capability] in registration/cpu_capability.cc.
  const char* forced = std::getenv("EMBER_CPU_CAPABILITY");
  std::cout << "cpu capability: " << c10::cpu_capability() << " (this CPU supports "
            << c10::cpu_capability_name(c10::cpu_capability_supported())
            << (forced != nullptr && *forced != '\0'
                    ? std::string("; EMBER_CPU_CAPABILITY=") + forced
                    : std::string("; EMBER_CPU_CAPABILITY unset"))
            << ")\n";
  std::cout << "on the search path:\n";
  const auto found = c10::plugins_on_search_path();
  if (found.empty()) std::cout << "  none\n";
  for (const auto& c : found) {
    std::cout << "  " << (c.info ? c.info->name : std::string("?")) << " " << c.path;
    if (c.loaded) {
      std::cout << " (loaded)";
    } else if (c.compatible) {
      std::cout << " (loadable)";
    } else {
      std::cout << " (refused: " << c.problem << ")";
    }
    std::cout << (c.autoload_device.empty()
                      ? std::string(", load with torch::load_library")
                      : ", autoloaded for " + c.autoload_device)
              << "\n";
  }
  return 0;
}

// Loads each plugin of the search path that the core accepts; a refused or
// failing one is reported and skipped, as it would fail the program too.
void load_search_path() {
  const auto loaded = c10::loaded_plugins();
  for (const auto& c : c10::plugins_on_search_path()) {
    if (c.loaded) continue;
    // Another build of a loaded plugin (the CPU plugin's capabilities).
    if (c.info && std::any_of(loaded.begin(), loaded.end(), [&](const c10::PluginInfo& p) {
          return p.name == c.info->name;
        })) {
      continue;
    }
    if (!c.compatible) {
      std::cerr << "ops: skipping " << c.path << ": " << c.problem << "\n";
      continue;
    }
    try {
      torch::load_library(c.path);
    } catch (const c10::Error& e) {
      std::cerr << "ops: skipping " << c.path << ": " << e.what_without_backtrace() << "\n";
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  size_t i = 0;
  try {
    // The backends a program would load on first use (the CPU plugin is in
    // this tool's runfiles), so that dumps show their kernels.
    c10::impl::autoload_backend_plugin(c10::DeviceType::CPU);
    bool search = true;
    for (; i < args.size(); ++i) {
      if (args[i] == "--no-search") {
        search = false;
      } else if (args[i].rfind("--load=", 0) == 0) {
        torch::load_library(args[i].substr(std::strlen("--load=")));
      } else {
        break;
      }
    }
    if (search) load_search_path();
    if (i >= args.size()) return usage(std::cerr, 2);
    const std::string& cmd = args[i];
    if (cmd == "list" && i + 1 == args.size()) return list();
    if (cmd == "dump" && i + 2 == args.size()) return dump(args[i + 1]);
    if (cmd == "plugins" && i + 1 == args.size()) return plugins();
    if (cmd == "--help" || cmd == "-h") return usage(std::cout, 0);
    std::cerr << "ops: unknown command or wrong arguments: " << cmd << "\n";
    return usage(std::cerr, 2);
  } catch (const c10::Error& e) {
    std::cerr << "ops: " << e.what_without_backtrace() << "\n";
    return 1;
  }
}
