// Strided float, double and bfloat16 rows on x86, as aten's strided loop runs them: elements loaded
// one at a time into a vector register, x86_vectors.h's max / min / division, elements stored one
// at a time (bfloat16 widened on the way in and rounded to nearest even on the way out, in
// vectors).
//
// Written with intrinsics because the compiler, left to vectorize the scalar loop, splits the
// division over the clamp's selects (6 / 6 is 1) and emits four masked compares an element: 0.8 -
// 0.9 of aten's speed on step-2 float rows, where these loops reach it (benchmarks/NOTES.md).
#pragma once

#include "ops/cpu/x86_vectors.h"

#if defined(HARDSIGMOID_OPS_X86_VECTORS)
#define HARDSIGMOID_OPS_STRIDED_VECTORS 1

#include <c10/util/BFloat16.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace hardsigmoid_ops::cpu {
namespace {

// Four lanes of either type: SSE's 128 bits for float (eight lanes of AVX ran at 0.92 - 0.95 of
// aten on step-2 float32 rows, four at 0.95 - 1.09, over three runs each), AVX's 256 bits for
// double where compiled in.
using FloatVector = __m128;
#if defined(__AVX__)
using DoubleVector = __m256d;
#else
using DoubleVector = __m128d;
#endif

template <typename T>
struct VectorOf;
template <>
struct VectorOf<float> {
  using type = FloatVector;
};
template <>
struct VectorOf<double> {
  using type = DoubleVector;
};

// Storage type S computes in M: float and double in themselves, bfloat16 in float (as aten).
template <typename S>
using Math = std::conditional_t<std::is_same_v<S, c10::BFloat16>, float, S>;

template <typename S>
using Vector = typename VectorOf<Math<S>>::type;
template <typename S>
constexpr int kLanes = sizeof(Vector<S>) / sizeof(Math<S>);

inline float widen(c10::BFloat16 value) {
  const uint32_t bits = uint32_t{value.x} << 16;
  float result;
  std::memcpy(&result, &bits, sizeof(result));
  return result;
}
inline float widen(float value) { return value; }
inline double widen(double value) { return value; }

// Walks the pointer lane by lane (p += stride): indexing p[j * stride] would keep a register per
// lane and spill them.
template <typename S>
inline Vector<S> load_strided(const S*& p, int64_t stride) {
  Vector<S> v;
  for (int j = 0; j < kLanes<S>; ++j, p += stride) v[j] = widen(*p);
  return v;
}

template <typename S>
inline void store_strided(Vector<S> v, S*& p, int64_t stride) {
  if constexpr (std::is_same_v<S, c10::BFloat16>) {
    // Round to nearest even, NaN to c10's quiet NaN: c10's conversion, lane by lane.
    using Bits = decltype(v != v);
    const Bits bits = (Bits)v;
    const Bits rounded = (bits + (((bits >> 16) & 1) + 0x7FFF)) >> 16;
    const Bits nan = v != v;
    const Bits result = (rounded & ~nan) | (0x7FC0 & nan);
    for (int j = 0; j < kLanes<S>; ++j, p += stride) p->x = static_cast<uint16_t>(result[j]);
  } else if (stride == 1) {
    // A contiguous output beside strided inputs (the functional ops' own output): one store.
    std::memcpy(p, &v, sizeof(v));
    p += kLanes<S>;
  } else {
    for (int j = 0; j < kLanes<S>; ++j, p += stride) *p = v[j];
  }
}

// Returns the elements done; the caller finishes the rest with the scalar formulas. The pointers
// are taken by value and walked.
template <typename S>
int64_t forward_strided_vectors(const S* in, int64_t in_stride, S* out, int64_t out_stride,
                                int64_t n) {
  int64_t i = 0;
  for (; i + kLanes<S> <= n; i += kLanes<S>) {
    store_strided<S>(forward_vector(load_strided(in, in_stride)), out, out_stride);
  }
  return i;
}

template <typename S>
int64_t backward_strided_vectors(const S* grad_output, int64_t grad_output_stride, const S* self,
                                 int64_t self_stride, S* grad_input, int64_t grad_input_stride,
                                 int64_t n) {
  int64_t i = 0;
  for (; i + kLanes<S> <= n; i += kLanes<S>) {
    const Vector<S> x = load_strided(self, self_stride);
    const Vector<S> grad = load_strided(grad_output, grad_output_stride);
    store_strided<S>(backward_vector(grad, x), grad_input, grad_input_stride);
  }
  return i;
}

}  // namespace
}  // namespace hardsigmoid_ops::cpu

#endif  // HARDSIGMOID_OPS_X86_VECTORS
