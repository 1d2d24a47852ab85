// registration/record_function.h — the recording half of the profiler: timed
// ranges around dispatched ops, autograd Nodes and user code, collected per
// thread while a profiler is on (torch::profiler::profile in
// autograd/profiler.h reads them and makes tables and traces).
//
//   void my_loss(const at::Tensor& a, const at::Tensor& b) {
//     RECORD_FUNCTION("my_loss", std::vector<c10::IValue>({a, b}));
//     ...                        // the ops called here nest under "my_loss"
//   }
//   {
//     RECORD_USER_SCOPE("data loading");  // a named range without inputs
//     ...
//   }
//
// With no profiler on, a range costs one relaxed atomic load; the dispatcher
// pays the same load per call, shared with the dispatch trace (See Note
// [Dispatch hooks]). Use these ranges for code that runs for microseconds or
// more: a recorded range costs about as much as a small op.
//
// Thread safety: ranges may open and close on any thread at any time,
// including while a profiler starts or stops; each thread appends to its own
// buffer (bounded, See Note [Profiler event cap]).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "registration/IValue.h"

namespace c10 {
namespace detail {

// Note [Dispatch hooks]
// ~~~~~~~~~~~~~~~~~~~~~
// Dispatcher::call and callBoxed test one word per call: non-zero sends the
// call through a slow path that prints the dispatch trace
// (EMBER_DISPATCH_TRACE) and/or records a profiler range. Relaxed ordering
// is enough: the word only chooses whether to record; a thread that sees a
// change late records one call more or less, and the recorded data itself
// travels under the buffers' mutexes. Redispatches are not recorded (as in
// PyTorch: a call records once, at its first dispatch).
constexpr uint32_t kDispatchTraceHook = 1;
constexpr uint32_t kProfilerHook = 2;
extern std::atomic<uint32_t> dispatch_hooks;

}  // namespace detail
}  // namespace c10

namespace at {

// at::sequence_number
//
// The thread's counter that numbers autograd Nodes in creation order (the
// engine runs the most recent first). It lives here, below autograd, so that
// the profiler can tag a forward op with the number of the Node it made.
namespace sequence_number {
uint64_t peek();
uint64_t get_and_increment();
}  // namespace sequence_number

// at::RecordScope — what a range stands for.
enum class RecordScope : uint8_t {
  FUNCTION,           // an op called through the dispatcher
  BACKWARD_FUNCTION,  // an autograd Node run by the engine
  USER_SCOPE,         // RECORD_FUNCTION / RECORD_USER_SCOPE
  BACKEND,            // a backend's own work (RECORD_BACKEND_SCOPE), e.g. a
                      // oneDNN primitive's creation
  MEMORY,             // an allocation or free ("[memory]"; profile_memory)
};
const char* toString(RecordScope scope);

// at::ProfilerEvent — one closed range, as the profiler hands it out.
struct ProfilerEvent {
  std::string name;
  RecordScope scope = RecordScope::FUNCTION;
  // RecordFunction::currentThreadId() of the thread that ran the range.
  uint64_t thread_id = 0;
  // Nanoseconds on the steady clock (since the first range of the process).
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  // Note [Forward and backward sequence numbers]
  // ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
  // A forward op that made an autograd Node carries that Node's
  // sequence_nr (the first one, if it made several); a backward range
  // carries its Node's sequence_nr and fwd_thread_id, the thread the Node
  // was made on. The pair (thread, sequence_nr) links a backward Node to its
  // forward op; where several nested forward ranges share it (a composite op
  // and the op inside that made the Node), the innermost is the op.
  // -1 where there is no Node.
  int64_t sequence_nr = -1;
  uint64_t fwd_thread_id = 0;
  // With record_shapes: per input, its sizes and dtype ("" and [] for
  // arguments that are not tensors).
  std::vector<std::vector<int64_t>> input_shapes;
  std::vector<std::string> input_dtypes;
  // With with_stack: the user ranges open around this one on its thread,
  // outermost first, joined by " > ".
  std::string stack;
  // MEMORY events (start_ns == end_ns): the block's address, its size
  // (negative for a free) and its device.
  uint64_t address = 0;
  int64_t alloc_size = 0;
  c10::DeviceType device_type = c10::DeviceType::CPU;
  int device_index = -1;

