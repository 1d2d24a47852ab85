// DistributedDataParallel across forked processes: gradients equal to one
// process's gradients of the global batch, rank 0's weights everywhere after
// construction, the bucket order, a bucket's allreduce starting before
// backward ends, no_sync accumulation, unused parameters (the error and the
// option), and buffers broadcast before forward.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include <torch/distributed.h>
#include <torch/torch.h>

#include "tests/distributed/multiprocess.h"
#include "tests/distributed/process_group.h"
#include "tests/support/error_of.h"

namespace {

namespace dist = torch::distributed;
namespace nn = torch::nn;
using ember_test::errorOf;
using ember_test::free_port;
using ember_test::run_group;
using ember_test::run_workers;
using ::testing::Each;
using ::testing::HasSubstr;
using DDP = torch::nn::parallel::DistributedDataParallel;

nn::Sequential make_model() {
  return nn::Sequential(nn::Linear(6, 8), nn::ReLU(), nn::Linear(8, 8), nn::Tanh(),
                        nn::Linear(8, 3));
}

// The same global batch on every rank (seeded), rank r takes rows
// [r * n / world, (r + 1) * n / world).
std::pair<at::Tensor, at::Tensor> global_batch() {
  at::manual_seed(1234);
  return {at::randn({12, 6}), at::randn({12, 3})};
}

TEST(DistributedDataParallel, GradientsEqualOneProcessOverTheGlobalBatch) {
  static constexpr int kWorld = 3;
  auto codes = run_group(kWorld, [](int rank) {
    torch::manual_seed(100 + rank);  // different initial weights per rank
    nn::Sequential model = make_model();
    DDP ddp(model);
    // Construction gave every rank rank 0's weights: check against rank 0's.
    for (const at::Tensor& p : model->parameters()) {
      at::Tensor mine = p.detach().clone();
      at::Tensor zeros = rank == 0 ? mine.clone() : at::zeros_like(mine);
      dist::broadcast(zeros, 0);
      EXPECT_TRUE(at::equal(mine, zeros));
    }
    // A reference model, same weights, on the whole batch in this process.
    nn::Sequential reference = make_model();
    {
      at::NoGradGuard no_grad;
      auto src = model->parameters(), dst = reference->parameters();
      for (size_t i = 0; i < src.size(); ++i) dst[i].copy_(src[i]);
    }
    auto [x, y] = global_batch();
    const int64_t n = x.size(0) / kWorld;
    at::Tensor local = torch::mse_loss(ddp.forward(x.narrow(0, rank * n, n)),
                                       y.narrow(0, rank * n, n));
    local.backward();
    torch::mse_loss(reference->forward(x), y).backward();
    auto got = model->parameters(), want = reference->parameters();
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_TRUE(got[i].grad().defined()) << i;
      EXPECT_TRUE(at::allclose(got[i].grad(), want[i].grad(), 1e-5, 1e-6))
          << "parameter " << i << " on rank " << rank;
    }
    // A second step: the reducer starts over.
    for (auto& p : model->parameters()) p.mutable_grad() = at::Tensor();
    for (auto& p : reference->parameters()) p.mutable_grad() = at::Tensor();
    torch::mse_loss(ddp.forward(x.narrow(0, rank * n, n)), y.narrow(0, rank * n, n)).backward();
    torch::mse_loss(reference->forward(x), y).backward();
    got = model->parameters();
    want = reference->parameters();
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_TRUE(at::allclose(got[i].grad(), want[i].grad(), 1e-5, 1e-6)) << i;
    }
  });
  EXPECT_THAT(codes, Each(0));
}

TEST(DistributedDataParallel, BucketsFollowReverseOrderAndStartBeforeBackwardEnds) {
  auto codes = run_group(2, [](int rank) {
    torch::manual_seed(0);
    nn::Sequential model = make_model();
    torch::nn::parallel::DistributedDataParallelOptions o;
    o.bucket_cap_mb = 200.0 / (1024 * 1024);  // 200 bytes: about one parameter each
    DDP ddp(model, o);
    const auto buckets = ddp.bucket_indices();
    // Parameters: 0 w1 [8,6] 192 B, 1 b1 32 B, 2 w2 [8,8] 256 B, 3 b2 32 B,
    // 4 w3 [3,8] 96 B, 5 b3 12 B. From the last: b3 + w3 + b2 = 140 B; w2
    // alone (over the cap by itself); b1 (+ w1 would pass 200); w1.
    EXPECT_EQ(buckets, (std::vector<std::vector<size_t>>{{5, 4, 3}, {2}, {1}, {0}}));
    // Bucket 0's allreduce starts while backward has not reached the
    // input yet: a hook on the input's gradient runs last.
    std::atomic<bool> input_grad_done{false};
    std::vector<bool> launched_before_input;
    ddp.set_bucket_launch_callback([&](size_t) {
      launched_before_input.push_back(!input_grad_done.load());
    });
    auto [x, y] = global_batch();
    at::Tensor input = x.narrow(0, rank * 6, 6).clone().requires_grad_(true);
    input.register_hook([&](const at::Tensor& g) {
      input_grad_done = true;
      return g;
    });
    torch::mse_loss(ddp.forward(input), y.narrow(0, rank * 6, 6)).backward();
    ASSERT_EQ(launched_before_input.size(), buckets.size());
    EXPECT_TRUE(launched_before_input.front()) << "the first bucket waited for backward's end";
    EXPECT_TRUE(input_grad_done.load());
  });
  EXPECT_THAT(codes, Each(0));
}

