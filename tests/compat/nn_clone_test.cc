// torch::nn::Cloneable / Module::clone and torch::nn::Functional, as
// libtorch programs use them: deep copies of user and built-in modules that
// share no memory with the original, and functions as Sequential layers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "tests/support/error_of.h"

using ::testing::HasSubstr;
using ember_test::errorOf;

namespace {

struct NetImpl : torch::nn::Cloneable<NetImpl> {
  NetImpl() { reset(); }
  void reset() override {
    fc = register_module("fc", torch::nn::Linear(3, 2));
    bn = register_module("bn", torch::nn::BatchNorm1d(2));
    scale = register_parameter("scale", torch::full({2}, 2.0));
    steps = register_buffer("steps", torch::zeros({1}, torch::kLong));
  }
  torch::Tensor forward(const torch::Tensor& x) { return bn(fc(x)) * scale; }
  torch::nn::Linear fc{nullptr};
  torch::nn::BatchNorm1d bn{nullptr};
  torch::Tensor scale;
  torch::Tensor steps;
};
TORCH_MODULE(Net);

bool same_memory(const torch::Tensor& a, const torch::Tensor& b) {
  return a.storage().data() == b.storage().data();
}

// Every parameter and buffer of `copy` equals the original's and has its own memory.
void expect_deep_copy(const torch::nn::Module& original, const torch::nn::Module& copy) {
  auto a = original.named_parameters();
  auto b = copy.named_parameters();
  ASSERT_EQ(a.size(), b.size());
  for (const auto& item : a) {
    const torch::Tensor& mine = b[item.key()];
    EXPECT_TRUE(torch::equal(item.value(), mine)) << item.key();
    EXPECT_FALSE(same_memory(item.value(), mine)) << item.key();
    EXPECT_TRUE(mine.requires_grad()) << item.key();
  }
  auto ab = original.named_buffers();
  auto bb = copy.named_buffers();
  ASSERT_EQ(ab.size(), bb.size());
  for (const auto& item : ab) {
    EXPECT_TRUE(torch::equal(item.value(), bb[item.key()])) << item.key();
    EXPECT_FALSE(same_memory(item.value(), bb[item.key()])) << item.key();
  }
}

TEST(NnClone, UserCloneableModuleIsCopiedDeeplyWithItsMembersPointingAtTheCopy) {
  torch::manual_seed(0);
  Net net;
  net->train();
  net->forward(torch::randn({4, 3}));  // moves bn's running stats
  net->steps.fill_(7);
  auto copy = std::dynamic_pointer_cast<NetImpl>(net->clone());
  ASSERT_NE(copy, nullptr);
  expect_deep_copy(*net, *copy);
  // The copy's member handles are its registered tensors and children.
  EXPECT_TRUE(copy->fc->weight.is_same(copy->named_parameters()["fc.weight"]));
  EXPECT_TRUE(copy->scale.is_same(copy->named_parameters()["scale"]));
  EXPECT_EQ(copy->steps.item<int64_t>(), 7);
  EXPECT_TRUE(torch::equal(copy->bn->running_mean, net->bn->running_mean));
  // Same outputs; training the copy leaves the original alone.
  net->eval();
  copy->eval();
  torch::Tensor x = torch::randn({5, 3});
  EXPECT_TRUE(torch::allclose(net->forward(x), copy->forward(x)));
  torch::Tensor before = net->fc->weight.detach().clone();
  torch::optim::SGD opt(copy->parameters(), torch::optim::SGDOptions(0.1));
  copy->forward(x).sum().backward();
  opt.step();
  EXPECT_TRUE(torch::equal(net->fc->weight, before));
  EXPECT_FALSE(torch::equal(copy->fc->weight, before));
  EXPECT_FALSE(net->fc->weight.grad().defined());  // gradients are not shared
}

TEST(NnClone, BuiltInModulesCloneToTheirOwnType) {
  torch::manual_seed(1);
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(2, 3, 3).padding(1));
  auto conv_copy = std::dynamic_pointer_cast<torch::nn::Conv2dImpl>(conv->clone());
  ASSERT_NE(conv_copy, nullptr);
  expect_deep_copy(*conv, *conv_copy);
  EXPECT_EQ(conv_copy->options.out_channels(), 3);

  torch::nn::BatchNorm2d bn(3);
  bn->forward(torch::randn({2, 3, 4, 4}));
  auto bn_copy = std::dynamic_pointer_cast<torch::nn::BatchNorm2dImpl>(bn->clone());
  ASSERT_NE(bn_copy, nullptr);
  expect_deep_copy(*bn, *bn_copy);

  torch::nn::LSTM lstm(torch::nn::LSTMOptions(4, 5).num_layers(2).bidirectional(true));
  auto lstm_copy = std::dynamic_pointer_cast<torch::nn::LSTMImpl>(lstm->clone());
  ASSERT_NE(lstm_copy, nullptr);
  expect_deep_copy(*lstm, *lstm_copy);
  torch::Tensor seq = torch::randn({6, 2, 4});
  EXPECT_TRUE(torch::allclose(std::get<0>(lstm->forward(seq)),
                              std::get<0>(lstm_copy->forward(seq))));

