// The engine on a device with a runtime (the fake PrivateUse1 runtime,
// "fakedev"): device threads make their device current, Nodes record the
// stream of their forward op and run on it, gradients crossing streams are
// ordered by events (InputBuffer::add), and a reentrant pool thread that
// runs a device thread's task takes over its device and stream. See Note
// [Streams of a backward pass] in autograd/engine.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include <torch/autograd.h>
#include <torch/library.h>
#include <torch/types.h>

#include "autograd/input_buffer.h"
#include "c10/core/CPUAllocator.h"
#include "c10/core/StreamGuard.h"
#include "c10/core/impl/DeviceGuardImplInterface.h"
#include "tests/c10/fake_device_runtime.h"

namespace {

using ember_test::FakeDeviceRuntime;
using torch::autograd::Edge;
using torch::autograd::edge_list;
using torch::autograd::Engine;
using torch::autograd::InputBuffer;
using torch::autograd::Node;
using torch::autograd::variable_list;
using Wait = std::pair<c10::Stream, c10::Stream>;

// Leaked on purpose: the engine's device threads outlive the tests.
FakeDeviceRuntime& runtime() {
  static FakeDeviceRuntime* r = new FakeDeviceRuntime();
  return *r;
}
c10::impl::DeviceGuardImplRegistration& registration() {
  static auto* handle = new c10::impl::DeviceGuardImplRegistration();
  return *handle;
}
void register_runtime() {
  if (!registration().active()) {
    registration() = c10::impl::registerDeviceGuardImpl(c10::kPrivateUse1, &runtime(),
                                                         "engine_device_test");
  }
}

c10::Device fakedev(c10::DeviceIndex index) { return c10::Device(c10::kPrivateUse1, index); }
c10::Stream stream(c10::DeviceIndex index, c10::StreamId id) {
  return c10::Stream(c10::Stream::UNSAFE, fakedev(index), id);
}

// A one-element float tensor on fakedev:`index` (host memory, as no kernel
// ever reads it: the Nodes below only pass gradients on).
at::Tensor fake_tensor(c10::DeviceIndex index) {
  c10::Storage storage(c10::make_intrusive<c10::StorageImpl>(
      c10::StorageImpl::use_byte_size_t(), 4, c10::GetCPUAllocator(), true));
  storage.unsafeGetStorageImpl()->mutable_data_ptr().unsafe_set_device(fakedev(index));
  return at::Tensor(c10::make_intrusive<c10::TensorImpl>(
      std::move(storage), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1), at::kFloat));
}

// fakedev's add: records the stream it was called on (the sum of two
// gradients in an InputBuffer) and returns a fresh fakedev tensor.
std::optional<c10::Stream> last_add_stream;
at::Tensor fake_add(const at::Tensor& self, const at::Tensor& /*other*/,
                    const at::Scalar& /*alpha*/) {
  last_add_stream =
      c10::impl::getDeviceGuardImpl(c10::kPrivateUse1)->getStream(self.device());
  return fake_tensor(self.device().index());
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) { m.impl("add.Tensor", &fake_add); }

// What a Node saw on its thread while it ran.
struct Seen {
  std::optional<c10::Device> device;
  std::optional<c10::Stream> stream;  // current on `device`
  std::thread::id thread;
};

Seen look() {
  const auto* impl = c10::impl::getDeviceGuardImpl(c10::kPrivateUse1);
  const c10::Device device = impl->getDevice();
  return Seen{device, impl->getStream(device), std::this_thread::get_id()};
}

// A Node of a fakedev op: its input is on fakedev:`in` (which records the
// stream current there when it is made); it records what it saw and sends
// a fakedev:`out` gradient along each next edge.
struct Probe : Node {
  Probe(c10::DeviceIndex in, c10::DeviceIndex out, edge_list next = {})
      : Node(std::move(next)), out_(out) {
    add_input_metadata(fake_tensor(in));
  }
  std::string name() const override { return "Probe"; }
  variable_list apply(variable_list&& /*inputs*/) override {
    seen = look();
    return variable_list(num_outputs(), fake_tensor(out_));
  }
  c10::DeviceIndex out_;
  Seen seen;
};

// Runs a backward pass from `node`'s input 0 with a fakedev:`index`
// gradient, on the calling thread.
void backward_from(const std::shared_ptr<Node>& node, c10::DeviceIndex index) {
  Engine::get_default_engine().execute({Edge(node, 0)}, {fake_tensor(index)},
                                       /*keep_graph=*/false, /*create_graph=*/false,
                                       /*accumulate_grad=*/true);
}

