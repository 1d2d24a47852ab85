// The RPC frame (distributed/rpc/wire.h) in one process: every IValue kind
// encodes and decodes to the same value; large tensors are sent as slices
// over their own memory; malformed frames are refused with a message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cstring>

#include "distributed/rpc/peer_memory.h"
#include "distributed/rpc/wire.h"
#include "tests/support/error_of.h"

namespace peer_memory = torch::distributed::rpc::peer_memory;
namespace wire = torch::distributed::rpc::wire;
using ember_test::errorOf;
using ::testing::HasSubstr;

namespace {

wire::Decoded round_trip(const std::vector<c10::IValue>& values) {
  ember::rpc::Envelope env;
  env.set_kind(ember::rpc::OP_CALL);
  env.set_op("ns::op");
  wire::Encoder enc;
  for (const auto& v : values) enc.add_value(env.add_values(), v);
  grpc::ByteBuffer frame = enc.finish(env);
  return wire::decode(frame);
}

grpc::ByteBuffer frame_of(const std::string& bytes) {
  grpc::Slice s(bytes);
  return grpc::ByteBuffer(&s, 1);
}

std::string header(const ember::rpc::Envelope& env) {
  std::string h = env.SerializeAsString();
  uint32_t n = static_cast<uint32_t>(h.size());
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out + h;
}

void expect_same_tensor(const at::TensorBase& a, const at::TensorBase& b) {
  at::Tensor e = at::Tensor(a).contiguous();
  ASSERT_TRUE(b.defined());
  EXPECT_EQ(b.scalar_type(), e.scalar_type());
  EXPECT_EQ(b.sizes().vec(), e.sizes().vec());
  ASSERT_EQ(b.nbytes(), e.nbytes());
  if (e.nbytes() > 0) {  // an empty tensor may have no memory at all
    EXPECT_EQ(std::memcmp(b.data_ptr(), e.data_ptr(), e.nbytes()), 0);
  }
}

TEST(Wire, EveryValueKindRoundTrips) {
  at::Tensor big = at::arange(5000, at::kDouble);   // sent as its own slice
  at::Tensor view = at::arange(6, at::kInt).reshape({2, 3}).t();
  std::vector<c10::IValue> values = {
      c10::IValue(),
      at::arange(4, at::kFloat),
      big,
      view,
      at::Tensor(),
      2.5,
      int64_t{-3},
      false,
      c10::Device(c10::kCPU),
      "text",
      std::vector<int64_t>{4, 5},
      std::vector<double>{},
      std::vector<bool>{true},
      std::vector<at::Tensor>{at::ones({2}, at::kBool), big},
      std::vector<std::optional<at::Tensor>>{std::nullopt, at::full({1}, 3.0)},
  };
  wire::Decoded d = round_trip(values);
  ASSERT_EQ(d.values.size(), values.size());
  EXPECT_TRUE(d.values[0].isNone());
  expect_same_tensor(values[1].toTensorBase(), d.values[1].toTensorBase());
  expect_same_tensor(big, d.values[2].toTensorBase());
  expect_same_tensor(view, d.values[3].toTensorBase());
  EXPECT_FALSE(d.values[4].toTensorBase().defined());
  EXPECT_EQ(d.values[5].toDouble(), 2.5);
  EXPECT_EQ(d.values[6].toInt(), -3);
  EXPECT_EQ(d.values[7].toBool(), false);
  EXPECT_EQ(d.values[8].toDevice(), c10::Device(c10::kCPU));
  EXPECT_EQ(d.values[9].toStringRef(), "text");
  EXPECT_EQ(d.values[10].toIntVector(), (std::vector<int64_t>{4, 5}));
  EXPECT_TRUE(d.values[11].isDoubleList());
  EXPECT_EQ(d.values[12].toBoolVector(), std::vector<bool>{true});
  auto list = d.values[13].toTensorVector();
  ASSERT_EQ(list.size(), 2u);
  expect_same_tensor(at::ones({2}, at::kBool), list[0]);
  expect_same_tensor(big, list[1]);
  auto opt = d.values[14].toOptionalTensorVector();
  ASSERT_EQ(opt.size(), 2u);
  EXPECT_FALSE(opt[0].has_value());
  expect_same_tensor(at::full({1}, 3.0), *opt[1]);
}

TEST(Wire, LargeTensorsAreSentWithoutCopyAndKeptAliveBySlices) {
  at::Tensor big = at::arange(1 << 16, at::kFloat);
  const size_t before = big.use_count();
  ember::rpc::Envelope env;
  wire::Encoder enc;
  enc.add_value(env.add_values(), big);
  grpc::ByteBuffer frame = enc.finish(env);
  std::vector<grpc::Slice> slices;
  ASSERT_TRUE(frame.Dump(&slices).ok());
  ASSERT_EQ(slices.size(), 2u);
  // The second slice is the tensor's own memory, and holds a reference.
  EXPECT_EQ(slices[1].begin(), static_cast<const uint8_t*>(big.data_ptr()));
  EXPECT_EQ(big.use_count(), before + 1);
  slices.clear();
  frame.Clear();
  EXPECT_EQ(big.use_count(), before);
}

// A frame of a header slice and a payload slice over `payload` (not
// copied: a static slice).
grpc::ByteBuffer frame_over(const ember::rpc::Envelope& env, uint8_t* payload,
                            size_t n) {
  std::vector<grpc::Slice> slices;
  slices.emplace_back(header(env));
  slices.emplace_back(payload, n, grpc::Slice::STATIC_SLICE);
  return grpc::ByteBuffer(slices.data(), slices.size());
}

TEST(Wire, ReceivedLargeTensorsInOneAlignedSliceAreNotCopied) {
  constexpr int64_t kN = 4096;  // floats: 16 KiB, above kZeroCopyMinBytes
  alignas(64) static uint8_t buffer[kN * 4 + 64];
  for (int64_t i = 0; i < kN; ++i) {
    const float v = static_cast<float>(i);
    std::memcpy(buffer + 4 + i * 4, &v, 4);
  }
  ember::rpc::Envelope env;
  auto* meta = env.add_values()->mutable_tensor();
  meta->set_defined(true);
  meta->set_dtype(ember::rpc::FLOAT32);
  meta->add_sizes(kN);
  meta->set_nbytes(kN * 4);
  // Aligned: the tensor is built over the received bytes.
  std::memmove(buffer, buffer + 4, kN * 4);
  wire::Decoded in_place = wire::decode(frame_over(env, buffer, kN * 4));
  at::TensorBase t = in_place.values[0].toTensorBase();
  EXPECT_EQ(t.data_ptr(), static_cast<void*>(buffer));
  EXPECT_EQ(static_cast<const float*>(t.data_ptr())[kN - 1], kN - 1.0f);
  // 4 bytes off the alignment: copied once into a tensor of its own.
  std::memmove(buffer + 4, buffer, kN * 4);
  wire::Decoded copied = wire::decode(frame_over(env, buffer + 4, kN * 4));
  at::TensorBase u = copied.values[0].toTensorBase();
  EXPECT_NE(u.data_ptr(), static_cast<void*>(buffer + 4));
  EXPECT_EQ(static_cast<const float*>(u.data_ptr())[kN - 1], kN - 1.0f);
}

TEST(Wire, ATensorBuiltOverASliceKeepsTheSliceAlive) {
  at::Tensor big = at::arange(1 << 16, at::kFloat);
  const size_t before = big.use_count();
  ember::rpc::Envelope env;
  wire::Encoder enc;
  enc.add_value(env.add_values(), big);
  at::TensorBase received;
  {
    // In one process the "received" slice is the sender's own memory.
    wire::Decoded d = wire::decode(enc.finish(env));
    received = d.values[0].toTensorBase();
  }
  EXPECT_EQ(received.data_ptr(), big.data_ptr());
  EXPECT_EQ(big.use_count(), before + 1);  // through the slice it holds
  received = at::TensorBase();
  EXPECT_EQ(big.use_count(), before);
}

TEST(Wire, MalformedFramesAreRefusedWithAMessage) {
  EXPECT_THAT(errorOf([] { wire::decode(frame_of("ab")); }),
              HasSubstr("rpc: bad message: a frame shorter than its 4-byte header"));
  EXPECT_THAT(errorOf([] { wire::decode(frame_of(std::string("\xff\xff\xff\x7f", 4) + "x")); }),
              HasSubstr("header length 2147483647 but only 1 bytes follow"));
  EXPECT_THAT(errorOf([] { wire::decode(frame_of(std::string("\x03\0\0\0\xff\xff\xff", 7))); }),
              HasSubstr("the header is not a valid Envelope"));

  ember::rpc::Envelope env;
  auto* meta = env.add_values()->mutable_tensor();
  meta->set_defined(true);
  meta->set_dtype(ember::rpc::FLOAT32);
  meta->add_sizes(4);
  meta->set_nbytes(16);
  // Truncated: the header promises 16 bytes of payload, 8 follow.
  EXPECT_THAT(errorOf([&] { wire::decode(frame_of(header(env) + std::string(8, '\0'))); }),
              HasSubstr("a tensor larger than the frame"));
  // Extra bytes after the last tensor.
  EXPECT_THAT(errorOf([&] { wire::decode(frame_of(header(env) + std::string(20, '\0'))); }),
              HasSubstr("4 payload bytes left over after the last tensor"));
  // nbytes that disagrees with sizes and dtype.
  meta->set_nbytes(12);
  EXPECT_THAT(errorOf([&] { wire::decode(frame_of(header(env) + std::string(16, '\0'))); }),
              HasSubstr("tensor nbytes 12 but its sizes and dtype need 16"));
  // Sizes whose product overflows.
  meta->clear_sizes();
  meta->add_sizes(int64_t{1} << 40);
  meta->add_sizes(int64_t{1} << 40);
  meta->set_nbytes(0);
  EXPECT_THAT(errorOf([&] { wire::decode(frame_of(header(env))); }),
              HasSubstr("a tensor larger than the frame"));
  meta->clear_sizes();
  meta->add_sizes(-1);
  EXPECT_THAT(errorOf([&] { wire::decode(frame_of(header(env))); }),
              HasSubstr("negative size -1"));
  // Unknown dtype and device, a value with no kind.
  meta->clear_sizes();
  meta->set_dtype(static_cast<ember::rpc::DType>(99));
  EXPECT_THAT(errorOf([&] { wire::decode(frame_of(header(env))); }),
              HasSubstr("unknown dtype 99"));
  ember::rpc::Envelope dev;
  dev.add_values()->mutable_device()->set_index(3);
  EXPECT_THAT(errorOf([&] { wire::decode(frame_of(header(dev))); }),
              HasSubstr("unknown device type 0"));
  // A CPU device with an index other than -1/0 (c10::Device would refuse it
  // with its own message, not as a bad frame).
  ember::rpc::Envelope cpu3;
  cpu3.add_values()->mutable_device()->set_type(ember::rpc::CPU);
  cpu3.mutable_values(0)->mutable_device()->set_index(3);
  EXPECT_THAT(errorOf([&] { wire::decode(frame_of(header(cpu3))); }),
              HasSubstr("rpc: bad message: cpu device index 3 (a CPU device index is -1 or 0)"));
  ember::rpc::Envelope empty_value;
  empty_value.add_values();
  EXPECT_THAT(errorOf([&] { wire::decode(frame_of(header(empty_value))); }),
              HasSubstr("value 0 has no kind"));
  // A bool tensor holding a byte other than 0/1.
  ember::rpc::Envelope b;
  auto* bm = b.add_values()->mutable_tensor();
  bm->set_defined(true);
  bm->set_dtype(ember::rpc::BOOL);
  bm->add_sizes(2);
  bm->set_nbytes(2);
  EXPECT_THAT(errorOf([&] { wire::decode(frame_of(header(b) + std::string("\x01\x07", 2))); }),
              HasSubstr("a bool tensor holds a byte other than 0 or 1"));
  EXPECT_EQ(wire::decode(frame_of(header(b) + std::string("\x01\x00", 2)))
                .values[0]
                .toTensorBase()
                .numel(),
            2);
}

// Every truncation of a valid frame is refused, never read past its end.
TEST(Wire, EveryTruncationOfAValidFrameIsRefused) {
  ember::rpc::Envelope env;
  env.set_kind(ember::rpc::OP_CALL);
  env.set_op("aten::add.Tensor");
  wire::Encoder enc;
  enc.add_value(env.add_values(), at::arange(6, at::kFloat));
  enc.add_value(env.add_values(), std::vector<int64_t>{1, 2});
  grpc::ByteBuffer frame = enc.finish(env);
  grpc::Slice whole;
  ASSERT_TRUE(frame.DumpToSingleSlice(&whole).ok());
  std::string bytes(reinterpret_cast<const char*>(whole.begin()), whole.size());
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::string cut = bytes.substr(0, n);
    EXPECT_THAT(errorOf([&] { wire::decode(frame_of(cut)); }), HasSubstr("rpc: bad message"))
        << "length " << n;
  }
  EXPECT_EQ(wire::decode(frame_of(bytes)).values.size(), 2u);
}

