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

// The dtypes of the CUDA kernels. The pointwise, copy and reduction kernels
// take all ten; the others take the first five ("core") and the host code
// refuses the rest with a message naming the dtype (kernel_dtype in
// CUDAIterator.h). Half and BFloat16: Note [Half and BFloat16 on CUDA] in
// dtypes.cuh.
enum class Dtype : int {
  kFloat, kDouble, kLong, kInt, kBool,  // core
  kShort, kChar, kByte, kHalf, kBFloat16
};

// Note [CUDA offset calculator]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The iteration of a TensorIteratorBase, as the host hands it to a launch
// (the general kernel takes its 32-bit form, Strided32 in offsets.cuh): up to
// kMaxDims dimensions (dimension 0 varies fastest) and, per operand, a byte
// stride per dimension. A linear index is split into coordinates dimension
// by dimension; each operand's address is its base plus the dot product of
// coordinates and strides, in 32 bits (Note [CUDA 32-bit indexing] in
// offsets.cuh: an Iteration too large for that is split into pieces).
// An operand whose bit is set in scalar_mask is a CPU scalar (Note [CPU
// scalars on a device] in aten/TensorIterator.cc): its value, converted to
// the operand's dtype, is in scalars[k] and the kernel reads it from there;
// data[k] and its strides are not used.
constexpr int kMaxDims = 12;
constexpr int kMaxOperands = 4;

struct Iteration {
  int ndim = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[kMaxOperands][kMaxDims] = {};
  char* data[kMaxOperands] = {};
  int64_t numel = 0;
  bool contiguous = false;  // one dimension; every operand but the scalars dense
  unsigned scalar_mask = 0;
  uint64_t scalars[kMaxOperands] = {};
};

// The arguments of the ops that take numbers besides their tensors (alpha,
// bounds, slopes, ...): their meaning is given with each op below. Floating
// kernels read d[], integral ones i[].
struct OpParams {
  double d[3] = {0, 0, 0};
  int64_t i[2] = {0, 0};
  int flag = 0;
  // Set to 1 by an integer division by zero (kFmod, kRemainder); device
  // memory the host reads after the launch (the CPU's ZeroDivisionError).
  unsigned* zero_division = nullptr;
};

// Out-of-line launches; `stream` is a cudaStream_t. Each returns "" or the
// CUDA error's description.
std::string launch_copy(const Iteration& it, Dtype dst, Dtype src, void* stream);
// Writes the `size`-byte pattern `bits` to every element of operand 0.
std::string launch_fill(const Iteration& it, int size, uint64_t bits, void* stream);

// Binary ops: out (operand 0) = f(a (1), b (2)), all of dtype `dtype`.
//   kAdd, kSub           a +- alpha * b; alpha is d[0] (i[0] for integers)
//   kMul, kDiv           (kDiv: floating only; the host promotes)
//   kMaximum, kMinimum   NaN propagates; Bool: or / and
//   kPow                 integers by repeated squaring (negative exponents
//                        give 0 unless the base is 1 or -1), else pow
//   kBitAnd/Or/Xor       integral and Bool
//   kClampMin, kClampMax max(a, b) / min(a, b), NaN in either gives NaN
//   kDivTrunc, kDivFloor div with rounding_mode "trunc" / "floor" (floats:
//                        Python's floor division); integers raise
//                        *zero_division for a divisor of 0
//   kFmod, kRemainder    C's fmod (the dividend's sign) and Python's %
//                        (the divisor's sign); an integer divisor of 0 gives
//                        0 and raises *zero_division
// The backward ops (floating): a is the gradient, b the saved tensor.
//   kSigmoidBackward     b is the result: a * (1 - b) * b
//   kTanhBackward        b is the result: a * (1 - b^2)
//   kSiluBackward, kGeluBackward (flag 1: tanh approximation) b is the input
//   kEluBackward         d = {alpha, scale, input_scale}, flag 1: b is the result
//   kSoftplusBackward    d = {beta, threshold}
//   kLeakyReluBackward   d[0] = negative slope
//   kHardtanhBackward    d = {min_val, max_val}
enum class BinaryOp : int {
  kAdd, kSub, kMul, kDiv, kMaximum, kMinimum, kPow, kBitAnd, kBitOr, kBitXor,
  kClampMin, kClampMax, kDivTrunc, kDivFloor, kFmod, kRemainder, kSigmoidBackward, kTanhBackward, kSiluBackward,
  kGeluBackward, kEluBackward, kSoftplusBackward, kLeakyReluBackward,
  kHardtanhBackward
};
std::string launch_binary(const Iteration& it, BinaryOp op, Dtype dtype,
                          const OpParams& params, void* stream);

