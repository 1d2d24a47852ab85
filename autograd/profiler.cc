#include "autograd/profiler.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <tuple>
#include <utility>

#include "c10/core/CPUAllocator.h"
#include "c10/util/Exception.h"
#include "c10/util/FileIO.h"

namespace torch {
namespace profiler {

namespace {

std::string shapes_string(const at::ProfilerEvent& e) {
  std::string out = "[";
  for (size_t i = 0; i < e.input_shapes.size(); ++i) {
    if (i > 0) out += ", ";
    out += "[";
    for (size_t j = 0; j < e.input_shapes[i].size(); ++j) {
      if (j > 0) out += ", ";
      out += std::to_string(e.input_shapes[i][j]);
    }
    out += "]";
  }
  return out + "]";
}

// As PyTorch's tables print times: microseconds below 1 ms, then ms, then s.
std::string format_time(int64_t ns) {
  char buf[32];
  const double us = static_cast<double>(ns) / 1e3;
  if (us >= 1e6) {
    std::snprintf(buf, sizeof(buf), "%.3fs", us / 1e6);
  } else if (us >= 1e3) {
    std::snprintf(buf, sizeof(buf), "%.3fms", us / 1e3);
  } else {
    std::snprintf(buf, sizeof(buf), "%.3fus", us);
  }
  return buf;
}

// As PyTorch's tables print memory: b, Kb, Mb, Gb with two decimals.
std::string format_memory(int64_t bytes) {
  char buf[32];
  const double b = static_cast<double>(bytes);
  const double a = b < 0 ? -b : b;
  if (a >= 1024.0 * 1024 * 1024) {
    std::snprintf(buf, sizeof(buf), "%.2f Gb", b / (1024.0 * 1024 * 1024));
  } else if (a >= 1024.0 * 1024) {
    std::snprintf(buf, sizeof(buf), "%.2f Mb", b / (1024.0 * 1024));
  } else if (a >= 1024.0) {
    std::snprintf(buf, sizeof(buf), "%.2f Kb", b / 1024.0);
  } else {
    std::snprintf(buf, sizeof(buf), "%lld b", static_cast<long long>(bytes));
  }
  return buf;
}

std::string format_percent(int64_t part, int64_t whole) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f%%",
                whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole)
                          : 0.0);
  return buf;
}

void append_json_string(std::string& out, const std::string& s) {
  out += '"';
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

// Microseconds with nanosecond digits, as the trace format wants.
std::string format_us(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%lld.%03lld", static_cast<long long>(ns / 1000),
                static_cast<long long>(ns % 1000));
  return buf;
}

}  // namespace

profile::profile(ProfilerOptions options) : options_(options) {
  at::RecordConfig config;
  config.record_shapes = options_.record_shapes;
  config.with_stack = options_.with_stack;
  config.profile_memory = options_.profile_memory;
  config.max_events_per_thread = options_.max_events_per_thread;
  // Read before the recording starts: an allocation by another thread in
  // between is counted in neither (the counter is then off by that much).
  if (options_.profile_memory) memory_baseline_ = c10::cpu_allocator_stats().bytes_in_use;
  at::enable_recording(config);
  recording_ = true;
}

profile::~profile() {
  if (recording_) {
    try {
      stop();
    } catch (...) {
      // stop() only throws when no session is on; nothing is left to do.
    }
  }
}

