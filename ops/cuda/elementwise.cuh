// Elementwise CUDA kernels over N inputs and one output of one dtype, for any functor `op`
// taking N values. Two walks, chosen by the caller (ops/tensor_walk.h):
//
//  flat:    all tensors one dense span in one order. 16-byte vector loads and stores when every
//           pointer is 16-byte aligned after a common head of scalar elements (the real addresses
//           are checked, so x[1:] is safe); scalar loads otherwise. 64-bit indices.
//  strided: a TensorIterator's coalesced shape and byte strides, split by the iterator into parts
//           addressable with 32-bit offsets; coordinates by multiply-shift division.
//
// Each block covers one tile of the tensor and each thread one 16-byte vector (or 16 bytes of
// scalars) of every input: on the H200 that ran at the copy's speed, while a persistent grid
// sized from the multiprocessor count and occupancy, each thread looping over tiles with 64 bytes
// in flight, ran 10% slower (benchmarks/NOTES.md). The kernels still loop over tiles, so a capped
// grid (the `waves` argument, for the comparison) stays correct.
#pragma once

#include <ATen/TensorIterator.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

#include <algorithm>
#include <cstdint>

#include "ops/cuda/fast_divmod.cuh"

namespace hardsigmoid_ops::cuda {

constexpr int kThreads = 128;
constexpr int kVectorBytes = 16;
// Bytes each thread loads per input: one 16-byte vector, or as many scalars.
constexpr int kBytesInFlight = 16;
constexpr int kMaxDims = 25;         // at most a TensorIterator's dimensions
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

template <typename T, int N, int kVec, int kUnroll, int kBlock, typename Op>
__global__ void __launch_bounds__(kBlock)
    flat_kernel(Pointers<T, N> p, int64_t n, int64_t head, Op op) {
  // The first `head` elements, one a thread, bring every pointer to a vector boundary.
  if (blockIdx.x == 0 && threadIdx.x < head) {
    T values[N];
#pragma unroll
    for (int k = 0; k < N; ++k) values[k] = p.in[k][threadIdx.x];
    p.out[threadIdx.x] = apply<N>(op, values);
  }
  p.out += head;
#pragma unroll
  for (int k = 0; k < N; ++k) p.in[k] += head;
  n -= head;

  constexpr int64_t kTile = int64_t{kBlock} * kUnroll * kVec;
  using V = Vector<T, kVec>;
  for (int64_t base = blockIdx.x * kTile; base < n; base += gridDim.x * kTile) {
    if (base + kTile <= n) {
      V loaded[kUnroll][N];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int64_t i = base + (int64_t{u} * kBlock + threadIdx.x) * kVec;
#pragma unroll
        for (int k = 0; k < N; ++k) loaded[u][k] = *reinterpret_cast<const V*>(p.in[k] + i);
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int64_t i = base + (int64_t{u} * kBlock + threadIdx.x) * kVec;
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
      // The last, partial tile: one element a thread at a time, still coalesced.
      for (int64_t i = base + threadIdx.x; i < n; i += kBlock) {
        T values[N];
#pragma unroll
        for (int k = 0; k < N; ++k) values[k] = p.in[k][i];
        p.out[i] = apply<N>(op, values);
      }
    }
  }
}

template <int N>
struct StridedLayout {
  char* out;
  const char* in[N];
  int dims;
  uint32_t numel;
  FastDivmod sizes[kMaxDims];
  uint32_t strides[kMaxDims][N + 1];  // bytes; [d][0] the output's, [d][1 + k] input k's
};

template <typename T, int N, int kUnroll, typename Op>
__global__ void __launch_bounds__(kThreads) strided_kernel(StridedLayout<N> layout, Op op) {
  constexpr uint32_t kTile = uint32_t{kThreads} * kUnroll;
  for (uint32_t base = blockIdx.x * kTile; base < layout.numel; base += gridDim.x * kTile) {
    uint32_t offsets[kUnroll][N + 1];
    T values[kUnroll][N];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      uint32_t linear = base + u * kThreads + threadIdx.x;
#pragma unroll
      for (int k = 0; k <= N; ++k) offsets[u][k] = 0;
#pragma unroll
      for (int d = 0; d < kMaxDims; ++d) {
        if (d == layout.dims) break;
        const uint32_t quotient = layout.sizes[d].div(linear);
        const uint32_t coordinate = layout.sizes[d].mod(linear, quotient);
#pragma unroll
        for (int k = 0; k <= N; ++k) offsets[u][k] += coordinate * layout.strides[d][k];
        linear = quotient;
      }
      if (base + u * kThreads + threadIdx.x < layout.numel) {
#pragma unroll
        for (int k = 0; k < N; ++k) {
          values[u][k] = *reinterpret_cast<const T*>(layout.in[k] + offsets[u][k + 1]);
        }
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (base + u * kThreads + threadIdx.x < layout.numel) {
        *reinterpret_cast<T*>(layout.out + offsets[u][0]) = apply<N>(op, values[u]);
      }
    }
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

template <typename T, int N, int kVec, int kUnroll, int kBlock, typename Op>
void launch_flat(const Pointers<T, N>& p, int64_t n, int64_t head, Op op, int waves) {
  const auto kernel = flat_kernel<T, N, kVec, kUnroll, kBlock, Op>;
  const int64_t tile = int64_t{kBlock} * kUnroll * kVec;
  const int64_t blocks = grid_size(kernel, kBlock, (n - head + tile - 1) / tile, waves);
  kernel<<<blocks, kBlock, 0, at::cuda::getCurrentCUDAStream()>>>(p, n, head, op);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
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
    launch_flat<T, N, kVec, kVecUnroll, kThreads>(p, n, head, op, kOneTilePerBlock);
  } else {
    launch_flat<T, N, 1, kScalarUnroll, kThreads>(p, n, 0, op, kOneTilePerBlock);
  }
}

// Runs op over a TensorIterator's output and N inputs (any strides).
template <typename T, int N, typename Op>
void run_strided(at::TensorIteratorBase& iter, Op op) {
  if (!iter.can_use_32bit_indexing()) {
    for (auto& part : iter.with_32bit_indexing()) {
      run_strided<T, N>(part, op);
    }
    return;
  }
  constexpr int kUnroll = 4;
  StridedLayout<N> layout{};
  layout.out = static_cast<char*>(iter.data_ptr(0));
  for (int k = 0; k < N; ++k) layout.in[k] = static_cast<const char*>(iter.data_ptr(1 + k));
  layout.dims = iter.ndim();
  layout.numel = static_cast<uint32_t>(iter.numel());
  TORCH_INTERNAL_ASSERT(layout.dims <= kMaxDims);
  for (int d = 0; d < layout.dims; ++d) {
    layout.sizes[d] = FastDivmod(static_cast<uint32_t>(iter.shape()[d]));
    for (int k = 0; k <= N; ++k) {
      layout.strides[d][k] = static_cast<uint32_t>(iter.strides(k)[d]);
    }
  }
  const auto kernel = strided_kernel<T, N, kUnroll, Op>;
  const int64_t tile = int64_t{kThreads} * kUnroll;
  const int64_t blocks =
      grid_size(kernel, kThreads, (iter.numel() + tile - 1) / tile, kOneTilePerBlock);
  kernel<<<blocks, kThreads, 0, at::cuda::getCurrentCUDAStream()>>>(layout, op);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

}  // namespace hardsigmoid_ops::cuda
