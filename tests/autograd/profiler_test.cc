// torch::profiler::profile and the recording under it: the Chrome trace,
// parsed back (every begin has its end, timestamps never go back on a track,
// each flow arrow joins a forward op to a backward Node that exist), the
// table's sums against the wall time of the profiled code, recording from
// several threads (run under TSan in CI), the event cap, user ranges with
// their stack, and the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <torch/autograd.h>
#include <torch/types.h>
#include <torch/utils.h>

#include "c10/core/CPUAllocator.h"
#include "tests/support/error_of.h"

namespace {

using ::testing::HasSubstr;
using ember_test::errorOf;

// ---- a small JSON reader: enough to check the trace's syntax and content ----
struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  double number = 0;
  std::string string;
  std::vector<Json> array;
  std::map<std::string, Json> object;

  const Json& at(const std::string& key) const {
    auto it = object.find(key);
    if (it == object.end()) throw std::runtime_error("missing key " + key);
    return it->second;
  }
  bool has(const std::string& key) const { return object.count(key) != 0; }
};

class JsonReader {
 public:
  explicit JsonReader(const std::string& text) : s_(text) {}
  Json parse() {
    Json v = value();
    skip();
    if (i_ != s_.size()) fail("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) {
    throw std::runtime_error("JSON: " + what + " at offset " + std::to_string(i_));
  }
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  void expect(char c) {
    skip();
    if (i_ >= s_.size() || s_[i_] != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  std::string str() {
    expect('"');
    std::string out;
    while (true) {
      if (i_ >= s_.size()) fail("unterminated string");
      const char c = s_[i_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size()) fail("bad escape");
      const char e = s_[i_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'u':
          if (i_ + 4 > s_.size()) fail("bad \\u escape");
          out += static_cast<char>(std::stoi(s_.substr(i_, 4), nullptr, 16));
          i_ += 4;
          break;
        default: fail("bad escape");
      }
    }
  }
  Json value() {
    skip();
    if (i_ >= s_.size()) fail("unexpected end");
    Json v;
    const char c = s_[i_];
    if (c == '{') {
      v.kind = Json::Object;
      ++i_;
      skip();
      if (s_[i_] == '}') { ++i_; return v; }
      while (true) {
        std::string key = str();
        expect(':');
        if (v.object.count(key)) fail("duplicate key " + key);
        v.object[key] = value();
        skip();
        if (s_[i_] == ',') { ++i_; continue; }
        expect('}');
        return v;
      }
    }
    if (c == '[') {
      v.kind = Json::Array;
      ++i_;
      skip();
      if (s_[i_] == ']') { ++i_; return v; }
      while (true) {
        v.array.push_back(value());
        skip();
        if (s_[i_] == ',') { ++i_; continue; }
        expect(']');
        return v;
      }
    }
    if (c == '"') {
      v.kind = Json::String;
      v.string = str();
      return v;
    }
    for (const char* word : {"true", "false", "null"}) {
      if (s_.compare(i_, std::string(word).size(), word) == 0) {
        i_ += std::string(word).size();
        v.kind = word[0] == 'n' ? Json::Null : Json::Bool;
        return v;
      }
    }
    size_t used = 0;
    try {
      v.number = std::stod(s_.substr(i_, 40), &used);
    } catch (const std::exception&) {
      fail("bad value");
    }
    v.kind = Json::Number;
    i_ += used;
    return v;
  }

  const std::string& s_;
  size_t i_ = 0;
};

// What the trace checks find; every check's failure names the event.
struct TraceSummary {
  std::multiset<std::string> names;  // of begin events
  size_t flows = 0;
  std::map<std::string, std::string> flow_targets;  // forward op -> backward Node
  std::vector<double> memory_bytes;  // of [memory] instant events, in order
  std::vector<double> counters;      // the "CPU memory" counter's values
};

// Checks the trace's structure and returns what it holds.
TraceSummary checkTrace(const std::string& text) {
  const Json root = JsonReader(text).parse();
  const Json& events = root.at("traceEvents");
  EXPECT_EQ(events.kind, Json::Array);
  struct Open {
    std::string name;
    double ts;
  };
  std::map<double, std::vector<Open>> open;      // per tid
  std::map<double, double> last_ts;              // per tid
  std::map<std::pair<double, double>, std::string> begins;  // (tid, ts) -> name
  std::map<double, std::pair<double, double>> flow_start;   // id -> (tid, ts)
  std::map<double, std::pair<double, double>> flow_end;
  TraceSummary summary;
  for (const Json& e : events.array) {
    const std::string ph = e.at("ph").string;
    if (ph == "M") continue;
    if (ph == "C") {  // a process counter: no thread
      summary.counters.push_back(e.at("args").at("Allocated").number);
      continue;
    }
    const double tid = e.at("tid").number;
    const double ts = e.at("ts").number;
    if (ph == "B" || ph == "E") {
      auto last = last_ts.find(tid);
      if (last != last_ts.end()) {
        EXPECT_LE(last->second, ts) << "timestamps go back on thread " << tid;
      }
      last_ts[tid] = ts;
    }
    if (ph == "B") {
      open[tid].push_back({e.at("name").string, ts});
      begins.emplace(std::make_pair(tid, ts), e.at("name").string);
      summary.names.insert(e.at("name").string);
    } else if (ph == "E") {
      EXPECT_FALSE(open[tid].empty()) << "an end without a begin on thread " << tid;
      if (!open[tid].empty()) {
        EXPECT_LE(open[tid].back().ts, ts);
        open[tid].pop_back();
      }
    } else if (ph == "s") {
      flow_start[e.at("id").number] = {tid, ts};
    } else if (ph == "i") {
      EXPECT_EQ(e.at("name").string, "[memory]");
      EXPECT_EQ(e.at("s").string, "t");
      summary.memory_bytes.push_back(e.at("args").at("Bytes").number);
    } else if (ph == "f") {
      EXPECT_EQ(e.at("bp").string, "e");
      flow_end[e.at("id").number] = {tid, ts};
    } else {
      ADD_FAILURE() << "unexpected phase " << ph;
    }
  }
  for (const auto& [tid, stack] : open) {
    EXPECT_TRUE(stack.empty()) << stack.size() << " begins without an end on thread "
                               << tid << ", the first " << stack.front().name;
  }
  EXPECT_EQ(flow_start.size(), flow_end.size());
  for (const auto& [id, where] : flow_start) {
    auto end = flow_end.find(id);
    EXPECT_NE(end, flow_end.end()) << "flow " << id << " has no end";
    if (end == flow_end.end()) continue;
    auto from = begins.find(where);
    auto to = begins.find(end->second);
    EXPECT_NE(from, begins.end()) << "flow " << id << " starts at no event";
    EXPECT_NE(to, begins.end()) << "flow " << id << " ends at no event";
    if (from != begins.end() && to != begins.end()) {
      summary.flow_targets[from->second] += to->second + ";";
      ++summary.flows;
    }
  }
  return summary;
}

at::Tensor randn(std::vector<int64_t> sizes, bool requires_grad = false) {
  return at::randn(sizes, at::TensorOptions().requires_grad(requires_grad));
}

TEST(Profiler, TraceOfForwardAndBackwardIsWellFormedAndLinked) {
  torch::manual_seed(0);
  at::Tensor w = randn({8, 4}, true);
  at::Tensor x = randn({3, 8});
  torch::profiler::ProfilerOptions options;
  options.record_shapes = true;
  torch::profiler::profile prof(options);
  at::Tensor y = at::mm(x, w);
  at::Tensor loss = (y * y).sum();
  loss.backward();
  prof.stop();
  const std::string trace = prof.chrome_trace();
  const TraceSummary s = checkTrace(trace);
  EXPECT_EQ(s.names.count("aten::mm"), 2u) << "forward and one in MmBackward";
  EXPECT_EQ(s.names.count("autograd::engine::evaluate_function: MmBackward0"), 1u);
  EXPECT_EQ(s.names.count("autograd::engine::evaluate_function: MulBackward0"), 1u);
  EXPECT_EQ(s.names.count("autograd::engine::evaluate_function: SumBackward0"), 1u);
  // Each of the three Nodes (and AccumulateGrad has no forward op) links to
  // the op that made it.
  EXPECT_EQ(s.flows, 3u);
  ASSERT_TRUE(s.flow_targets.count("aten::mm"));
  EXPECT_EQ(s.flow_targets.at("aten::mm"),
            "autograd::engine::evaluate_function: MmBackward0;");
  EXPECT_EQ(s.flow_targets.at("aten::mul"),
            "autograd::engine::evaluate_function: MulBackward0;");
  // Shapes of the forward mm, as recorded.
  EXPECT_THAT(trace, HasSubstr("\"Input Dims\": [[3, 8], [8, 4]]"));
  EXPECT_THAT(trace, HasSubstr("\"Input type\": [\"Float\", \"Float\"]"));
  // The file holds the same text.
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/trace.json";
  prof.export_chrome_trace(path);
  std::ifstream in(path);
  std::stringstream read;
  read << in.rdbuf();
  EXPECT_EQ(read.str(), trace);
}

// Within 5% of the wall time. Under the sanitizers the profiler's own
// bookkeeping between ranges (a lock, moving an event) is instrumented and
// takes up to ~15% of this small workload's time on a loaded machine.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr double kMinCoverage = 0.80;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr double kMinCoverage = 0.80;
#else
constexpr double kMinCoverage = 0.95;
#endif
#else
constexpr double kMinCoverage = 0.95;
#endif

// One profiled loop of mm and add: the table's self times and the loop's wall
// time, in ns (and the table, for the checks below).
struct Coverage {
  double total_ns = 0;
  double wall_ns = 0;
  torch::profiler::KeyAverages avg;
};

Coverage profile_mm_add_loop(const at::Tensor& a, const at::Tensor& b, int steps) {
  // The results are kept until the clock stops: freeing them would be time
  // outside any op (and slow under the sanitizers).
  std::vector<at::Tensor> results;
  results.reserve(2 * steps);
  torch::profiler::profile prof;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < steps; ++i) {
    results.push_back(at::mm(a, b));
    results.push_back(at::add(results.back(), a));
  }
  const auto wall = std::chrono::steady_clock::now() - start;
  prof.stop();
  Coverage c;
  c.avg = prof.key_averages();
  c.wall_ns = std::chrono::duration<double, std::nano>(wall).count();
  c.total_ns = static_cast<double>(c.avg.self_cpu_time_total_ns());
  return c;
}

TEST(Profiler, TableSumsMatchTheWallTimeOfTheProfiledCode) {
  at::Tensor a = randn({96, 96});
  at::Tensor b = randn({96, 96});
  constexpr int kSteps = 20;
  // The thread can be preempted between two ops: that is wall time outside
  // any op, and on a loaded machine (CI runs two sanitized tests per core)
  // one such gap can be as long as the loop. So the best of up to five tries
  // must reach the bound; a profiler that loses time loses it in every try.
  Coverage c;
  double best = 0;
  for (int attempt = 0; attempt < 5 && best < kMinCoverage; ++attempt) {
    c = profile_mm_add_loop(a, b, kSteps);
    EXPECT_LE(c.total_ns, c.wall_ns);
    best = std::max(best, c.total_ns / c.wall_ns);
  }
  EXPECT_GE(best, kMinCoverage) << "self times cover at best " << best
                                << " of the wall time in five tries";
  const torch::profiler::KeyAverages& avg = c.avg;
  int64_t mm_calls = 0, add_calls = 0;
  for (const auto& row : avg.rows) {
    EXPECT_LE(row.self_cpu_time_total_ns, row.cpu_time_total_ns) << row.key;
    if (row.key == "aten::mm") mm_calls = row.count;
    if (row.key == "aten::add") add_calls = row.count;
  }
  EXPECT_EQ(mm_calls, kSteps);
  EXPECT_EQ(add_calls, kSteps);

  const std::string table = avg.table("self_cpu_time_total", 5);
  EXPECT_THAT(table, HasSubstr("Self CPU %"));
  EXPECT_THAT(table, HasSubstr("# of Calls"));
  EXPECT_THAT(table, HasSubstr("Self CPU time total: "));
  // Rows come sorted by the column, descending.
  const std::string by_count = avg.table("count", -1);
  EXPECT_THAT(by_count, HasSubstr("aten::mm"));
  EXPECT_THAT(errorOf([&] { avg.table("cuda_time"); }),
              HasSubstr("sort_by = \"cuda_time\" is not a column to sort by; use one of"));
}

TEST(Profiler, TableRowsAreSortedAndGroupedByShape) {
  at::Tensor a = randn({4, 4});
  at::Tensor b = randn({2, 3});
  torch::profiler::ProfilerOptions options;
  options.record_shapes = true;
  torch::profiler::profile prof(options);
  for (int i = 0; i < 3; ++i) (void)at::relu(a);
  (void)at::relu(b);
  prof.stop();
  const auto grouped = prof.key_averages(/*group_by_input_shape=*/true);
  int64_t relu44 = 0, relu23 = 0;
  for (const auto& row : grouped.rows) {
    if (row.key == "aten::relu" && row.input_shapes == "[[4, 4]]") relu44 = row.count;
    if (row.key == "aten::relu" && row.input_shapes == "[[2, 3]]") relu23 = row.count;
  }
  EXPECT_EQ(relu44, 3);
  EXPECT_EQ(relu23, 1);
  const std::string table = grouped.table("count");
  EXPECT_THAT(table, HasSubstr("Input Shapes"));
  EXPECT_LT(table.find("[[4, 4]]"), table.find("[[2, 3]]")) << table;
}

TEST(Profiler, RecordsEveryThreadSafely) {
  constexpr int kThreads = 4;
  constexpr int kOps = 50;
  at::Tensor t = randn({16});
  torch::profiler::ProfilerOptions options;
  options.record_shapes = true;
  options.with_stack = true;
  options.profile_memory = true;
  torch::profiler::profile prof(options);
  std::vector<std::thread> threads;
  for (int k = 0; k < kThreads; ++k) {
    threads.emplace_back([&t] {
      RECORD_USER_SCOPE("worker");
      for (int i = 0; i < kOps; ++i) (void)at::neg(t);
    });
  }
  for (auto& th : threads) th.join();
  prof.stop();
  std::map<uint64_t, int> negs_per_thread;
  for (const auto& e : prof.events()) {
    if (e.name == "aten::neg") {
      ++negs_per_thread[e.thread_id];
      EXPECT_EQ(e.stack, "worker");
    }
  }
  EXPECT_EQ(negs_per_thread.size(), static_cast<size_t>(kThreads));
  for (const auto& [tid, n] : negs_per_thread) EXPECT_EQ(n, kOps) << "thread " << tid;
  // Every neg's result was allocated and freed on its thread.
  std::map<uint64_t, int> allocations_per_thread;
  for (const auto& m : prof.memory_events()) {
    if (m.alloc_size == 64) ++allocations_per_thread[m.thread_id];
  }
  EXPECT_EQ(allocations_per_thread.size(), static_cast<size_t>(kThreads));
  for (const auto& [tid, n] : allocations_per_thread) EXPECT_EQ(n, kOps) << "thread " << tid;
  const TraceSummary s = checkTrace(prof.chrome_trace());
  EXPECT_EQ(s.memory_bytes.size(), prof.memory_events().size());
}

// profile_memory: each allocation and free belongs to the innermost range
// open on its thread and to the ranges around it (Note [Memory of a
// range]); the trace shows each as an instant event and counts the bytes
// allocated from the allocator's figure at the start.
TEST(Profiler, MemoryIsAttributedToTheRangesThatAllocatedAndFreedIt) {
  torch::profiler::ProfilerOptions options;
  options.profile_memory = true;
  at::Tensor kept;
  const int64_t before = c10::cpu_allocator_stats().bytes_in_use;
  torch::profiler::profile prof(options);
  {
    RECORD_USER_SCOPE("outer");
    kept = at::zeros({1000});           // 4000 bytes, kept
    at::Tensor temp = at::ones({500});  // 2000 bytes, freed by "outer" itself
  }
  prof.stop();
  std::vector<int64_t> sizes;
  for (const auto& m : prof.memory_events()) sizes.push_back(m.alloc_size);
  EXPECT_EQ(sizes, (std::vector<int64_t>{4000, 2000, -2000}));
  EXPECT_EQ(prof.memory_events()[0].address, reinterpret_cast<uintptr_t>(kept.data_ptr()));
  EXPECT_EQ(prof.memory_events()[0].device_type, c10::DeviceType::CPU);

  const torch::profiler::KeyAverages avg = prof.key_averages();
  std::map<std::string, torch::profiler::FunctionEventAvg> rows;
  for (const auto& r : avg.rows) rows[r.key] = r;
  ASSERT_TRUE(rows.count("outer") && rows.count("aten::zeros") && rows.count("aten::ones") &&
              rows.count("[memory]"));
  EXPECT_EQ(rows["outer"].cpu_memory_usage, 4000);
  EXPECT_EQ(rows["outer"].self_cpu_memory_usage, -2000);
  EXPECT_EQ(rows["aten::zeros"].cpu_memory_usage, 4000);
  EXPECT_EQ(rows["aten::ones"].cpu_memory_usage, 2000);
  EXPECT_EQ(rows["[memory]"].count, 3);
  EXPECT_EQ(rows["[memory]"].cpu_memory_usage, 4000);
  const std::string table = avg.table("cpu_memory_usage");
  EXPECT_THAT(table, HasSubstr("CPU Mem"));
  EXPECT_THAT(table, HasSubstr("Self CPU Mem"));
  EXPECT_THAT(table, HasSubstr("3.91 Kb"));
  EXPECT_THAT(table, HasSubstr("-1.95 Kb"));
  // Sorted by memory: "outer", "aten::zeros" and "[memory]" (4000) come
  // before "aten::ones" (2000).
  EXPECT_LT(table.find("outer"), table.find("aten::ones"));

  const TraceSummary s = checkTrace(prof.chrome_trace());
  EXPECT_EQ(s.memory_bytes, (std::vector<double>{4000, 2000, -2000}));
  EXPECT_EQ(s.counters, (std::vector<double>{static_cast<double>(before + 4000),
                                             static_cast<double>(before + 6000),
                                             static_cast<double>(before + 4000)}));
}

TEST(Profiler, WithoutProfileMemoryNothingIsRecordedAndTheTableHasNoMemoryColumns) {
  torch::profiler::profile prof;
  at::Tensor t = at::zeros({1000});
  prof.stop();
  EXPECT_TRUE(prof.memory_events().empty());
  const std::string table = prof.key_averages().table();
  EXPECT_THAT(table, testing::Not(HasSubstr("CPU Mem")));
  EXPECT_THAT(errorOf([&] { (void)prof.key_averages().table("cpu_mem"); }),
              HasSubstr("\"cpu_memory_usage\", \"self_cpu_memory_usage\""));
}

struct CountingHandler : c10::WarningHandler {
  std::vector<std::string> messages;
  void process(const c10::Warning& w) override { messages.push_back(w.msg()); }
};

TEST(Profiler, CapDropsAndCountsLaterEventsAndWarnsOnce) {
  at::Tensor t = randn({4});
  CountingHandler handler;
  c10::WarningUtils::WarningHandlerGuard guard(&handler);
  torch::profiler::ProfilerOptions options;
  options.max_events_per_thread = 10;
  torch::profiler::profile prof(options);
  for (int i = 0; i < 50; ++i) (void)at::neg(t);
  prof.stop();
  EXPECT_EQ(prof.events().size(), 10u);
  EXPECT_EQ(prof.dropped_events(), 40u);
  ASSERT_EQ(handler.messages.size(), 1u);
  EXPECT_THAT(handler.messages[0],
              HasSubstr("recorded more than max_events_per_thread = 10 events"));
}

TEST(Profiler, UserRangesNestWithTheirStack) {
  at::Tensor t = randn({4});
  torch::profiler::ProfilerOptions options;
  options.with_stack = true;
  options.record_shapes = true;
  torch::profiler::profile prof(options);
  {
    RECORD_USER_SCOPE("outer");
    RECORD_FUNCTION("inner", std::vector<c10::IValue>({c10::IValue(t), c10::IValue(2.0)}));
    (void)at::neg(t);
  }
  prof.stop();
  std::map<std::string, const at::ProfilerEvent*> by_name;
  for (const auto& e : prof.events()) by_name[e.name] = &e;
  ASSERT_EQ(by_name.size(), 3u);
  EXPECT_EQ(by_name.at("outer")->stack, "");
  EXPECT_EQ(by_name.at("inner")->stack, "outer");
  EXPECT_EQ(by_name.at("aten::neg")->stack, "outer > inner");
  EXPECT_EQ(by_name.at("inner")->input_shapes,
            (std::vector<std::vector<int64_t>>{{4}, {}}));
  EXPECT_EQ(by_name.at("inner")->scope, at::RecordScope::USER_SCOPE);
  // Self time of the outer range excludes the inner one.
  const auto avg = prof.key_averages();
  for (const auto& row : avg.rows) {
    if (row.key == "outer") {
      EXPECT_LT(row.self_cpu_time_total_ns, row.cpu_time_total_ns);
    }
  }
}

TEST(Profiler, OneAtATimeAndNothingRecordedWhenOff) {
  at::Tensor t = randn({4});
  (void)at::neg(t);  // before any profiler: not recorded anywhere
  torch::profiler::profile prof;
  EXPECT_TRUE(at::profiler_enabled());
  EXPECT_THAT(errorOf([] { torch::profiler::profile second; }),
              HasSubstr("a profiler is already recording; one profiler can record at a "
                        "time"));
  prof.stop();
  EXPECT_FALSE(at::profiler_enabled());
  (void)at::neg(t);  // after: not recorded either
  EXPECT_TRUE(prof.events().empty());
  EXPECT_THAT(errorOf([] { at::disable_recording(); }),
              HasSubstr("no profiler is recording"));
  EXPECT_THAT(errorOf([&] { prof.export_chrome_trace("/nonexistent-dir/t.json"); }),
              HasSubstr("/nonexistent-dir/t.json"));
}

TEST(GraphDot, DrawsNodesNamedLeavesAndGradientShapes) {
  at::Tensor w = randn({8, 4}, true);
  at::Tensor b = randn({4}, true);
  at::Tensor x = randn({3, 8});
  at::Tensor loss = (at::mm(x, w) + b).relu().sum();
  const std::string dot = torch::autograd::graph_dot(loss, {{"fc.weight", w}});
  EXPECT_EQ(dot.rfind("digraph autograd {", 0), 0u) << dot;
  EXPECT_EQ(dot.substr(dot.size() - 2), "}\n");
  for (const char* node : {"SumBackward0", "ReluBackward0", "AddBackward0", "MmBackward0"}) {
    EXPECT_THAT(dot, HasSubstr(std::string("[label=\"") + node + "\"")) << node;
  }
  // Leaves: the named one by name, the other as "leaf", each with its shape.
  EXPECT_THAT(dot, HasSubstr("[label=\"fc.weight\\n[8, 4]\", fillcolor=lightblue]"));
  EXPECT_THAT(dot, HasSubstr("[label=\"leaf\\n[4]\", fillcolor=lightblue]"));
  EXPECT_THAT(dot, HasSubstr("[label=\"output\\n[]\""));
  // Arrows carry the gradient's shape: [3, 4] out of the mm, [8, 4] into w.
  EXPECT_THAT(dot, HasSubstr("[label=\"[3, 4]\"]"));
  EXPECT_THAT(dot, HasSubstr("[label=\"[8, 4]\"]"));
  // Every arrow joins declared nodes: as many node lines as distinct ids.
  size_t arrows = 0;
  for (size_t at = dot.find(" -> "); at != std::string::npos; at = dot.find(" -> ", at + 1)) {
    ++arrows;
  }
  // output<-Sum<-Relu<-Add<-{Mm, b}, Mm<-w, and the dotted lines of the
  // saved tensors: Mm's self and mat2, Relu's result.
  EXPECT_EQ(arrows, 9u) << dot;
  EXPECT_THAT(dot, HasSubstr("[label=\"self\\n[3, 8]\", fillcolor=orange]"));
  EXPECT_THAT(dot, HasSubstr("[label=\"mat2\\n[8, 4]\", fillcolor=orange]"));
  EXPECT_THAT(dot, HasSubstr("[label=\"result\\n[3, 4]\", fillcolor=orange]"));
  EXPECT_THAT(dot, HasSubstr(" [style=dotted, arrowhead=none];"));
  // After a backward pass without retain_graph the saved tensors are gone.
  loss.backward();
  const std::string after = torch::autograd::graph_dot(loss);
  EXPECT_THAT(after, HasSubstr("[label=\"self\\n(freed by backward)\", fillcolor=orange]"));
  EXPECT_THAT(after, testing::Not(HasSubstr("[3, 8]\", fillcolor=orange")));
  // A non-float saved tensor shows its dtype.
  at::Tensor table = randn({5, 2}, true);
  at::Tensor picked = at::index_select(table, 0, at::tensor({0, 3}, at::kLong)).sum();
  EXPECT_THAT(torch::autograd::graph_dot(picked), HasSubstr("index\\n[2] Long\""));
  EXPECT_THAT(errorOf([&] { torch::autograd::graph_dot(w); }),
              HasSubstr("graph_dot: the tensor has no autograd graph"));
}

}  // namespace