void profile::stop() {
  if (!recording_) return;
  recording_ = false;
  events_ = at::disable_recording(&dropped_);
  auto is_memory = [](const at::ProfilerEvent& e) {
    return e.scope == at::RecordScope::MEMORY;
  };
  for (at::ProfilerEvent& e : events_) {
    if (is_memory(e)) memory_events_.push_back(std::move(e));
  }
  events_.erase(std::remove_if(events_.begin(), events_.end(), is_memory), events_.end());
  std::stable_sort(memory_events_.begin(), memory_events_.end(),
                   [](const at::ProfilerEvent& a, const at::ProfilerEvent& b) {
                     return a.start_ns < b.start_ns;
                   });
  // Note [Nesting of ranges]
  // ~~~~~~~~~~~~~~~~~~~~~~~~
  // Ranges of one thread are RAII scopes, so they nest: sorted by start
  // (ties: the longer first), each range's parent is the innermost open range
  // that contains it. Self time, the table's sums and the trace's begin/end
  // pairs all follow from that.
  std::sort(events_.begin(), events_.end(),
            [](const at::ProfilerEvent& a, const at::ProfilerEvent& b) {
              return std::make_tuple(a.thread_id, a.start_ns, -a.end_ns) <
                     std::make_tuple(b.thread_id, b.start_ns, -b.end_ns);
            });
  parent_.assign(events_.size(), -1);
  std::vector<int64_t> open;
  for (size_t i = 0; i < events_.size(); ++i) {
    const at::ProfilerEvent& e = events_[i];
    if (i > 0 && events_[i - 1].thread_id != e.thread_id) open.clear();
    while (!open.empty()) {
      const at::ProfilerEvent& top = events_[static_cast<size_t>(open.back())];
      if (e.start_ns >= top.end_ns || e.end_ns > top.end_ns) {
        open.pop_back();
      } else {
        break;
      }
    }
    parent_[i] = open.empty() ? -1 : open.back();
    open.push_back(static_cast<int64_t>(i));
  }
  attribute_memory();
}

void profile::attribute_memory() {
  // Note [Memory of a range]
  // ~~~~~~~~~~~~~~~~~~~~~~~~
  // An allocation or free belongs to the innermost range open on its thread
  // at its time (its "self" memory) and to every range around that one. The
  // ranges of a thread are contiguous in events_ and sorted by start, so the
  // innermost is found from the last range that started at or before the
  // event, walking up to the first parent still open then.
  memory_.assign(events_.size(), 0);
  self_memory_.assign(events_.size(), 0);
  for (const at::ProfilerEvent& m : memory_events_) {
    auto after = std::upper_bound(
        events_.begin(), events_.end(), std::make_pair(m.thread_id, m.start_ns),
        [](const std::pair<uint64_t, int64_t>& key, const at::ProfilerEvent& e) {
          return key < std::make_pair(e.thread_id, e.start_ns);
        });
    if (after == events_.begin()) continue;
    int64_t i = static_cast<int64_t>(after - events_.begin()) - 1;
    if (events_[static_cast<size_t>(i)].thread_id != m.thread_id) continue;
    while (i >= 0 && events_[static_cast<size_t>(i)].end_ns < m.start_ns) i = parent_[static_cast<size_t>(i)];
    if (i < 0) continue;
    self_memory_[static_cast<size_t>(i)] += m.alloc_size;
    for (; i >= 0; i = parent_[static_cast<size_t>(i)]) memory_[static_cast<size_t>(i)] += m.alloc_size;
  }
}

const std::vector<at::ProfilerEvent>& profile::events() {
  stop();
  return events_;
}

const std::vector<at::ProfilerEvent>& profile::memory_events() {
  stop();
  return memory_events_;
}

size_t profile::dropped_events() {
  stop();
  return dropped_;
}

