// c10d::ProcessGroupNCCL (distributed/c10d/ProcessGroupNCCL.h). In CI (no
// GPU): the group refuses to exist without a device, with cudart's reason,
// directly and through init_process_group("nccl"); every argument check
// runs before any device work, on tensors without device memory; NCCL's
// version. On a GPU (tools/gpu/run.sh; the tests skip with the reason
// elsewhere): a one-rank group's collectives and their Works (NCCL refuses
// two ranks on one GPU, and the lent machines have one).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include <ATen/ATen.h>
#include <c10/cuda/CUDAFunctions.h>
#include <torch/cuda.h>
#include <torch/distributed.h>

#include "distributed/c10d/FileStore.h"
#include "distributed/c10d/ProcessGroupNCCL.h"
#include "tests/distributed/multiprocess.h"
#include "tests/support/error_of.h"

namespace {

namespace dist = torch::distributed;
using ember_test::errorOf;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// A CUDA tensor without device memory: the checks must stop before using it.
at::Tensor hand_made_cuda(std::vector<int64_t> sizes, c10::ScalarType dtype = c10::kFloat) {
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  c10::Storage storage(c10::make_intrusive<c10::StorageImpl>(
      c10::StorageImpl::use_byte_size_t(), static_cast<size_t>(numel) * c10::elementSize(dtype),
      c10::DataPtr(nullptr, c10::Device(c10::kCUDA, 0)), nullptr, false));
  at::Tensor t(c10::make_intrusive<c10::TensorImpl>(
      std::move(storage), c10::DispatchKeySet(c10::DispatchKey::CUDA), dtype));
  t.unsafeGetTensorImpl()->set_sizes_contiguous(sizes);
  return t;
}

c10::intrusive_ptr<c10d::Store> file_store(const std::string& name) {
  const std::string path = ::testing::TempDir() + "/" + name + "_" + std::to_string(::getpid());
  std::remove(path.c_str());
  return c10::make_intrusive<c10d::FileStore>(path);
}

TEST(ProcessGroupNCCLNoDevice, RefusesToExistWithoutADeviceAndSaysWhy) {
  if (torch::cuda::is_available()) GTEST_SKIP() << "this machine has a CUDA device";
  EXPECT_THAT(errorOf([] { c10d::ProcessGroupNCCL pg(file_store("nodev"), 0, 1); }),
              AllOf(StartsWith("ProcessGroupNCCL: no CUDA device: "),
                    HasSubstr("use the \"gloo\" group for CPU tensors")));
  EXPECT_THAT(errorOf([] { c10d::ProcessGroupNCCL pg(file_store("rank"), 2, 2); }),
              HasSubstr("ProcessGroup: rank 2 is outside the group of size 2"));
  // Through the default group (the factory this library registers).
  auto codes = ember_test::run_workers(1, [](int, const auto&) {
    dist::InitProcessGroupOptions o;
    o.init_method = "tcp://127.0.0.1:" + std::to_string(ember_test::free_port());
    o.rank = 0;
    o.world_size = 1;
    EXPECT_THAT(errorOf([&] { dist::init_process_group("nccl", o); }),
                StartsWith("ProcessGroupNCCL: no CUDA device: "));
    EXPECT_FALSE(dist::is_initialized());
  });
  EXPECT_THAT(codes, ::testing::Each(0));
}

TEST(ProcessGroupNCCLNoDevice, ArgumentChecksComeBeforeTheDevice) {
  namespace nccl = c10d::nccl;
  const at::Tensor x = hand_made_cuda({2, 3});
  EXPECT_NO_THROW(nccl::check_tensors({x}, "allreduce"));
  EXPECT_EQ(errorOf([&] { nccl::check_tensors({x, x}, "allreduce"); }),
            "ProcessGroupNCCL: allreduce takes one tensor per call, got 2.");
  EXPECT_EQ(errorOf([] { nccl::check_tensors({}, "broadcast"); }),
            "ProcessGroupNCCL: broadcast takes one tensor per call, got 0.");
  EXPECT_EQ(errorOf([] { nccl::check_tensors({at::Tensor()}, "send"); }),
            "ProcessGroupNCCL: send: the tensor is undefined.");
  EXPECT_EQ(errorOf([] { nccl::check_tensors({at::ones({2})}, "allgather"); }),
            "ProcessGroupNCCL: allgather: the tensor is on cpu; NCCL works on CUDA tensors (use "
            "the Gloo group for CPU tensors, or .cuda()).");
  for (c10::ScalarType t : {c10::kBool, c10::kShort}) {
    EXPECT_EQ(errorOf([&] { nccl::check_tensors({hand_made_cuda({2}, t)}, "allreduce"); }),
              std::string("ProcessGroupNCCL: allreduce: dtype ") + c10::toString(t) +
                  " is not supported; NCCL has Float, Double, Half, BFloat16, Int, Long, Char "
                  "and Byte.");
  }
  for (c10::ScalarType t : {c10::kDouble, c10::kHalf, c10::kBFloat16, c10::kInt, c10::kLong,
                            c10::kChar, c10::kByte}) {
    EXPECT_NO_THROW(nccl::check_tensors({hand_made_cuda({2}, t)}, "allreduce")) << t;
  }
  EXPECT_THAT(errorOf([&] { nccl::check_tensors({x.t()}, "recv"); }),
              HasSubstr("ProcessGroupNCCL: recv: the tensor must be contiguous, but has sizes "
                        "[3, 2] and strides [1, 3]; pass t.contiguous()."));
  EXPECT_EQ(errorOf([] { nccl::check_reduce(c10d::ReduceOp::AVG, c10::kLong, "allreduce"); }),
            "ProcessGroupNCCL: allreduce with AVG needs floating-point tensors, got Long.");
  EXPECT_NO_THROW(nccl::check_reduce(c10d::ReduceOp::AVG, c10::kHalf, "allreduce"));
  EXPECT_NO_THROW(nccl::check_reduce(c10d::ReduceOp::MAX, c10::kLong, "allreduce"));
}

TEST(ProcessGroupNCCLNoDevice, ReportsTheNcclItRunsWith) {
  const int v = c10d::nccl::version();
  EXPECT_GE(v, 22800) << "NCCL 2.28 or later (the toolkit's)";
  EXPECT_LT(v, 30000);
}

// ---- on a GPU --------------------------------------------------------------------------

class OneRankNccl : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
    pg = c10::make_intrusive<c10d::ProcessGroupNCCL>(file_store("onerank"), 0, 1);
  }
  const c10::Device cuda{c10::kCUDA, 0};
  c10::intrusive_ptr<c10d::ProcessGroupNCCL> pg;
};

