#include "registration/record_function.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>

#include "c10/core/Allocator.h"

namespace c10 {
namespace detail {
// Constant-initialized, so that static registrations that dispatch before
// this file's initializers ran see a valid word. See Note [Dispatch hooks].
std::atomic<uint32_t> dispatch_hooks{0};
}  // namespace detail
}  // namespace c10

namespace at {

namespace sequence_number {
namespace {
thread_local uint64_t tls_sequence_nr = 0;
}  // namespace
uint64_t peek() { return tls_sequence_nr; }
uint64_t get_and_increment() { return tls_sequence_nr++; }
}  // namespace sequence_number

const char* toString(RecordScope scope) {
  switch (scope) {
    case RecordScope::FUNCTION:
      return "cpu_op";
    case RecordScope::BACKWARD_FUNCTION:
      return "backward";
    case RecordScope::USER_SCOPE:
      return "user_annotation";
    case RecordScope::BACKEND:
      return "backend";
    case RecordScope::MEMORY:
      return "cpu_instant_event";
  }
  return "unknown";
}

namespace {

int64_t now_ns() {
  static const auto epoch = std::chrono::steady_clock::now();
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now() - epoch)
      .count();
}

// One thread's events of one session. The owning thread appends; the thread
// that ends the session takes the events (both under `mutex`).
struct ThreadBuffer {
  std::mutex mutex;
  std::vector<ProfilerEvent> events;
  size_t dropped = 0;
  bool closed = false;
};

struct Session {
  RecordConfig config;
  std::vector<std::shared_ptr<ThreadBuffer>> buffers;  // under g_mutex
  std::atomic<bool> warned{false};
};

std::mutex g_mutex;
std::shared_ptr<Session> g_session;  // under g_mutex
// Bumped (under g_mutex) when a session starts or ends, so that a thread
// notices its cached buffer belongs to an older session with one load.
std::atomic<uint64_t> g_generation{0};
// Copies of the session's flags, read when a range opens.
std::atomic<bool> g_record_shapes{false};
std::atomic<bool> g_with_stack{false};

// Set when the thread's ThreadState is destroyed at thread exit: a range or a
// free after that (from another thread_local's destructor) is not recorded.
// Trivially destructible, so it outlives every destructor of the thread.
thread_local bool tls_state_destroyed = false;

struct ThreadState {
  ~ThreadState() { tls_state_destroyed = true; }
  uint64_t generation = ~uint64_t{0};
  std::shared_ptr<ThreadBuffer> buffer;
  std::shared_ptr<Session> session;
  // The names of the user ranges open on this thread (with_stack).
  std::vector<std::string> user_stack;
};
thread_local ThreadState tls_state;

void push_event(ProfilerEvent&& event) {
  if (tls_state_destroyed) return;
  ThreadState& state = tls_state;
  const uint64_t generation = g_generation.load(std::memory_order_acquire);
  if (state.generation != generation) {
    std::lock_guard<std::mutex> lock(g_mutex);
    state.generation = g_generation.load(std::memory_order_relaxed);
    state.buffer.reset();
    state.session = g_session;
    if (state.session) {
      state.buffer = std::make_shared<ThreadBuffer>();
      state.session->buffers.push_back(state.buffer);
    }
  }
  if (!state.buffer) return;  // the session ended while the range was open
  std::lock_guard<std::mutex> lock(state.buffer->mutex);
  if (state.buffer->closed) return;
  if (state.buffer->events.size() >= state.session->config.max_events_per_thread) {
    ++state.buffer->dropped;
    if (!state.session->warned.exchange(true, std::memory_order_relaxed)) {
      TORCH_WARN("profiler: thread ", RecordFunction::currentThreadId(),
                 " recorded more than max_events_per_thread = ",
                 state.session->config.max_events_per_thread,
                 " events; later events of this session are dropped (and counted). "
                 "Profile fewer steps, or raise ProfilerOptions::max_events_per_thread.");
    }
    return;
  }
  state.buffer->events.push_back(std::move(event));
}

// The memory reporter installed while a session records memory.
void report_memory(void* ptr, int64_t alloc_size, c10::Device device) {
  ProfilerEvent event;
  event.name = "[memory]";
  event.scope = RecordScope::MEMORY;
  event.thread_id = RecordFunction::currentThreadId();
  event.start_ns = event.end_ns = now_ns();
  event.address = reinterpret_cast<uintptr_t>(ptr);
  event.alloc_size = alloc_size;
  event.device_type = device.type();
  event.device_index = device.index();
  push_event(std::move(event));
}

}  // namespace

