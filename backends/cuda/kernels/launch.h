// backends/cuda/kernels/launch.h — the boundary between the plugin's host
// code (g++: tensors, the dispatcher, TensorIteratorBase) and its device code
// (nvcc: the .cu files here). Plain structs and functions only, so each .cu
// file compiles against this header and the toolkit, nothing of the core.
//
// Every launch is asynchronous on `stream` and reports a launch failure with
// C10_CUDA_KERNEL_LAUNCH_CHECK's message (a std::runtime_error here, turned
// into c10::Error by the caller's check_launch).
#pragma once

#include <cstdint>
#include <string>

namespace ember {
namespace cuda {
namespace kernels {

// The dtypes the CUDA kernels are instantiated for (others are refused by
// the host code with a message naming the dtype).
enum class Dtype : int { kFloat, kDouble, kLong, kInt, kBool };

// Note [CUDA offset calculator]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The iteration of a TensorIteratorBase, passed by value to a kernel: up to
// kMaxDims dimensions (dimension 0 varies fastest) and, per operand, a byte
// stride per dimension. A linear index is split into coordinates dimension
// by dimension; each operand's address is its base plus the dot product of
// coordinates and strides. Indices are 64-bit (no 32-bit fast path yet).
constexpr int kMaxDims = 12;
constexpr int kMaxOperands = 3;

struct Iteration {
  int ndim = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[kMaxOperands][kMaxDims] = {};
  char* data[kMaxOperands] = {};
  int64_t numel = 0;
  bool contiguous = false;  // every operand dense in dimension order
};

// Out-of-line launches; `stream` is a cudaStream_t. Each returns "" or the
// CUDA error's description.
std::string launch_copy(const Iteration& it, Dtype dst, Dtype src, void* stream);
// Writes the `size`-byte pattern `bits` to every element of operand 0.
std::string launch_fill(const Iteration& it, int size, uint64_t bits, void* stream);

enum class BinaryOp : int { kAdd, kSub, kMul, kDiv };
// out = a op (alpha * b) for kAdd/kSub (alpha ignored otherwise); operands
// 0 (out), 1 (a), 2 (b), all of dtype `dtype`.
std::string launch_binary(const Iteration& it, BinaryOp op, Dtype dtype,
                          double alpha, void* stream);

enum class UnaryOp : int { kRelu, kNeg, kAbs, kExp, kLog, kSqrt, kTanh, kSigmoid };
std::string launch_unary(const Iteration& it, UnaryOp op, Dtype dtype, void* stream);

// out[0] = sum of `n` contiguous elements at `in` (float accumulates in
// float, double in double, integers in int64); `workspace` holds
// sum_workspace_elems(n) accumulators of the output dtype.
int64_t sum_workspace_elems(int64_t n);
std::string launch_sum(const void* in, void* out, void* workspace, int64_t n,
                       Dtype dtype, void* stream);
// out[r] = sum of row r of the contiguous rows×cols matrix at `in` (the
// accumulation types of launch_sum; rows < 2^31).
std::string launch_sum_rows(const void* in, void* out, int64_t rows, int64_t cols,
                            Dtype dtype, void* stream);

// Softmax or log_softmax of each row of the contiguous rows×cols matrix at
// `in` into `out` (one block per row; rows < 2^31), and the backward:
// grad_in from grad and the forward's output.
std::string launch_softmax(const void* in, void* out, int64_t rows, int64_t cols, bool log,
                           Dtype dtype, void* stream);
std::string launch_softmax_backward(const void* grad, const void* out, void* grad_in,
                                    int64_t rows, int64_t cols, bool log, Dtype dtype,
                                    void* stream);

// nll_loss over the contiguous n×classes `input` (float or double) with
// int64 targets; weight may be null; reduction 0 none, 1 mean, 2 sum.
struct NllArgs {
  const void* input = nullptr;
  const int64_t* target = nullptr;
  const void* weight = nullptr;
  int64_t n = 0;
  int64_t classes = 0;
  int reduction = 1;
  int64_t ignore_index = -100;
  Dtype dtype = Dtype::kFloat;
};
// out: n losses (none) or one; total_weight: one element; *bad (device,
// INT64_MIN before the call) receives a target outside [0, classes).
std::string launch_nll_forward(const NllArgs& args, void* out, void* total_weight,
                               int64_t* bad, void* stream);
// grad_input: n×classes, zero before the call.
std::string launch_nll_backward(const NllArgs& args, const void* grad_output,
                                const void* total_weight, void* grad_input, void* stream);

// out = (self <= threshold) ? 0 : grad; operands 0 (out), 1 (grad), 2 (self).
std::string launch_threshold_backward(const Iteration& it, Dtype dtype, double threshold,
                                      void* stream);
// out = in * factor; operands 0 (out), 1 (in); float and double.
std::string launch_scale(const Iteration& it, Dtype dtype, double factor, void* stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