  int64_t duration_ns() const { return end_ns - start_ns; }
};

// What a recording session collects (set by torch::profiler::profile).
struct RecordConfig {
  bool record_shapes = false;
  bool with_stack = false;
  // Record every allocation and free (c10::reportMemoryUsageToProfiler) as
  // a MEMORY event.
  bool profile_memory = false;
  // Note [Profiler event cap]
  // ~~~~~~~~~~~~~~~~~~~~~~~~~
  // Each thread keeps at most this many events per session; later ones are
  // dropped and counted, and the first drop of a session warns once
  // (TORCH_WARN). 1M events are about 100 MB without shapes.
  size_t max_events_per_thread = size_t{1} << 20;
};

// Whether a profiler is recording (one relaxed load).
inline bool profiler_enabled() {
  return (c10::detail::dispatch_hooks.load(std::memory_order_relaxed) &
          c10::detail::kProfilerHook) != 0;
}

// Starts a session; throws if one is on already (one profiler at a time).
void enable_recording(const RecordConfig& config);
// Ends the session and returns its events, every thread's, in no particular
// order. Ranges still open then are not included. `dropped` receives the
// number of events the cap dropped. Throws if no session is on.
std::vector<ProfilerEvent> disable_recording(size_t* dropped = nullptr);

// at::RecordFunction
//
// One range: opened by before(), closed by the destructor. Inactive (and
// free apart from the construction's one load) when no profiler is on.
class RecordFunction {
 public:
  explicit RecordFunction(RecordScope scope = RecordScope::FUNCTION)
      : active_(profiler_enabled()) {
    event_.scope = scope;
  }
  RecordFunction(const RecordFunction&) = delete;
  RecordFunction& operator=(const RecordFunction&) = delete;
  ~RecordFunction() {
    if (C10_UNLIKELY(started_)) end();
  }

  bool isActive() const { return active_; }
  // Whether the session wants input shapes (call before before()).
  bool needsInputs() const;

  // Opens the range. `inputs` are recorded with record_shapes.
  void before(std::string name, c10::ArrayRef<c10::IValue> inputs = {},
              int64_t sequence_nr = -1);
  // A dispatched op: also tags the range with the sequence number of the
  // first Node the op makes (See Note [Forward and backward sequence
  // numbers]). Record the inputs with recordInput first.
  void beforeOp(const std::string& name);
  // A Node run by the engine.
  void beforeBackward(std::string name, uint64_t sequence_nr, uint64_t fwd_thread_id);

  void recordInput(const at::TensorBase& t);
  void recordInput(const c10::IValue& v);
  void recordNonTensorInput();

  // A small number unique to the calling thread (1 for the first thread
  // that asks, then 2, …): the profiler's thread id.
  static uint64_t currentThreadId();

 private:
  void start();
  void end();

  ProfilerEvent event_;
  uint64_t op_sequence_nr_ = 0;
  bool active_ = false;
  bool started_ = false;
  bool is_op_ = false;
  bool pushed_user_stack_ = false;
};

}  // namespace at

#define EMBER_RF_CONCAT_(a, b) a##b
#define EMBER_RF_CONCAT(a, b) EMBER_RF_CONCAT_(a, b)

// RECORD_FUNCTION(name, inputs) — a user range from here to the end of the
// scope; `inputs` (anything that converts to c10::ArrayRef<c10::IValue>) are
// recorded with record_shapes. `name` is evaluated only when a profiler is on.
#define RECORD_FUNCTION(name, inputs)                                      \
  ::at::RecordFunction EMBER_RF_CONCAT(ember_record_function_, __LINE__)(   \
      ::at::RecordScope::USER_SCOPE);                                      \
  if (C10_UNLIKELY(EMBER_RF_CONCAT(ember_record_function_, __LINE__).isActive())) \
  EMBER_RF_CONCAT(ember_record_function_, __LINE__).before(name, inputs)

// RECORD_BACKEND_SCOPE(name) — a range of a backend's own work (category
// "backend" in the trace), e.g. creating a oneDNN primitive.
#define RECORD_BACKEND_SCOPE(name)                                         \
  ::at::RecordFunction EMBER_RF_CONCAT(ember_record_function_, __LINE__)(   \
      ::at::RecordScope::BACKEND);                                         \
  if (C10_UNLIKELY(EMBER_RF_CONCAT(ember_record_function_, __LINE__).isActive())) \
  EMBER_RF_CONCAT(ember_record_function_, __LINE__).before(name)

// RECORD_USER_SCOPE(name) — the same without inputs.
#define RECORD_USER_SCOPE(name)                                            \
  ::at::RecordFunction EMBER_RF_CONCAT(ember_record_function_, __LINE__)(   \
      ::at::RecordScope::USER_SCOPE);                                      \
  if (C10_UNLIKELY(EMBER_RF_CONCAT(ember_record_function_, __LINE__).isActive())) \
  EMBER_RF_CONCAT(ember_record_function_, __LINE__).before(name)