  torch::nn::TransformerEncoderLayer layer(torch::nn::TransformerEncoderLayerOptions(8, 2));
  layer->eval();
  auto layer_copy =
      std::dynamic_pointer_cast<torch::nn::TransformerEncoderLayerImpl>(layer->clone());
  ASSERT_NE(layer_copy, nullptr);
  expect_deep_copy(*layer, *layer_copy);
  torch::Tensor src = torch::randn({3, 2, 8});
  EXPECT_TRUE(torch::allclose(layer->forward(src), layer_copy->forward(src)));
}

TEST(NnClone, SequentialAndModuleListCloneEveryModule) {
  torch::manual_seed(2);
  torch::nn::Sequential seq(torch::nn::Linear(4, 8), torch::nn::ReLU(),
                            torch::nn::Functional(torch::tanh), torch::nn::Linear(8, 2));
  auto copy = std::dynamic_pointer_cast<torch::nn::SequentialImpl>(seq->clone());
  ASSERT_NE(copy, nullptr);
  ASSERT_EQ(copy->size(), 4u);
  expect_deep_copy(*seq, *copy);
  torch::Tensor x = torch::randn({3, 4});
  EXPECT_TRUE(torch::allclose(seq->forward(x), copy->forward(x)));
  EXPECT_TRUE(copy->named_parameters()["3.weight"].is_same(copy->ptr<torch::nn::LinearImpl>(3)->weight));

  torch::nn::ModuleList list(torch::nn::Linear(2, 2), torch::nn::Linear(2, 1));
  auto list_copy = std::dynamic_pointer_cast<torch::nn::ModuleListImpl>(list->clone());
  ASSERT_NE(list_copy, nullptr);
  expect_deep_copy(*list, *list_copy);
}

TEST(NnFunctional, FunctionsBecomeLayersWithBoundArguments) {
  torch::nn::Functional relu(torch::relu);
  EXPECT_TRUE(torch::equal(relu(torch::tensor({-1.0f, 2.0f})), torch::tensor({0.0f, 2.0f})));
  torch::nn::Functional leaky(torch::leaky_relu, 0.5);
  EXPECT_TRUE(torch::allclose(leaky(torch::tensor({-2.0f, 2.0f})), torch::tensor({-1.0f, 2.0f})));
  torch::nn::Functional twice([](torch::Tensor t) { return t * 2; });
  EXPECT_TRUE(torch::equal(twice(torch::ones({2})), torch::full({2}, 2.0f)));
  torch::nn::Sequential net(torch::nn::Linear(2, 2), torch::nn::Functional(torch::leaky_relu, 0.2));
  EXPECT_EQ(net->forward(torch::ones({1, 2})).sizes().vec(), (std::vector<int64_t>{1, 2}));
  std::ostringstream printed;
  printed << *net;
  EXPECT_THAT(printed.str(), HasSubstr("(1): torch::nn::Functional()"));
  EXPECT_TRUE(relu->parameters().empty());
  EXPECT_FALSE(relu->is_serializable());
  EXPECT_THAT(errorOf([] { torch::nn::Functional empty(torch::nn::FunctionalImpl::Function{}); }),
              HasSubstr("torch::nn::Functional: the function is empty"));
}

struct PlainImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor& x) { return x; }
};
TORCH_MODULE(Plain);

struct ForgetfulImpl : torch::nn::Cloneable<ForgetfulImpl> {
  ForgetfulImpl() {
    reset();
    extra = register_parameter("extra", torch::ones({1}));  // not in reset()
  }
  void reset() override { w = register_parameter("w", torch::ones({2})); }
  torch::Tensor w, extra;
};

struct HoldsPlainImpl : torch::nn::Cloneable<HoldsPlainImpl> {
  HoldsPlainImpl() { reset(); }
  void reset() override { p = register_module("p", Plain()); }
  Plain p{nullptr};
};

TEST(NnClone, ModulesThatCannotBeClonedSaySo) {
  Plain plain;
  EXPECT_THAT(errorOf([&] { plain->clone(); }),
              HasSubstr("clone() has not been implemented for (anonymous namespace)::"
                        "PlainImpl. Subclass torch::nn::Cloneable<(anonymous namespace)::"
                        "PlainImpl> instead of torch::nn::Module"));
  auto forgetful = std::make_shared<ForgetfulImpl>();
  EXPECT_THAT(errorOf([&] { forgetful->clone(); }),
              HasSubstr("clone: (anonymous namespace)::ForgetfulImpl::reset() registered "
                        "1 parameters but the original has 2"));
  auto holds = std::make_shared<HoldsPlainImpl>();
  EXPECT_THAT(errorOf([&] { holds->clone(); }),
              HasSubstr("clone: the submodule (anonymous namespace)::PlainImpl of a "
                        "Cloneable module is not Cloneable itself"));
}

}  // namespace
