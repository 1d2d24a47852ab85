// backends/cuda/kernels/reduce_kernels.cu — reductions. Sums of a contiguous
// range: each block reduces a grid-stride share (warp shuffles, then shared
// memory) into one partial; a second one-block launch adds the partials.
// Deterministic (no atomics): the same input gives the same bits on every
// run. Sums of the rows of a contiguous matrix (over dimensions), and the
// other reductions (prod, max/min with positions, all/any, var): one block
// per row (Note [CUDA row reductions] in launch.h).
#include <type_traits>

#include "backends/cuda/kernels/element_ops.cuh"
#include "backends/cuda/kernels/loops.cuh"
#include "backends/cuda/kernels/middle_sums.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 1024;

template <typename Acc>
__device__ Acc block_sum(Acc v) {
  __shared__ Acc warp_sums[kThreads / 32];
  for (int offset = 16; offset > 0; offset /= 2) {
    v += __shfl_down_sync(0xffffffffu, v, offset);
  }
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  v = threadIdx.x < kThreads / 32 ? warp_sums[threadIdx.x] : Acc(0);
  if (warp == 0) {
    for (int offset = 16; offset > 0; offset /= 2) {
      v += __shfl_down_sync(0xffffffffu, v, offset);
    }
  }
  return v;
}

template <typename T, typename Acc>
__global__ void partial_sums(const T* in, Acc* out, int64_t n) {
  Acc acc = 0;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * kThreads) {
    acc += convert<Acc>(in[i]);
  }
  acc = block_sum(acc);
  if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

template <typename T, typename Acc>
std::string run(const void* in, void* out, void* workspace, int64_t n, void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t blocks = sum_workspace_elems(n);
  partial_sums<T, Acc><<<static_cast<int>(blocks), kThreads, 0, s>>>(
      static_cast<const T*>(in), static_cast<Acc*>(workspace), n);
  std::string status = launch_status();
  if (!status.empty()) return status;
  partial_sums<Acc, Acc><<<1, kThreads, 0, s>>>(static_cast<const Acc*>(workspace),
                                                static_cast<Acc*>(out), blocks);
  return launch_status();
}

// One block per row of a contiguous rows×cols matrix.
template <typename T, typename Acc>
__global__ void row_sums(const T* in, Acc* out, int64_t cols) {
  const T* row = in + static_cast<int64_t>(blockIdx.x) * cols;
  Acc acc = 0;
  for (int64_t j = threadIdx.x; j < cols; j += kThreads) acc += convert<Acc>(row[j]);
  acc = block_sum(acc);
  if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

template <typename T, typename Acc>
std::string run_rows(const void* in, void* out, int64_t rows, int64_t cols, void* stream) {
  if (rows == 0) return "";
  if (rows > 0x7fffffff) return "sum: more than 2^31 - 1 output elements";
  row_sums<T, Acc><<<static_cast<unsigned>(rows), kThreads, 0,
                     static_cast<cudaStream_t>(stream)>>>(
      static_cast<const T*>(in), static_cast<Acc*>(out), cols);
  return launch_status();
}

// The middle reductions (Note [CUDA middle sums] in middle_sums.cuh): one block
// per kMiddleColumns columns of an outer index (looping over outer indices
// past grid y) and slice (grid z).
template <typename T, typename Acc, typename Op>
__global__ void middle_reduce(const T* in, Acc* out, MiddleLaunch l) {
  __shared__ Acc part[kMiddleRowThreads][kMiddleColumns + 1];
  const int64_t column = static_cast<int64_t>(blockIdx.x) * kMiddleColumns + threadIdx.x;
  const int64_t slice = blockIdx.z;
  for (int64_t o = blockIdx.y; o < l.outer; o += gridDim.y) {
    part[threadIdx.y][threadIdx.x] =
        middle_partial<T, Acc, Op>(in, l, o, column, slice, static_cast<int>(threadIdx.y));
    __syncthreads();
    if (threadIdx.y == 0 && column < l.inner) {
      Acc total = part[0][threadIdx.x];
      for (int k = 1; k < kMiddleRowThreads; ++k) total = Op::combine(total, part[k][threadIdx.x]);
      out[middle_out_index(l, o, column, slice)] = total;
    }
    __syncthreads();
  }
}

template <typename T, typename Acc, typename Op = MiddleSum<Acc>>
std::string run_middle(const void* in, void* out, void* workspace, int64_t outer, int64_t rows,
                       int64_t inner, void* stream) {
  const MiddlePlan p = middle_plan(outer, rows, inner);
  if (p.workspace_elems > 0 && workspace == nullptr) {
    return "sum: the middle sum needs its workspace";
  }
  const auto s = static_cast<cudaStream_t>(stream);
  const dim3 threads(kMiddleColumns, kMiddleRowThreads);
  for (int k = 0; k < p.count; ++k) {
    const MiddleLaunch& l = p.launch[k];
    if (l.grid_x > 0x7fffffff) return "sum: more than 2^31 - 1 column blocks";
    const dim3 grid(static_cast<unsigned>(l.grid_x), static_cast<unsigned>(l.grid_y),
                    static_cast<unsigned>(l.grid_z));
    Acc* to = static_cast<Acc*>(l.to_workspace ? workspace : out);
    if (l.from_workspace) {
      middle_reduce<Acc, Acc, Op>
          <<<grid, threads, 0, s>>>(static_cast<const Acc*>(workspace), to, l);
    } else {
      middle_reduce<T, Acc, Op><<<grid, threads, 0, s>>>(static_cast<const T*>(in), to, l);
    }
    const std::string status = launch_status();
    if (!status.empty()) return status;
  }
  return "";
}

}  // namespace

