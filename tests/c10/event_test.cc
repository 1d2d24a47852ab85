// c10::Event over a fake runtime registered for the test, and over the CPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <utility>

#include "c10/core/Event.h"
#include "tests/c10/fake_device_runtime.h"
#include "tests/support/error_of.h"

namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using ember_test::errorOf;
using ember_test::FakeDeviceRuntime;

c10::Stream stream(int device, c10::StreamId id) {
  return c10::Stream(c10::Stream::UNSAFE, c10::Device(c10::kPrivateUse1, device),
                     id);
}

class Events : public ::testing::Test {
 protected:
  void SetUp() override { FakeDeviceRuntime::reset_thread_state(); }

  FakeDeviceRuntime runtime_;
  c10::impl::DeviceGuardImplRegistration registration_ =
      c10::impl::registerDeviceGuardImpl(c10::kPrivateUse1, &runtime_,
                                         "tests/c10/event_test.cc");
};

TEST_F(Events, TheNativeEventIsCreatedAtTheFirstRecord) {
  c10::Event event(c10::kPrivateUse1);
  EXPECT_EQ(event.eventId(), nullptr);
  EXPECT_FALSE(event.was_marked_for_recording());
  EXPECT_EQ(event.device_index(), -1);
  EXPECT_TRUE(event.query());  // never recorded: complete
  event.synchronize();
  event.block(stream(0, 1));   // never recorded: nothing to wait for
  EXPECT_TRUE(runtime_.waits().empty());
  EXPECT_EQ(runtime_.events_created(), 0);

  event.record(stream(1, 2));
  EXPECT_NE(event.eventId(), nullptr);
  EXPECT_TRUE(event.was_marked_for_recording());
  EXPECT_EQ(event.device(), c10::Device(c10::kPrivateUse1, 1));
  event.record(stream(1, 3));  // re-recording reuses the native event
  EXPECT_EQ(runtime_.events_created(), 1);
}

TEST_F(Events, QueryFollowsTheRecordedWork) {
  const c10::Stream s = stream(0, 1);
  runtime_.enqueue(s, 2);
  c10::Event event(c10::kPrivateUse1);
  event.record(s);
  runtime_.enqueue(s, 5);  // after the record: the event does not wait for it
  EXPECT_FALSE(event.query());
  runtime_.complete(s);
  EXPECT_TRUE(event.query());
}

TEST_F(Events, SynchronizeWaitsForTheRecordedWork) {
  const c10::Stream s = stream(1, 1);
  runtime_.enqueue(s, 4);
  c10::Event event(c10::kPrivateUse1);
  event.record(s);
  runtime_.enqueue(s, 1);
  event.synchronize();
  EXPECT_TRUE(event.query());
  EXPECT_EQ(runtime_.pending(s), 1);  // only up to the record
}

TEST_F(Events, BlockMakesAStreamWaitThroughTheRuntime) {
  c10::Event event(c10::kPrivateUse1);
  event.record(stream(0, 2));
  event.block(stream(0, 3));
  event.block(stream(0, 0));
  EXPECT_THAT(runtime_.waits(),
              ElementsAre(Pair(stream(0, 3), stream(0, 2)),
                          Pair(stream(0, 0), stream(0, 2))));
}

TEST_F(Events, RecordOnceRecordsOnlyTheFirstTime) {
  const c10::Stream s = stream(0, 1);
  c10::Event event(c10::kPrivateUse1);
  event.recordOnce(s);
  runtime_.enqueue(s, 1);
  event.recordOnce(s);  // ignored: the event still marks the empty stream
  EXPECT_TRUE(event.query());
}

TEST_F(Events, StreamsOfAnotherTypeOrDeviceAreRefused) {
  c10::Event event(c10::kPrivateUse1);
  const c10::Stream cpu(c10::Stream::DEFAULT, c10::Device(c10::kCPU));
  EXPECT_THAT(errorOf([&] { event.record(cpu); }),
              HasSubstr("Event::record: the event is for fakedev but the "
                        "stream is stream 0 on device cpu"));
  event.record(stream(0, 1));
  EXPECT_THAT(errorOf([&] { event.record(stream(1, 1)); }),
              HasSubstr("Event::record: the event was recorded on device "
                        "fakedev:0 but the stream is stream 1 on device "
                        "fakedev:1"));
  EXPECT_THAT(errorOf([&] { event.block(cpu); }),
              HasSubstr("Event::block: the event is for fakedev"));
}

TEST_F(Events, ElapsedTimeNeedsTwoRecordedTimingEvents) {
  c10::Event start(c10::kPrivateUse1, c10::EventFlag::BACKEND_DEFAULT);
  c10::Event end(c10::kPrivateUse1, c10::EventFlag::BACKEND_DEFAULT);
  EXPECT_THAT(errorOf([&] { start.elapsedTime(end); }),
              HasSubstr("Event::elapsedTime: both events must be recorded, "
                        "but the start event was not"));
  start.record(stream(0, 0));
  c10::Event between(c10::kPrivateUse1);
  between.record(stream(0, 0));
  end.record(stream(0, 0));
  EXPECT_DOUBLE_EQ(start.elapsedTime(end), 3.0);  // two ticks of 1.5 ms
  EXPECT_THAT(errorOf([&] { start.elapsedTime(between); }),
              HasSubstr("must be created with EventFlag::BACKEND_DEFAULT"));
  c10::Event cpu(c10::kCPU);
  EXPECT_THAT(errorOf([&] { start.elapsedTime(cpu); }),
              HasSubstr("the events are for different device types (fakedev "
                        "and cpu)"));
}

TEST_F(Events, MovingTransfersTheNativeEventWhichIsDestroyedOnce) {
  {
    c10::Event a(c10::kPrivateUse1);
    a.record(stream(0, 1));
    void* native = a.eventId();
    c10::Event b(std::move(a));
    EXPECT_EQ(b.eventId(), native);
    EXPECT_EQ(a.eventId(), nullptr);  // NOLINT(bugprone-use-after-move)
    EXPECT_FALSE(a.was_marked_for_recording());
    c10::Event c(c10::kPrivateUse1);
    c.record(stream(0, 2));
    c = std::move(b);  // c's old event goes to b, which destroys it
    EXPECT_EQ(c.eventId(), native);
    EXPECT_EQ(runtime_.events_destroyed(), 0);
  }
  EXPECT_EQ(runtime_.events_created(), 2);
  EXPECT_EQ(runtime_.events_destroyed(), 2);
}

TEST_F(Events, AnEventOfATypeWithoutRuntimeCannotBeCreated) {
  EXPECT_THAT(errorOf([] { c10::Event event(c10::kCUDA); }),
              HasSubstr("no device runtime registered for cuda"));
}

TEST(CpuEvents, AreCompleteOnceRecordedAndTimeWallClock) {
  const c10::Stream s(c10::Stream::DEFAULT, c10::Device(c10::kCPU));
  c10::Event start(c10::kCPU, c10::EventFlag::BACKEND_DEFAULT);
  c10::Event end(c10::kCPU, c10::EventFlag::BACKEND_DEFAULT);
  start.record(s);
  end.record(s);
  EXPECT_TRUE(start.query());
  start.block(s);
  start.synchronize();
  EXPECT_GE(start.elapsedTime(end), 0.0);
  EXPECT_EQ(start.device_type(), c10::kCPU);
}

}  // namespace