TEST_F(OneRankNccl, CollectivesOfOneRankKeepOrCopyTheValues) {
  EXPECT_EQ(pg->getBackendName(), "nccl");
  for (c10::ScalarType t : {c10::kFloat, c10::kDouble, c10::kHalf, c10::kBFloat16, c10::kInt,
                            c10::kLong, c10::kChar, c10::kByte}) {
    SCOPED_TRACE(c10::toString(t));
    const at::Tensor values = at::arange(1, 7).to(t).reshape({2, 3});
    for (c10d::ReduceOp::RedOpType op : {c10d::ReduceOp::SUM, c10d::ReduceOp::PRODUCT,
                                         c10d::ReduceOp::MIN, c10d::ReduceOp::MAX}) {
      std::vector<at::Tensor> ts = {values.to(cuda)};
      auto work = pg->allreduce(ts, {op});
      EXPECT_TRUE(work->wait());
      EXPECT_TRUE(work->isCompleted());
      EXPECT_TRUE(work->isSuccess());
      EXPECT_TRUE(ts[0].cpu().equal(values)) << c10d::toString(op);
    }
    std::vector<at::Tensor> b = {values.to(cuda)};
    pg->broadcast(b)->wait();
    EXPECT_TRUE(b[0].cpu().equal(values));
    std::vector<at::Tensor> in = {values.to(cuda)};
    std::vector<std::vector<at::Tensor>> outs = {{at::zeros({2, 3}, values.options().device(cuda))}};
    pg->allgather(outs, in)->wait();
    EXPECT_TRUE(outs[0][0].cpu().equal(values));
    std::vector<at::Tensor> out = {at::zeros({2, 3}, values.options().device(cuda))};
    std::vector<std::vector<at::Tensor>> ins = {{values.to(cuda)}};
    pg->reduce_scatter(out, ins)->wait();
    EXPECT_TRUE(out[0].cpu().equal(values));
  }
  std::vector<at::Tensor> f = {at::full({5}, 3.5).to(cuda)};
  pg->allreduce(f, {c10d::ReduceOp::AVG})->wait();
  EXPECT_TRUE(f[0].cpu().equal(at::full({5}, 3.5)));
  EXPECT_TRUE(pg->barrier()->isCompleted());
}