int64_t sum_middle_workspace_elems(int64_t outer, int64_t rows, int64_t inner) {
  return middle_plan(outer, rows, inner).workspace_elems;
}

std::string launch_sum_middle(const void* in, void* out, void* workspace, int64_t outer,
                              int64_t rows, int64_t inner, Dtype dtype, void* stream) {
  auto run = [&](auto element, auto accumulator) {
    return run_middle<decltype(element), decltype(accumulator)>(in, out, workspace, outer, rows,
                                                                inner, stream);
  };
  switch (dtype) {
    case Dtype::kFloat: return run(float{}, float{});
    case Dtype::kDouble: return run(double{}, double{});
    case Dtype::kLong: return run(int64_t{}, int64_t{});
    case Dtype::kInt: return run(int32_t{}, int64_t{});
    case Dtype::kBool: return run(bool{}, int64_t{});
    case Dtype::kShort: return run(int16_t{}, int64_t{});
    case Dtype::kChar: return run(int8_t{}, int64_t{});
    case Dtype::kByte: return run(uint8_t{}, int64_t{});
    case Dtype::kHalf: return run(Half{}, float{});
    case Dtype::kBFloat16: return run(BFloat16{}, float{});
  }
  return "sum: unknown dtype";
}

std::string launch_sum_rows(const void* in, void* out, int64_t rows, int64_t cols,
                            Dtype dtype, void* stream) {
  switch (dtype) {
    case Dtype::kFloat: return run_rows<float, float>(in, out, rows, cols, stream);
    case Dtype::kDouble: return run_rows<double, double>(in, out, rows, cols, stream);
    case Dtype::kLong: return run_rows<int64_t, int64_t>(in, out, rows, cols, stream);
    case Dtype::kInt: return run_rows<int32_t, int64_t>(in, out, rows, cols, stream);
    case Dtype::kBool: return run_rows<bool, int64_t>(in, out, rows, cols, stream);
    case Dtype::kShort: return run_rows<int16_t, int64_t>(in, out, rows, cols, stream);
    case Dtype::kChar: return run_rows<int8_t, int64_t>(in, out, rows, cols, stream);
    case Dtype::kByte: return run_rows<uint8_t, int64_t>(in, out, rows, cols, stream);
    case Dtype::kHalf: return run_rows<Half, float>(in, out, rows, cols, stream);
    case Dtype::kBFloat16: return run_rows<BFloat16, float>(in, out, rows, cols, stream);
  }
  return "sum: unknown dtype";
}

int64_t sum_workspace_elems(int64_t n) {
  const int64_t blocks = (n + kThreads * 4 - 1) / (kThreads * 4);
  return blocks < 1 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks);
}

