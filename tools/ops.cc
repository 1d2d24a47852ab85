// ops — inspect the operator registry.
//
//   ./bazelw run //tools:ops -- list                    every op and its schema
//   ./bazelw run //tools:ops -- dump aten::add.Tensor   key -> kernel table
//   ./bazelw run //tools:ops -- plugins                 loaded plugins
//   ./bazelw run //tools:ops -- --load=PATH … list      load plugins first
//
// The CPU plugin is loaded first, as a program's first CPU call would.
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include <torch/library.h>

namespace {

int usage(std::ostream& out, int code) {
  out << "usage: ops [--load=PLUGIN.so]... <command>\n"
         "commands:\n"
         "  list                 every operator and its schema\n"
         "  dump NAME[.OVERLOAD] which kernel each dispatch key resolves to and\n"
         "                       where it was registered; fallbacks\n"
         "  plugins              the plugins loaded in this process\n";
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
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  size_t i = 0;
  try {
    // The backends a program would load on first use (the CPU plugin is in
    // this tool's runfiles), so that dumps show their kernels.
    c10::impl::autoload_backend_plugin(c10::DeviceType::CPU);
    for (; i < args.size() && args[i].rfind("--load=", 0) == 0; ++i) {
      torch::load_library(args[i].substr(std::strlen("--load=")));
    }
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
