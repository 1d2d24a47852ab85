// torch::nn::Module: registration and its name rules, recursive accessors
// and dotted names, train/eval, to() keeping tensor identity (set_data),
// zero_grad, apply, printing, and the ModuleHolder/TORCH_MODULE pattern
// with the brief's example network.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include <torch/torch.h>

#include "nn/nn.h"
#include "tests/nn/nn_test_util.h"
#include "tests/support/error_of.h"

// At global scope so that name() is "NetImpl", as in a user's program.
struct NetImpl : torch::nn::Module {
  NetImpl() : fc1(register_module("fc1", torch::nn::Linear(784, 512))) {
    fc2 = register_module("fc2", torch::nn::Linear(torch::nn::LinearOptions(512, 10).bias(true)));
  }
  torch::Tensor forward(torch::Tensor x) { return fc2->forward(torch::relu(fc1->forward(x))); }
  torch::nn::Linear fc1, fc2{nullptr};
};
TORCH_MODULE(Net);

// A module with its own parameter, a buffer and a nested child.
struct BlockImpl : torch::nn::Module {
  BlockImpl() {
    scale = register_parameter("scale", torch::ones({3}));
    count = register_buffer("count", torch::zeros({1}, torch::kLong));
    inner = register_module("inner", torch::nn::Linear(3, 2));
  }
  torch::Tensor forward(const torch::Tensor& x) { return inner->forward(x * scale); }
  torch::Tensor scale, count;
  torch::nn::Linear inner{nullptr};
};
TORCH_MODULE(Block);