std::string launch_sum(const void* in, void* out, void* workspace, int64_t n,
                       Dtype dtype, void* stream) {
  switch (dtype) {
    case Dtype::kFloat: return run<float, float>(in, out, workspace, n, stream);
    case Dtype::kDouble: return run<double, double>(in, out, workspace, n, stream);
    case Dtype::kLong: return run<int64_t, int64_t>(in, out, workspace, n, stream);
    case Dtype::kInt: return run<int32_t, int64_t>(in, out, workspace, n, stream);
    case Dtype::kBool: return run<bool, int64_t>(in, out, workspace, n, stream);
    case Dtype::kShort: return run<int16_t, int64_t>(in, out, workspace, n, stream);
    case Dtype::kChar: return run<int8_t, int64_t>(in, out, workspace, n, stream);
    case Dtype::kByte: return run<uint8_t, int64_t>(in, out, workspace, n, stream);
    case Dtype::kHalf: return run<Half, float>(in, out, workspace, n, stream);
    case Dtype::kBFloat16: return run<BFloat16, float>(in, out, workspace, n, stream);
  }
  return "sum: unknown dtype";
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember

// ---- the other reductions (Note [CUDA row reductions] in launch.h) -----------------

namespace ember {
namespace cuda {
namespace kernels {
namespace {

// Values are compared as opmath_t<T> (Half and BFloat16 as float, exactly).
template <typename T, bool kMax>
__global__ void extreme_rows(RowReduce r) {
  using C = opmath_t<T>;
  __shared__ C vals[kThreads];
  __shared__ int64_t idxs[kThreads];
  const T* in = static_cast<const T*>(r.in);
  const int64_t begin = static_cast<int64_t>(blockIdx.x) * r.cols;
  const int64_t end = begin + r.cols < r.n ? begin + r.cols : r.n;
  C best = C(0);
  int64_t at = -1;
  for (int64_t j = begin + threadIdx.x; j < end; j += kThreads) {
    const int64_t pos =
        r.in_indices != nullptr ? r.in_indices[j] : (r.flat_positions ? j : j - begin);
    const C v = static_cast<C>(in[j]);
    if (at < 0 || better<kMax>(best, at, v, pos)) {
      best = v;
      at = pos;
    }
  }
  vals[threadIdx.x] = best;
  idxs[threadIdx.x] = at;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      const int other = threadIdx.x + half;
      if (idxs[other] >= 0 &&
          (idxs[threadIdx.x] < 0 ||
           better<kMax>(vals[threadIdx.x], idxs[threadIdx.x], vals[other], idxs[other]))) {
        vals[threadIdx.x] = vals[other];
        idxs[threadIdx.x] = idxs[other];
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    if (r.values != nullptr) static_cast<T*>(r.values)[blockIdx.x] = T(vals[0]);
    if (r.indices != nullptr) r.indices[blockIdx.x] = idxs[0];
  }
}

// Out is the values' stored type (T for floating inputs, int64 otherwise);
// the products are formed in Acc = opmath_t<Out>.
template <typename T, typename Out>
__global__ void prod_rows(RowReduce r) {
  using Acc = opmath_t<Out>;
  __shared__ Acc parts[kThreads];
  const T* in = static_cast<const T*>(r.in);
  const int64_t begin = static_cast<int64_t>(blockIdx.x) * r.cols;
  const int64_t end = begin + r.cols < r.n ? begin + r.cols : r.n;
  Acc acc = Acc(1);
  for (int64_t j = begin + threadIdx.x; j < end; j += kThreads) {
    if constexpr (std::is_integral<Acc>::value) {  // wraps, as on the CPU
      using U = wrap_t<Acc>;
      acc = static_cast<Acc>(static_cast<U>(acc) * static_cast<U>(convert<Acc>(in[j])));
    } else {
      acc *= convert<Acc>(in[j]);
    }
  }
  parts[threadIdx.x] = acc;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      if constexpr (std::is_integral<Acc>::value) {
        using U = wrap_t<Acc>;
        parts[threadIdx.x] = static_cast<Acc>(static_cast<U>(parts[threadIdx.x]) *
                                              static_cast<U>(parts[threadIdx.x + half]));
      } else {
        parts[threadIdx.x] *= parts[threadIdx.x + half];
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) static_cast<Out*>(r.values)[blockIdx.x] = Out(parts[0]);
}

template <typename T, bool kAll>
__global__ void logical_rows(RowReduce r) {
  const T* in = static_cast<const T*>(r.in);
  const int64_t begin = static_cast<int64_t>(blockIdx.x) * r.cols;
  const int64_t end = begin + r.cols < r.n ? begin + r.cols : r.n;
  int acc = kAll ? 1 : 0;
  for (int64_t j = begin + threadIdx.x; j < end; j += kThreads) {
    const bool v = convert<bool>(in[j]);
    acc = kAll ? (acc && v) : (acc || v);
  }
  acc = kAll ? __syncthreads_and(acc) : __syncthreads_or(acc);
  if (threadIdx.x == 0) static_cast<bool*>(r.values)[blockIdx.x] = acc != 0;
}

// The variance of each row in two passes over it (mean, then squared
// deviations), accumulated in double.
template <typename T>
__global__ void var_rows(RowReduce r) {
  const T* in = static_cast<const T*>(r.in);
  const int64_t begin = static_cast<int64_t>(blockIdx.x) * r.cols;
  const int64_t end = begin + r.cols < r.n ? begin + r.cols : r.n;
  const int64_t count = end > begin ? end - begin : 0;
  __shared__ double shared_mean;
  double s = 0;
  for (int64_t j = begin + threadIdx.x; j < end; j += kThreads) s += convert<double>(in[j]);
  s = block_sum(s);
  if (threadIdx.x == 0) shared_mean = s / static_cast<double>(count);
  __syncthreads();
  const double mean = shared_mean;
  double m2 = 0;
  for (int64_t j = begin + threadIdx.x; j < end; j += kThreads) {
    const double e = convert<double>(in[j]) - mean;
    m2 += e * e;
  }
  __syncthreads();  // block_sum's shared memory is reused
  m2 = block_sum(m2);
  if (threadIdx.x == 0) {
    const double nan = __longlong_as_double(0x7ff8000000000000LL);
    double v = count == 0 ? nan : m2 / r.divisor;
    if (r.take_sqrt) v = sqrt(v);
    if (r.values != nullptr) static_cast<T*>(r.values)[blockIdx.x] = convert<T>(v);
    if (r.mean != nullptr) {
      static_cast<T*>(r.mean)[blockIdx.x] = convert<T>(count == 0 ? nan : mean);
    }
  }
}

template <typename T>
std::string run_reduce(const RowReduce& r, ReduceOp op, cudaStream_t s) {
  const unsigned blocks = static_cast<unsigned>(r.rows);
  switch (op) {
    case ReduceOp::kMax: extreme_rows<T, true><<<blocks, kThreads, 0, s>>>(r); break;
    case ReduceOp::kMin: extreme_rows<T, false><<<blocks, kThreads, 0, s>>>(r); break;
    case ReduceOp::kAll: logical_rows<T, true><<<blocks, kThreads, 0, s>>>(r); break;
    case ReduceOp::kAny: logical_rows<T, false><<<blocks, kThreads, 0, s>>>(r); break;
    case ReduceOp::kProd:
      if constexpr (is_floating_v<T>) {
        prod_rows<T, T><<<blocks, kThreads, 0, s>>>(r);
      } else {
        prod_rows<T, int64_t><<<blocks, kThreads, 0, s>>>(r);
      }
      break;
    case ReduceOp::kVar:
      if constexpr (is_floating_v<T>) {
        var_rows<T><<<blocks, kThreads, 0, s>>>(r);
        break;
      }
      return "var: floating dtypes only";
  }
  return launch_status();
}

}  // namespace

// cumsum's accumulator, the CPU's (backends/cpu/reductions.h SumAcc): double
// for Float and Double, float for Half and BFloat16, a wrapping unsigned type
// for integers (two's complement results, as the CPU's), or for Bool.
template <typename T, typename = void>
struct CumsumAcc {
  using type = std::conditional_t<is_reduced_float_v<T>, float, double>;
};
template <typename T>
struct CumsumAcc<T, std::enable_if_t<std::is_integral<T>::value>> {
  using type = wrap_t<T>;
};
template <>
struct CumsumAcc<bool> {
  using type = bool;
};

template <typename T, typename Acc>
__global__ void cumsum_lines(const T* in, T* out, int64_t outer, int64_t n, int64_t inner) {
  const int64_t lines = outer * inner;
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t line = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; line < lines;
       line += stride) {
    const int64_t base = line / inner * n * inner + line % inner;
    Acc acc = Acc(0);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t at = base + i * inner;
      if constexpr (std::is_same<T, bool>::value) {
        acc = acc || in[at];
      } else {
        acc = static_cast<Acc>(acc + convert<Acc>(in[at]));
      }
      out[at] = convert<T>(acc);
    }
  }
}

std::string launch_cumsum(const void* in, void* out, int64_t outer, int64_t n, int64_t inner,
                          Dtype dtype, void* stream) {
  const int64_t lines = outer * inner;
  if (lines == 0 || n == 0) return "";
  const auto s = static_cast<cudaStream_t>(stream);
  const unsigned grid = grid_stride_blocks(lines, kThreads);
  return dispatch_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    cumsum_lines<T, typename CumsumAcc<T>::type><<<grid, kThreads, 0, s>>>(
        static_cast<const T*>(in), static_cast<T*>(out), outer, n, inner);
    return launch_status();
  });
}

