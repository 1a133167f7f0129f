// The strided CUDA kernel: a TensorIterator's coalesced shape and byte strides, split by the
// iterator into parts addressable with 32-bit offsets; coordinates by multiply-shift division.
// For inputs and outputs that are not one dense span in one order (step slices, an `out` whose
// layout differs from `self`'s).
#pragma once

#include <ATen/TensorIterator.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

#include <cstdint>

#include "ops/cuda/fast_divmod.cuh"
#include "ops/cuda/kernel_common.cuh"

namespace hardsigmoid_ops::cuda {

constexpr int kMaxDims = 25;  // at most a TensorIterator's dimensions

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
  const int64_t blocks = grid_size((iter.numel() + tile - 1) / tile);
  kernel<<<blocks, kThreads, 0, at::cuda::getCurrentCUDAStream()>>>(layout, op);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

}  // namespace hardsigmoid_ops::cuda