// Runs `fn` on another thread; a deadlock (no return within 30 s) fails
// the test and ends the process, since the blocked engine threads cannot be
// released.
void returns_in_time(const std::function<void()>& fn) {
  std::packaged_task<void()> task(fn);
  std::future<void> done = task.get_future();
  std::thread runner(std::move(task));
  if (done.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    std::fprintf(stderr, "the backward pass deadlocked: a device's queue was left "
                         "without a thread draining it\n");
    std::fflush(stderr);
    std::_Exit(1);
  }
  runner.join();
  done.get();
}

// The waits logged since `before` waits had been.
std::vector<Wait> waits_since(size_t before) {
  std::vector<Wait> all = runtime().waits();
  return std::vector<Wait>(all.begin() + static_cast<std::ptrdiff_t>(before), all.end());
}

class EngineDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    register_runtime();
    FakeDeviceRuntime::reset_thread_state();
  }
  void TearDown() override { register_runtime(); }

  // Makes a Node while no runtime is registered for fakedev, so that it
  // records no stream: what it sees is then the thread's own device and
  // stream, not those of its stream guard.
  template <typename T, typename... Args>
  static std::shared_ptr<T> make_without_stream(Args&&... args) {
    registration().reset();
    auto node = torch::autograd::make_node<T>(std::forward<Args>(args)...);
    register_runtime();
    EXPECT_FALSE(node->stream().has_value());
    return node;
  }
};

// ---- Node::stream ---------------------------------------------------------------------------

TEST_F(EngineDevice, NodeRecordsTheCurrentStreamOfItsInputsDevice) {
  c10::StreamGuard guard(stream(1, 2));
  auto node = torch::autograd::make_node<Probe>(1, 1);
  ASSERT_TRUE(node->stream().has_value());
  EXPECT_EQ(*node->stream(), stream(1, 2));
}

TEST_F(EngineDevice, CpuNodeRecordsNoStream) {
  c10::StreamGuard guard(stream(0, 1));
  auto y = at::ones({2}).requires_grad_() * 2;
  ASSERT_NE(y.grad_fn(), nullptr);
  EXPECT_FALSE(y.grad_fn()->stream().has_value());
}

TEST_F(EngineDevice, NodeOfADeviceWithoutRuntimeRecordsNoStream) {
  auto node = make_without_stream<Probe>(1, 1);  // asserts it
  EXPECT_EQ(node->num_inputs(), 1u);
}

// ---- device threads -------------------------------------------------------------------------

TEST_F(EngineDevice, DeviceThreadMakesItsDeviceCurrent) {
  for (c10::DeviceIndex index : {1, 0}) {
    auto node = make_without_stream<Probe>(index, index);
    backward_from(node, index);
    ASSERT_TRUE(node->seen.device.has_value());
    EXPECT_EQ(*node->seen.device, fakedev(index));
    EXPECT_NE(node->seen.thread, std::this_thread::get_id());  // a device thread ran it
    EXPECT_EQ(*node->seen.stream, stream(index, 0));           // the default stream
  }
}

TEST_F(EngineDevice, NodeRunsUnderTheStreamOfItsForwardOp) {
  std::shared_ptr<Probe> first;
  std::shared_ptr<Probe> second;
  {
    c10::StreamGuard guard(stream(1, 3));
    second = torch::autograd::make_node<Probe>(1, 1);
  }
  {
    c10::StreamGuard guard(stream(1, 2));
    first = torch::autograd::make_node<Probe>(1, 1, edge_list{Edge(second, 0)});
  }
  backward_from(first, 1);
  EXPECT_EQ(*first->seen.stream, stream(1, 2));
  EXPECT_EQ(*first->seen.device, fakedev(1));
  EXPECT_EQ(*second->seen.stream, stream(1, 3));
  // The device thread's own stream is back to the default between Nodes.
  auto after = make_without_stream<Probe>(1, 1);
  backward_from(after, 1);
  EXPECT_EQ(*after->seen.stream, stream(1, 0));
}

// ---- events between streams -----------------------------------------------------------------

TEST_F(EngineDevice, ConsumerStreamWaitsForADifferentProducerStream) {
  std::shared_ptr<Probe> first;
  std::shared_ptr<Probe> second;
  {
    c10::StreamGuard guard(stream(1, 3));
    second = torch::autograd::make_node<Probe>(1, 1);
  }
  {
    c10::StreamGuard guard(stream(1, 2));
    first = torch::autograd::make_node<Probe>(1, 1, edge_list{Edge(second, 0)});
  }
  const size_t waits_before = runtime().waits().size();
  const int events_before = runtime().events_created();
  backward_from(first, 1);  // from this thread's default stream on fakedev:1
  EXPECT_THAT(waits_since(waits_before),
              ::testing::ElementsAre(Wait(stream(1, 2), stream(1, 0)),    // root -> first
                                     Wait(stream(1, 3), stream(1, 2))));  // first -> second
  EXPECT_EQ(runtime().events_created() - events_before, 2);
  EXPECT_EQ(runtime().events_destroyed(), runtime().events_created());
}

