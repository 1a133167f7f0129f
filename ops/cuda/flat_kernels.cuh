// The flat CUDA kernels: every tensor one dense span in one order (contiguous, or the same
// permutation for all). Each thread takes 16 bytes of every input: one 16-byte vector when every
// pointer is 16-byte aligned after a common head of scalar elements (the real addresses are
// checked, so x[1:] is safe), 16 bytes of scalars otherwise.
//
// Two kernels. Spans below 2^31 elements take the tile kernel: one tile a block, 32-bit offsets,
// no loop, the head done after the tile. Larger spans take the loop kernel: 64-bit indices, a
// loop over tiles (the grid is capped at 2^31 - 1 blocks), the head first. At 2^14 - 2^22
// elements the loop kernel's prologue and 64-bit arithmetic cost about 0.1 us a launch (5 %)
// against the tile kernel (docs/performance_history.md, "What was tried on the GPU"); at the
// largest sizes they run alike.
//
// Both kernels take `body`: the tensors' pointers moved past the head, so that their vector loads
// and stores index from a vector boundary; the head lies at the negative offsets [-head_size, 0).
// The host moves the pointers once, not every thread; and while the loop kernel moved them itself,
// nvcc 13 split its 16-byte stores into 4- and 8-byte ones.
#pragma once

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "ops/cuda/kernel_common.cuh"

namespace hardsigmoid_ops::cuda {

// Elements each thread takes per input, and a block's tile.
template <typename T>
constexpr int kThreadElements = static_cast<int>(kVectorBytes / sizeof(T));
template <typename T>
constexpr int kTileElements = int{kThreads} * kThreadElements<T>;

// The launch shape the library runs: kThreads a block, each thread kUnroll loads of kVec elements
// per input (one 16-byte vector, or 16 bytes of scalars). The kernels take the shape as template
// parameters, defaulting to this one, so that benchmarks/studies/cuda_flat_variants.cu measures
// these kernels under other shapes.
template <typename T, int kVec>
constexpr int kShippedUnroll = kThreadElements<T> / kVec;

// op on element i of every tensor.
template <typename T, int N, typename Index, typename Op>
__device__ __forceinline__ void apply_at(const Pointers<T, N>& p, Index i, const Op& op) {
  T values[N];
#pragma unroll
  for (int k = 0; k < N; ++k) values[k] = p.in[k][i];
  p.out[i] = apply<N>(op, values);
}

// One block's tile, [base, base + tile) clipped to n: when the tile is whole, each thread issues
// kUnroll loads of kVec (one vector, or scalars with kVec = 1), all before it computes; else one
// element a thread at a time, still coalesced.
template <typename T, int N, int kVec, int kBlock, int kUnroll, typename Index, typename Op>
__device__ __forceinline__ void apply_tile(const Pointers<T, N>& p, Index base, Index n,
                                           const Op& op) {
  static_assert(kBlock > 0 && kUnroll > 0 && kThreadElements<T> % kVec == 0);
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

// Block b covers body elements [b * tile, (b + 1) * tile).
template <typename T, int N, int kVec, typename Op, int kBlock = kThreads,
          int kUnroll = kShippedUnroll<T, kVec>>
__global__ void __launch_bounds__(kBlock)
    flat_tile_kernel(Pointers<T, N> body, uint32_t body_size, uint32_t head_size, Op op) {
  constexpr uint32_t kTile = uint32_t{kBlock} * kUnroll * kVec;
  apply_tile<T, N, kVec, kBlock, kUnroll>(body, blockIdx.x * kTile, body_size, op);
  // After the tile, so that it delays no block's loads.
  if (blockIdx.x == 0 && threadIdx.x < head_size) {
    apply_at(body, static_cast<int>(threadIdx.x) - static_cast<int>(head_size), op);
  }
}

// The head first, one element a thread; then each block loops over tiles, grid-stride.
template <typename T, int N, int kVec, typename Op, int kBlock = kThreads,
          int kUnroll = kShippedUnroll<T, kVec>>
__global__ void __launch_bounds__(kBlock)
    flat_loop_kernel(Pointers<T, N> body, int64_t body_size, int64_t head_size, Op op) {
  if (blockIdx.x == 0 && threadIdx.x < head_size) {
    apply_at(body, static_cast<int64_t>(threadIdx.x) - head_size, op);
  }
  constexpr int64_t kTile = int64_t{kBlock} * kUnroll * kVec;
  for (int64_t base = blockIdx.x * kTile; base < body_size; base += gridDim.x * kTile) {
    apply_tile<T, N, kVec, kBlock, kUnroll>(body, base, body_size, op);
  }
}

// Spans the tile kernel takes: its offsets and its last tile's end fit in 32 bits.
constexpr int64_t kMaxTileSpan = std::numeric_limits<int32_t>::max();

// Runs op over n elements of one dense span per tensor at p, the first `head` of them one at a
// time (kVec = 1: head 0).
template <typename T, int N, int kVec, typename Op>
void launch_flat(const Pointers<T, N>& p, int64_t n, int64_t head, Op op) {
  static_assert(kVec == 1 || kVec == kThreadElements<T>);
  Pointers<T, N> body = p;
  body.out += head;
  for (int k = 0; k < N; ++k) body.in[k] += head;
  const int64_t body_size = n - head;
  const int64_t blocks = grid_size((body_size + kTileElements<T> - 1) / kTileElements<T>);
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  if (body_size <= kMaxTileSpan) {
    flat_tile_kernel<T, N, kVec, Op><<<blocks, kThreads, 0, stream>>>(
        body, static_cast<uint32_t>(body_size), static_cast<uint32_t>(head), op);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  } else {
    flat_loop_kernel<T, N, kVec, Op><<<blocks, kThreads, 0, stream>>>(body, body_size, head, op);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
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
  const int64_t head = common_head(p, n);
  if (head >= 0) {
    launch_flat<T, N, kThreadElements<T>>(p, n, head, op);
  } else {
    launch_flat<T, N, 1>(p, n, 0, op);
  }
}

}  // namespace hardsigmoid_ops::cuda
