// The formulas of hardsigmoid, shared by every kernel (CPU and CUDA, scalar and vector).
//
// Each device must match aten on that device bit for bit, and aten's two devices differ:
//   CPU  (aten/src/ATen/native/cpu/Activation.cpp, hardsigmoid_kernel):  clamp(x + 3, 0, 6) / 6
//   CUDA (aten/src/ATen/native/cuda/ActivationHardsigmoidKernel.cu):     clamp(x + 3, 0, 6) * (1/6)
// The constant 1/6 is the float-rounded 1.0f / 6.0f, also when computing in double.
//
// Each formula is written once over a value type V and the operations `Ops` supplies for it:
// V is opmath_t (float for half, bfloat16 and float, double for double: at::opmath_type) with
// ScalarOps, or an at::vec::Vectorized<opmath_t> with the CPU row loops' vector operations
// (ops/cpu/row_loops.cpp). The operations differ only in which NaN max and min return.
// Always inlined: the CPU row loops are compiled once per instruction set, and an out-of-line copy
// built for AVX-512 must never be what the DEFAULT loops call.
#pragma once

#include <c10/macros/Macros.h>

#include <type_traits>

namespace hardsigmoid_ops::math {

// std::max and std::min as aten's scalar loops call them: a comparison with NaN is false, so a
// NaN first operand is returned (quieted by the x + 3 before it). fmaxf / fminf would drop it.
struct ScalarOps {
  template <typename T>
  C10_HOST_DEVICE C10_ALWAYS_INLINE static T max(T a, T b) {
    return a < b ? b : a;
  }
  template <typename T>
  C10_HOST_DEVICE C10_ALWAYS_INLINE static T min(T a, T b) {
    return b < a ? b : a;
  }
  C10_HOST_DEVICE C10_ALWAYS_INLINE static bool both(bool a, bool b) { return a && b; }
  template <typename T>
  C10_HOST_DEVICE C10_ALWAYS_INLINE static T select(bool mask, T if_true, T if_false) {
    return mask ? if_true : if_false;
  }
};

// The lane type of V: V itself for a scalar, V::value_type for a vector.
template <typename V, typename = void>
struct Lane {
  using type = V;
};
template <typename V>
struct Lane<V, std::void_t<typename V::value_type>> {
  using type = typename V::value_type;
};

// The float-rounded 1/6 that aten multiplies by, in V (exactly, for double).
template <typename V>
C10_HOST_DEVICE C10_ALWAYS_INLINE V one_sixth() {
  using lane_t = typename Lane<V>::type;
  return V(static_cast<lane_t>(1.0f / 6.0f));
}

// min(max(x + 3, 0), 6), operand for operand as aten writes it. No FMA can form: x + 3 rounds
// before anything multiplies.
template <typename Ops, typename V>
C10_HOST_DEVICE C10_ALWAYS_INLINE V clamp_shifted(V x) {
  return Ops::min(Ops::max(x + V(3), V(0)), V(6));
}

// Forward as aten's CPU kernel computes it: a true division by 6.
template <typename Ops = ScalarOps, typename V>
C10_HOST_DEVICE C10_ALWAYS_INLINE V forward_cpu(V x) {
  return clamp_shifted<Ops>(x) / V(6);
}

// The clamp times the float-rounded 1/6: aten's CUDA formula, and the CPU's for half and
// bfloat16. aten's CPU divides by 6 in float and rounds to the 16-bit type; the float results of
// / 6 and * (1/6) differ by an ulp on some inputs, but never once rounded to 16 bits, for any of
// the 65536 inputs of either type (every bit pattern is tested against aten on every path:
// python_tests/test_bit_patterns.py). The multiplication costs a fraction of a division, the
// dearest instruction of the CPU's vector loop (docs/performance_history.md, the 16-bit types above
// the caches).
template <typename Ops = ScalarOps, typename V>
C10_HOST_DEVICE C10_ALWAYS_INLINE V forward_times_one_sixth(V x) {
  return clamp_shifted<Ops>(x) * one_sixth<V>();
}

// Forward as aten's CUDA kernel computes it.
template <typename V>
C10_HOST_DEVICE C10_ALWAYS_INLINE V forward_cuda(V x) {
  return forward_times_one_sixth<ScalarOps>(x);
}

// Backward, the same on both devices: the gradient passes, scaled by 1/6, strictly inside
// (-3, 3); a NaN input fails both comparisons and gives +0.
template <typename Ops = ScalarOps, typename V>
C10_HOST_DEVICE C10_ALWAYS_INLINE V backward(V grad_output, V x) {
  return Ops::select(Ops::both(x > V(-3), x < V(3)), grad_output * one_sixth<V>(), V(0));
}

}  // namespace hardsigmoid_ops::math
