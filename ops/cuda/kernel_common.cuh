// What the flat and strided CUDA walks share: the launch shape, the vector type, the pointers a
// flat walk takes, how a functor is applied to N values, and the grid size.
#pragma once

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

#include <algorithm>
#include <cstdint>

namespace hardsigmoid_ops::cuda {

// 128 threads, each loading one 16-byte vector (or 16 bytes of scalars) of every input: on the
// H200 that ran at the copy's speed, while a persistent grid sized from the multiprocessor count
// and occupancy, each thread looping with 64 bytes in flight, ran 10% slower
// (benchmarks/NOTES.md).
constexpr int kThreads = 128;
constexpr int kVectorBytes = 16;
constexpr int kBytesInFlight = 16;   // bytes each thread loads per input
constexpr int kOneTilePerBlock = 0;  // `waves` for a grid that covers the tensor

template <typename T, int kVec>
struct alignas(sizeof(T) * kVec) Vector {
  T lane[kVec];
};

template <typename T, int N>
struct Pointers {
  T* out;
  const T* in[N];
};

// op(in[0][i], ..., in[N-1][i])
template <int N, typename T, typename Op>
__device__ __forceinline__ T apply(const Op& op, const T (&values)[N]) {
  if constexpr (N == 1) {
    return op(values[0]);
  } else {
    return op(values[0], values[1]);
  }
}

// Blocks to launch for `tiles` tiles: at most `waves` times what the device holds at once
// (waves <= 0: one block a tile).
template <typename Kernel>
int64_t grid_size(Kernel kernel, int block, int64_t tiles, int waves) {
  constexpr int64_t kMaxGrid = (int64_t{1} << 31) - 1;  // gridDim.x; the kernels loop beyond it
  if (waves <= 0) return std::clamp<int64_t>(tiles, 1, kMaxGrid);
  // Occupancy depends on the kernel and the architecture, not on the launch: ask once.
  static const int blocks_per_sm = [&] {
    int blocks = 0;
    C10_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block, 0));
    return std::max(blocks, 1);
  }();
  const int64_t resident =
      int64_t{at::cuda::getCurrentDeviceProperties()->multiProcessorCount} * blocks_per_sm;
  return std::clamp<int64_t>(std::min(tiles, resident * waves), 1, kMaxGrid);
}

}  // namespace hardsigmoid_ops::cuda
