// The CPU plugin's arithmetic kernels (add, sub, mul, div, type promotion),
// called directly (not through the dispatcher), checked against plain
// references on contiguous, transposed, broadcast, zero-size and 0-dim
// inputs of every dtype.
#include "tests/backends/cpu/cpu_test_util.h"

namespace {

using namespace ember_cpu_test;  // NOLINT: the shared test helpers

// ---- type promotion --------------------------------------------------------------

TEST(TypePromotion, FollowsTorchResultType) {
  struct Case {
    at::Tensor a, b;
    ScalarType expected;
  };
  const Case cases[] = {
      {ones({2}, c10::kInt), ones({2}, c10::kFloat), c10::kFloat},
      {ones({2}, c10::kByte), ones({2}, c10::kChar), c10::kShort},
      {ones({2}, c10::kFloat), scalar_tensor(1, c10::kDouble), c10::kFloat},
      {wrapped(2, c10::kLong), ones({2}, c10::kFloat), c10::kFloat},
      {ones({2}, c10::kInt), wrapped(2.5, c10::kDouble), c10::kFloat},
      {ones({2}, c10::kInt), scalar_tensor(1, c10::kLong), c10::kInt},
      {ones({2}, c10::kInt), scalar_tensor(1, c10::kDouble), c10::kDouble},
      {ones({2}, c10::kBool), wrapped(2, c10::kLong), c10::kLong},
      {ones({2}, c10::kHalf), wrapped(2.5, c10::kDouble), c10::kHalf},
      {ones({2}, c10::kByte), wrapped(300, c10::kLong), c10::kByte},
      {scalar_tensor(1, c10::kInt), wrapped(1.5, c10::kDouble), c10::kFloat},
      {ones({2}, c10::kHalf), ones({2}, c10::kBFloat16), c10::kFloat},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(at::result_type({&c.a, &c.b}), c.expected)
        << c.a.dtype() << " with " << c.b.dtype();
    EXPECT_EQ(cpu::add(c.a, c.b, 1).dtype(), c.expected);
  }
}

TEST(TypePromotion, ValuesAreComputedInThePromotedType) {
  at::Tensor i = tensor({1, 2, 3}, {3}, c10::kInt);
  expect_values(cpu::add(i, tensor({0.5, 0.25, 0.125}, {3}), 1), {1.5, 2.25, 3.125});
  expect_values(cpu::add(tensor({200, 10}, {2}, c10::kByte),
                         tensor({-100, 5}, {2}, c10::kChar), 1),
                {100, 15});
  at::Tensor f = tensor({1, 2}, {2});
  at::Tensor r = cpu::mul(f, scalar_tensor(0.1, c10::kDouble));
  EXPECT_EQ(r.dtype(), c10::kFloat);
  expect_values(r, {0.1, 0.2}, 1e-6);
  expect_values(cpu::add(wrapped(3, c10::kLong), f, 1), {4, 5});
  expect_values(cpu::mul(i, wrapped(0.5, c10::kDouble)), {0.5, 1, 1.5});
}

// ---- add / sub / mul / div -----------------------------------------------------------

TEST(Add, ContiguousFloatMatchesReference) {
  at::Tensor a = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  at::Tensor b = tensor({10, 20, 30, 40, 50, 60}, {2, 3});
  at::Tensor c = cpu::add(a, b, 2);
  EXPECT_EQ(c.sizes(), c10::IntArrayRef({2, 3}));
  EXPECT_TRUE(c.is_contiguous());
  expect_values(c, {21, 42, 63, 84, 105, 126});
}

TEST(Add, EveryDtypeOnContiguousTransposedAndBroadcastInputs) {
  for (ScalarType t : kAllDtypes) {
    const std::vector<double> av = sample(t, 0);
    const std::vector<double> bv = sample(t, 1);
    const int64_t alpha = t == ScalarType::Bool ? 1 : 2;
    auto ref = [alpha](double x, double y) { return x + static_cast<double>(alpha) * y; };
    const auto expected = map2(av, bv, t, ref);
    expect_values(cpu::add(tensor(av, {2, 3}, t), tensor(bv, {2, 3}, t), alpha), expected);
    // Both transposed: the iterator walks them in memory order.
    expect_values(cpu::add(transposed_tensor(av, 2, 3, t), transposed_tensor(bv, 2, 3, t),
                           alpha),
                  expected);
    // One transposed, one contiguous.
    expect_values(cpu::add(transposed_tensor(av, 2, 3, t), tensor(bv, {2, 3}, t), alpha),
                  expected);
    // A row broadcast down the columns, as [3] and as an expanded view.
    const std::vector<double> row(bv.begin(), bv.begin() + 3);
    std::vector<double> brow = row;
    brow.insert(brow.end(), row.begin(), row.end());
    const auto expected_row = map2(av, brow, t, ref);
    expect_values(cpu::add(tensor(av, {2, 3}, t), tensor(row, {3}, t), alpha), expected_row);
    at::Tensor expanded = view(tensor(row, {3}, t), {2, 3}, {0, 1});
    expect_values(cpu::add(tensor(av, {2, 3}, t), expanded, alpha), expected_row);
    expect_values(cpu::add(tensor(row, {1, 3}, t), tensor(av, {2, 3}, t), alpha),
                  map2(brow, av, t, ref));
  }
}

TEST(SubMul, EveryDtypeMatchesReference) {
  for (ScalarType t : kAllDtypes) {
    const std::vector<double> av = sample(t, 0);
    const std::vector<double> bv = sample(t, 1);
    at::Tensor a = tensor(av, {2, 3}, t);
    at::Tensor b = transposed_tensor(bv, 2, 3, t);
    expect_values(cpu::mul(a, b), map2(av, bv, t, [](double x, double y) { return x * y; }));
    if (t == ScalarType::Bool) continue;
    expect_values(cpu::sub(a, b, 3),
                  map2(av, bv, t, [](double x, double y) { return x - 3 * y; }));
  }
}

TEST(Add, IntegersWrapAndHalfComputesInFloat) {
  expect_values(cpu::add(tensor({100, -128}, {2}, c10::kChar),
                         tensor({100, -1}, {2}, c10::kChar), 1),
                {-56, 127});
  // 2048 + 1 is not a Half; 2048 + 1 + 1 computed in float rounds once.
  expect_values(cpu::add(tensor({2048}, {1}, c10::kHalf), tensor({1}, {1}, c10::kHalf), 2),
                {2050});
  expect_values(cpu::add(tensor({1.5}, {1}, c10::kBFloat16),
                         tensor({0.25}, {1}, c10::kBFloat16), 1),
                {1.75});
}

TEST(Div, IsTrueDivisionAndPromotesIntegersToFloat) {
  at::Tensor a = tensor({7, -7, 1, 0}, {4}, c10::kLong);
  at::Tensor b = tensor({2, 2, 0, 0}, {4}, c10::kInt);
  at::Tensor q = cpu::div(a, b);
  EXPECT_EQ(q.dtype(), c10::kFloat);
  expect_values(q, {3.5, -3.5, INFINITY, NAN});
  for (ScalarType t : {c10::kDouble, c10::kHalf, c10::kBFloat16}) {
    at::Tensor r = cpu::div(tensor({1, 3, -5}, {3}, t), tensor({4, 2, 8}, {3}, t));
    EXPECT_EQ(r.dtype(), t);
    expect_values(r, {0.25, 1.5, -0.625});
  }
  expect_values(cpu::div(tensor({1, 0}, {2}, c10::kBool), tensor({1, 1}, {2}, c10::kBool)),
                {1, 0});
}

TEST(Add, ZeroSizeInputsMakeZeroSizeOutputs) {
  at::Tensor c = cpu::add(empty({0, 3}), tensor({1, 2, 3}, {3}), 1);
  EXPECT_EQ(c.sizes(), c10::IntArrayRef({0, 3}));
  EXPECT_EQ(c.numel(), 0);
  EXPECT_EQ(cpu::mul(empty({0}), empty({1})).sizes(), c10::IntArrayRef({0}));
  EXPECT_EQ(cpu::eq(empty({2, 0}, c10::kInt), empty({0})).dtype(), c10::kBool);
  EXPECT_EQ(cpu::exp(empty({0}, c10::kInt)).numel(), 0);
  EXPECT_THAT(errorOf([] { cpu::add(empty({0}), empty({2}), 1); }),
              HasSubstr("shapes [0] and [2] cannot be broadcast together"));
}

TEST(Add, ZeroDimInputs) {
  at::Tensor c = cpu::add(scalar_tensor(2, c10::kFloat), scalar_tensor(3, c10::kFloat), 1);
  EXPECT_EQ(c.dim(), 0);
  expect_values(c, {5});
  at::Tensor d = cpu::add(tensor({1, 2, 3}, {3}), scalar_tensor(10, c10::kFloat), 2);
  EXPECT_EQ(d.sizes(), c10::IntArrayRef({3}));
  expect_values(d, {21, 22, 23});
  // A 0-dim input converted to the common dtype, and a 0-dim result.
  at::Tensor e = cpu::mul(scalar_tensor(3, c10::kInt), wrapped(0.5, c10::kDouble));
  EXPECT_EQ(e.dim(), 0);
  EXPECT_EQ(e.dtype(), c10::kFloat);
  expect_values(e, {1.5});
}

TEST(Add, OutVariantResizesAndCasts) {
  at::Tensor a = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  at::Tensor b = tensor({1, 1, 1}, {3});
  WarningRecorder warnings;
  c10::WarningUtils::WarningHandlerGuard guard(&warnings);

  at::Tensor out = empty({0});
  at::Tensor& r = cpu::add_out(a, b, 1, out);
  EXPECT_TRUE(r.is_same(out));
  EXPECT_EQ(out.sizes(), c10::IntArrayRef({2, 3}));
  expect_values(out, {2, 3, 4, 5, 6, 7});
  EXPECT_TRUE(warnings.messages.empty());

  at::Tensor wrong = empty({4});
  cpu::add_out(a, b, 1, wrong);
  EXPECT_EQ(wrong.sizes(), c10::IntArrayRef({2, 3}));
  expect_values(wrong, {2, 3, 4, 5, 6, 7});
  ASSERT_EQ(warnings.messages.size(), 1u);
  EXPECT_THAT(warnings.messages[0], HasSubstr("was resized since it had shape [4]"));

  at::Tensor wider = empty({2, 3}, c10::kDouble);
  cpu::add_out(a, b, 1, wider);
  expect_values(wider, {2, 3, 4, 5, 6, 7});
  at::Tensor narrower = empty({2, 3}, c10::kInt);
  EXPECT_THAT(errorOf([&] { cpu::add_out(a, b, 1, narrower); }),
              HasSubstr("add: result type Float can't be cast to the desired output "
                        "type Int"));

  // A transposed output is written through its strides.
  at::Tensor t = transposed(empty({3, 2}));
  cpu::mul_out(a, b, t);
  expect_values(t, {1, 2, 3, 4, 5, 6});
  at::Tensor d = empty({3}, c10::kHalf);
  cpu::div_out(tensor({1, 2, 3}, {3}, c10::kInt), tensor({2, 2, 2}, {3}, c10::kInt), d);
  expect_values(d, {0.5, 1, 1.5});
  cpu::sub_out(a, b, 1, out);
  expect_values(out, {0, 1, 2, 3, 4, 5});
}

TEST(Add, InPlaceBroadcastsOtherButNotSelf) {
  at::Tensor a = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  at::Tensor& r = cpu::add_(a, tensor({10, 20, 30}, {3}), 1);
  EXPECT_TRUE(r.is_same(a));
  expect_values(a, {11, 22, 33, 14, 25, 36});
  at::Tensor row = tensor({1, 2, 3}, {3});
  EXPECT_THAT(errorOf([&] { cpu::add_(row, a, 1); }),
              HasSubstr("add_: the output has shape [3] but the inputs broadcast to "
                        "shape [2, 3]"));
  // In place on a transposed tensor, and with itself as the other operand.
  at::Tensor t = transposed_tensor({1, 2, 3, 4, 5, 6}, 2, 3);
  cpu::mul_(t, t);
  expect_values(t, {1, 4, 9, 16, 25, 36});
  cpu::sub_(t, tensor({1, 1, 1, 1, 1, 1}, {2, 3}), 1);
  expect_values(t, {0, 3, 8, 15, 24, 35});
  cpu::div_(t, scalar_tensor(2, c10::kDouble));
  expect_values(t, {0, 1.5, 4, 7.5, 12, 17.5});
  // Half in place with a Float operand: computed in Float, written back.
  at::Tensor h = tensor({1, 2}, {2}, c10::kHalf);
  cpu::add_(h, tensor({0.5, 0.5}, {2}), 1);
  EXPECT_EQ(h.dtype(), c10::kHalf);
  expect_values(h, {1.5, 2.5});
  at::Tensor i = tensor({1, 2}, {2}, c10::kLong);
  EXPECT_THAT(errorOf([&] { cpu::div_(i, i); }),
              HasSubstr("div_: result type Float can't be cast to the desired output "
                        "type Long"));
}

TEST(Add, OutputOverlappingAnInputReadsTheInputFirst) {
  // out = a[1:], input = a[:-1]: a naive forward loop would smear a[0].
  at::Tensor a = tensor({1, 2, 3, 4, 5}, {5});
  at::Tensor out = view(a, {4}, {1}, 1);
  at::Tensor in = view(a, {4}, {1}, 0);
  cpu::add_out(in, tensor({0}, {1}), 1, out);
  expect_values(a, {1, 1, 2, 3, 4});
  // In place with a broadcast row of itself.
  at::Tensor m = tensor({1, 2, 3, 4}, {2, 2});
  cpu::add_(m, view(m, {2}, {1}, 0), 1);
  expect_values(m, {2, 4, 4, 6});
}

TEST(Add, RefusesAnExpandedOutput) {
  at::Tensor out = view(empty({3}), {2, 3}, {0, 1});
  EXPECT_THAT(errorOf([&] { cpu::add_out(empty({2, 3}), empty({2, 3}), 1, out); }),
              HasSubstr("more than one element of the written-to tensor refers to a "
                        "single memory location"));
}

TEST(Add, LargeNonContiguousInputsAcrossThreads) {
  // 401 x 299 elements: more than the parallel grain, and the split point
  // falls in the middle of a row.
  const int64_t rows = 401, cols = 299;
  std::vector<double> av, bv, expected;
  for (int64_t i = 0; i < rows * cols; ++i) {
    av.push_back(static_cast<double>(i % 1000));
    bv.push_back(static_cast<double>((i * 7) % 13));
    expected.push_back(av.back() - 2 * bv.back());
  }
  at::Tensor a = transposed_tensor(av, rows, cols);
  at::Tensor b = tensor(bv, {rows, cols});
  expect_values(cpu::sub(a, b, 2), expected);
  at::Tensor c = tensor(av, {rows, cols});
  cpu::sub_(c, b, 2);
  expect_values(c, expected);
  at::Tensor d = empty({rows, cols}, c10::kDouble);
  cpu::copy_(d, a, false);
  expect_values(d, av);
}


}  // namespace
