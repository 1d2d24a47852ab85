// backends/cpu/TensorIterator.h — the CPU loop driver behind the CPU
// plugin's elementwise kernels.
//
// Shape and dtype logic lives in aten: at::TensorIteratorBase
// (aten/TensorIterator.h) works out the broadcast shape and the dtype to
// compute in (PyTorch's type promotion), allocates, resizes or checks the
// outputs, and lays the operands out for the loop. This class adds only the
// loop: it walks every element, handing a kernel one innermost run of
// elements at a time, as PyTorch's 1-d loops do, serially or split across
// OpenMP threads (Note [Intra-op parallelism]):
//
//   ember::cpu::TensorIterator iter(
//       ember::cpu::TensorIteratorConfig("add").add_output(out)
//           .add_input(a).add_input(b));
//   iter.for_each([](char** data, const int64_t* strides, int64_t n) {
//     // data[0] is the output, data[1..] the inputs; strides in bytes.
//     for (int64_t i = 0; i < n; ++i) {
//       *reinterpret_cast<float*>(data[0] + i * strides[0]) =
//           *reinterpret_cast<float*>(data[1] + i * strides[1]) +
//           *reinterpret_cast<float*>(data[2] + i * strides[2]);
//     }
//   });
//   at::Tensor result = iter.output();
//
// When all of a call's strides equal the element sizes, the run is
// contiguous and the kernel should use a plain indexed loop that the
// compiler vectorizes. Not for reductions: every output element depends on
// the input elements at the same position only.
//
// Thread safety: one iterator belongs to one call. for_each may run the loop
// on two OpenMP threads at once (See Note [Intra-op parallelism]), so the
// loop must not write shared state.
#pragma once

#include <cstdint>
#include <type_traits>

#include "aten/TensorIterator.h"
#include "aten/TypePromotion.h"

namespace ember::cpu {

// The aten types under the names the plugin's kernels use.
using DimVector = at::DimVector;
using TensorIteratorConfig = at::TensorIteratorConfig;

// ember::cpu::TensorIterator
//
// at::TensorIteratorBase for CPU operands, with the loop. Built in place
// from a config; construction does every check and allocation (refusing
// operands that are not on the CPU); for_each runs the loop.
class TensorIterator : public at::TensorIteratorBase {
 public:
  // The loop: data pointers and byte strides of every operand (outputs
  // first) for a run of `n` elements along the innermost dimension.
  using LoopFn = void(void* ctx, char** data, const int64_t* strides, int64_t n);

  explicit TensorIterator(const TensorIteratorConfig& config)
      : at::TensorIteratorBase(config, c10::DeviceType::CPU, &allocate) {}

  // ember::cpu::TensorIterator::for_each
  //
  // Calls `loop(char** data, const int64_t* strides, int64_t n)` until every
  // element has been visited once, then writes temporaries back to their
  // outputs. Call it exactly once. No call when there are no elements. The
  // loop must not throw: it may run inside an OpenMP region.
  template <typename Loop>
  void for_each(Loop&& loop) {
    auto* fn = +[](void* ctx, char** data, const int64_t* strides, int64_t n) {
      (*static_cast<std::remove_reference_t<Loop>*>(ctx))(data, strides, n);
    };
    run(fn, const_cast<void*>(static_cast<const void*>(&loop)));
  }

 private:
  void run(LoopFn* fn, void* ctx);
  void serial_for_each(LoopFn* fn, void* ctx, int64_t begin, int64_t end) const;
  // Outputs and temporaries: empty_cpu directly (no dispatch).
  static at::Tensor allocate(c10::IntArrayRef sizes, c10::ScalarType dtype, c10::Device device);
};

}  // namespace ember::cpu