struct OuterImpl : torch::nn::Module {
  OuterImpl() {
    block = register_module("block", Block());
    head = register_module("head", torch::nn::Linear(2, 1));
  }
  Block block{nullptr};
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(Outer);

namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ember_test::errorOf;

std::vector<std::string> keys_of(const torch::OrderedDict<std::string, torch::Tensor>& dict) {
  return dict.keys();
}

TEST(Module, BriefExampleTrainsAndNamesParameters) {
  torch::manual_seed(0);
  Net net;
  auto x = torch::randn({4, 784});
  auto target = nn_test::make<int64_t>({4}, {1, 2, 3, 4});
  auto loss = torch::nn::functional::cross_entropy(net->forward(x), target);
  loss.backward();
  std::vector<std::string> names;
  for (auto& p : net->named_parameters()) {
    names.push_back(p.key());
    EXPECT_TRUE(p.value().grad().defined()) << p.key();
  }
  EXPECT_THAT(names, ElementsAre("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"));
  EXPECT_EQ(net->named_parameters()["fc1.weight"].sizes(), (std::vector<int64_t>{512, 784}));
  EXPECT_EQ(net->name(), "NetImpl");
  EXPECT_EQ(net->fc1->name(), "torch::nn::LinearImpl");
  // One SGD step lowers the loss.
  {
    torch::NoGradGuard no_grad;
    for (auto& p : net->parameters()) p.sub_(p.grad() * 0.1);
  }
  auto loss2 = torch::nn::functional::cross_entropy(net(x), target);
  EXPECT_LT(loss2.item<float>(), loss.item<float>());
}

TEST(Module, RecursiveAccessorsUseDottedNamesInRegistrationOrder) {
  Outer outer;
  EXPECT_THAT(keys_of(outer->named_parameters()),
              ElementsAre("block.scale", "block.inner.weight", "block.inner.bias", "head.weight",
                          "head.bias"));
  EXPECT_THAT(keys_of(outer->named_parameters(/*recurse=*/false)), ElementsAre());
  EXPECT_THAT(keys_of(outer->block->named_parameters(false)), ElementsAre("scale"));
  EXPECT_THAT(keys_of(outer->named_buffers()), ElementsAre("block.count"));
  EXPECT_EQ(outer->buffers().size(), 1u);
  EXPECT_EQ(outer->parameters().size(), 5u);
  EXPECT_EQ(outer->children().size(), 2u);
  EXPECT_THAT(outer->named_children().keys(), ElementsAre("block", "head"));
  EXPECT_THAT(outer->named_modules().keys(), ElementsAre("", "block", "block.inner", "head"));
  EXPECT_THAT(outer->named_modules("net", false).keys(),
              ElementsAre("net.block", "net.block.inner", "net.head"));
  EXPECT_EQ(outer->modules().size(), 4u);
  EXPECT_EQ(outer->modules(false).size(), 3u);
  EXPECT_EQ(outer->modules()[0].get(), outer.get());
  // The accessors hand out the registered tensors themselves.
  EXPECT_TRUE(outer->named_parameters()["block.scale"].is_same(outer->block->scale));
}

TEST(Module, SharedSubmoduleIsListedOnceByNamedModules) {
  struct TwiceImpl : torch::nn::Module {
    TwiceImpl() {
      auto shared = std::make_shared<torch::nn::LinearImpl>(2, 2);
      register_module("a", shared);
      register_module("b", shared);
    }
  };
  auto twice = std::make_shared<TwiceImpl>();
  EXPECT_THAT(twice->named_modules().keys(), ElementsAre("", "a"));
  EXPECT_EQ(twice->children().size(), 2u);
}

TEST(Module, RegistrationRejectsBadNames) {
  Net net;
  EXPECT_THAT(errorOf([&] { net->register_module("fc1", torch::nn::Linear(1, 1)); }),
              HasSubstr("Submodule 'fc1' already defined"));
  EXPECT_THAT(errorOf([&] { net->register_module("a.b", torch::nn::Linear(1, 1)); }),
              HasSubstr("Submodule name 'a.b' contains a dot"));
  EXPECT_THAT(errorOf([&] { net->register_module("", torch::nn::Linear(1, 1)); }),
              HasSubstr("the Submodule name must not be empty"));
  EXPECT_THAT(errorOf([&] { net->register_parameter("fc1", torch::ones(1)); }),
              HasSubstr("register_parameter: Submodule 'fc1' already defined"));
  EXPECT_THAT(errorOf([&] { net->register_buffer("x.y", torch::ones(1)); }),
              HasSubstr("Buffer name 'x.y' contains a dot"));
  net->register_buffer("stat", torch::ones(1));
  EXPECT_THAT(errorOf([&] { net->register_parameter("stat", torch::ones(1)); }),
              HasSubstr("Buffer 'stat' already defined in this module (NetImpl)"));
  torch::nn::Linear empty{nullptr};
  EXPECT_THAT(errorOf([&] { net->register_module("empty", empty); }),
              HasSubstr("'empty' is an empty ModuleHolder"));
  EXPECT_THAT(errorOf([&] { net->register_module("null", std::shared_ptr<NetImpl>()); }),
              HasSubstr("the submodule 'null' is null"));
  // Nothing half-registered remains after the failures.
  EXPECT_THAT(net->named_children().keys(), ElementsAre("fc1", "fc2"));
}

TEST(Module, RegisterParameterSetsRequiresGradAndSkipsUndefined) {
  torch::nn::Module m("Custom");
  // (Copies: the returned reference is only valid until the next registration.)
  auto w = m.register_parameter("w", torch::ones({2}));
  auto frozen = m.register_parameter("frozen", torch::ones({2}), /*requires_grad=*/false);
  m.register_parameter("absent", torch::Tensor(), /*requires_grad=*/false);
  EXPECT_TRUE(w.requires_grad());
  EXPECT_FALSE(frozen.requires_grad());
  EXPECT_THAT(keys_of(m.named_parameters()), ElementsAre("w", "frozen"));
  EXPECT_EQ(m.name(), "Custom");
}

TEST(Module, UnregisterModule) {
  Net net;
  net->unregister_module("fc2");
  EXPECT_THAT(net->named_children().keys(), ElementsAre("fc1"));
  EXPECT_THAT(keys_of(net->named_parameters()), ElementsAre("fc1.weight", "fc1.bias"));
  EXPECT_THAT(errorOf([&] { net->unregister_module("fc2"); }),
              HasSubstr("unregister_module: there is no Submodule named 'fc2'"));
  // The name is free again.
  net->register_module("fc2", torch::nn::Linear(512, 3));
  EXPECT_EQ(net->children().size(), 2u);
}

TEST(Module, ReplaceModuleKeepsPosition) {
  Outer outer;
  auto fresh = outer->replace_module("block", torch::nn::Linear(3, 3));
  EXPECT_THAT(outer->named_children().keys(), ElementsAre("block", "head"));
  EXPECT_EQ(outer->named_children()["block"].get(), fresh.get());
  EXPECT_THAT(errorOf([&] { outer->replace_module("nope", torch::nn::Linear(1, 1)); }),
              HasSubstr("Submodule 'nope' is not defined"));
}

TEST(Module, TrainAndEvalPropagate) {
  Outer outer;
  EXPECT_TRUE(outer->is_training());
  outer->eval();
  for (const auto& m : outer->modules()) EXPECT_FALSE(m->is_training()) << m->name();
  outer->train();
  for (const auto& m : outer->modules()) EXPECT_TRUE(m->is_training()) << m->name();
  outer->block->train(false);
  EXPECT_TRUE(outer->is_training());
  EXPECT_FALSE(outer->block->inner->is_training());
}

TEST(Module, ToDtypeKeepsParameterAndGradIdentity) {
  Outer outer;
  auto weight = outer->head->weight;  // a second handle on the parameter
  auto out = outer->head->forward(torch::ones({1, 2}));
  out.sum().backward();
  auto grad = weight.grad();
  ASSERT_TRUE(grad.defined());
  const auto* impl_before = weight.unsafeGetTensorImpl();
  auto expected = weight.to(torch::kDouble);

  outer->to(torch::kDouble);

  EXPECT_EQ(weight.unsafeGetTensorImpl(), impl_before);
  EXPECT_EQ(weight.scalar_type(), torch::kDouble);
  EXPECT_TRUE(weight.requires_grad());
  EXPECT_TRUE(weight.is_leaf());
  EXPECT_TRUE(weight.equal(expected));
  EXPECT_EQ(grad.scalar_type(), torch::kDouble);  // the same grad tensor, converted
  EXPECT_TRUE(weight.grad().is_same(grad));
  for (const auto& p : outer->parameters()) EXPECT_EQ(p.scalar_type(), torch::kDouble);
  // Integer buffers keep their dtype.
  EXPECT_EQ(outer->block->count.scalar_type(), torch::kLong);
  // Training continues in the new dtype: gradients accumulate into the grad.
  auto out2 = outer->head->forward(torch::ones({1, 2}, torch::kDouble));
  out2.sum().backward();
  EXPECT_EQ(weight.grad().scalar_type(), torch::kDouble);
  EXPECT_TRUE(weight.grad().equal(torch::full({1, 2}, 2.0, torch::kDouble)));
  outer->to(torch::kCPU, torch::kFloat);
  EXPECT_EQ(weight.scalar_type(), torch::kFloat);
  outer->to(torch::Device(torch::kCPU));
  EXPECT_EQ(weight.device(), torch::Device(torch::kCPU));
}

TEST(Module, SetDataSwapsContentsAndRejectsNonLeaves) {
  auto a = torch::ones({2}, torch::requires_grad());
  auto b = torch::zeros({3}, torch::kDouble);
  a.set_data(b);
  EXPECT_EQ(a.sizes(), (std::vector<int64_t>{3}));
  EXPECT_EQ(a.scalar_type(), torch::kDouble);
  EXPECT_TRUE(a.requires_grad());
  b.fill_(5);  // the storage is shared, as in libtorch
  EXPECT_EQ(a[0].item<double>(), 5.0);
  auto y = a * 2;
  EXPECT_THAT(errorOf([&] { y.set_data(b); }),
              HasSubstr("set_data: the tensor has autograd history"));
  EXPECT_THAT(errorOf([&] { a.set_data(torch::Tensor()); }),
              HasSubstr("set_data: both tensors must be defined"));
}

TEST(Module, ZeroGradSetsToNoneOrZeros) {
  Net net;
  net->forward(torch::ones({1, 784})).sum().backward();
  auto grad = net->fc1->weight.grad();
  net->zero_grad(/*set_to_none=*/false);
  EXPECT_TRUE(net->fc1->weight.grad().is_same(grad));
  EXPECT_EQ(grad.abs().sum().item<float>(), 0.0f);
  net->zero_grad();
  for (const auto& p : net->parameters()) EXPECT_FALSE(p.grad().defined());
  net->zero_grad(false);  // nothing to zero: no error
}

TEST(Module, ApplyVisitsEveryModuleWithNames) {
  Outer outer;
  std::vector<std::string> names;
  outer->apply([&](const std::string& name, torch::nn::Module&) { names.push_back(name); });
  EXPECT_THAT(names, ElementsAre("", "block", "block.inner", "head"));
  int count = 0;
  outer->apply([&](torch::nn::Module& m) {
    if (auto* linear = m.as<torch::nn::Linear>()) {
      torch::nn::init::zeros_(linear->weight);
      ++count;
    }
  });
  EXPECT_EQ(count, 2);
  EXPECT_EQ(outer->head->weight.abs().sum().item<float>(), 0.0f);
  std::vector<std::string> pointer_names;
  outer->apply([&](const std::string& name, const std::shared_ptr<torch::nn::Module>& m) {
    pointer_names.push_back(name + "=" + m->name());
  });
  EXPECT_THAT(pointer_names, ElementsAre("=OuterImpl", "block=BlockImpl",
                                         "block.inner=torch::nn::LinearImpl",
                                         "head=torch::nn::LinearImpl"));
}

TEST(Module, PointerAccessOnUnownedModuleThrows) {
  torch::nn::LinearImpl stack_linear(2, 2);
  EXPECT_THAT(errorOf([&] { stack_linear.modules(); }),
              HasSubstr("is not owned by a std::shared_ptr"));
  EXPECT_EQ(stack_linear.modules(/*include_self=*/false).size(), 0u);
}

TEST(Module, PrettyPrintsLikeLibtorch) {
  Net net;
  std::ostringstream out;
  out << *net;
  EXPECT_EQ(out.str(),
            "NetImpl(\n"
            "  (fc1): torch::nn::Linear(in_features=784, out_features=512, bias=true)\n"
            "  (fc2): torch::nn::Linear(in_features=512, out_features=10, bias=true)\n"
            ")");
  std::ostringstream nested;
  Outer outer;
  nested << outer;  // the holder prints its module
  EXPECT_EQ(nested.str(),
            "OuterImpl(\n"
            "  (block): BlockImpl(\n"
            "    (inner): torch::nn::Linear(in_features=3, out_features=2, bias=true)\n"
            "  )\n"
            "  (head): torch::nn::Linear(in_features=2, out_features=1, bias=true)\n"
            ")");
}

TEST(ModuleHolder, EmptyHolderAccessThrows) {
  torch::nn::Linear empty{nullptr};
  EXPECT_TRUE(empty.is_empty());
  EXPECT_FALSE(static_cast<bool>(empty));
  EXPECT_THAT(errorOf([&] { empty->forward(torch::ones({1})); }),
              HasSubstr("accessing an empty ModuleHolder"));
  empty = torch::nn::Linear(2, 3);
  EXPECT_EQ(empty->forward(torch::ones({1, 2})).sizes(), (std::vector<int64_t>{1, 3}));
  // Copies share the module.
  torch::nn::Linear copy = empty;
  EXPECT_EQ(copy.get(), empty.get());
  EXPECT_EQ(copy(torch::ones({4, 2})).sizes(), (std::vector<int64_t>{4, 3}));
}

}  // namespace
