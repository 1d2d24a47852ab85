// Sequential, ModuleList, AnyModule and OrderedDict: the brief's CNN,
// chaining, naming, typed access, printing and errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include <torch/torch.h>

#include "nn/nn.h"
#include "tests/nn/nn_test_util.h"
#include "tests/support/error_of.h"

namespace {

namespace nn = torch::nn;
namespace F = torch::nn::functional;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ember_test::errorOf;

TEST(Sequential, BriefCnnRunsPrintsAndNamesParameters) {
  torch::manual_seed(0);
  nn::Sequential seq(nn::Conv2d(nn::Conv2dOptions(1, 32, 3).padding(1)), nn::ReLU(),
                     nn::MaxPool2d(2), nn::Flatten(), nn::Linear(32 * 14 * 14, 10));
  auto x = torch::randn({2, 1, 28, 28});
  auto target = nn_test::make<int64_t>({2}, {3, 7});
  auto loss = F::cross_entropy(seq->forward(x), target);
  loss.backward();
  std::ostringstream names;
  for (auto& p : seq->named_parameters()) names << p.key() << p.value().sizes() << ";";
  EXPECT_EQ(names.str(), "0.weight[32, 1, 3, 3];0.bias[32];4.weight[10, 6272];4.bias[10];");
  for (const auto& p : seq->parameters()) EXPECT_TRUE(p.grad().defined());
  std::ostringstream printed;
  printed << *seq;
  EXPECT_EQ(printed.str(),
            "torch::nn::Sequential(\n"
            "  (0): torch::nn::Conv2d(1, 32, kernel_size=[3, 3], stride=[1, 1], padding=[1, 1])\n"
            "  (1): torch::nn::ReLU()\n"
            "  (2): torch::nn::MaxPool2d(kernel_size=[2, 2], stride=[2, 2], padding=[0, 0], "
            "dilation=[1, 1], ceil_mode=false)\n"
            "  (3): torch::nn::Flatten(start_dim=1, end_dim=-1)\n"
            "  (4): torch::nn::Linear(in_features=6272, out_features=10, bias=true)\n"
            ")");
  std::ostringstream empty;
  empty << *nn::Sequential();
  EXPECT_EQ(empty.str(), "torch::nn::Sequential");
}

TEST(Sequential, ForwardChainsModulesInOrder) {
  nn::Sequential seq(nn::Linear(3, 4), nn::ReLU(), nn::Linear(4, 2));
  auto x = torch::randn({5, 3});
  auto expected = seq->ptr<nn::LinearImpl>(2)->forward(
      torch::relu(seq->ptr<nn::LinearImpl>(0)->forward(x)));
  EXPECT_TRUE(seq->forward(x).equal(expected));
  EXPECT_TRUE(seq(x).equal(expected));
  EXPECT_EQ(seq->size(), 3u);
  EXPECT_EQ(seq[1]->name(), "torch::nn::ReLUImpl");
  EXPECT_EQ(seq->ptr(0)->name(), "torch::nn::LinearImpl");
  EXPECT_EQ(seq->at<nn::LinearImpl>(2).options.out_features(), 2);
  int count = 0;
  for (auto& module : *seq) count += module.ptr() != nullptr;
  EXPECT_EQ(count, 3);
}

TEST(Sequential, PushBackNamedModulesAndExtend) {
  nn::Sequential seq({{"fc", nn::Linear(2, 2)}, {"act", nn::Tanh()}});
  seq->push_back("out", nn::Linear(2, 1));
  seq->push_back(std::make_shared<nn::SigmoidImpl>());
  seq->push_back(nn::IdentityImpl());
  EXPECT_THAT(seq->named_children().keys(), ElementsAre("fc", "act", "out", "3", "4"));
  nn::Sequential more;
  more->extend(*seq);
  EXPECT_EQ(more->size(), 5u);
  EXPECT_EQ(more->ptr(0).get(), seq->ptr(0).get());  // shared, not copied
  EXPECT_EQ(more->forward(torch::ones({1, 2})).sizes(), (std::vector<int64_t>{1, 1}));
  EXPECT_THAT(errorOf([&] { seq->push_back("fc", nn::ReLU()); }),
              HasSubstr("Submodule 'fc' already defined"));
  EXPECT_EQ(seq->size(), 5u);  // the failed push_back added nothing
}

TEST(Sequential, Errors) {
  nn::Sequential empty;
  EXPECT_THAT(errorOf([&] { empty->forward(torch::ones({1})); }),
              HasSubstr("Sequential::forward: the Sequential is empty"));
  nn::Sequential seq{nn::ReLU()};
  EXPECT_THAT(errorOf([&] { seq->ptr(3); }),
              HasSubstr("Sequential::ptr: index 3 is out of range for a Sequential of 1 modules"));
  EXPECT_THAT(errorOf([&] { seq->ptr<nn::LinearImpl>(0); }),
              HasSubstr("attempted to cast module of type torch::nn::ReLUImpl to type "
                        "torch::nn::LinearImpl"));
  EXPECT_THAT(errorOf([&] { seq->forward(torch::ones({1}), torch::ones({1})); }),
              HasSubstr("torch::nn::ReLUImpl's forward() expects 1 argument(s), but received 2"));
  EXPECT_THAT(errorOf([&] { seq->push_back(nn::AnyModule()); }),
              HasSubstr("is an empty AnyModule"));
}

TEST(AnyModule, ForwardsOneOrMoreTensorsAndCastsBack) {
  nn::AnyModule any(nn::Linear(3, 2));
  auto x = torch::ones({1, 3});
  auto linear = any.get<nn::Linear>();
  EXPECT_TRUE(any.forward(x).equal(linear(x)));
  EXPECT_TRUE(any.forward<torch::Tensor>(x).equal(linear(x)));
  EXPECT_EQ(&any.get<nn::LinearImpl>(), linear.get());
  EXPECT_EQ(any.ptr().get(), linear.get());
  EXPECT_TRUE(any.type_info() == typeid(nn::LinearImpl));
  nn::AnyModule loss{nn::MSELoss(torch::kSum)};
  auto l = loss.forward(torch::ones({2}), torch::zeros({2}));
  EXPECT_EQ(l.item<float>(), 2.0f);
  EXPECT_THAT(errorOf([&] { loss.forward(torch::ones({2})); }),
              HasSubstr("torch::nn::MSELossImpl's forward() expects 2 argument(s), but received 1"));
  nn::AnyModule empty;
  EXPECT_TRUE(empty.is_empty());
  EXPECT_THAT(errorOf([&] { empty.forward(x); }),
              HasSubstr("AnyModule::forward: this AnyModule is empty"));
  EXPECT_THAT(errorOf([&] { any.get<nn::ReLUImpl>(); }),
              HasSubstr("AnyModule::get: attempted to cast module of type torch::nn::LinearImpl "
                        "to type torch::nn::ReLUImpl"));
}

TEST(ModuleList, HoldsRegistersAndPrints) {
  nn::ModuleList list(nn::ReLU(), nn::Linear(2, 3));
  list->push_back(nn::Linear(3, 3));
  EXPECT_EQ(list->size(), 3u);
  EXPECT_THAT(list->named_children().keys(), ElementsAre("0", "1", "2"));
  EXPECT_EQ(list->parameters().size(), 4u);
  auto x = torch::ones({1, 2});
  for (const auto& module : *list) {
    if (auto* linear = module->as<nn::Linear>()) x = linear->forward(x);
  }
  EXPECT_EQ(x.sizes(), (std::vector<int64_t>{1, 3}));
  list->insert(0, nn::Tanh());
  EXPECT_EQ(list[0]->name(), "torch::nn::TanhImpl");
  EXPECT_EQ(list->ptr<nn::LinearImpl>(2)->options.in_features(), 2);
  EXPECT_THAT(list->named_children().keys(), ElementsAre("0", "1", "2", "3"));
  EXPECT_EQ(list->named_children()["1"]->name(), "torch::nn::ReLUImpl");
  std::ostringstream printed;
  printed << *nn::ModuleList(nn::ReLU(), nn::Linear(2, 3));
  EXPECT_EQ(printed.str(),
            "torch::nn::ModuleList(\n"
            "  (0): torch::nn::ReLU()\n"
            "  (1): torch::nn::Linear(in_features=2, out_features=3, bias=true)\n"
            ")");
  EXPECT_THAT(errorOf([&] { list->ptr<nn::LinearImpl>(0); }),
              HasSubstr("ModuleList::ptr: module 0 is a torch::nn::TanhImpl, not a "
                        "torch::nn::LinearImpl"));
  EXPECT_THAT(errorOf([&] { list->insert(9, nn::ReLU()); }),
              HasSubstr("ModuleList::insert: index 9 is out of range for a ModuleList of 4"));
  EXPECT_THAT(errorOf([&] { list->at<nn::ReLUImpl>(7); }),
              HasSubstr("ModuleList::ptr: index 7 is out of range"));
}

TEST(OrderedDict, InsertionOrderLookupAndErrors) {
  torch::OrderedDict<std::string, int> dict("Thing");
  dict.insert("b", 2);
  dict.insert("a", 1);
  dict.insert("c", 3);
  EXPECT_THAT(dict.keys(), ElementsAre("b", "a", "c"));
  EXPECT_THAT(dict.values(), ElementsAre(2, 1, 3));
  EXPECT_EQ(dict["a"], 1);
  EXPECT_EQ(dict[2].key(), "c");
  EXPECT_EQ(*dict[0], 2);
  EXPECT_TRUE(dict.contains("c"));
  EXPECT_FALSE(dict.contains("z"));
  EXPECT_EQ(dict.find("z"), nullptr);
  ASSERT_NE(dict.find("b"), nullptr);
  *dict.find("b") = 20;
  EXPECT_EQ(dict.front().value(), 20);
  EXPECT_EQ(dict.back().key(), "c");
  EXPECT_EQ(dict.size(), 3u);
  std::string order;
  for (const auto& item : dict) order += item.key();
  EXPECT_EQ(order, "bac");
  dict.erase("a");
  EXPECT_THAT(dict.keys(), ElementsAre("b", "c"));
  EXPECT_EQ(dict["c"], 3);  // the index follows the erase
  EXPECT_THAT(errorOf([&] { dict.insert("b", 5); }),
              HasSubstr("OrderedDict::insert: Thing 'b' already defined"));
  EXPECT_THAT(errorOf([&] { dict["x"]; }), HasSubstr("OrderedDict: Thing 'x' is not defined"));
  EXPECT_THAT(errorOf([&] { dict[5]; }),
              HasSubstr("OrderedDict: index 5 is out of range for a dict of size 2"));
  EXPECT_THAT(errorOf([&] { dict.erase("x"); }),
              HasSubstr("OrderedDict::erase: Thing 'x' is not defined"));
  torch::OrderedDict<std::string, int> other;
  other.insert("c", 30);
  other.insert("d", 4);
  dict.update(other);
  EXPECT_THAT(dict.keys(), ElementsAre("b", "c", "d"));
  EXPECT_EQ(dict["c"], 30);
  dict.clear();
  EXPECT_TRUE(dict.is_empty());
  EXPECT_THAT(errorOf([&] { dict.front(); }), HasSubstr("OrderedDict::front: the dict is empty"));
  torch::OrderedDict<std::string, int> listed = {{"x", 1}, {"y", 2}};
  EXPECT_EQ(listed.key_description(), "Key");
  EXPECT_THAT(listed.keys(), ElementsAre("x", "y"));
}

}  // namespace
