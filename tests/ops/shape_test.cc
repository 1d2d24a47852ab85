// Conformance: the view and shape ops added for the op list (detach,
// diagonal, movedim, split, chunk, unbind, flatten, unflatten, *_as).
#include "tests/ops/conformance.h"

namespace ember_conformance {
namespace {

using ::testing::ElementsAre;

class Shape : public OpTest {
 protected:
  // [2, 3, 4] with values 0..23.
  at::Tensor iota234(ScalarType dtype = kFloat) const {
    std::vector<double> v(24);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
    return make_tensor(Ref({2, 3, 4}, v), dtype, device());
  }
};
EMBER_INSTANTIATE_CONFORMANCE(Shape);

std::vector<int64_t> sizes(const at::Tensor& t) { return t.sizes().vec(); }

TEST_P(Shape, DetachSharesDataAndVersion) {
  const at::Tensor x = iota234();
  const at::Tensor d = x.detach();
  EXPECT_EQ(d.data_ptr(), x.data_ptr());
  EXPECT_EQ(sizes(d), sizes(x));
  EXPECT_EQ(d.unsafeGetTensorImpl()->version_counter().current_version(),
            x.unsafeGetTensorImpl()->version_counter().current_version());
}

TEST_P(Shape, DiagonalWithOffsetsAndDims) {
  for (ScalarType dt : all_dtypes()) {
    const Ref r = random_ref({3, 4}, dt, {}, 5);
    for (const Case& c : layouts({3, 4}, dt, device(), {}, 5)) {
      SCOPED_TRACE(c.name);
      for (int64_t offset : {-3, -1, 0, 1, 2, 4, 7}) {
        std::vector<double> expect;
        for (int64_t i = 0; i < 3; ++i) {
          const int64_t j = i + offset;
          if (j >= 0 && j < 4) expect.push_back(c.ref.at({i, j}));
        }
        const Ref want({static_cast<int64_t>(expect.size())}, expect);
        EXPECT_TRUE(close(at::diagonal(c.tensor, offset), want, dt)) << offset;
        // Swapping the dims mirrors the offset.
        EXPECT_TRUE(close(c.tensor.diagonal(-offset, 1, 0), want, dt)) << offset;
      }
    }
  }
  const at::Tensor x = iota234();
  const at::Tensor d = x.diagonal(0, 0, 2);  // dims 0 and 2 -> last
  EXPECT_EQ(sizes(d), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(to_ref(d).v, (std::vector<double>{0, 13, 4, 17, 8, 21}));
  EXPECT_THAT(errorOf([&] { x.diagonal(0, 1, -2); }), HasSubstr("cannot be identical"));
  EXPECT_THAT(errorOf([&] { make_tensor(Ref({3}, {1, 2, 3}), kFloat, device()).diagonal(); }),
              HasSubstr("at least 2 dimensions"));
}

TEST_P(Shape, Movedim) {
  const at::Tensor x = iota234();
  EXPECT_EQ(sizes(at::movedim(x, 0, 2)), (std::vector<int64_t>{3, 4, 2}));
  EXPECT_EQ(sizes(x.movedim(-1, 0)), (std::vector<int64_t>{4, 2, 3}));
  const at::Tensor m = at::movedim(x, {0, 1}, {2, 0});
  EXPECT_EQ(sizes(m), (std::vector<int64_t>{3, 4, 2}));
  EXPECT_EQ(to_ref(m).at({2, 1, 1}), 12 + 8 + 1);  // x[1][2][1]
  EXPECT_THAT(errorOf([&] { at::movedim(x, {0, 0}, {1, 2}); }),
              HasSubstr("repeated dim in `source`"));
  EXPECT_THAT(errorOf([&] { at::movedim(x, {0}, {1, 2}); }),
              HasSubstr("same number of dims"));
  EXPECT_THAT(errorOf([&] { at::movedim(x, 3, 0); }), HasSubstr("out of range"));
}

TEST_P(Shape, SplitChunkUnbindAreViews) {
  const at::Tensor x = iota234();
  const auto parts = x.split(3, 2);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(sizes(parts[0]), (std::vector<int64_t>{2, 3, 3}));
  EXPECT_EQ(sizes(parts[1]), (std::vector<int64_t>{2, 3, 1}));
  EXPECT_EQ(to_ref(parts[1]).v, (std::vector<double>{3, 7, 11, 15, 19, 23}));
  EXPECT_EQ(parts[1].storage_offset(), 3);

  const auto sized = at::split(x, {1, 2}, 1);
  ASSERT_EQ(sized.size(), 2u);
  EXPECT_EQ(sizes(sized[1]), (std::vector<int64_t>{2, 2, 4}));
  EXPECT_EQ(to_ref(sized[1]).at({1, 0, 0}), 16);
  EXPECT_EQ(at::split_with_sizes(x, {0, 3}, 1)[0].numel(), 0);

  const auto chunks = x.chunk(3, -1);  // 4 -> 2 + 2
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(sizes(chunks[0]), (std::vector<int64_t>{2, 3, 2}));
  EXPECT_EQ(at::chunk(x, 2, 1).size(), 2u);  // 3 -> 2 + 1
  EXPECT_EQ(at::chunk(x, 2, 1)[1].size(1), 1);

  const auto rows = x.unbind(1);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(sizes(rows[2]), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(to_ref(rows[2]).at({1, 3}), 23);
  for (const auto& r : rows) EXPECT_EQ(r.storage().data(), x.storage().data());

  EXPECT_THAT(errorOf([&] { at::split_with_sizes(x, {1, 1}, 1); }),
              HasSubstr("must sum to the size of dimension 1 (3), but they sum to 2"));
  EXPECT_THAT(errorOf([&] { x.split(-1, 0); }), HasSubstr("split_size must be positive"));
  EXPECT_THAT(errorOf([&] { x.chunk(0); }), HasSubstr("greater than 0"));
  const at::Tensor scalar = make_tensor(Ref({}, {1}), kFloat, device());
  EXPECT_THAT(errorOf([&] { scalar.unbind(); }), HasSubstr("0-d tensor"));
}

TEST_P(Shape, FlattenAndUnflatten) {
  const at::Tensor x = iota234();
  EXPECT_EQ(sizes(x.flatten()), (std::vector<int64_t>{24}));
  EXPECT_EQ(sizes(at::flatten(x, 1)), (std::vector<int64_t>{2, 12}));
  EXPECT_EQ(sizes(x.flatten(0, 1)), (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(sizes(make_tensor(Ref({}, {1}), kFloat, device()).flatten()),
            (std::vector<int64_t>{1}));
  const at::Tensor t = x.transpose(0, 2).flatten(1);  // not viewable: copies
  EXPECT_EQ(sizes(t), (std::vector<int64_t>{4, 6}));
  EXPECT_EQ(to_ref(t).at({1, 1}), 13);  // x[1][0][1]
  EXPECT_THAT(errorOf([&] { x.flatten(2, 0); }), HasSubstr("cannot come after"));

  EXPECT_EQ(sizes(x.unflatten(2, {2, 2})), (std::vector<int64_t>{2, 3, 2, 2}));
  EXPECT_EQ(sizes(at::unflatten(x, -1, {-1, 1})), (std::vector<int64_t>{2, 3, 4, 1}));
  EXPECT_THAT(errorOf([&] { x.unflatten(2, {3, 2}); }), HasSubstr("invalid"));
}

TEST_P(Shape, AsOtherTensor) {
  const at::Tensor x = iota234();
  const at::Tensor row = make_tensor(Ref({1, 4}, {1, 2, 3, 4}), kFloat, device());
  EXPECT_EQ(sizes(row.expand_as(x)), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(sizes(x.view_as(at::empty({6, 4}, options(kFloat)))),
            (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(sizes(x.reshape_as(at::empty({4, 6}, options(kInt)))),
            (std::vector<int64_t>{4, 6}));
}

}  // namespace
}  // namespace ember_conformance
