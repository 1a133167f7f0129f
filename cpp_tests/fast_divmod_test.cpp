// The multiply-shift division of the CUDA strided walk, run on the host: it must equal / and %
// for every dividend below 2^31 it can meet (coordinates of tensors addressable in 32 bits).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "ops/cuda/fast_divmod.cuh"

namespace hardsigmoid_test {
namespace {

TEST(FastDivmod, EqualsIntegerDivision) {
  std::mt19937 random(std::random_device{}());
  std::vector<uint32_t> divisors{1,       2, 3, 5, 7, 255, 256, 393216, 4096, 65537, (1u << 30) + 1,
                                 1u << 31};
  for (int i = 0; i < 64; ++i) divisors.push_back(1 + random() % (1u << 31));
  const uint32_t max_dividend = (1u << 31) - 1;
  for (const uint32_t divisor : divisors) {
    const hardsigmoid_ops::cuda::FastDivmod fast(divisor);
    std::vector<uint32_t> dividends{0, 1, divisor - 1, divisor, max_dividend, max_dividend - 1};
    if (divisor <= max_dividend / 3) dividends.push_back(3 * divisor - 1);
    for (int i = 0; i < 2000; ++i) dividends.push_back(random() % (max_dividend + 1u));
    for (const uint32_t n : dividends) {
      if (n > max_dividend) continue;
      const uint32_t q = fast.div(n);
      ASSERT_EQ(q, n / divisor) << "n " << n << " divisor " << divisor;
      ASSERT_EQ(fast.mod(n, q), n % divisor) << "n " << n << " divisor " << divisor;
    }
  }
}

}  // namespace
}  // namespace hardsigmoid_test