TEST_F(EngineDevice, SameStreamNeedsNoEvent) {
  c10::StreamGuard guard(stream(1, 2));  // forward and backward() on one stream
  auto second = torch::autograd::make_node<Probe>(1, 1);
  auto first = torch::autograd::make_node<Probe>(1, 1, edge_list{Edge(second, 0)});
  const size_t waits_before = runtime().waits().size();
  const int events_before = runtime().events_created();
  backward_from(first, 1);
  EXPECT_THAT(waits_since(waits_before), ::testing::IsEmpty());
  EXPECT_EQ(runtime().events_created(), events_before);
  EXPECT_EQ(*second->seen.stream, stream(1, 2));
}

TEST_F(EngineDevice, GradientFromAnotherDeviceWaitsOnTheConsumerDevicesDefaultStream) {
  std::shared_ptr<Probe> first;
  std::shared_ptr<Probe> second;
  {
    c10::StreamGuard guard(stream(0, 1));
    second = torch::autograd::make_node<Probe>(0, 0);
  }
  {
    c10::StreamGuard guard(stream(1, 2));
    // Runs on fakedev:1 and hands a fakedev:0 gradient to `second`.
    first = torch::autograd::make_node<Probe>(1, 0, edge_list{Edge(second, 0)});
  }
  c10::StreamGuard caller(stream(1, 2));
  const size_t waits_before = runtime().waits().size();
  backward_from(first, 1);
  EXPECT_THAT(waits_since(waits_before),
              ::testing::ElementsAre(Wait(stream(0, 1), stream(0, 0))));
  EXPECT_EQ(*second->seen.device, fakedev(0));
  EXPECT_EQ(*second->seen.stream, stream(0, 1));
  EXPECT_NE(second->seen.thread, first->seen.thread);  // each device has its thread
}

// ---- InputBuffer::add's rules, without the engine ---------------------------------------------