// Shared tensors (Note [Shared tensors] in peer_memory.h), with this
// process as both sender and receiver: process_vm_readv on one's own pid.
TEST(Wire, SharedTensorsAreDescribedByAddressAndReadFromTheSender) {
  at::Tensor big = at::randn({512, 512});  // 1 MiB: shared
  at::Tensor mid = at::arange(1 << 12, at::kFloat);  // 16 KiB: a slice
  at::Tensor bools = at::full({300000}, true, at::kBool);  // shared too
  at::Tensor transposed = at::randn({256, 512}).t();  // made contiguous
  ember::rpc::Envelope env;
  wire::Encoder enc;
  enc.add_value(env.add_values(), big);
  enc.add_value(env.add_values(), c10::IValue(std::vector<at::TensorBase>{
                                      mid, bools, transposed}));
  ASSERT_TRUE(enc.has_shareable());
  std::vector<at::TensorBase> shared;
  grpc::ByteBuffer frame = enc.finish_sharing(env, &shared);
  ASSERT_EQ(shared.size(), 3u);
  EXPECT_EQ(shared[0].data_ptr(), big.data_ptr());  // not copied
  EXPECT_EQ(env.values(0).tensor().remote_address(),
            reinterpret_cast<uintptr_t>(big.data_ptr()));
  EXPECT_EQ(env.values(1).tensor_list().tensors(0).remote_address(), 0u);
  // Only the 16 KiB tensor's bytes travel.
  EXPECT_LT(frame.Length(), 20000u);

  wire::RemoteSource me;
  me.pid = peer_memory::self().pid;
  wire::Decoded d = wire::decode(frame, &me);
  at::Tensor got(d.values[0].toTensorBase());
  EXPECT_NE(got.data_ptr(), big.data_ptr());  // a copy in a new tensor
  EXPECT_TRUE(at::equal(got, big));
  auto list = d.values[1].toTensorVector();
  ASSERT_EQ(list.size(), 3u);
  EXPECT_TRUE(at::equal(at::Tensor(list[0]), mid));
  EXPECT_TRUE(at::equal(at::Tensor(list[1]), bools));
  EXPECT_TRUE(at::equal(at::Tensor(list[2]), transposed));

  // Without a source (a receiver that did not say it reads the sender's
  // memory) the frame is refused before anything is read.
  EXPECT_THAT(errorOf([&] { wire::decode(frame); }),
              HasSubstr("rpc: bad message: a tensor in the sender's memory "
                        "(remote_address set) where none may be"));
  // Small tensors are never shared.
  ember::rpc::Envelope small_env;
  wire::Encoder small;
  small.add_value(small_env.add_values(), at::ones({3, 3}));
  EXPECT_FALSE(small.has_shareable());
}