// Unary ops: out (0) = f(x (1)), both of dtype `dtype`. The transcendental
// ones are floating only (the host promotes integers to Float); on integers
// the rounding ones copy. kRoundDecimals: d[0] = 10^|decimals|, flag 1 when
// decimals < 0. kLeakyRelu: d[0] slope. kGelu: flag 1 for the tanh
// approximation. kElu: d = {alpha, scale, input_scale}. kSoftplus: d = {beta,
// threshold}. kHardtanh: d = {min_val, max_val}.
enum class UnaryOp : int {
  kRelu, kNeg, kAbs, kExp, kLog, kSqrt, kTanh, kSigmoid, kSign, kFloor, kCeil,
  kRound, kRoundDecimals, kTrunc, kLog1p, kExpm1, kRsqrt, kReciprocal, kSin, kCos,
  kBitwiseNot, kLeakyRelu, kGelu, kSilu, kElu, kSoftplus, kHardtanh
};
std::string launch_unary(const Iteration& it, UnaryOp op, Dtype dtype,
                         const OpParams& params, void* stream);

// Bool results: out (0, Bool) = f(x (1) of dtype `dtype`) for kIsnan, kIsinf,
// kLogicalNot; out = f(a (1), b (2)), both of `dtype`, for the comparisons and
// the logical binary ops.
enum class PredicateOp : int { kIsnan, kIsinf, kLogicalNot };
std::string launch_predicate(const Iteration& it, PredicateOp op, Dtype dtype, void* stream);
enum class CompareOp : int {
  kEq, kNe, kLt, kLe, kGt, kGe, kLogicalAnd, kLogicalOr, kLogicalXor
};
std::string launch_compare(const Iteration& it, CompareOp op, Dtype dtype, void* stream);

// Three inputs: out (0) = f(x (1), y (2), z (3)), all of `dtype` except
// where's condition (operand 1, Bool).
//   kWhere     x ? y : z
//   kClamp     min(max(x, y), z), NaN in any gives NaN
//   kAddcmul   x + value * y * z; value d[0] (i[0] for integers)
//   kAddcdiv   x + value * y / z (floating)
//   kLerp      x + z * (y - x), as PyTorch: from the end y when |z| >= 0.5
enum class TernaryOp : int { kWhere, kClamp, kAddcmul, kAddcdiv, kLerp };
std::string launch_ternary(const Iteration& it, TernaryOp op, Dtype dtype,
                           const OpParams& params, void* stream);

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

// out[o * inner + i] = sum over r < rows of in[(o * rows + r) * inner + i]
// for the contiguous [outer, rows, inner] array at `in`: the middle
// dimension summed in place (a stage of kernels/sum_plan.h), with the
// accumulation types of launch_sum. Columns of 32 consecutive elements per
// warp; when outer * inner is too small to fill the GPU and rows is long,
// the rows are split into slices whose partial sums (in `workspace`,
// sum_middle_workspace_elems(...) accumulators) a second launch adds, in
// slice order (deterministic).
int64_t sum_middle_workspace_elems(int64_t outer, int64_t rows, int64_t inner);
std::string launch_sum_middle(const void* in, void* out, void* workspace, int64_t outer,
                              int64_t rows, int64_t inner, Dtype dtype, void* stream);

