// What the flat and strided CUDA kernels share: the launch shape, the vector type, the pointers the
// flat kernels take, how a functor is applied to N values, and the grid size.
#pragma once

#include <algorithm>
#include <cstdint>

namespace hardsigmoid_ops::cuda {

// 128 threads, each loading one 16-byte vector (or 16 bytes of scalars) of every input, one tile a
// block: on the H200 that ran at the copy's speed, while a persistent grid sized from the
// multiprocessor count and occupancy, each thread looping with 64 bytes in flight, ran 10% slower
// (docs/performance_history.md, "What was tried on the GPU";
// benchmarks/studies/cuda_flat_variants.cu times both). No other way of streaming the bytes
// measured faster (benchmarks/studies/cuda_ceiling.cu: cache hints, tile shapes, grid-stride loops,
// the bulk copy engine): this shape is within 0.4 % of the best of them.
constexpr int kThreads = 128;
constexpr int kVectorBytes = 16;

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

// Blocks to launch for `tiles` tiles: one a tile, at least one, at most gridDim.x's limit (the
// kernels that can meet the limit loop over the tiles beyond it).
inline int64_t grid_size(int64_t tiles) {
  constexpr int64_t kMaxGrid = (int64_t{1} << 31) - 1;
  return std::clamp<int64_t>(tiles, 1, kMaxGrid);
}

}  // namespace hardsigmoid_ops::cuda