TEST(Wire, ASharedTensorThatCannotBeReadIsAClearError) {
  ember::rpc::Envelope env;
  auto* meta = env.add_values()->mutable_tensor();
  meta->set_defined(true);
  meta->set_dtype(ember::rpc::FLOAT32);
  meta->add_sizes(1 << 18);
  meta->set_nbytes(1 << 20);
  meta->set_remote_address(0x10);  // never mapped
  wire::RemoteSource me;
  me.pid = peer_memory::self().pid;
  EXPECT_THAT(errorOf([&] { wire::decode(frame_of(header(env)), &me); }),
              HasSubstr("rpc: could not read 1048576 bytes at 0x10 of the "
                        "sender's memory (pid " + std::to_string(me.pid) + "): "));
  // Sizes and nbytes are still checked against each other.
  meta->set_nbytes(1000);
  EXPECT_THAT(errorOf([&] { wire::decode(frame_of(header(env)), &me); }),
              HasSubstr("tensor nbytes 1000 but its sizes and dtype need 1048576"));
  // A shared bool tensor is checked like a sent one.
  static uint8_t twos[300000];
  std::memset(twos, 2, sizeof(twos));
  ember::rpc::Envelope b;
  auto* bm = b.add_values()->mutable_tensor();
  bm->set_defined(true);
  bm->set_dtype(ember::rpc::BOOL);
  bm->add_sizes(sizeof(twos));
  bm->set_nbytes(sizeof(twos));
  bm->set_remote_address(reinterpret_cast<uintptr_t>(twos));
  EXPECT_THAT(errorOf([&] { wire::decode(frame_of(header(b)), &me); }),
              HasSubstr("a bool tensor holds a byte other than 0 or 1"));
}