TEST_F(EngineDevice, InputBufferOrdersTheAccumulationStreamAfterTheProducer) {
  struct Case {
    std::optional<c10::Stream> producer;
    std::optional<c10::Stream> consumer;
    std::vector<Wait> waits;
  };
  const std::vector<Case> cases = {
      // both on var's device: the consumer's stream waits for the producer's
      {stream(1, 1), stream(1, 3), {Wait(stream(1, 3), stream(1, 1))}},
      // one stream: nothing to wait for
      {stream(1, 2), stream(1, 2), {}},
      // consumer only: its stream waits for the device's default stream
      {stream(0, 1), stream(1, 3), {Wait(stream(1, 3), stream(1, 0))}},
      // producer only: the default stream waits for the producer's
      {stream(1, 1), stream(0, 3), {Wait(stream(1, 0), stream(1, 1))}},
      {stream(1, 1), std::nullopt, {Wait(stream(1, 0), stream(1, 1))}},
      // neither: the default stream of var's device, no wait
      {std::nullopt, std::nullopt, {}},
      {stream(0, 1), stream(0, 2), {}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    InputBuffer buffer(1);
    const size_t waits_before = runtime().waits().size();
    buffer.add(0, fake_tensor(1), cases[i].producer, cases[i].consumer);
    EXPECT_THAT(waits_since(waits_before), ::testing::ElementsAreArray(cases[i].waits));
    EXPECT_EQ(buffer.device(), fakedev(1));
  }
}

TEST_F(EngineDevice, InputBufferSumsOnTheConsumerStreamAfterBothProducers) {
  InputBuffer buffer(1);
  const size_t waits_before = runtime().waits().size();
  last_add_stream.reset();
  buffer.add(0, fake_tensor(1), stream(1, 1), stream(1, 3));
  EXPECT_FALSE(last_add_stream.has_value());  // the first gradient is kept, not summed
  buffer.add(0, fake_tensor(1), stream(1, 2), stream(1, 3));
  ASSERT_TRUE(last_add_stream.has_value());
  EXPECT_EQ(*last_add_stream, stream(1, 3));
  EXPECT_THAT(waits_since(waits_before),
              ::testing::ElementsAre(Wait(stream(1, 3), stream(1, 1)),
                                     Wait(stream(1, 3), stream(1, 2))));
  // The guard of the sum is gone: this thread's stream is the default again.
  EXPECT_EQ(runtime().getStream(fakedev(1)), stream(1, 0));
}

TEST_F(EngineDevice, InputBufferWithCpuGradientsUsesNoEvents) {
  InputBuffer buffer(1);
  const size_t waits_before = runtime().waits().size();
  const int events_before = runtime().events_created();
  buffer.add(0, at::ones({2}), stream(1, 1), stream(1, 3));
  buffer.add(0, at::ones({2}), stream(1, 1), stream(1, 3));
  EXPECT_EQ(runtime().waits().size(), waits_before);
  EXPECT_EQ(runtime().events_created(), events_before);
  const at::Tensor sum = InputBuffer::variables(std::move(buffer))[0];
  EXPECT_EQ(sum[0].item<float>(), 2.0f);
}

// ---- the reentrant pool on a device thread ----------------------------------------------------

// Level k of a reentrant chain on fakedev:1: records what it saw, then runs
// the backward of level k + 1 from inside its own.
struct ReentrantLevel : Node {
  ReentrantLevel(std::vector<Seen>* seen, size_t level)
      : seen_(seen), level_(level) {
    add_input_metadata(fake_tensor(1));
  }
  std::string name() const override { return "ReentrantLevel"; }
  variable_list apply(variable_list&& /*inputs*/) override {
    (*seen_)[level_] = look();
    if (next_ != nullptr) backward_from(next_, 1);
    return {};
  }
  std::vector<Seen>* seen_;
  size_t level_;
  std::shared_ptr<Node> next_;
};

TEST_F(EngineDevice, ReentrantCallsNestOnTheDeviceThread) {
  // Within the depth limit, each nested task drains the device's own
  // queue on the device thread; each leaves a wake-up behind there.
  constexpr size_t kLevels = 5;
  std::vector<Seen> seen(kLevels);
  std::vector<std::shared_ptr<ReentrantLevel>> chain(kLevels);
  for (size_t k = 0; k < kLevels; ++k) {
    chain[k] = make_without_stream<ReentrantLevel>(&seen, k);
    if (k > 0) chain[k - 1]->next_ = chain[k];
  }
  std::thread::id caller;
  returns_in_time([&] {
    caller = std::this_thread::get_id();
    backward_from(chain[0], 1);
    backward_from(chain[kLevels - 1], 1);  // the queue still works after them
  });
  for (size_t k = 0; k < kLevels; ++k) {
    SCOPED_TRACE(k);
    EXPECT_EQ(seen[k].thread, seen[0].thread);
    EXPECT_EQ(*seen[k].device, fakedev(1));
  }
  EXPECT_NE(seen[0].thread, caller);  // the device thread, not the caller
  for (auto& level : chain) level->next_ = nullptr;
}

TEST_F(EngineDevice, ReentrantPoolThreadTakesOverTheDeviceAndStream) {
  // Past kMaxReentrantDepth nested calls on the device thread, the rest of
  // the chain runs on a pool thread, which drains fakedev:1's queue.
  const size_t levels = static_cast<size_t>(Engine::kMaxReentrantDepth) + 10;
  std::vector<Seen> seen(levels);
  std::vector<std::shared_ptr<ReentrantLevel>> chain(levels);
  {
    // Only level 0 has a stream; the rest see their thread's own stream,
    // which on the device thread is level 0's, and on the pool thread must
    // be too.
    c10::StreamGuard guard(stream(1, 2));
    chain[0] = torch::autograd::make_node<ReentrantLevel>(&seen, 0);
  }
  for (size_t k = 1; k < levels; ++k) {
    chain[k] = make_without_stream<ReentrantLevel>(&seen, k);
    chain[k - 1]->next_ = chain[k];
  }
  std::thread::id caller;
  returns_in_time([&] {
    caller = std::this_thread::get_id();
    backward_from(chain[0], 1);
  });

  const std::thread::id device_thread = seen[0].thread;
  EXPECT_NE(device_thread, caller);
  for (size_t k = 0; k < levels; ++k) {
    SCOPED_TRACE(k);
    ASSERT_TRUE(seen[k].device.has_value());
    EXPECT_EQ(*seen[k].device, fakedev(1));
    EXPECT_EQ(*seen[k].stream, stream(1, 2));
    if (k <= static_cast<size_t>(Engine::kMaxReentrantDepth)) {
      EXPECT_EQ(seen[k].thread, device_thread);
    } else {
      EXPECT_NE(seen[k].thread, device_thread);  // a pool thread
    }
  }
  // The pool thread let go of the device's queue: the device thread still
  // serves fakedev:1.
  auto after = make_without_stream<Probe>(1, 1);
  backward_from(after, 1);
  EXPECT_EQ(after->seen.thread, device_thread);
  for (auto& level : chain) level->next_ = nullptr;
}

}  // namespace