void enable_recording(const RecordConfig& config) {
  TORCH_CHECK(config.max_events_per_thread > 0,
              "profiler: max_events_per_thread must be at least 1, got 0.");
  std::lock_guard<std::mutex> lock(g_mutex);
  TORCH_CHECK(!g_session,
              "profiler: a profiler is already recording; one profiler can record at a "
              "time. Stop the other one (profile::stop() or the end of its scope) first.");
  g_session = std::make_shared<Session>();
  g_session->config = config;
  g_record_shapes.store(config.record_shapes, std::memory_order_relaxed);
  g_with_stack.store(config.with_stack, std::memory_order_relaxed);
  g_generation.fetch_add(1, std::memory_order_release);
  if (config.profile_memory) c10::SetMemoryReporter(&report_memory);
  c10::detail::dispatch_hooks.fetch_or(c10::detail::kProfilerHook, std::memory_order_relaxed);
}

std::vector<ProfilerEvent> disable_recording(size_t* dropped) {
  std::shared_ptr<Session> session;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    TORCH_CHECK(g_session, "profiler: no profiler is recording; start one first.");
    c10::detail::dispatch_hooks.fetch_and(~c10::detail::kProfilerHook,
                                          std::memory_order_relaxed);
    if (g_session->config.profile_memory) c10::SetMemoryReporter(nullptr);
    session = std::move(g_session);
    g_session.reset();
    g_generation.fetch_add(1, std::memory_order_release);
  }
  // No thread registers a buffer with `session` any more (that happens under
  // g_mutex, with g_session), so its list is stable.
  std::vector<ProfilerEvent> events;
  size_t total_dropped = 0;
  for (const auto& buffer : session->buffers) {
    std::lock_guard<std::mutex> lock(buffer->mutex);
    buffer->closed = true;
    total_dropped += buffer->dropped;
    for (auto& e : buffer->events) events.push_back(std::move(e));
    buffer->events.clear();
    buffer->events.shrink_to_fit();
  }
  if (dropped != nullptr) *dropped = total_dropped;
  return events;
}

uint64_t RecordFunction::currentThreadId() {
  static std::atomic<uint64_t> next_id{1};
  thread_local const uint64_t id = next_id.fetch_add(1, std::memory_order_relaxed);
  return id;
}

bool RecordFunction::needsInputs() const {
  return active_ && g_record_shapes.load(std::memory_order_relaxed);
}

void RecordFunction::recordInput(const at::TensorBase& t) {
  if (t.defined()) {
    event_.input_shapes.push_back(t.sizes().vec());
    event_.input_dtypes.emplace_back(c10::toString(t.scalar_type()));
  } else {
    recordNonTensorInput();
  }
}

void RecordFunction::recordInput(const c10::IValue& v) {
  if (v.isTensor()) {
    recordInput(v.toTensorBase());
  } else {
    recordNonTensorInput();
  }
}

void RecordFunction::recordNonTensorInput() {
  event_.input_shapes.emplace_back();
  event_.input_dtypes.emplace_back();
}

void RecordFunction::before(std::string name, c10::ArrayRef<c10::IValue> inputs,
                            int64_t sequence_nr) {
  if (!active_ || started_) return;
  event_.name = std::move(name);
  event_.sequence_nr = sequence_nr;
  if (needsInputs()) {
    for (const c10::IValue& v : inputs) recordInput(v);
  }
  start();
}

void RecordFunction::beforeOp(const std::string& name) {
  if (!active_ || started_) return;
  event_.name = name;
  is_op_ = true;
  op_sequence_nr_ = sequence_number::peek();
  start();
}

void RecordFunction::beforeBackward(std::string name, uint64_t sequence_nr,
                                    uint64_t fwd_thread_id) {
  if (!active_ || started_) return;
  event_.name = std::move(name);
  event_.sequence_nr = static_cast<int64_t>(sequence_nr);
  event_.fwd_thread_id = fwd_thread_id;
  start();
}

void RecordFunction::start() {
  event_.thread_id = currentThreadId();
  if (g_with_stack.load(std::memory_order_relaxed)) {
    std::vector<std::string>& stack = tls_state.user_stack;
    for (size_t i = 0; i < stack.size(); ++i) {
      if (i > 0) event_.stack += " > ";
      event_.stack += stack[i];
    }
    if (event_.scope == RecordScope::USER_SCOPE) {
      stack.push_back(event_.name);
      pushed_user_stack_ = true;
    }
  }
  started_ = true;
  // Last, so that the bookkeeping above is not part of the range.
  event_.start_ns = now_ns();
}

void RecordFunction::end() {
  event_.end_ns = now_ns();
  started_ = false;
  if (pushed_user_stack_) {
    std::vector<std::string>& stack = tls_state.user_stack;
    if (!stack.empty()) stack.pop_back();
  }
  // A forward op that made a Node took the number it peeked at.
  if (is_op_ && sequence_number::peek() != op_sequence_nr_) {
    event_.sequence_nr = static_cast<int64_t>(op_sequence_nr_);
  }
  push_event(std::move(event_));
}

}  // namespace at
