#include "c10/core/impl/BlockCache.h"

#include <new>

#include "c10/util/Exception.h"

namespace c10 {
namespace impl {
namespace {

// Note [Block cache]
// ~~~~~~~~~~~~~~~~~~
// State per thread, in one trivially constructible and destructible
// thread_local (zero-initialized, so reading it needs no TLS guard). All
// accesses are in this file. (Default TLS model: See Note [TLS model of the
// key sets].)
//
// Lists are released at thread exit by a second thread_local with a
// destructor, created the first time a block is cached. After it ran,
// `state` is kExited and every block goes straight to ::operator delete (a
// tensor freed by a later thread_local destructor must not be cached in a
// list nobody will release).
constexpr int kKinds = 2;
constexpr unsigned kBlockCacheCapacity = 256;

struct FreeBlock {
  FreeBlock* next;
};

enum : unsigned char { kFresh = 0, kRegistered = 1, kExited = 2 };

struct ThreadBlocks {
  FreeBlock* head[kKinds];
  unsigned count[kKinds];
  unsigned char state;
};

thread_local ThreadBlocks tls_blocks;

constexpr bool kCacheEnabled = !C10_ASAN_ENABLED;

struct Releaser {
  ~Releaser() {
    ThreadBlocks& t = tls_blocks;
    t.state = kExited;
    for (int k = 0; k < kKinds; ++k) {
      FreeBlock* b = t.head[k];
      while (b != nullptr) {
        FreeBlock* next = b->next;
        ::operator delete(b);
        b = next;
      }
      t.head[k] = nullptr;
      t.count[k] = 0;
    }
  }
};

C10_NOINLINE void register_releaser() {
  static thread_local Releaser releaser;
  (void)releaser;
  tls_blocks.state = kRegistered;
}

}  // namespace

void* cached_block_new(BlockKind kind, size_t size, size_t expected) {
  if (kCacheEnabled && size == expected) {
    ThreadBlocks& t = tls_blocks;
    const int k = static_cast<int>(kind);
    FreeBlock* b = t.head[k];
    if (b != nullptr) {
      t.head[k] = b->next;
      --t.count[k];
      return b;
    }
  }
  return ::operator new(size);
}

void cached_block_delete(BlockKind kind, void* block, size_t size,
                         size_t expected) noexcept {
  if (kCacheEnabled && size == expected && block != nullptr) {
    ThreadBlocks& t = tls_blocks;
    const int k = static_cast<int>(kind);
    if (C10_UNLIKELY(t.state != kRegistered)) {
      if (t.state == kExited) {
        ::operator delete(block);
        return;
      }
      register_releaser();
    }
    if (t.count[k] < kBlockCacheCapacity) {
      FreeBlock* b = static_cast<FreeBlock*>(block);
      b->next = t.head[k];
      t.head[k] = b;
      ++t.count[k];
      return;
    }
  }
  ::operator delete(block);
}

}  // namespace impl
}  // namespace c10