// ---- cumsum of few long rows (Note [CUDA long cumsum] in launch.h) ------------------

namespace {

constexpr int kScanPerThread = kCumsumChunk / kThreads;
static_assert(kScanPerThread * kThreads == kCumsumChunk, "a chunk is 256 runs");

template <typename Acc>
__device__ __forceinline__ Acc scan_add(Acc a, Acc b) {
  if constexpr (std::is_same<Acc, bool>::value) {
    return a || b;
  } else {
    return static_cast<Acc>(a + b);
  }
}

// Chunk `c` of `row` (n elements) into buf as Acc, coalesced; zeros (the
// sum's identity) past the row's end.
template <typename T, typename Acc>
__device__ void load_chunk(const T* row, int64_t c, int64_t n, Acc* buf) {
  for (int i = threadIdx.x; i < kCumsumChunk; i += kThreads) {
    const int64_t at = c * kCumsumChunk + i;
    buf[i] = at < n ? convert<Acc>(row[at]) : Acc(0);
  }
  __syncthreads();
}

// Each thread's sum of its run of kScanPerThread elements of buf; the
// block's inclusive scan of those sums lands in scratch (kThreads of them:
// Hillis-Steele). Returns the thread's exclusive prefix.
template <typename Acc>
__device__ Acc scan_runs(const Acc* buf, Acc* scratch, Acc* run_sum) {
  Acc v = Acc(0);
  for (int j = 0; j < kScanPerThread; ++j) v = scan_add(v, buf[threadIdx.x * kScanPerThread + j]);
  *run_sum = v;
  scratch[threadIdx.x] = v;
  __syncthreads();
  for (int offset = 1; offset < kThreads; offset *= 2) {
    const Acc before = threadIdx.x >= offset ? scratch[threadIdx.x - offset] : Acc(0);
    __syncthreads();
    scratch[threadIdx.x] = scan_add(scratch[threadIdx.x], before);
    __syncthreads();
  }
  return threadIdx.x == 0 ? Acc(0) : scratch[threadIdx.x - 1];
}

// Pass 1: the sum of every chunk of every row, totals[row * chunks + c].
template <typename T, typename Acc>
__global__ void cumsum_chunk_totals(const T* in, Acc* totals, int64_t rows, int64_t n,
                                    int64_t chunks) {
  __shared__ Acc buf[kCumsumChunk];
  __shared__ Acc scratch[kThreads];
  for (int64_t b = blockIdx.x; b < rows * chunks; b += gridDim.x) {
    load_chunk(in + b / chunks * n, b % chunks, n, buf);
    Acc run_sum;
    scan_runs(buf, scratch, &run_sum);
    if (threadIdx.x == 0) totals[b] = scratch[kThreads - 1];
    __syncthreads();
  }
}

// Pass 2: each row's chunk totals become exclusive prefixes (one thread a
// row; a row has n / 2048 chunks).
template <typename Acc>
__global__ void cumsum_chunk_offsets(Acc* totals, int64_t rows, int64_t chunks) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < rows;
       r += stride) {
    Acc running = Acc(0);
    for (int64_t c = 0; c < chunks; ++c) {
      const Acc t = totals[r * chunks + c];
      totals[r * chunks + c] = running;
      running = scan_add(running, t);
    }
  }
}

