// aten/PhiloxRNG.h — the Philox4x32-10 counter-based generator and the
// random stream every CPU random op draws from.
//
//   // Word 5 of the stream an op gets when it reserved blocks from `offset`:
//   uint32_t w = at::philox_stream_word(seed, offset, 5);
//   // One block of 4 words:
//   at::PhiloxBlock b = at::philox4x32_10({0, 0, 0, 0}, {0, 0});
//
// Header-only and stateless: a value depends on (seed, counter) only, which
// is what lets kernels draw in parallel chunks and get the same numbers as a
// serial run. Tests include it to recompute a stream by hand. For the
// generator object ops take, see aten/CPUGeneratorImpl.h.
#pragma once

#include <array>
#include <cstdint>

namespace at {

// Note [Ember's CPU random stream]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A CPU generator holds a 64-bit seed and a 64-bit offset. Philox4x32-10
// (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011)
// maps a 128-bit counter and a 64-bit key to a block of four 32-bit words.
// An op that needs W words reserves B = ceil(W / 4) blocks: under the
// generator's mutex it reads the offset `o` and advances it by B. Word w
// (0 <= w < W) of the op is then
//
//   philox4x32_10(counter = {lo32(o + w/4), hi32(o + w/4), 0, 0},
//                 key     = {lo32(seed), hi32(seed)})[w % 4]
//
// and each op documents which words element i uses (docs/ops/random.md):
// always a fixed function of i, so any split of the elements among threads
// produces the same tensor. The offset wraps modulo 2^64 blocks.

// at::PhiloxBlock — four 32-bit words.
using PhiloxBlock = std::array<uint32_t, 4>;

namespace philox {
constexpr uint32_t kM0 = 0xD2511F53u;  // Random123's multipliers and Weyl
constexpr uint32_t kM1 = 0xCD9E8D57u;  // key increments for Philox4x32
constexpr uint32_t kW0 = 0x9E3779B9u;
constexpr uint32_t kW1 = 0xBB67AE85u;
constexpr int kRounds = 10;
}  // namespace philox

// at::philox4x32_10
//
// One Philox4x32 block with 10 rounds, as Random123 defines it (its known
// answers are in tests/ops/random_test.cc).
inline PhiloxBlock philox4x32_10(PhiloxBlock c, std::array<uint32_t, 2> key) {
  uint32_t k0 = key[0];
  uint32_t k1 = key[1];
  for (int r = 0; r < philox::kRounds; ++r) {
    const uint64_t p0 = static_cast<uint64_t>(philox::kM0) * c[0];
    const uint64_t p1 = static_cast<uint64_t>(philox::kM1) * c[2];
    c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k0, static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k1, static_cast<uint32_t>(p0)};
    k0 += philox::kW0;
    k1 += philox::kW1;
  }
  return c;
}

// at::philox_stream_block / philox_stream_word
//
// Block `block` (counted from the op's reserved offset) and word `word` of
// the stream of See Note [Ember's CPU random stream]. For reference and
// tests; kernels compute many blocks at once.
inline PhiloxBlock philox_stream_block(uint64_t seed, uint64_t offset,
                                       uint64_t block) {
  const uint64_t counter = offset + block;
  return philox4x32_10({static_cast<uint32_t>(counter),
                        static_cast<uint32_t>(counter >> 32), 0u, 0u},
                       {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
}
inline uint32_t philox_stream_word(uint64_t seed, uint64_t offset, uint64_t word) {
  return philox_stream_block(seed, offset, word / 4)[word % 4];
}

}  // namespace at