// The collective runs behind the work queued on the current stream, and
// wait() orders the current stream after it: a large in-place add queued
// just before is in the reduced values.
TEST_F(OneRankNccl, OrderedAfterTheCurrentStreamAndBeforeWhatFollows) {
  std::vector<at::Tensor> ts = {at::zeros({1 << 22}, at::TensorOptions().device(cuda))};
  ts[0].add_(2.0);
  auto work = pg->allreduce(ts);
  work->wait();
  ts[0].mul_(3.0);
  EXPECT_TRUE(ts[0].cpu().equal(at::full({1 << 22}, 6.0)));
  EXPECT_EQ(work->result().size(), 1u);
}

TEST_F(OneRankNccl, BadCallsAreRefused) {
  std::vector<at::Tensor> cpu = {at::ones({2})};
  EXPECT_THAT(errorOf([&] { pg->allreduce(cpu); }), HasSubstr("NCCL works on CUDA tensors"));
  std::vector<at::Tensor> one = {at::ones({2}).to(cuda)};
  c10d::BroadcastOptions bo;
  bo.rootRank = 1;
  EXPECT_THAT(errorOf([&] { pg->broadcast(one, bo); }),
              HasSubstr("broadcast: root rank 1 (tensor 0) is outside the group of size 1"));
  EXPECT_THAT(errorOf([&] { pg->send(one, 0, 0); }),
              HasSubstr("send: rank 0 is not another rank of the group of size 1"));
  std::vector<std::vector<at::Tensor>> two = {{at::ones({2}).to(cuda), at::ones({2}).to(cuda)}};
  EXPECT_THAT(errorOf([&] { pg->allgather(two, one); }),
              HasSubstr("allgather needs one list of one output tensor per rank (1), got 1 lists "
                        "of 2"));
  std::vector<std::vector<at::Tensor>> bad = {{at::ones({3}).to(cuda)}};
  EXPECT_THAT(errorOf([&] { pg->allgather(bad, one); }),
              HasSubstr("tensor 0 is Float [3] on cuda:0 but the call's tensor is Float [2]"));
}

// In this process, not a forked one: CUDA does not survive a fork after the
// tests above initialized it.
TEST(NcclDefaultGroup, InitProcessGroupNcclOnOneRank) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  dist::InitProcessGroupOptions o;
  o.init_method = "tcp://127.0.0.1:" + std::to_string(ember_test::free_port());
  o.rank = 0;
  o.world_size = 1;
  dist::init_process_group("nccl", o);
  EXPECT_EQ(dist::default_pg()->getBackendName(), "nccl");
  at::Tensor t = at::full({4}, 2.0).cuda();
  dist::all_reduce(t);
  EXPECT_TRUE(t.cpu().equal(at::full({4}, 2.0)));
  dist::destroy_process_group();
}

}  // namespace