KeyAverages profile::key_averages(bool group_by_input_shape) {
  stop();
  std::vector<int64_t> self(events_.size());
  for (size_t i = 0; i < events_.size(); ++i) self[i] = events_[i].duration_ns();
  for (size_t i = 0; i < events_.size(); ++i) {
    if (parent_[i] >= 0) self[static_cast<size_t>(parent_[i])] -= events_[i].duration_ns();
  }
  KeyAverages out;
  out.grouped_by_input_shape_ = group_by_input_shape;
  std::map<std::pair<std::string, std::string>, size_t> row_of;
  for (size_t i = 0; i < events_.size(); ++i) {
    const at::ProfilerEvent& e = events_[i];
    std::string shapes = group_by_input_shape ? shapes_string(e) : std::string();
    auto key = std::make_pair(e.name, shapes);
    auto it = row_of.find(key);
    if (it == row_of.end()) {
      it = row_of.emplace(key, out.rows.size()).first;
      FunctionEventAvg row;
      row.key = e.name;
      row.input_shapes = std::move(shapes);
      out.rows.push_back(std::move(row));
    }
    FunctionEventAvg& row = out.rows[it->second];
    ++row.count;
    row.self_cpu_time_total_ns += self[i];
    row.cpu_time_total_ns += e.duration_ns();
    row.self_cpu_memory_usage += self_memory_[i];
    row.cpu_memory_usage += memory_[i];
  }
  out.with_memory_ = options_.profile_memory;
  if (options_.profile_memory && !memory_events_.empty()) {
    FunctionEventAvg row;
    row.key = "[memory]";
    for (const at::ProfilerEvent& m : memory_events_) {
      ++row.count;
      row.self_cpu_memory_usage += m.alloc_size;
      row.cpu_memory_usage += m.alloc_size;
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

int64_t KeyAverages::self_cpu_time_total_ns() const {
  int64_t total = 0;
  for (const FunctionEventAvg& r : rows) total += r.self_cpu_time_total_ns;
  return total;
}

std::string KeyAverages::table(const std::string& sort_by, int64_t row_limit) const {
  using Metric = int64_t (*)(const FunctionEventAvg&);
  Metric metric = nullptr;
  if (sort_by == "cpu_time_total") {
    metric = [](const FunctionEventAvg& r) { return r.cpu_time_total_ns; };
  } else if (sort_by == "self_cpu_time_total") {
    metric = [](const FunctionEventAvg& r) { return r.self_cpu_time_total_ns; };
  } else if (sort_by == "cpu_time") {
    metric = [](const FunctionEventAvg& r) { return r.cpu_time_total_ns / r.count; };
  } else if (sort_by == "count") {
    metric = [](const FunctionEventAvg& r) { return r.count; };
  } else if (sort_by == "cpu_memory_usage") {
    metric = [](const FunctionEventAvg& r) { return r.cpu_memory_usage; };
  } else if (sort_by == "self_cpu_memory_usage") {
    metric = [](const FunctionEventAvg& r) { return r.self_cpu_memory_usage; };
  }
  TORCH_CHECK(metric != nullptr, "KeyAverages::table: sort_by = \"", sort_by,
              "\" is not a column to sort by; use one of \"cpu_time_total\", "
              "\"self_cpu_time_total\", \"cpu_time\", \"count\", \"cpu_memory_usage\", "
              "\"self_cpu_memory_usage\".");
  std::vector<const FunctionEventAvg*> sorted;
  for (const FunctionEventAvg& r : rows) sorted.push_back(&r);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [metric](const FunctionEventAvg* a, const FunctionEventAvg* b) {
                     return metric(*a) > metric(*b);
                   });
  if (row_limit >= 0 && sorted.size() > static_cast<size_t>(row_limit)) {
    sorted.resize(static_cast<size_t>(row_limit));
  }
  const int64_t total = self_cpu_time_total_ns();

  constexpr size_t kMaxName = 55;
  size_t name_width = 4;
  size_t shapes_width = 12;
  for (const FunctionEventAvg* r : sorted) {
    name_width = std::max(name_width, std::min(r->key.size(), kMaxName));
    shapes_width = std::max(shapes_width, std::min(r->input_shapes.size(), kMaxName));
  }
  std::vector<std::string> headers = {"Self CPU %", "Self CPU",     "CPU total %",
                                      "CPU total",  "CPU time avg"};
  if (with_memory_) {
    headers.emplace_back("CPU Mem");
    headers.emplace_back("Self CPU Mem");
  }
  headers.emplace_back("# of Calls");
  constexpr size_t kColumn = 12;
  std::ostringstream out;
  auto rule = [&] {
    out << std::string(name_width, '-');
    for (size_t i = 0; i < headers.size(); ++i) out << "  " << std::string(kColumn, '-');
    if (grouped_by_input_shape_) out << "  " << std::string(shapes_width, '-');
    out << "\n";
  };
  auto cell = [&](const std::string& s, size_t width) {
    out << "  " << std::string(width > s.size() ? width - s.size() : 0, ' ') << s;
  };
  auto name_cell = [&](std::string s, size_t width) {
    if (s.size() > width) s = s.substr(0, width - 3) + "...";
    out << s << std::string(width - s.size(), ' ');
  };
  rule();
  name_cell("Name", name_width);
  for (const std::string& h : headers) cell(h, kColumn);
  if (grouped_by_input_shape_) {
    out << "  ";
    name_cell("Input Shapes", shapes_width);
  }
  out << "\n";
  rule();
  for (const FunctionEventAvg* r : sorted) {
    name_cell(r->key, name_width);
    cell(format_percent(r->self_cpu_time_total_ns, total), kColumn);
    cell(format_time(r->self_cpu_time_total_ns), kColumn);
    cell(format_percent(r->cpu_time_total_ns, total), kColumn);
    cell(format_time(r->cpu_time_total_ns), kColumn);
    cell(format_time(r->cpu_time_total_ns / r->count), kColumn);
    if (with_memory_) {
      cell(format_memory(r->cpu_memory_usage), kColumn);
      cell(format_memory(r->self_cpu_memory_usage), kColumn);
    }
    cell(std::to_string(r->count), kColumn);
    if (grouped_by_input_shape_) {
      out << "  ";
      name_cell(r->input_shapes, shapes_width);
    }
    out << "\n";
  }
  rule();
  out << "Self CPU time total: " << format_time(total) << "\n";
  return out.str();
}

std::string profile::chrome_trace() {
  stop();
  const long long pid = static_cast<long long>(::getpid());
  int64_t origin = 0;
  if (!events_.empty() || !memory_events_.empty()) {
    origin = events_.empty() ? memory_events_.front().start_ns : events_.front().start_ns;
    for (const at::ProfilerEvent& e : events_) origin = std::min(origin, e.start_ns);
    for (const at::ProfilerEvent& e : memory_events_) origin = std::min(origin, e.start_ns);
  }
  std::string out = "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
  bool first = true;
  auto begin_record = [&](const char* ph, uint64_t tid, int64_t ns) {
    out += first ? "" : ",\n";
    first = false;
    out += "{\"ph\": \"";
    out += ph;
    out += "\", \"pid\": " + std::to_string(pid) + ", \"tid\": " + std::to_string(tid) +
           ", \"ts\": " + format_us(ns - origin);
  };

  // One track per thread, named and in order of first appearance.
  out += "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": " + std::to_string(pid) +
         ", \"args\": {\"name\": \"ember\"}}";
  first = false;
  for (size_t i = 0; i < events_.size(); ++i) {
    if (i > 0 && events_[i - 1].thread_id == events_[i].thread_id) continue;
    const std::string tid = std::to_string(events_[i].thread_id);
    out += ",\n{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": " + std::to_string(pid) +
           ", \"tid\": " + tid + ", \"args\": {\"name\": \"thread " + tid + "\"}}";
    out += ",\n{\"ph\": \"M\", \"name\": \"thread_sort_index\", \"pid\": " +
           std::to_string(pid) + ", \"tid\": " + tid + ", \"args\": {\"sort_index\": " +
           tid + "}}";
  }

  // See Note [Nesting of ranges]: a begin per range in sorted order, and the
  // ends of the open ranges that do not contain the next one before it.
  auto end_record = [&](size_t i) {
    begin_record("E", events_[i].thread_id, events_[i].end_ns);
    out += "}";
  };
  std::vector<size_t> open;
  for (size_t i = 0; i < events_.size(); ++i) {
    const at::ProfilerEvent& e = events_[i];
    const int64_t parent = parent_[i];
    while (!open.empty() && static_cast<int64_t>(open.back()) != parent) {
      end_record(open.back());
      open.pop_back();
    }
    begin_record("B", e.thread_id, e.start_ns);
    out += ", \"cat\": \"";
    out += at::toString(e.scope);
    out += "\", \"name\": ";
    append_json_string(out, e.name);
    out += ", \"args\": {";
    std::string args;
    if (e.sequence_nr >= 0) {
      args += "\"Sequence number\": " + std::to_string(e.sequence_nr);
      if (e.scope == at::RecordScope::BACKWARD_FUNCTION) {
        args += ", \"Fwd thread id\": " + std::to_string(e.fwd_thread_id);
      }
    }
    if (!e.input_shapes.empty()) {
      if (!args.empty()) args += ", ";
      args += "\"Input Dims\": " + shapes_string(e) + ", \"Input type\": [";
      for (size_t k = 0; k < e.input_dtypes.size(); ++k) {
        if (k > 0) args += ", ";
        append_json_string(args, e.input_dtypes[k]);
      }
      args += "]";
    }
    if (!e.stack.empty()) {
      if (!args.empty()) args += ", ";
      args += "\"Call stack\": ";
      append_json_string(args, e.stack);
    }
    out += args + "}}";
    open.push_back(i);
  }
  while (!open.empty()) {
    end_record(open.back());
    open.pop_back();
  }

  // Flow arrows forward op -> backward Node (See Note [Forward and backward
  // sequence numbers]): the innermost forward range of (thread, number),
  // i.e. the one that started last.
  std::map<std::pair<uint64_t, int64_t>, size_t> forward_of;
  for (size_t i = 0; i < events_.size(); ++i) {
    const at::ProfilerEvent& e = events_[i];
    if (e.scope != at::RecordScope::FUNCTION || e.sequence_nr < 0) continue;
    auto key = std::make_pair(e.thread_id, e.sequence_nr);
    auto it = forward_of.find(key);
    if (it == forward_of.end() || events_[it->second].start_ns <= e.start_ns) {
      forward_of[key] = i;
    }
  }
  int64_t flow_id = 0;
  for (const at::ProfilerEvent& e : events_) {
    if (e.scope != at::RecordScope::BACKWARD_FUNCTION || e.sequence_nr < 0) continue;
    auto it = forward_of.find(std::make_pair(e.fwd_thread_id, e.sequence_nr));
    if (it == forward_of.end()) continue;
    const at::ProfilerEvent& fwd = events_[it->second];
    const std::string id = std::to_string(++flow_id);
    begin_record("s", fwd.thread_id, fwd.start_ns);
    out += ", \"id\": " + id + ", \"cat\": \"fwdbwd\", \"name\": \"fwdbwd\"}";
    begin_record("f", e.thread_id, e.start_ns);
    out += ", \"id\": " + id + ", \"cat\": \"fwdbwd\", \"name\": \"fwdbwd\", \"bp\": \"e\"}";
  }
  // Memory (See Note [Memory of a range]): an instant event per allocation
  // and free on its thread's track, and a process counter of the bytes
  // allocated (the recording's baseline plus every change since, in time
  // order).
  int64_t allocated = memory_baseline_;
  for (const at::ProfilerEvent& m : memory_events_) {
    allocated += m.alloc_size;
    begin_record("i", m.thread_id, m.start_ns);
    out += ", \"s\": \"t\", \"cat\": \"";
    out += at::toString(m.scope);
    out += "\", \"name\": \"[memory]\", \"args\": {\"Addr\": " + std::to_string(m.address) +
           ", \"Bytes\": " + std::to_string(m.alloc_size) +
           ", \"Total Allocated\": " + std::to_string(allocated) +
           ", \"Device Type\": " + std::to_string(static_cast<int>(m.device_type)) +
           ", \"Device Id\": " + std::to_string(m.device_index) + "}}";
    out += ",\n{\"ph\": \"C\", \"pid\": " + std::to_string(pid) + ", \"ts\": " +
           format_us(m.start_ns - origin) +
           ", \"name\": \"CPU memory\", \"args\": {\"Allocated\": " +
           std::to_string(allocated) + "}}";
  }
  out += "\n]}\n";
  return out;
}

void profile::export_chrome_trace(const std::string& path) {
  const std::string json = chrome_trace();
  c10::AtomicFileWriter writer("profile::export_chrome_trace", path);
  writer.write(json.data(), json.size());
  writer.commit();
}

}  // namespace profiler
}  // namespace torch