// Note [CUDA row reductions]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The reductions other than sum: the host makes the input a contiguous
// rows×cols matrix (kept dimensions first, reduced ones last) and one block
// reduces each row; a row of `cols` elements ends early at element `n` of the
// whole array (so a flat array can be cut into equal chunks but the last).
// Reducing everything to one value of a large tensor takes two launches:
// chunks first, then the chunks' partials as one row, whose positions come
// from `in_indices` (the first launch's indices) instead of the column.
//   kProd       values: the product, in the accumulation type (float, double,
//               int64 for integers and Bool)
//   kMax, kMin  values (input dtype) and, when `indices` is given, the
//               position of the first extreme; NaN is the extreme of both
//   kAll, kAny  values: Bool
//   kVar        values: the variance (input dtype, float or double; the
//               standard deviation with take_sqrt) from m2 / divisor, NaN for
//               an empty row; `mean` (when given) the row's mean
enum class ReduceOp : int { kProd, kMax, kMin, kAll, kAny, kVar };
struct RowReduce {
  const void* in = nullptr;
  const int64_t* in_indices = nullptr;  // positions of `in`'s elements, or null
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t n = 0;  // elements in `in` (rows * cols unless the last row is short)
  bool flat_positions = false;  // indices count from the array's start, not the row's
  Dtype dtype = Dtype::kFloat;  // of `in`
  void* values = nullptr;
  int64_t* indices = nullptr;
  void* mean = nullptr;
  double divisor = 1;
  bool take_sqrt = false;
};
std::string launch_reduce_rows(const RowReduce& r, ReduceOp op, void* stream);
// The middle dimension of the contiguous [outer, rows, inner] array at `in`
// reduced where it lies (Note [CUDA middle sums] in middle_sums.cuh) by
// kProd (Float, Double in their type; integers and Bool in int64), kMax /
// kMin (values in the input's dtype, NaN wins) or kAll / kAny (Bool), into
// the contiguous [outer, inner] `out`; `workspace` holds the bytes
// reduce_middle_workspace_bytes gives (0 unless long columns are sliced).
std::string reduce_middle_workspace_bytes(int64_t outer, int64_t rows, int64_t inner,
                                          ReduceOp op, Dtype dtype, size_t* bytes);
std::string launch_reduce_middle(const void* in, void* out, void* workspace, int64_t outer,
                                 int64_t rows, int64_t inner, ReduceOp op, Dtype dtype,
                                 void* stream);

// cumsum over the middle dim of a contiguous [outer, n, inner] array (in
// and out of one dtype): one thread per line, adding in the CPU's order and
// accumulator (double for floating dtypes, wrapping integers, or for Bool),
// so the results are the CPU's.
std::string launch_cumsum(const void* in, void* out, int64_t outer, int64_t n, int64_t inner,
                          Dtype dtype, void* stream);

// Note [CUDA long cumsum]
// ~~~~~~~~~~~~~~~~~~~~~~~
// One thread per line leaves the GPU idle when there are few lines (a 1-d
// cumsum is one thread's work). Few long lines go instead, made contiguous
// rows of n, through a chunked scan: chunks of kCumsumChunk elements, each
// a block's; pass 1 sums every chunk, pass 2 turns each row's chunk sums
// into offsets (a thread per row), pass 3 scans every chunk again from its
// offset (a block-wide scan of 256 runs of 8) and writes it. Same
// accumulator as the per-line kernel (CumsumAcc); integers and Bool are
// exactly the CPU's (wrapping addition and `or` do not depend on the
// order), floating types are summed in another order than the CPU's, so
// within the accumulator's roundings (double for Float: nearly always the
// same floats). `workspace`: cumsum_rows_workspace_bytes of device memory.
constexpr int64_t kCumsumChunk = 2048;
std::string cumsum_rows_workspace_bytes(int64_t rows, int64_t n, Dtype dtype, size_t* bytes);
std::string launch_cumsum_rows(const void* in, void* out, int64_t rows, int64_t n, Dtype dtype,
                               void* workspace, void* stream);

