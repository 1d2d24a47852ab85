// Every aten:: operator can run on the CPU: its schema resolves, for the CPU
// key, to a kernel of the CPU plugin, a CompositeExplicitAutograd kernel or
// a CompositeImplicitAutograd (catch-all) one, unless kNotOnCpu lists it with
// the reason. And no aten:: operator has kernels without a schema (an impl()
// whose def() is missing or misspelled). The plugin is loaded first, as a
// program's first CPU call would.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include <torch/library.h>

namespace {

// aten:: operators that intentionally have no kernel for the CPU key, by
// "name.overload", each with why. Empty: every aten:: schema runs on the CPU.
const std::map<std::string, std::string>& kNotOnCpu() {
  static const std::map<std::string, std::string> ops = {};
  return ops;
}

// The sources a CPU slot may resolve to (OperatorEntry::resolve).
bool runsOnCpu(const std::string& source) {
  return source == "kernel" || source == "CompositeExplicitAutograd kernel" ||
         source == "CompositeImplicitAutograd (catch-all) kernel";
}

struct Coverage {
  int aten_ops = 0;
  std::vector<std::string> no_schema;  // "aten::x.y"
  std::vector<std::string> no_cpu;     // "aten::x.y: resolves to <source>"
  std::vector<std::string> excepted_but_runs;
  std::vector<std::string> excepted_unknown;  // kNotOnCpu names with no schema
};

Coverage survey() {
  c10::impl::autoload_backend_plugin(c10::DeviceType::CPU);
  c10::Dispatcher& d = c10::Dispatcher::singleton();
  Coverage c;
  for (const c10::OperatorName& name : d.getAllOpNames()) {
    if (name.getNamespace() != std::string_view("aten")) continue;
    ++c.aten_ops;
    const auto op = d.findOp(name);
    if (!op || !op->hasSchema()) {
      c.no_schema.push_back(name.str());
      continue;
    }
    const c10::impl::ResolvedKernel r = op->entry().resolve(d, c10::DispatchKey::CPU);
    const bool runs = r.kernel != nullptr && !r.kernel->kernel.isFallthrough() &&
                      runsOnCpu(r.source);
    // "aten::add.Tensor" -> "add.Tensor", the key of kNotOnCpu.
    const std::string short_name = name.str().substr(std::string("aten::").size());
    const bool excepted = kNotOnCpu().count(short_name) > 0;
    if (!runs && !excepted) c.no_cpu.push_back(name.str() + ": resolves to " + r.source);
    if (runs && excepted) c.excepted_but_runs.push_back(name.str());
  }
  for (const auto& [short_name, reason] : kNotOnCpu()) {
    if (!d.findSchema(c10::parseName("aten::" + short_name))) {
      c.excepted_unknown.push_back(short_name);
    }
  }
  return c;
}

std::string lines(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += "  " + s + "\n";
  return out;
}

TEST(SchemaCoverage, EveryAtenSchemaRunsOnTheCpu) {
  const Coverage c = survey();
  // The registry holds the generated schemas, not a handful of test ops.
  EXPECT_GT(c.aten_ops, 500);
  EXPECT_TRUE(c.no_cpu.empty())
      << c.no_cpu.size() << " aten:: operators have no CPU kernel and no composite; give "
      << "each a kernel in backends/cpu, a composite, or an entry in kNotOnCpu with the "
      << "reason:\n"
      << lines(c.no_cpu);
  EXPECT_TRUE(c.excepted_but_runs.empty())
      << "kNotOnCpu lists operators that do run on the CPU; remove them:\n"
      << lines(c.excepted_but_runs);
  EXPECT_TRUE(c.excepted_unknown.empty())
      << "kNotOnCpu lists operators that have no aten:: schema; remove or rename them:\n"
      << lines(c.excepted_unknown);
}

TEST(SchemaCoverage, NoAtenKernelsWithoutASchema) {
  const Coverage c = survey();
  EXPECT_TRUE(c.no_schema.empty())
      << c.no_schema.size() << " aten:: operators have kernels but no schema; def() them in "
      << "aten/native_functions/*.txt or fix the impl() name:\n"
      << lines(c.no_schema);
}

}  // namespace