// Pass 3: every chunk scanned again from its offset and written, coalesced.
template <typename T, typename Acc>
__global__ void cumsum_chunk_scan(const T* in, const Acc* offsets, T* out, int64_t rows,
                                  int64_t n, int64_t chunks) {
  __shared__ Acc buf[kCumsumChunk];
  __shared__ Acc scratch[kThreads];
  for (int64_t b = blockIdx.x; b < rows * chunks; b += gridDim.x) {
    const int64_t r = b / chunks, c = b % chunks;
    load_chunk(in + r * n, c, n, buf);
    Acc run_sum;
    Acc acc = scan_add(offsets[b], scan_runs(buf, scratch, &run_sum));
    for (int j = 0; j < kScanPerThread; ++j) {
      Acc& e = buf[threadIdx.x * kScanPerThread + j];
      acc = scan_add(acc, e);
      e = acc;
    }
    __syncthreads();
    for (int i = threadIdx.x; i < kCumsumChunk; i += kThreads) {
      const int64_t at = c * kCumsumChunk + i;
      if (at < n) out[r * n + at] = convert<T>(buf[i]);
    }
    __syncthreads();
  }
}

}  // namespace

std::string cumsum_rows_workspace_bytes(int64_t rows, int64_t n, Dtype dtype, size_t* bytes) {
  const int64_t chunks = (n + kCumsumChunk - 1) / kCumsumChunk;
  return dispatch_dtype(dtype, [&](auto tag) {
    using Acc = typename CumsumAcc<decltype(tag)>::type;
    *bytes = static_cast<size_t>(rows * chunks) * sizeof(Acc);
    return std::string();
  });
}