// Note [CUDA index checks]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// A kernel that reads indices checks each against [0, size) and, for one
// that is not, keeps the smallest position of such an index in
// *bad_position (atomicMin; all ones before the launch) and skips it. The
// host reads that word, which waits for the kernel, and throws c10::IndexError
// naming the index at that position: the CPU's error, for the same first bad
// index, and the device stays usable (no device-side assert).
struct IndexSelect {
  const void* src = nullptr;  // contiguous [pre, size, post] elements
  void* dst = nullptr;        // contiguous [pre, count, post] elements
  const void* index = nullptr;  // `count` int64 (or int32) values, contiguous
  bool index_is_int32 = false;
  int64_t pre = 1, size = 0, post = 1, count = 0;
  int element_size = 4;  // 1, 2, 4 or 8 bytes: any dtype
  unsigned long long* bad_position = nullptr;
};
std::string launch_index_select(const IndexSelect& a, void* stream);

// embedding_dense_backward: grad_weight (num_weights × dim, zero before the
// call) gets grad[i] (n × dim, contiguous) added to row index[i], scaled by
// 1 / count(index[i]) when `counts` is given (num_weights zeroed
// accumulators), except rows equal to padding_idx. Float and double, with
// atomicAdd: the order of additions, and so the last bits, vary per run.
struct EmbeddingBackward {
  const void* grad = nullptr;
  const void* index = nullptr;
  bool index_is_int32 = false;
  int64_t n = 0, dim = 0, num_weights = 0, padding_idx = -1;
  unsigned long long* counts = nullptr;
  void* grad_weight = nullptr;
  Dtype dtype = Dtype::kFloat;
  unsigned long long* bad_position = nullptr;
};
std::string launch_embedding_backward(const EmbeddingBackward& a, void* stream);

// gather and scatter (index_kernels.cu) over the index's shape (at least
// one dim, sizes[]), strides in elements: element p of the index names the
// position index[p] along `dim` of self. launch_gather_check records the
// first row-major position of an index outside [0, self_dim_size) in
// *bad_position (Note [CUDA index checks]); the others assume none is.
//   gather:  other[p] = self[p with dim := index[p]]    (other: the result)
//   scatter: self[p with dim := index[p]] (op)= other[p], or the value
//            (value_bits: the element's bytes) when other is null;
//            reduce 0 assigns, 1 adds, 2 multiplies (atomically).
struct GatherScatter {
  int ndim = 1;
  int64_t sizes[kMaxDims] = {};
  int64_t index_strides[kMaxDims] = {};
  int64_t self_strides[kMaxDims] = {};
  int64_t other_strides[kMaxDims] = {};
  int dim = 0;
  int64_t self_dim_size = 0;
  int64_t numel = 0;
  const int64_t* index = nullptr;
  void* self = nullptr;
  void* other = nullptr;
  uint64_t value_bits = 0;
  int reduce = 0;
  int element_size = 4;
  Dtype dtype = Dtype::kFloat;
  unsigned long long* bad_position = nullptr;
};
std::string launch_gather_check(const GatherScatter& a, void* stream);
std::string launch_gather(const GatherScatter& a, void* stream);
std::string launch_scatter(const GatherScatter& a, void* stream);

