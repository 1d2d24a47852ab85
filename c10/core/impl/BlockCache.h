// c10/core/impl/BlockCache.h — per-thread caches of freed TensorImpl and
// StorageImpl blocks.
//
// Every tensor costs a TensorImpl and a StorageImpl; for small tensors their
// malloc/free pairs are half the cost of making one. TensorImpl and
// StorageImpl route their operator new/delete through these functions,
// which keep up to kBlockCacheCapacity freed blocks of each class per thread
// in a singly linked list (a push or a pop, no atomics), and fall back to
// ::operator new/delete otherwise: for blocks of another size (subclasses),
// when the list is full or empty, during thread exit, and under
// AddressSanitizer (whose use-after-free checks need every block to go back
// to malloc).
//
// A block freed on another thread than it was allocated on joins the
// freeing thread's list; the handover is ordered by the reference count that
// let the freeing thread destroy the object. A thread's lists are released
// when the thread exits. See Note [Block cache] in BlockCache.cc.
#pragma once

#include <cstddef>

namespace c10 {
namespace impl {

enum class BlockKind { TensorImpl = 0, StorageImpl = 1 };

// Size `expected` is the cached class's own size; other sizes bypass the
// cache.
void* cached_block_new(BlockKind kind, size_t size, size_t expected);
void cached_block_delete(BlockKind kind, void* block, size_t size, size_t expected) noexcept;

}  // namespace impl
}  // namespace c10
