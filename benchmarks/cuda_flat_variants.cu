// Launch shapes of the flat CUDA walk, timed against aten and a copy in one run: the measurements
// behind elementwise.cuh's choice of block size, unroll and grid (see benchmarks/NOTES.md).
// Usage: cuda_flat_variants [repeats]
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "ops/cuda/elementwise.cuh"
#include "ops/cuda/hardsigmoid_functors.cuh"

namespace hs = hardsigmoid_ops::cuda;

namespace {

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
void variant(const char* label, const at::Tensor& x, const at::Tensor& out, int64_t head, int waves,
             double aten_ms, double copy_ms, int repeats) {
  hs::Pointers<T, 1> p{out.mutable_data_ptr<T>(), {x.const_data_ptr<T>()}};
  const double ms = median_ms(
      [&] {
        hs::launch_flat<T, 1, kVec, kUnroll, kBlock>(p, x.numel(), head, hs::ForwardOp<T>{}, waves);
      },
      repeats);
  const bool same = at::equal(out, at::hardsigmoid(x));
  std::printf(
      "  %-10s vec %d unroll %2d block %3d waves %2d: %.4f ms  aten/ours %.3f  copy/ours %.3f%s\n",
      label, kVec, kUnroll, kBlock, waves, ms, aten_ms / ms, copy_ms / ms,
      same ? "" : "  WRONG RESULT");
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
      variant<T, V, 4, 256>("vector", *in, out, 0, 1, aten_ms, copy_ms, repeats);
      variant<T, V, 4, 256>("vector", *in, out, 0, 4, aten_ms, copy_ms, repeats);
      variant<T, V, 4, 256>("vector", *in, out, 0, 0, aten_ms, copy_ms, repeats);
      variant<T, V, 2, 256>("vector", *in, out, 0, 0, aten_ms, copy_ms, repeats);
      variant<T, V, 1, 256>("vector", *in, out, 0, 0, aten_ms, copy_ms, repeats);
      variant<T, V, 4, 128>("vector", *in, out, 0, 0, aten_ms, copy_ms, repeats);
      variant<T, V, 2, 128>("vector", *in, out, 0, 0, aten_ms, copy_ms, repeats);
      variant<T, V, 1, 128>("vector", *in, out, 0, 0, aten_ms, copy_ms, repeats);
      variant<T, V, 2, 512>("vector", *in, out, 0, 0, aten_ms, copy_ms, repeats);
    } else {
      variant<T, 1, 16, 256>("scalar", *in, out, 0, 1, aten_ms, copy_ms, repeats);
      variant<T, 1, 16, 256>("scalar", *in, out, 0, 0, aten_ms, copy_ms, repeats);
      variant<T, 1, 8, 256>("scalar", *in, out, 0, 0, aten_ms, copy_ms, repeats);
      variant<T, 1, 4, 256>("scalar", *in, out, 0, 0, aten_ms, copy_ms, repeats);
      variant<T, 1, 4, 128>("scalar", *in, out, 0, 0, aten_ms, copy_ms, repeats);
      variant<T, 1, 8, 128>("scalar", *in, out, 0, 0, aten_ms, copy_ms, repeats);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 20;
  sweep<float>(at::kFloat, repeats);
  sweep<c10::BFloat16>(at::kBFloat16, repeats);
  return 0;
}
