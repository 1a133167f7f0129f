// Launch shapes of the flat CUDA kernels, timed against aten and a copy in one run: the
// measurements behind ops/cuda/flat_kernels.cuh's choice of kernel, block size, unroll and grid
// (see docs/performance_history.md). Usage: cuda_flat_variants [repeats] [sizes]
//   without "sizes": the 1.61 G-element float32 and bfloat16 tensors, timed with events;
//   with "sizes": 2^12 ... 2^30 elements, kernel time by replaying a CUDA graph of many launches
//   over a pool of inputs larger than L2, as benchmarks/gpu_benchmark.py's sweep does.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "ops/cuda/flat_kernels.cuh"
#include "ops/cuda/hardsigmoid_functors.cuh"

namespace hs = hardsigmoid_ops::cuda;

namespace {

// The library's flat kernels (ops/cuda/flat_kernels.cuh) under launch shapes it does not run: the
// block size, the loads of kVec elements each thread issues per input (kUnroll), and for the loop
// kernel a grid of at most `waves` times what the device holds at once. The library runs 128
// threads, one 16-byte vector or 16 bytes of scalars a thread, one tile a block.

template <typename T, int N, int kVec, int kUnroll, int kBlock, typename Op>
void launch_tiles(const hs::Pointers<T, N>& body, int64_t body_size, int64_t head_size, Op op) {
  const int64_t tile = int64_t{kBlock} * kUnroll * kVec;
  const int64_t blocks = hs::grid_size((body_size + tile - 1) / tile);
  hs::flat_tile_kernel<T, N, kVec, Op, kBlock, kUnroll>
      <<<blocks, kBlock, 0, at::cuda::getCurrentCUDAStream()>>>(
          body, static_cast<uint32_t>(body_size), static_cast<uint32_t>(head_size), op);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

constexpr int kOneTilePerBlock = 0;  // `waves` for a grid that covers the tensor

template <typename T, int N, int kVec, int kUnroll, int kBlock, typename Op>
void launch_loop(const hs::Pointers<T, N>& body, int64_t body_size, int64_t head_size, Op op,
                 int waves) {
  const auto kernel = hs::flat_loop_kernel<T, N, kVec, Op, kBlock, kUnroll>;
  const int64_t tile = int64_t{kBlock} * kUnroll * kVec;
  int64_t tiles = (body_size + tile - 1) / tile;
  if (waves > 0) {
    // Occupancy depends on the kernel and the architecture, not on the launch: ask once a kernel.
    static const int blocks_per_sm = [&] {
      int blocks = 0;
      C10_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kBlock, 0));
      return std::max(blocks, 1);
    }();
    const int64_t resident =
        int64_t{at::cuda::getCurrentDeviceProperties()->multiProcessorCount} * blocks_per_sm;
    tiles = std::min(tiles, resident * waves);
  }
  const int64_t blocks = hs::grid_size(tiles);
  kernel<<<blocks, kBlock, 0, at::cuda::getCurrentCUDAStream()>>>(body, body_size, head_size, op);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

template <int kUnroll, int kBlock>
struct Shape {
  static constexpr int unroll = kUnroll;
  static constexpr int block = kBlock;
};

double median_ms(const std::function<void()>& fn, int repeats) {
  for (int i = 0; i < 3; ++i) fn();
  std::vector<float> times;
  cudaEvent_t start, end;
  cudaEventCreate(&start);
  cudaEventCreate(&end);
  for (int i = 0; i < repeats; ++i) {
    cudaEventRecord(start, at::cuda::getCurrentCUDAStream());
    fn();
    cudaEventRecord(end, at::cuda::getCurrentCUDAStream());
    cudaEventSynchronize(end);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, end);
    times.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(end);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

template <typename T, int kVec, int kUnroll, int kBlock>
void variant(const char* label, const at::Tensor& x, const at::Tensor& out, int waves,
             double aten_ms, double copy_ms, int repeats) {
  hs::Pointers<T, 1> p{out.mutable_data_ptr<T>(), {x.const_data_ptr<T>()}};
  const double ms = median_ms(
      [&] { launch_loop<T, 1, kVec, kUnroll, kBlock>(p, x.numel(), 0, hs::ForwardOp<T>{}, waves); },
      repeats);
  const bool same = at::equal(out, at::hardsigmoid(x));
  std::printf(
      "  %-10s vec %d unroll %2d block %3d waves %2d: %.4f ms  aten/ours %.3f  copy/ours %.3f%s\n",
      label, kVec, kUnroll, kBlock, waves, ms, aten_ms / ms, copy_ms / ms,
      same ? "" : "  WRONG RESULT");
}

// Per-launch time of `launch(input)`, by replaying a graph that launches once per input.
double graph_us(const std::function<void(const at::Tensor&)>& launch,
                const std::vector<at::Tensor>& inputs, int repeats) {
  const c10::cuda::CUDAStreamGuard guard(at::cuda::getStreamFromPool());
  for (int i = 0; i < 2; ++i) launch(inputs[i % inputs.size()]);
  at::cuda::CUDAGraph graph;
  graph.capture_begin();
  for (const at::Tensor& x : inputs) launch(x);
  graph.capture_end();
  return median_ms([&] { graph.replay(); }, repeats) * 1e3 / inputs.size();
}

template <typename T>
void size_sweep(at::ScalarType dtype, int repeats) {
  const int64_t l2 = at::cuda::getCurrentDeviceProperties()->l2CacheSize;
  constexpr int V = hs::kVectorBytes / sizeof(T);
  for (int log2 = 12; log2 <= 30; log2 += 2) {
    const int64_t n = int64_t{1} << log2;
    const int64_t bytes = n * sizeof(T);
    const int64_t count = std::clamp<int64_t>((3 * l2 + bytes - 1) / bytes, 4, 8192);
    std::vector<at::Tensor> inputs;
    for (int64_t i = 0; i < count; ++i) {
      inputs.push_back((at::randn({n}, at::TensorOptions().device(at::kCUDA)) * 4).to(dtype));
    }
    at::Tensor out = at::empty_like(inputs[0]);
    const auto ours = [&](auto launch_one) {
      return [&, launch_one](const at::Tensor& x) {
        launch_one(out.mutable_data_ptr<T>(), x.const_data_ptr<T>(), x.numel());
      };
    };
    const auto loop = [&](auto tag) {
      using S = decltype(tag);
      return ours([](T* o, const T* in, int64_t numel) {
        hs::Pointers<T, 1> p{o, {in}};
        launch_loop<T, 1, V, S::unroll, S::block>(p, numel, 0, hs::ForwardOp<T>{},
                                                  kOneTilePerBlock);
      });
    };
    const auto tiles = [&](auto tag) {
      using S = decltype(tag);
      return ours([](T* o, const T* in, int64_t numel) {
        hs::Pointers<T, 1> p{o, {in}};
        launch_tiles<T, 1, V, S::unroll, S::block>(p, numel, 0, hs::ForwardOp<T>{});
      });
    };
    const double aten_us =
        graph_us([&](const at::Tensor& x) { at::hardsigmoid_out(out, x); }, inputs, repeats);
    const double copy_us = graph_us([&](const at::Tensor& x) { out.copy_(x); }, inputs, repeats);
    std::printf("%s 2^%d (%lld inputs): aten %.3f us, copy %.3f us\n", c10::toString(dtype), log2,
                static_cast<long long>(count), aten_us, copy_us);
    const auto report = [&](const char* label, const std::function<void(const at::Tensor&)>& fn) {
      const double us = graph_us(fn, inputs, repeats);
      const bool same = at::equal(out, at::hardsigmoid(inputs.back()));
      std::printf("  %-32s %.3f us  aten/ours %.3f  copy/ours %.3f%s\n", label, us, aten_us / us,
                  copy_us / us, same ? "" : "  WRONG RESULT");
    };
    report("64-bit loop unroll 1 block 128", loop(Shape<1, 128>{}));
    report("64-bit loop unroll 2 block 128", loop(Shape<2, 128>{}));
    report("32-bit tiles unroll 1 block 128", tiles(Shape<1, 128>{}));
    report("32-bit tiles unroll 2 block 128", tiles(Shape<2, 128>{}));
    report("32-bit tiles unroll 1 block 256", tiles(Shape<1, 256>{}));
  }
}

template <typename T>
void sweep(at::ScalarType dtype, int repeats) {
  const int64_t n = int64_t{4096} * 393216;
  const at::Tensor base = (at::randn({n + 1}, at::TensorOptions().device(at::kCUDA)) * 4).to(dtype);
  const at::Tensor x = base.slice(0, 0, n);
  const at::Tensor misaligned = base.slice(0, 1);
  at::Tensor out = at::empty_like(x);
  constexpr int V = hs::kVectorBytes / sizeof(T);
  for (const at::Tensor* in : {&x, &misaligned}) {
    const double aten_ms = median_ms([&] { at::hardsigmoid_out(out, *in); }, repeats);
    const double copy_ms = median_ms([&] { out.copy_(*in); }, repeats);
    const bool aligned = in == &x;
    std::printf("%s %s: aten %.4f ms, copy %.4f ms\n", c10::toString(dtype),
                aligned ? "aligned" : "misaligned by one element", aten_ms, copy_ms);
    if (aligned) {
      variant<T, V, 4, 256>("vector", *in, out, 1, aten_ms, copy_ms, repeats);
      variant<T, V, 4, 256>("vector", *in, out, 4, aten_ms, copy_ms, repeats);
      variant<T, V, 4, 256>("vector", *in, out, 0, aten_ms, copy_ms, repeats);
      variant<T, V, 2, 256>("vector", *in, out, 0, aten_ms, copy_ms, repeats);
      variant<T, V, 1, 256>("vector", *in, out, 0, aten_ms, copy_ms, repeats);
      variant<T, V, 4, 128>("vector", *in, out, 0, aten_ms, copy_ms, repeats);
      variant<T, V, 2, 128>("vector", *in, out, 0, aten_ms, copy_ms, repeats);
      variant<T, V, 1, 128>("vector", *in, out, 0, aten_ms, copy_ms, repeats);
      variant<T, V, 2, 512>("vector", *in, out, 0, aten_ms, copy_ms, repeats);
    } else {
      variant<T, 1, 16, 256>("scalar", *in, out, 1, aten_ms, copy_ms, repeats);
      variant<T, 1, 16, 256>("scalar", *in, out, 0, aten_ms, copy_ms, repeats);
      variant<T, 1, 8, 256>("scalar", *in, out, 0, aten_ms, copy_ms, repeats);
      variant<T, 1, 4, 256>("scalar", *in, out, 0, aten_ms, copy_ms, repeats);
      variant<T, 1, 4, 128>("scalar", *in, out, 0, aten_ms, copy_ms, repeats);
      variant<T, 1, 8, 128>("scalar", *in, out, 0, aten_ms, copy_ms, repeats);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 20;
  if (argc > 2 && std::string(argv[2]) == "sizes") {
    size_sweep<float>(at::kFloat, repeats);
    size_sweep<c10::BFloat16>(at::kBFloat16, repeats);
    return 0;
  }
  sweep<float>(at::kFloat, repeats);
  sweep<c10::BFloat16>(at::kBFloat16, repeats);
  return 0;
}