TEST(DistributedDataParallel, NoSyncAccumulatesLocallyThenAveragesTheSums) {
  auto codes = run_group(2, [](int rank) {
    torch::manual_seed(0);
    nn::Linear model(4, 2);
    DDP ddp(model);
    at::Tensor a = at::full({1, 4}, static_cast<double>(rank + 1));
    {
      auto guard = ddp.no_sync();
      ddp.forward(a).sum().backward();
    }
    // Local only: rank r's weight gradient is r + 1 everywhere.
    EXPECT_TRUE(at::allclose(model->weight.grad(), at::full({2, 4}, rank + 1.0)));
    ddp.forward(a).sum().backward();
    // Accumulated 2 (r + 1) locally, averaged over ranks: (2 + 4) / 2 = 3.
    EXPECT_TRUE(at::allclose(model->weight.grad(), at::full({2, 4}, 3.0)))
        << model->weight.grad();
  });
  EXPECT_THAT(codes, Each(0));
}

struct TwoHeads : nn::Module {
  TwoHeads() {
    used = register_module("used", nn::Linear(3, 2));
    unused = register_module("unused", nn::Linear(3, 2));
  }
  at::Tensor forward(const at::Tensor& x) { return used->forward(x); }
  nn::Linear used{nullptr}, unused{nullptr};
};

TEST(DistributedDataParallel, AParameterWithoutGradientIsAnErrorUnlessAllowed) {
  auto codes = run_group(2, [](int) {
    auto model = std::make_shared<TwoHeads>();
    auto forward = [model](const at::Tensor& x) { return model->forward(x); };
    {
      DDP strict(model, forward);
      const std::string error = errorOf([&] { strict.forward(at::ones({1, 3})).sum().backward(); });
      EXPECT_THAT(error, HasSubstr("got none for parameter indices (into module()->parameters()): 2 3"));
      EXPECT_THAT(error, HasSubstr("find_unused_parameters"));
    }
    for (auto& p : model->parameters()) p.mutable_grad() = at::Tensor();
    torch::nn::parallel::DistributedDataParallelOptions o;
    o.find_unused_parameters = true;
    o.bucket_cap_mb = 1e-6;  // one parameter per bucket
    DDP lenient(model, forward, o);
    // The unused head's buckets start with backward's first gradient (Note
    // [Unused parameters]), before the used head's last one.
    std::vector<size_t> launched;
    bool first_before_used_grads = false;
    lenient.set_bucket_launch_callback([&](size_t b) {
      launched.push_back(b);
      if (b == 0) {
        first_before_used_grads =
            !(model->used->weight.grad().defined() && model->used->bias.grad().defined());
      }
    });
    lenient.forward(at::ones({1, 3})).sum().backward();
    EXPECT_TRUE(first_before_used_grads)
        << "the unused parameter's bucket waited for the used head's gradients";
    EXPECT_TRUE(at::allclose(model->used->bias.grad(), at::ones({2})));
    EXPECT_TRUE(at::equal(model->unused->bias.grad(), at::zeros({2})));
    // Buckets hold parameters 3, 2, 1, 0 (reverse order); 3 and 2 are the
    // unused head's, launched first, before bucket 3 (parameter 0) is ready.
    EXPECT_EQ(launched, (std::vector<size_t>{0, 1, 2, 3}));
    EXPECT_EQ(lenient.bucket_indices(), (std::vector<std::vector<size_t>>{{3}, {2}, {1}, {0}}));
  });
  EXPECT_THAT(codes, Each(0));
}

TEST(DistributedDataParallel, BuffersComeFromRankZeroBeforeEachForward) {
  auto codes = run_group(2, [](int rank) {
    nn::BatchNorm1d bn(3);
    DDP ddp(bn);
    bn->train();
    ddp.forward(at::randn({4, 3}).add(rank * 10));
    // Each rank updated its running mean from its own batch; the next forward
    // starts from rank 0's.
    at::Tensor after_own = bn->running_mean.clone();
    at::Tensor rank0 = after_own.clone();
    dist::broadcast(rank0, 0);
    ddp.forward(at::zeros({4, 3}));
    // running = 0.9 * rank 0's + 0.1 * mean(zeros) on every rank.
    EXPECT_TRUE(at::allclose(bn->running_mean, rank0.mul(0.9)));
  });
  EXPECT_THAT(codes, Each(0));
}

TEST(DistributedDataParallel, RanksWithDifferentModelsAllSayWhich) {
  auto codes = run_group(3, [](int rank) {
    nn::Linear same(3, 2);
    DDP ok(same);  // the same everywhere: no error
    nn::Linear shaped(3, rank == 2 ? 4 : 2);
    EXPECT_THAT(errorOf([&] { DDP ddp(shaped); }),
                HasSubstr("rank 2's model has 2 parameters that require grad of other shapes or "
                          "dtypes than rank 0's (2); every rank must build the same model."));
    nn::Linear counted = rank == 1 ? nn::Linear(nn::LinearOptions(3, 2).bias(false))
                                   : nn::Linear(3, 2);
    EXPECT_THAT(errorOf([&] { DDP ddp(counted); }),
                HasSubstr("rank 1's model has 1 parameters that require grad than rank 0's (2)"));
  });
  EXPECT_THAT(codes, Each(0));
}

TEST(DistributedDataParallel, BadOptionsAreRefused) {
  auto codes = run_group(2, [](int) {
    nn::Linear model(2, 2);
    torch::nn::parallel::DistributedDataParallelOptions o;
    o.bucket_cap_mb = 0;
    EXPECT_THAT(errorOf([&] { DDP ddp(model, o); }), HasSubstr("bucket_cap_mb must be positive"));
    for (auto& p : model->parameters()) p.requires_grad_(false);
    EXPECT_THAT(errorOf([&] { DDP ddp(model); }),
                HasSubstr("the module has no parameter that requires grad"));
  });
  EXPECT_THAT(codes, Each(0));
}

}  // namespace