// Note [CUDA sort]
// ~~~~~~~~~~~~~~~~
// sort and topk (sort_kernels.cu): each of `rows` contiguous rows of `n`
// elements at `in` (any of the ten dtypes) is ordered stably, ascending or
// descending, with the CPU plugin's order (NaN above every number, -0.0
// equal to +0.0; Note [CUDA sort keys] in sort_keys.cuh); the first `k`
// elements of each sorted row go to `values` (rows x k, the input's dtype)
// and their positions in the row to `indices` (rows x k int64). One kernel
// makes the keys (the elements as ordered unsigned integers) and positions,
// CUB orders them (DeviceRadixSort row by row for long rows, one
// DeviceSegmentedSort over all rows otherwise), one kernel gathers the
// first k. Rows are shorter than 2^31 elements (positions are int32).
// sort_workspace_bytes(&args) sets workspace_bytes (and CUB's part of it,
// which launch_sort then uses without asking CUB again); asking needs a
// device (CUB reads its properties). `workspace` is that many bytes of
// device memory.
struct SortArgs {
  const void* in = nullptr;
  void* values = nullptr;
  int64_t* indices = nullptr;
  int64_t rows = 0, n = 0, k = 0;
  Dtype dtype = Dtype::kFloat;
  bool descending = false;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  size_t cub_bytes = 0;  // CUB's scratch, inside the workspace
};
constexpr int64_t kMaxSortRow = 2147483647;
std::string sort_workspace_bytes(SortArgs* a);
std::string launch_sort(const SortArgs& a, void* stream);

// Softmax or log_softmax of each row of the contiguous rows×cols matrix at
// `in` into `out` (one block per row; rows < 2^31), and the backward:
// grad_in from grad and the forward's output. `dtype` is the input's (the
// gradients'); out (grad_in) is of the same dtype, except with
// half_to_float: Half in, Float out (Float grads, Half grad_in), computed in
// float and rounded once.
std::string launch_softmax(const void* in, void* out, int64_t rows, int64_t cols, bool log,
                           Dtype dtype, bool half_to_float, void* stream);
std::string launch_softmax_backward(const void* grad, const void* out, void* grad_in,
                                    int64_t rows, int64_t cols, bool log, Dtype dtype,
                                    bool half_to_float, void* stream);

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

// Random samplers (random_kernels.cu, element functions in random_ops.cuh):
// element i of `out` (contiguous, n elements) from the Philox stream that
// starts at block `offset` of key `seed`, with the CPU plugin's words and
// arithmetic (docs/ops/random.md), so a seed gives the CPU's numbers.
//   kUniform: a = from, b = to - from, c = the largest value below `to`
//     (all already rounded to float for Float); Float, Double.
//   kNormal: a = mean, b = std; Float, Double.
//   kRandom: from + [0, range) (range 0: 2^64); every kernel dtype.
//   kBernoulli: 1 when word < a (p * 2^32), else 0; every kernel dtype.
//   kBernoulliTensor: the same with a = probs[i] * 2^32 (probs: n doubles).
//   kDropout: mask[i] = word < a ((1 - p) * 2^32), out[i] = input[i] *
//     mask[i] * b (b = 1 / (1 - p), 0 when p = 1); Float, Double.
enum class RandomOp : int { kUniform, kNormal, kRandom, kBernoulli, kBernoulliTensor, kDropout };
struct RandomArgs {
  RandomOp op = RandomOp::kUniform;
  Dtype dtype = Dtype::kFloat;
  void* out = nullptr;
  int64_t n = 0;
  uint64_t seed = 0;
  uint64_t offset = 0;
  double a = 0, b = 0, c = 0;
  int64_t from = 0;
  uint64_t range = 0;
  const double* probs = nullptr;
  const void* input = nullptr;
  bool* mask = nullptr;
};
std::string launch_random(const RandomArgs& a, void* stream);

// Range factories (range_kernels.cu, element function in range_ops.cuh):
// out[i] for i < n (contiguous), with the CPU plugin's arithmetic.
//   kArangeIntegral: first + delta * i in 64-bit wrapping integers.
//   kArangeFloating: start + step * i in double.
//   kLinspace: n values from start to end (both already converted to the
//     dtype), stepping in float for Float and in double otherwise; the
//     second half counts back from end.
enum class RangeOp : int { kArangeIntegral, kArangeFloating, kLinspace };
struct RangeArgs {
  RangeOp op = RangeOp::kArangeFloating;
  Dtype dtype = Dtype::kFloat;
  void* out = nullptr;
  int64_t n = 0;
  uint64_t first = 0, delta = 0;
  double start = 0, step = 0, end = 0;
};
std::string launch_range(const RangeArgs& a, void* stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
