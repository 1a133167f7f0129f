// The flat CUDA walk: every tensor one dense span in one order (contiguous, or the same
// permutation for all). 16-byte vector loads and stores when every pointer is 16-byte aligned
// after a common head of scalar elements (the real addresses are checked, so x[1:] is safe);
// scalar loads otherwise.
//
// Two kernels. Spans below 2^31 elements take the tile kernel: one tile a block, 32-bit offsets,
// no loop, the head done after the tile. Larger spans take the loop kernel: 64-bit indices, a
// loop over tiles (the grid is capped at 2^31 - 1 blocks), the head first. At 2^14 - 2^22
// elements the loop kernel's prologue and 64-bit arithmetic cost about 0.1 us a launch (5 %)
// against the tile kernel (benchmarks/NOTES.md); at the largest sizes they run alike.
#pragma once

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "ops/cuda/kernel_common.cuh"

namespace hardsigmoid_ops::cuda {

// op on element i of every tensor.
template <typename T, int N, typename Index, typename Op>
__device__ __forceinline__ void apply_at(const Pointers<T, N>& p, Index i, const Op& op) {
  T values[N];
#pragma unroll
  for (int k = 0; k < N; ++k) values[k] = p.in[k][i];
  p.out[i] = apply<N>(op, values);
}

// One block's tile, [base, base + tile) clipped to n: vectors when the tile is whole, else one
// element a thread at a time, still coalesced.
template <typename T, int N, int kVec, int kUnroll, int kBlock, typename Index, typename Op>
__device__ __forceinline__ void apply_tile(const Pointers<T, N>& p, Index base, Index n,
                                           const Op& op) {
  constexpr Index kTile = Index{kBlock} * kUnroll * kVec;
  using V = Vector<T, kVec>;
  if (base + kTile <= n) {
    V loaded[kUnroll][N];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const Index i = base + (static_cast<Index>(u) * kBlock + threadIdx.x) * kVec;
#pragma unroll
      for (int k = 0; k < N; ++k) loaded[u][k] = *reinterpret_cast<const V*>(p.in[k] + i);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const Index i = base + (static_cast<Index>(u) * kBlock + threadIdx.x) * kVec;
      V result;
#pragma unroll
      for (int j = 0; j < kVec; ++j) {
        T values[N];
#pragma unroll
        for (int k = 0; k < N; ++k) values[k] = loaded[u][k].lane[j];
        result.lane[j] = apply<N>(op, values);
      }
      *reinterpret_cast<V*>(p.out + i) = result;
    }
  } else {
    for (Index i = base + threadIdx.x; i < n; i += kBlock) apply_at(p, i, op);
  }
}

// `p` points past the `head` elements that bring every pointer to a vector boundary; `n` counts
// the elements after them. Block b covers elements [b * tile, (b + 1) * tile).
template <typename T, int N, int kVec, int kUnroll, int kBlock, typename Op>
__global__ void __launch_bounds__(kBlock)
    flat_tile_kernel(Pointers<T, N> p, uint32_t n, uint32_t head, Op op) {
  constexpr uint32_t kTile = uint32_t{kBlock} * kUnroll * kVec;
  apply_tile<T, N, kVec, kUnroll, kBlock>(p, blockIdx.x * kTile, n, op);
  // The head, before p: after the tile, so that it delays no block's loads.
  if (blockIdx.x == 0 && threadIdx.x < head) {
    apply_at(p, static_cast<int>(threadIdx.x) - static_cast<int>(head), op);
  }
}

