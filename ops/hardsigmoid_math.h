// The scalar formulas of hardsigmoid, shared by every kernel (CPU and CUDA).
//
// Each device must match aten on that device bit for bit, and aten's two devices differ:
//   CPU  (aten/src/ATen/native/cpu/Activation.cpp, hardsigmoid_kernel):  clamp(x + 3, 0, 6) / 6
//   CUDA (aten/src/ATen/native/cuda/ActivationHardsigmoidKernel.cu):     clamp(x + 3, 0, 6) * (1/6)
// The CUDA constant is the float-rounded 1.0f / 6.0f, also when computing in double.
// `opmath_t` is float for half, bfloat16 and float, double for double (at::opmath_type).
// Always inlined: the CPU loops are compiled once per instruction set, and an out-of-line copy
// built for AVX-512 must never be what a portable loop calls.
#pragma once

#include <c10/macros/Macros.h>

namespace hardsigmoid_ops::math {

// min(max(x + 3, 0), 6) spelled as std::max / std::min spell it, so a NaN input stays NaN:
// a comparison with NaN is false and the NaN operand is returned. fmaxf / fminf would drop it.
template <typename opmath_t>
C10_HOST_DEVICE C10_ALWAYS_INLINE opmath_t clamp_shifted(opmath_t x) {
  const opmath_t shifted = x + opmath_t(3);
  const opmath_t at_least_zero = shifted < opmath_t(0) ? opmath_t(0) : shifted;
  return opmath_t(6) < at_least_zero ? opmath_t(6) : at_least_zero;
}

// The float-rounded 1/6 that aten multiplies by, converted to opmath_t (exactly, for double).
template <typename opmath_t>
C10_HOST_DEVICE C10_ALWAYS_INLINE opmath_t one_sixth() {
  return static_cast<opmath_t>(1.0f / 6.0f);
}

// Forward as aten's CPU kernel computes it: a true division by 6.
template <typename opmath_t>
C10_HOST_DEVICE C10_ALWAYS_INLINE opmath_t forward_cpu(opmath_t x) {
  return clamp_shifted(x) / opmath_t(6);
}

// Forward as aten's CUDA kernel computes it: a multiplication by the float-rounded 1/6.
template <typename opmath_t>
C10_HOST_DEVICE C10_ALWAYS_INLINE opmath_t forward_cuda(opmath_t x) {
  return clamp_shifted(x) * one_sixth<opmath_t>();
}

// Backward, the same on both devices: the gradient passes, scaled by 1/6, strictly inside
// (-3, 3); a NaN input fails both comparisons and gives 0.
template <typename opmath_t>
C10_HOST_DEVICE C10_ALWAYS_INLINE opmath_t backward(opmath_t grad_output, opmath_t x) {
  return (x > opmath_t(-3) && x < opmath_t(3)) ? grad_output * one_sixth<opmath_t>() : opmath_t(0);
}

}  // namespace hardsigmoid_ops::math
