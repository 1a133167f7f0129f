// More than 2^31 elements: any 32-bit index wraps. Each chunk of the input holds other values, so a
// wrapped index reads or writes the wrong element and the comparison with aten sees it.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "ops/hardsigmoid.h"
#include "test_support.h"

namespace hardsigmoid_test {
namespace {

constexpr int64_t kNumel = (int64_t{1} << 31) + 4097;
// 128 MiB of bfloat16: the comparison's temporaries stay small next to the 2 x 4 GiB of input
// (aten's output once compared) and output.
constexpr int64_t kChunk = int64_t{1} << 26;
constexpr int64_t kEdgesPerChunk = 256;

// Drawing 2^31 normal values takes over a minute on two cores, so one chunk is drawn and every
// chunk gets it rotated by a random amount and scaled by a random factor, plus edge values at
// random positions.
void fill_chunk_by_chunk(at::Tensor& x) {
  const at::Tensor base =
      at::randn({kChunk}, x.options().dtype(at::kFloat)).mul_(4).to(at::kBFloat16);
  const at::Tensor edges = edge_values(at::kBFloat16).to(x.device());
  for (int64_t begin = 0; begin < kNumel; begin += kChunk) {
    const int64_t length = std::min(kChunk, kNumel - begin);
    at::Tensor chunk = x.narrow(0, begin, length);
    const int64_t shift = at::randint(kChunk, {1}).item<int64_t>();
    const double scale = 0.5 + 1.5 * at::rand({1}, at::kDouble).item<double>();
    chunk.copy_(base.roll(shift).narrow(0, 0, length)).mul_(scale);
    const at::Tensor positions =
        at::randint(length, {kEdgesPerChunk}, x.options().dtype(at::kLong));
    const at::Tensor picks =
        at::randint(edges.numel(), {kEdgesPerChunk}, x.options().dtype(at::kLong));
    chunk.index_put_({positions}, edges.index_select(0, picks));
  }
}

// NaN in the 64 elements before the end of each thread's range (and so at the end of the tensor),
// whatever the draw: a range's scalar tail ends there. On the CPU the ranges are the whole
// tensor's split among at::get_num_threads() threads in blocks of divup(numel, threads) elements.
void put_nan_where_thread_ranges_end(at::Tensor& x) {
  const int64_t threads = at::get_num_threads();
  const int64_t range = (kNumel + threads - 1) / threads;
  for (int64_t end = range; end < kNumel + range; end += range) {
    const int64_t stop = std::min(end, kNumel);
    x.narrow(0, stop - 64, 64).fill_(std::numeric_limits<float>::quiet_NaN());
  }
}

void expect_large_tensor_matches_aten(const at::Device& device) {
  at::Tensor x = at::empty({kNumel}, at::TensorOptions().dtype(at::kBFloat16).device(device));
  fill_chunk_by_chunk(x);
  put_nan_where_thread_ranges_end(x);
  const at::Tensor y = hardsigmoid_ops::hardsigmoid(x);
  ASSERT_EQ(y.sizes(), x.sizes());
  // aten's result on the whole tensor, not chunk by chunk: a NaN's bits depend on whether its
  // element falls in a vector step or in the scalar tail of a thread's range, and the ranges are
  // the whole tensor's split among the threads (with 16 threads the last range's tail reaches
  // into the last 4097 elements, where a chunk's own tail is one element). In place, over the
  // input (the same split as a new output): two 4 GiB tensors at the peak, not three, which
  // keeps the sanitizer build's run within a small machine's memory. A failure's report then
  // shows both results without the input.
  at::hardsigmoid_(x);
  const at::Tensor& expected = x;
  for (int64_t begin = 0; begin < kNumel; begin += kChunk) {
    const int64_t length = std::min(kChunk, kNumel - begin);
    const testing::AssertionResult same =
        same_bits(y.narrow(0, begin, length), expected.narrow(0, begin, length));
    if (!same) {
      ADD_FAILURE() << "chunk at element " << begin << ": " << same.message();
      return;
    }
  }
}

TEST(LargeTensor, MoreThan2To31BFloat16Elements_CPU) {
  HARDSIGMOID_SEED_THIS_TEST();
  expect_large_tensor_matches_aten(at::kCPU);
}

TEST(LargeTensor, MoreThan2To31BFloat16Elements_CUDA) {
  if (device_missing(DeviceKind::CUDA)) GTEST_SKIP() << "no CUDA device";
  HARDSIGMOID_SEED_THIS_TEST();
  expect_large_tensor_matches_aten(at::kCUDA);
}

}  // namespace
}  // namespace hardsigmoid_test
