// The general elementwise kernel's 32-bit indexing (backends/cuda/kernels/
// offsets.cuh, Note [CUDA 32-bit indexing]) run on the host: IntDivider's
// quotients against C++'s division, Strided32's offsets against the 64-bit
// coordinate arithmetic they replace, and the split of large Iterations
// into pieces that fit and cover every element exactly once. CI has no
// GPU: this is where the addresses the kernel computes are checked there.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "backends/cuda/kernels/offsets.cuh"

namespace {

namespace k = ember::cuda::kernels;

constexpr int kOps = k::kMaxOperands;
using Addresses = std::array<uintptr_t, kOps>;

// Operand bases far apart, as integers (never dereferenced).
k::Iteration with_bases(k::Iteration it) {
  for (int op = 0; op < kOps; ++op) {
    if (((it.scalar_mask >> op) & 1u) == 0) {
      it.data[op] = reinterpret_cast<char*>(uintptr_t{1} << 44 | uintptr_t(op) << 40);
    }
  }
  return it;
}

// The 64-bit arithmetic: each operand's offset for linear index i.
std::array<int64_t, kOps> offsets64(const k::Iteration& it, int64_t i) {
  std::array<int64_t, kOps> off{};
  for (int d = 0; d < it.ndim; ++d) {
    const int64_t coord = i % it.sizes[d];
    i /= it.sizes[d];
    for (int op = 0; op < kOps; ++op) off[op] += coord * it.strides[op][d];
  }
  return off;
}

// Every element's operand addresses, sorted (tensor operands only).
std::vector<Addresses> addresses(const k::Iteration& it) {
  std::vector<Addresses> all;
  for (int64_t i = 0; i < it.numel; ++i) {
    const std::array<int64_t, kOps> off = offsets64(it, i);
    Addresses a{};
    for (int op = 0; op < kOps; ++op) {
      if (((it.scalar_mask >> op) & 1u) == 0) {
        a[op] = reinterpret_cast<uintptr_t>(it.data[op]) + static_cast<uintptr_t>(off[op]);
      }
    }
    all.push_back(a);
  }
  std::sort(all.begin(), all.end());
  return all;
}

// A random layout: 1 to kMaxDims dimensions of small sizes, each operand
// with its own element size and a random permutation of dense strides
// (some dims broadcast with stride 0, some negative), operand 2 sometimes a
// CPU scalar.
k::Iteration random_layout(std::mt19937_64& rng, int64_t max_numel) {
  k::Iteration it;
  std::uniform_int_distribution<int> ndims(1, k::kMaxDims);
  it.ndim = ndims(rng);
  it.numel = 1;
  for (int d = 0; d < it.ndim; ++d) {
    const int64_t room = max_numel / it.numel;
    const int64_t size =
        room < 2 ? 1 : std::uniform_int_distribution<int64_t>(1, std::min<int64_t>(room, 9))(rng);
    it.sizes[d] = size;
    it.numel *= size;
  }
  const int64_t element[kOps] = {4, 8, 2, 1};
  for (int op = 0; op < kOps; ++op) {
    std::vector<int> order(static_cast<size_t>(it.ndim));
    for (int d = 0; d < it.ndim; ++d) order[static_cast<size_t>(d)] = d;
    std::shuffle(order.begin(), order.end(), rng);
    int64_t stride = element[op];
    for (int d : order) {
      const int kind = std::uniform_int_distribution<int>(0, 9)(rng);
      if (op > 0 && kind == 0) {
        it.strides[op][d] = 0;  // broadcast input
        continue;
      }
      it.strides[op][d] = kind == 1 ? -stride : stride;
      stride *= it.sizes[d];
    }
  }
  if (std::uniform_int_distribution<int>(0, 3)(rng) == 0) {
    it.scalar_mask = 1u << 2;
    for (int d = 0; d < it.ndim; ++d) it.strides[2][d] = 0;
  }
  return with_bases(it);
}

std::string describe(const k::Iteration& it) {
  std::string s = "sizes";
  for (int d = 0; d < it.ndim; ++d) s += " " + std::to_string(it.sizes[d]);
  for (int op = 0; op < kOps; ++op) {
    s += "; strides " + std::to_string(op) + ":";
    for (int d = 0; d < it.ndim; ++d) s += " " + std::to_string(it.strides[op][d]);
  }
  return s;
}

TEST(Offsets32, IntDividerIsExactBelow2To31) {
  std::vector<uint32_t> divisors = {1, 2, 3, 5, 6, 7, 9, 10, 12, 25, 100, 641, 1000, 6700417,
                                    0x7fffffffu};
  for (int b = 1; b < 31; ++b) {
    for (int64_t delta : {-1, 0, 1}) {
      divisors.push_back(static_cast<uint32_t>((int64_t{1} << b) + delta));
    }
  }
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<uint32_t> any(1, 0x7fffffffu);
  for (int i = 0; i < 200; ++i) divisors.push_back(any(rng));
  for (uint32_t d : divisors) {
    const k::IntDivider div(d);
    std::vector<uint32_t> ns = {0, 1, 2, 0x7fffffffu, 0x7ffffffeu, 0x40000000u, 0x3fffffffu};
    for (uint64_t m = 1; m * d <= 0x7fffffffu && m < 64; ++m) {
      for (uint64_t n : {m * d - 1, m * d, m * d + 1}) {
        if (n <= 0x7fffffffu) ns.push_back(static_cast<uint32_t>(n));
      }
    }
    const uint64_t top = 0x7fffffffu / d * d;  // the last multiple below 2^31
    for (int64_t delta : {-1, 0, 1}) {
      if (top + delta <= 0x7fffffffu) ns.push_back(static_cast<uint32_t>(top + delta));
    }
    for (int i = 0; i < 300; ++i) ns.push_back(any(rng));
    for (uint32_t n : ns) {
      ASSERT_EQ(div.div(n), n / d) << n << " / " << d << " (magic " << div.magic << ", shift "
                                   << div.shift << ")";
    }
  }
  // Every n below 2^20 for the small divisors, where a wrong magic number
  // shows first.
  for (uint32_t d = 1; d <= 40; ++d) {
    const k::IntDivider div(d);
    for (uint32_t n = 0; n < (1u << 20); ++n) {
      if (div.div(n) != n / d) FAIL() << n << " / " << d << ": " << div.div(n);
    }
  }
}

TEST(Offsets32, Strided32OffsetsAreThe64BitOnes) {
  std::mt19937_64 rng(1);
  for (int trial = 0; trial < 400; ++trial) {
    const k::Iteration it = random_layout(rng, 3000);
    SCOPED_TRACE(describe(it));
    ASSERT_TRUE(k::fits_32bit_indexing(it));
    const k::Strided32<kOps> s = k::strided32<kOps>(it);
    ASSERT_EQ(s.numel, static_cast<uint32_t>(it.numel));
    for (int64_t i = 0; i < it.numel; ++i) {
      int32_t off[kOps];
      s.offsets(static_cast<uint32_t>(i), off);
      const std::array<int64_t, kOps> want = offsets64(it, i);
      for (int op = 0; op < kOps; ++op) ASSERT_EQ(off[op], want[op]) << "index " << i;
    }
  }
  // One contiguous dimension (the kernel's index-times-stride path), up to
  // the last index that fits.
  k::Iteration dense;
  dense.ndim = 1;
  dense.contiguous = true;
  dense.sizes[0] = dense.numel = (k::kMax32BitIndex + 1) / 8;
  for (int op = 0; op < kOps; ++op) dense.strides[op][0] = int64_t{1} << op;  // 1, 2, 4, 8
  ASSERT_TRUE(k::fits_32bit_indexing(dense));
  const k::Strided32<kOps> s = k::strided32<kOps>(dense);
  for (int64_t i : {int64_t{0}, int64_t{1}, int64_t{12345}, dense.numel / 2, dense.numel - 1}) {
    int32_t off[kOps];
    s.offsets(static_cast<uint32_t>(i), off);
    for (int op = 0; op < kOps; ++op) EXPECT_EQ(off[op], i << op) << "index " << i;
  }
  // Large sizes and strides near the limit, sampled: a Byte tensor of
  // 46340 x 46341 elements (2^31 - 41652) read through a transposed view.
  k::Iteration big;
  big.ndim = 2;
  big.sizes[0] = 46340;
  big.sizes[1] = 46341;
  big.numel = big.sizes[0] * big.sizes[1];
  big.strides[0][0] = 1;
  big.strides[0][1] = 46340;
  big.strides[1][0] = 46341;
  big.strides[1][1] = 1;
  ASSERT_TRUE(k::fits_32bit_indexing(big));
  const k::Strided32<2> b = k::strided32<2>(big);
  std::uniform_int_distribution<int64_t> index(0, big.numel - 1);
  for (int i = 0; i < 100000; ++i) {
    const int64_t at = i < 2 ? (i == 0 ? 0 : big.numel - 1) : index(rng);
    int32_t off[2];
    b.offsets(static_cast<uint32_t>(at), off);
    const std::array<int64_t, kOps> want = offsets64(big, at);
    ASSERT_EQ(off[0], want[0]) << at;
    ASSERT_EQ(off[1], want[1]) << at;
  }
}

TEST(Offsets32, FitsChecksTheIndexAndEveryTensorOperandsSpan) {
  k::Iteration it;
  it.ndim = 2;
  it.sizes[0] = 100;
  it.sizes[1] = 10;
  it.numel = 1000;
  it.strides[0][0] = 1;
  it.strides[0][1] = 100;
  it.strides[1][0] = -30;  // spans 99 * 30 + 9 * 3 = 2997 bytes
  it.strides[1][1] = 3;
  EXPECT_TRUE(k::fits_32bit_indexing(it, 2997));
  EXPECT_FALSE(k::fits_32bit_indexing(it, 2996));
  EXPECT_FALSE(k::fits_32bit_indexing(it, 999));  // numel
  it.scalar_mask = 1u << 1;  // a CPU scalar's strides do not count
  EXPECT_TRUE(k::fits_32bit_indexing(it, 1000));
  EXPECT_EQ(k::span_bytes(it, 0), 999);
}

// With a small limit, random layouts split into pieces that each fit it
// and whose elements are the Iteration's, each once.
TEST(Offsets32, SplitPiecesFitAndCoverEveryElementOnce) {
  std::mt19937_64 rng(3);
  int split = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const k::Iteration it = random_layout(rng, 4000);
    SCOPED_TRACE(describe(it));
    const int64_t limit = std::uniform_int_distribution<int64_t>(16, 600)(rng);
    std::vector<k::Iteration> pieces;
    k::split_for_32bit_indexing(it, limit, &pieces);
    ASSERT_FALSE(pieces.empty());
    if (pieces.size() > 1) ++split;
    std::vector<Addresses> got;
    int64_t numel = 0;
    for (const k::Iteration& p : pieces) {
      ASSERT_TRUE(k::fits_32bit_indexing(p, limit)) << describe(p);
      ASSERT_EQ(p.ndim, it.ndim);
      ASSERT_EQ(p.contiguous, it.contiguous);
      ASSERT_EQ(p.scalar_mask, it.scalar_mask);
      int64_t product = 1;
      for (int d = 0; d < p.ndim; ++d) product *= p.sizes[d];
      ASSERT_EQ(p.numel, product);
      numel += p.numel;
      const std::vector<Addresses> a = addresses(p);
      got.insert(got.end(), a.begin(), a.end());
    }
    EXPECT_EQ(numel, it.numel);
    std::sort(got.begin(), got.end());
    ASSERT_EQ(got, addresses(it)) << pieces.size() << " pieces, limit " << limit;
  }
  EXPECT_GT(split, 200);  // the limits made most layouts split
}