std::string launch_cumsum_rows(const void* in, void* out, int64_t rows, int64_t n, Dtype dtype,
                               void* workspace, void* stream) {
  if (rows == 0 || n == 0) return "";
  const auto s = static_cast<cudaStream_t>(stream);
  const int64_t chunks = (n + kCumsumChunk - 1) / kCumsumChunk;
  const int64_t blocks = rows * chunks;
  const unsigned grid = static_cast<unsigned>(blocks < 65535 * 8 ? blocks : 65535 * 8);
  return dispatch_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    using Acc = typename CumsumAcc<T>::type;
    Acc* totals = static_cast<Acc*>(workspace);
    cumsum_chunk_totals<T, Acc><<<grid, kThreads, 0, s>>>(static_cast<const T*>(in), totals,
                                                          rows, n, chunks);
    std::string status = launch_status();
    if (!status.empty()) return status;
    cumsum_chunk_offsets<Acc><<<grid_stride_blocks(rows, kThreads), kThreads, 0, s>>>(
        totals, rows, chunks);
    status = launch_status();
    if (!status.empty()) return status;
    cumsum_chunk_scan<T, Acc><<<grid, kThreads, 0, s>>>(static_cast<const T*>(in), totals,
                                                        static_cast<T*>(out), rows, n, chunks);
    return launch_status();
  });
}

std::string launch_reduce_rows(const RowReduce& r, ReduceOp op, void* stream) {
  if (r.rows == 0) return "";
  if (r.rows > 0x7fffffff) return "more than 2^31 - 1 output elements";
  const auto s = static_cast<cudaStream_t>(stream);
  return dispatch_dtype(r.dtype, [&](auto tag) {
    using T = decltype(tag);
    return run_reduce<T>(r, op, s);
  });
}

namespace {
// f(T{}, Acc{}, Op{}) for a middle reduction of `op` over elements of
// `dtype` (Note [CUDA middle sums]); an error for the pairs it has not.
template <typename F>
std::string with_middle_op(ReduceOp op, Dtype dtype, F&& f) {
  return dispatch_dtype(dtype, [&](auto tag) -> std::string {
    using T = decltype(tag);
    switch (op) {
      case ReduceOp::kMax: return f(T{}, T{}, MiddleExtreme<T, true>{});
      case ReduceOp::kMin: return f(T{}, T{}, MiddleExtreme<T, false>{});
      case ReduceOp::kAll: return f(T{}, bool{}, MiddleLogical<true>{});
      case ReduceOp::kAny: return f(T{}, bool{}, MiddleLogical<false>{});
      case ReduceOp::kProd:
        if constexpr (std::is_same<T, float>::value || std::is_same<T, double>::value) {
          return f(T{}, T{}, MiddleProd<T>{});
        } else if constexpr (std::is_integral<T>::value) {
          return f(T{}, int64_t{}, MiddleProd<int64_t>{});
        } else {
          return "prod: the middle reduction takes Float, Double and integers";
        }
      case ReduceOp::kVar: break;
    }
    return "the middle reduction has no var";
  });
}
}  // namespace

std::string reduce_middle_workspace_bytes(int64_t outer, int64_t rows, int64_t inner,
                                          ReduceOp op, Dtype dtype, size_t* bytes) {
  return with_middle_op(op, dtype, [&](auto, auto acc, auto) {
    *bytes = static_cast<size_t>(middle_plan(outer, rows, inner).workspace_elems) * sizeof(acc);
    return std::string();
  });
}

std::string launch_reduce_middle(const void* in, void* out, void* workspace, int64_t outer,
                                 int64_t rows, int64_t inner, ReduceOp op, Dtype dtype,
                                 void* stream) {
  return with_middle_op(op, dtype, [&](auto element, auto acc, auto combine) {
    return run_middle<decltype(element), decltype(acc), decltype(combine)>(
        in, out, workspace, outer, rows, inner, stream);
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
