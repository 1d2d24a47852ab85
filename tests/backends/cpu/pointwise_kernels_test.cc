// The CPU plugin's unary, comparison, fill/copy and factory kernels and the
// TensorIterator itself, called directly and checked against references.
#include "tests/backends/cpu/cpu_test_util.h"

namespace {

using namespace ember_cpu_test;  // NOLINT: the shared test helpers

// ---- unary --------------------------------------------------------------------------------

TEST(Unary, NegAbsReluEveryDtype) {
  for (ScalarType t : kAllDtypes) {
    const std::vector<double> av = sample(t, 0);
    at::Tensor a = transposed_tensor(av, 2, 3, t);
    std::vector<double> abs_ref, neg_ref, relu_ref;
    for (double x : av) {
      abs_ref.push_back(as_dtype(std::abs(x), t));
      neg_ref.push_back(as_dtype(-x, t));
      relu_ref.push_back(as_dtype(x < 0 ? 0 : x, t));
    }
    at::Tensor r = cpu::abs(a);
    EXPECT_EQ(r.dtype(), t);
    expect_values(r, abs_ref);
    if (t == ScalarType::Bool) continue;
    expect_values(cpu::neg(a), neg_ref);
    expect_values(cpu::relu(a), relu_ref);
  }
  expect_values(cpu::relu(tensor({NAN, -1}, {2})), {NAN, 0});
  expect_values(cpu::abs(tensor({-128}, {1}, c10::kChar)), {-128});
}

TEST(Unary, ExpLogSqrtComputeInFloatingTypes) {
  const std::vector<double> v = {0.25, 1, 4, 9, 2, 0};
  for (ScalarType t : {c10::kFloat, c10::kDouble, c10::kHalf, c10::kBFloat16}) {
    const double tol = t == c10::kBFloat16 ? 1e-2 : t == c10::kHalf ? 1e-3 : 1e-6;
    at::Tensor a = transposed_tensor(v, 2, 3, t);
    std::vector<double> e, l, s;
    for (double x : v) {
      const double in = as_dtype(x, t);
      e.push_back(std::exp(in));
      l.push_back(std::log(in));
      s.push_back(std::sqrt(in));
    }
    at::Tensor r = cpu::exp(a);
    EXPECT_EQ(r.dtype(), t);
    expect_values(r, e, tol);
    EXPECT_EQ(l.back(), -INFINITY);  // log(0)
    expect_values(cpu::log(a), l, tol);
    expect_values(cpu::sqrt(a), s, tol);
  }
  at::Tensor i = tensor({0, 1, 4}, {3}, c10::kInt);
  at::Tensor r = cpu::sqrt(i);
  EXPECT_EQ(r.dtype(), c10::kFloat);
  expect_values(r, {0, 1, 2});
  EXPECT_EQ(cpu::exp(tensor({1}, {1}, c10::kBool)).dtype(), c10::kFloat);
  expect_values(cpu::log(scalar_tensor(1, c10::kLong)), {0});
  expect_values(cpu::sqrt(tensor({-1}, {1})), {NAN});
}

// ---- comparisons ---------------------------------------------------------------------------

TEST(Compare, EveryDtypeGivesBool) {
  for (ScalarType t : kAllDtypes) {
    const std::vector<double> av = sample(t, 0);
    const std::vector<double> bv = sample(t, 1);
    at::Tensor a = tensor(av, {2, 3}, t);
    at::Tensor b = transposed_tensor(bv, 2, 3, t);
    at::Tensor eq = cpu::eq(a, b);
    EXPECT_EQ(eq.dtype(), c10::kBool);
    expect_values(eq, map2(av, bv, c10::kBool, [](double x, double y) { return x == y; }));
    expect_values(cpu::lt(a, b),
                  map2(av, bv, c10::kBool, [](double x, double y) { return x < y; }));
    expect_values(cpu::gt(a, b),
                  map2(av, bv, c10::kBool, [](double x, double y) { return x > y; }));
  }
  // Mixed dtypes compare in the promoted type; a number broadcasts.
  expect_values(cpu::lt(tensor({1, 2, 3}, {3}, c10::kInt), wrapped(2.5, c10::kDouble)),
                {1, 1, 0});
  expect_values(cpu::eq(tensor({NAN, 1}, {2}), tensor({NAN, 1}, {2}, c10::kDouble)), {0, 1});
}

// ---- fill_ / copy_ ---------------------------------------------------------------------------

TEST(Fill, EveryDtypeAndLayout) {
  for (ScalarType t : kAllDtypes) {
    at::Tensor a = empty({2, 3}, t);
    cpu::fill_(a, 1);
    expect_values(a, {1, 1, 1, 1, 1, 1});
    at::Tensor tr = transposed(empty({3, 2}, t));
    cpu::fill_(tr, true);
    expect_values(tr, {1, 1, 1, 1, 1, 1});
  }
  at::Tensor base = empty({3});
  at::Tensor expanded = view(base, {4, 3}, {0, 1});
  cpu::fill_(expanded, 2.5);
  expect_values(base, {2.5, 2.5, 2.5});
  at::Tensor s = empty({});
  cpu::fill_(s, -1);
  expect_values(s, {-1});
  at::Tensor nothing = empty({0});
  cpu::fill_(nothing, 3);
  at::Tensor bytes = empty({2}, c10::kByte);
  EXPECT_THAT(errorOf([&] { cpu::fill_(bytes, 300); }), HasSubstr("uint8_t"));
}

TEST(Copy, ConvertsBroadcastsAndHandlesAliasing) {
  at::Tensor f = tensor({1.9, -2.7, 0, 3}, {4});
  at::Tensor i = empty({4}, c10::kInt);
  cpu::copy_(i, f, false);
  expect_values(i, {1, -2, 0, 3});
  at::Tensor b = empty({4}, c10::kBool);
  cpu::copy_(b, f, false);
  expect_values(b, {1, 1, 0, 1});
  at::Tensor h = empty({2, 2}, c10::kHalf);
  cpu::copy_(h, transposed_tensor({1, 2, 3, 4}, 2, 2, c10::kBFloat16), false);
  expect_values(h, {1, 2, 3, 4});

  at::Tensor dst = empty({2, 3});
  at::Tensor& r = cpu::copy_(dst, tensor({1, 2, 3}, {3}, c10::kLong), false);
  EXPECT_TRUE(r.is_same(dst));
  expect_values(dst, {1, 2, 3, 1, 2, 3});
  cpu::copy_(dst, scalar_tensor(7, c10::kDouble), false);
  expect_values(dst, {7, 7, 7, 7, 7, 7});
  EXPECT_THAT(errorOf([&] { cpu::copy_(dst, empty({4}), false); }),
              HasSubstr("copy_: an input of shape [4] cannot be broadcast to the shape "
                        "[2, 3]"));

  at::Tensor same = tensor({1, 2}, {2});
  cpu::copy_(same, same, false);
  expect_values(same, {1, 2});
  // Overlapping views of one buffer: dst = a[1:], src = a[:-1].
  at::Tensor a = tensor({0, 1, 2, 3, 4, 5}, {6});
  at::Tensor shifted = view(a, {5}, {1}, 1);
  cpu::copy_(shifted, view(a, {5}, {1}, 0), false);
  expect_values(a, {0, 0, 1, 2, 3, 4});
  // A transposed copy of itself.
  at::Tensor m = tensor({1, 2, 3, 4}, {2, 2});
  cpu::copy_(m, transposed(m), false);
  expect_values(m, {1, 3, 2, 4});
}

// ---- empty -----------------------------------------------------------------------------------

TEST(Empty, MakesContiguousTensorsOfTheRequestedDtype) {
  at::Tensor t = cpu::empty({2, 3}, std::nullopt, std::nullopt, std::nullopt,
                            std::nullopt, std::nullopt);
  EXPECT_EQ(t.dtype(), c10::kFloat);
  EXPECT_EQ(t.strides(), c10::IntArrayRef({3, 1}));
  EXPECT_TRUE(t.is_cpu());
  EXPECT_TRUE(t.key_set().has(c10::DispatchKey::CPU));
  at::Tensor cl = cpu::empty({2, 3, 4, 5}, c10::kHalf, c10::Layout::Strided,
                             c10::Device(c10::kCPU), false, c10::MemoryFormat::ChannelsLast);
  EXPECT_EQ(cl.strides(), c10::IntArrayRef({60, 1, 15, 3}));
  EXPECT_EQ(cl.dtype(), c10::kHalf);
  at::Tensor s = cpu::empty_strided({2, 3}, {1, 2}, c10::kLong, std::nullopt,
                                    std::nullopt, std::nullopt);
  EXPECT_EQ(s.strides(), c10::IntArrayRef({1, 2}));
  EXPECT_EQ(s.storage().nbytes(), 6 * sizeof(int64_t));
  EXPECT_EQ(cpu::empty({}, c10::kBool, {}, {}, {}, {}).dim(), 0);
  EXPECT_EQ(cpu::empty_strided({0, 4}, {4, 1}, {}, {}, {}, {}).storage().nbytes(), 0u);
}

TEST(Empty, RejectsBadArguments) {
  EXPECT_THAT(errorOf([] { empty({2, -1}); }),
              HasSubstr("empty: sizes must be non-negative, but got [2, -1] (size -1 "
                        "at dimension 1)"));
  EXPECT_THAT(errorOf([] {
                cpu::empty_strided({2}, {-1}, {}, {}, {}, {});
              }),
              HasSubstr("strides must be non-negative"));
  // pin_memory=true needs the CUDA plugin's pinned allocator (not here).
  EXPECT_THAT(errorOf([] { cpu::empty({2}, {}, {}, {}, true, {}); }),
              HasSubstr("empty: no pinned-memory allocator for CUDA"));
  EXPECT_THAT(errorOf([] { cpu::empty({2}, {}, {}, {}, {}, c10::MemoryFormat::ChannelsLast); }),
              HasSubstr("ChannelsLast needs 4 sizes"));
  EXPECT_THAT(errorOf([] { empty({INT64_MAX / 2, 4}); }),
              HasSubstr("needs more bytes than a 64-bit size holds"));
  // Reach past 64 bits in elements (Note [Strided extent]), and in bytes.
  EXPECT_THAT(errorOf([] {
                cpu::empty_strided({3, 3}, {INT64_MAX / 2, INT64_MAX / 2}, {}, {}, {}, {});
              }),
              HasSubstr("reach further than a 64-bit size holds"));
  EXPECT_THAT(errorOf([] { cpu::empty_strided({2}, {INT64_MAX / 4}, {}, {}, {}, {}); }),
              HasSubstr("needs more bytes than a 64-bit size holds"));
}

// ---- errors -----------------------------------------------------------------------------------

TEST(Errors, MessagesSayWhatIsWrongAndHowToFixIt) {
  EXPECT_EQ(errorOf([] { cpu::add(empty({2, 3}), empty({4}), 1); }),
            "add: shapes [2, 3] and [4] cannot be broadcast together; the trailing "
            "dimensions must match or be 1.");
  at::Tensor flags = tensor({1, 0}, {2}, c10::kBool);
  EXPECT_THAT(errorOf([&] { cpu::sub(flags, tensor({1, 1}, {2}), 1); }),
              HasSubstr("sub: Subtraction, the `-` operator, with a bool tensor is not "
                        "supported. If you are trying to invert a mask, use the `~` or "
                        "`logical_not()` operator instead."));
  EXPECT_THAT(errorOf([&] { cpu::sub_(flags, flags, 1); }),
              HasSubstr("with two bool tensors is not supported"));
  at::Tensor ints = tensor({1, 2}, {2}, c10::kInt);
  EXPECT_THAT(errorOf([&] { cpu::add(ints, ints, 2.5); }),
              HasSubstr("add: For integral input tensors, argument alpha must not be a "
                        "floating point number"));
  EXPECT_THAT(errorOf([&] { cpu::sub(ints, ints, 0.5); }),
              HasSubstr("argument alpha must not be a floating point number"));
  EXPECT_THAT(errorOf([&] { cpu::add(ints, ints, true); }),
              HasSubstr("Boolean alpha only supported for Boolean results"));
  EXPECT_THAT(errorOf([&] { cpu::neg(flags); }),
              HasSubstr("neg: Negation, the `-` operator, on a bool tensor is not "
                        "supported"));
  EXPECT_THAT(errorOf([&] { cpu::add(ints, at::Tensor(), 1); }),
              HasSubstr("add: input 1 is an undefined tensor"));
  at::Tensor undefined;
  EXPECT_THAT(errorOf([&] { cpu::mul_out(ints, ints, undefined); }),
              HasSubstr("mul: the out tensor is undefined"));
  EXPECT_THAT(errorOf([&] { cpu::add_(undefined, ints, 1); }),
              HasSubstr("add_: input 0 is an undefined tensor"));
  // Float alpha is fine for floating results; alpha that a type cannot hold is not.
  expect_values(cpu::add(tensor({1}, {1}), tensor({1}, {1}), 0.5), {1.5});
  EXPECT_THAT(errorOf([&] { cpu::add(tensor({1}, {1}, c10::kChar),
                                     tensor({1}, {1}, c10::kChar), 1000); }),
              HasSubstr("int8_t"));
}

// ---- the iterator itself -------------------------------------------------------------------------

TEST(TensorIterator, CoalescesDimensionsAndSkipsEmptyIterations) {
  at::Tensor out;
  at::Tensor a = empty({2, 3, 4});
  cpu::TensorIterator contiguous(
      cpu::TensorIteratorConfig("test").add_output(out).add_input(a).add_input(a));
  EXPECT_EQ(contiguous.ndim(), 1u);
  EXPECT_TRUE(contiguous.is_contiguous());
  int calls = 0;
  contiguous.for_each([&](char**, const int64_t* strides, int64_t n) {
    ++calls;
    EXPECT_EQ(n, 24);
    EXPECT_EQ(strides[0], 4);
  });
  EXPECT_EQ(calls, 1);

  at::Tensor out2;
  at::Tensor t = transposed(empty({4, 6}));
  cpu::TensorIterator strided(
      cpu::TensorIteratorConfig("test").add_output(out2).add_input(t));
  EXPECT_EQ(strided.ndim(), 2u);
  EXPECT_FALSE(strided.is_contiguous());

  at::Tensor out3;
  at::Tensor z = empty({3, 0});
  cpu::TensorIterator none(cpu::TensorIteratorConfig("test").add_output(out3).add_input(z));
  none.for_each([](char**, const int64_t*, int64_t) { ADD_FAILURE() << "called"; });
  EXPECT_EQ(none.output().sizes(), c10::IntArrayRef({3, 0}));

  at::Tensor out4;
  at::Tensor s = empty({});
  cpu::TensorIterator zero_dim(cpu::TensorIteratorConfig("test").add_output(out4).add_input(s));
  EXPECT_EQ(zero_dim.numel(), 1);
  int64_t seen = 0;
  zero_dim.for_each([&](char**, const int64_t*, int64_t n) { seen += n; });
  EXPECT_EQ(seen, 1);
  EXPECT_EQ(zero_dim.output().dim(), 0);
}

TEST(TensorIterator, ManyDimensionsUseTheHeap) {
  // 10 dimensions, every other one broadcast: nothing coalesces away.
  std::vector<int64_t> sizes(10, 2);
  std::vector<int64_t> half = {2, 1, 2, 1, 2, 1, 2, 1, 2, 1};
  std::vector<double> av(1024), bv(32);
  for (size_t i = 0; i < av.size(); ++i) av[i] = static_cast<double>(i);
  for (size_t i = 0; i < bv.size(); ++i) bv[i] = static_cast<double>(i) * 1000;
  at::Tensor a = tensor(av, sizes, c10::kDouble);
  at::Tensor b = tensor(bv, half, c10::kDouble);
  std::vector<double> expected;
  for (int64_t i = 0; i < 1024; ++i) {
    int64_t bi = 0;
    for (int d = 0; d < 10; ++d) {
      const int64_t digit = (i >> (9 - d)) & 1;
      if (d % 2 == 0) bi = bi * 2 + digit;
    }
    expected.push_back(av[static_cast<size_t>(i)] + bv[static_cast<size_t>(bi)]);
  }
  expect_values(cpu::add(a, b, 1), expected);
}


}  // namespace
