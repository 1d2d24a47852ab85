// backends/cuda/kernels/sort_pairs_u32.cu — sort_pairs for 32-bit keys
// (sort.cuh: one file per width, so that they compile in parallel).
#include "backends/cuda/kernels/sort_pairs.cuh"

namespace ember {
namespace cuda {
namespace kernels {

template cudaError_t sort_pairs<uint32_t>(const SortPass<uint32_t>&, cudaStream_t);

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
