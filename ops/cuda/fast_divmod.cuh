// Division by a run-time constant with a multiply and a shift (Granlund and Montgomery, "Division
// by invariant integers using multiplication", 1994). A strided kernel splits every linear index
// into coordinates; a hardware 32-bit division there costs several times as much. Host-callable
// too, so that it can be tested without a GPU.
#pragma once

#include <c10/macros/Macros.h>

#include <cstdint>

namespace hardsigmoid_ops::cuda {

class FastDivmod {
 public:
  FastDivmod() = default;

  // divisor >= 1. Exact for every dividend below 2^31.
  explicit FastDivmod(uint32_t divisor) : divisor_(divisor) {
    while ((uint64_t{1} << shift_) < divisor) ++shift_;  // shift = ceil(log2(divisor))
    multiplier_ = static_cast<uint32_t>(
        ((uint64_t{1} << 32) * ((uint64_t{1} << shift_) - divisor)) / divisor + 1);
  }

  C10_HOST_DEVICE uint32_t div(uint32_t n) const {
#ifdef __CUDA_ARCH__
    const uint32_t high = __umulhi(n, multiplier_);
#else
    const uint32_t high = static_cast<uint32_t>((uint64_t{n} * multiplier_) >> 32);
#endif
    return (high + n) >> shift_;
  }

  C10_HOST_DEVICE uint32_t mod(uint32_t n, uint32_t quotient) const {
    return n - quotient * divisor_;
  }

 private:
  uint32_t divisor_ = 1;
  uint32_t multiplier_ = 1;
  uint32_t shift_ = 0;
};

}  // namespace hardsigmoid_ops::cuda