TEST(Offsets32, AnIterationThatFitsIsOnePiece) {
  std::mt19937_64 rng(5);
  const k::Iteration it = random_layout(rng, 500);
  std::vector<k::Iteration> pieces;
  k::split_for_32bit_indexing(it, k::kMax32BitIndex, &pieces);
  ASSERT_EQ(pieces.size(), 1u);
  EXPECT_EQ(addresses(pieces[0]), addresses(it));
  EXPECT_EQ(pieces[0].numel, it.numel);
}

// Tensors past 2^31 elements or bytes at the real limit: few pieces, each
// fitting, together as many elements, each piece's output bytes inside the
// output's (that they cover it once is SplitPiecesFitAndCoverEveryElementOnce's).
TEST(Offsets32, LargeTensorsSplitIntoFewPiecesThatFit) {
  struct Case {
    const char* name;
    k::Iteration it;
    size_t most_pieces;
  };
  std::vector<Case> cases;
  {  // 2^32 floats, contiguous: out = a + b
    k::Iteration it;
    it.ndim = 1;
    it.contiguous = true;
    it.sizes[0] = it.numel = int64_t{1} << 32;
    for (int op = 0; op < 3; ++op) it.strides[op][0] = 4;
    cases.push_back({"2^32 contiguous floats", with_bases(it), 8});
  }
  {  // a (3, 2^30) Byte tensor copied from its transpose (a non-dense input)
    k::Iteration it;
    it.ndim = 2;
    it.sizes[0] = 3;
    it.sizes[1] = int64_t{1} << 30;
    it.numel = 3 * it.sizes[1];
    it.strides[0][0] = 1;
    it.strides[0][1] = 3;
    it.strides[1][0] = it.sizes[1];
    it.strides[1][1] = 1;
    cases.push_back({"3 x 2^30 bytes transposed", with_bases(it), 4});
  }
  {  // 2^29 doubles (4 GiB) plus a broadcast row and a CPU scalar
    k::Iteration it;
    it.ndim = 2;
    it.sizes[0] = 1024;
    it.sizes[1] = int64_t{1} << 19;
    it.numel = it.sizes[0] * it.sizes[1];
    it.strides[0][0] = 8;
    it.strides[0][1] = 8 * 1024;
    it.strides[1][0] = 8;
    it.strides[1][1] = 0;
    it.scalar_mask = 1u << 2;
    cases.push_back({"2^29 doubles, broadcast", with_bases(it), 4});
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ASSERT_FALSE(k::fits_32bit_indexing(c.it));
    std::vector<k::Iteration> pieces;
    k::split_for_32bit_indexing(c.it, k::kMax32BitIndex, &pieces);
    EXPECT_GE(pieces.size(), 2u);
    EXPECT_LE(pieces.size(), c.most_pieces);
    const uintptr_t first = reinterpret_cast<uintptr_t>(c.it.data[0]);
    const uintptr_t last = first + static_cast<uintptr_t>(k::span_bytes(c.it, 0));
    int64_t numel = 0;
    for (const k::Iteration& p : pieces) {
      ASSERT_TRUE(k::fits_32bit_indexing(p));
      numel += p.numel;
      const uintptr_t base = reinterpret_cast<uintptr_t>(p.data[0]);
      EXPECT_GE(base, first);
      EXPECT_LE(base + static_cast<uintptr_t>(k::span_bytes(p, 0)), last);
    }
    EXPECT_EQ(numel, c.it.numel);
  }
}

}  // namespace