TEST(Wire, APeersProbeIsReadableOnlyWithItsValue) {
  peer_memory::Probe me = peer_memory::self();
  EXPECT_GT(me.pid, 0);
  EXPECT_NE(me.value, 0u);
  EXPECT_EQ(peer_memory::self().value, me.value);  // made once
  EXPECT_TRUE(peer_memory::readable(me));
  peer_memory::Probe wrong = me;
  wrong.value ^= 1;
  EXPECT_FALSE(peer_memory::readable(wrong));  // e.g. a reused pid
  peer_memory::Probe unmapped = me;
  unmapped.address = 0x10;
  EXPECT_FALSE(peer_memory::readable(unmapped));
  EXPECT_FALSE(peer_memory::readable(peer_memory::Probe{}));
}

TEST(Wire, DecodeHeaderLeavesTheValuesForLater) {
  ember::rpc::Envelope env;
  env.set_kind(ember::rpc::OP_CALL);
  env.set_op("ns::op");
  wire::Encoder enc;
  enc.add_value(env.add_values(), at::arange(1 << 16, at::kFloat));
  grpc::ByteBuffer frame = enc.finish(env);
  wire::Decoded d = wire::decode_header(frame);
  EXPECT_EQ(d.envelope.op(), "ns::op");
  EXPECT_TRUE(d.values.empty());
  wire::decode_values(d, nullptr);
  ASSERT_EQ(d.values.size(), 1u);
  EXPECT_TRUE(at::equal(at::Tensor(d.values[0].toTensorBase()),
                        at::arange(1 << 16, at::kFloat)));
}

}  // namespace