// The first `head` elements, one a thread, bring every pointer to a vector boundary; then each
// block loops over tiles, grid-stride.
template <typename T, int N, int kVec, int kUnroll, int kBlock, typename Op>
__global__ void __launch_bounds__(kBlock)
    flat_loop_kernel(Pointers<T, N> p, int64_t n, int64_t head, Op op) {
  if (blockIdx.x == 0 && threadIdx.x < head) apply_at(p, threadIdx.x, op);
  p.out += head;
#pragma unroll
  for (int k = 0; k < N; ++k) p.in[k] += head;
  n -= head;
  constexpr int64_t kTile = int64_t{kBlock} * kUnroll * kVec;
  for (int64_t base = blockIdx.x * kTile; base < n; base += gridDim.x * kTile) {
    apply_tile<T, N, kVec, kUnroll, kBlock>(p, base, n, op);
  }
}

// Spans the tile kernel takes: its offsets and its last tile's end fit in 32 bits.
constexpr int64_t kMaxTileSpan = std::numeric_limits<int32_t>::max();

template <typename T, int N, int kVec, int kUnroll, int kBlock, typename Op>
void launch_flat_tiles(Pointers<T, N> p, int64_t n, int64_t head, Op op) {
  const int64_t tile = int64_t{kBlock} * kUnroll * kVec;
  const int64_t blocks = std::max<int64_t>((n - head + tile - 1) / tile, 1);
  p.out += head;
  for (int k = 0; k < N; ++k) p.in[k] += head;
  flat_tile_kernel<T, N, kVec, kUnroll, kBlock, Op>
      <<<blocks, kBlock, 0, at::cuda::getCurrentCUDAStream()>>>(p, static_cast<uint32_t>(n - head),
                                                                static_cast<uint32_t>(head), op);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

template <typename T, int N, int kVec, int kUnroll, int kBlock, typename Op>
void launch_flat_loop(const Pointers<T, N>& p, int64_t n, int64_t head, Op op, int waves) {
  const auto kernel = flat_loop_kernel<T, N, kVec, kUnroll, kBlock, Op>;
  const int64_t tile = int64_t{kBlock} * kUnroll * kVec;
  const int64_t blocks = grid_size(kernel, kBlock, (n - head + tile - 1) / tile, waves);
  kernel<<<blocks, kBlock, 0, at::cuda::getCurrentCUDAStream()>>>(p, n, head, op);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

template <typename T, int N, int kVec, int kUnroll, typename Op>
void launch_flat(const Pointers<T, N>& p, int64_t n, int64_t head, Op op) {
  if (n - head <= kMaxTileSpan) {
    launch_flat_tiles<T, N, kVec, kUnroll, kThreads>(p, n, head, op);
  } else {
    launch_flat_loop<T, N, kVec, kUnroll, kThreads>(p, n, head, op, kOneTilePerBlock);
  }
}

// Elements to process one at a time before every pointer sits on a 16-byte boundary, or -1 when
// the pointers are misaligned differently from each other and can never all be aligned.
template <typename T, int N>
int64_t common_head(const Pointers<T, N>& p, int64_t n) {
  const auto misalignment = [](const void* ptr) {
    return reinterpret_cast<uintptr_t>(ptr) % kVectorBytes;
  };
  const uintptr_t shared = misalignment(p.out);
  for (int k = 0; k < N; ++k) {
    if (misalignment(p.in[k]) != shared) return -1;
  }
  const int64_t head = shared == 0 ? 0 : (kVectorBytes - shared) / sizeof(T);
  return std::min(head, n);
}

// Runs op over n elements of one dense span per tensor.
template <typename T, int N, typename Op>
void run_flat(const Pointers<T, N>& p, int64_t n, Op op) {
  constexpr int kVec = kVectorBytes / sizeof(T);
  constexpr int kVecUnroll = std::max(1, kBytesInFlight / kVectorBytes);
  constexpr int kScalarUnroll = std::max(1, kBytesInFlight / static_cast<int>(sizeof(T)));
  const int64_t head = common_head(p, n);
  if (head >= 0) {
    launch_flat<T, N, kVec, kVecUnroll>(p, n, head, op);
  } else {
    launch_flat<T, N, 1, kScalarUnroll>(p, n, 0, op);
  }
}

}  // namespace hardsigmoid_ops::cuda
