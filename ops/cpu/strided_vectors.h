// Strided float, double and bfloat16 rows on x86, as aten's strided loop runs them: elements loaded
// one at a time into a vector register, the clamp as max and min instructions, one vector division,
// elements stored one at a time (bfloat16 widened on the way in and rounded to nearest even on
// the way out, in vectors). Bit for bit the scalar formulas of ops/hardsigmoid_math.h (no FMA: the
// files including this are compiled with -ffp-contract=off).
//
// Written with intrinsics because the compiler, left to vectorize the scalar loop, splits the
// division over the clamp's selects (6 / 6 is 1) and emits four masked compares an element: 0.8 -
// 0.9 of aten's speed on step-2 float rows, where these loops reach it (benchmarks/NOTES.md).
//
// Everything here has internal linkage: each span_kernels_<capability>.cpp compiles its own copy
// with its own instruction set.
#pragma once

#if defined(__SSE2__)
#define HARDSIGMOID_OPS_STRIDED_VECTORS 1

#include <immintrin.h>

#include <c10/util/BFloat16.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ops/hardsigmoid_math.h"

namespace hardsigmoid_ops::cpu {
namespace {

// Four lanes of either type: SSE's 128 bits for float (eight lanes of AVX ran at 0.92 - 0.95 of
// aten on step-2 float32 rows, four at 0.95 - 1.09, over three runs each), AVX's 256 bits for
// double where compiled in.
using FloatVector = __m128;
inline __m128 vector_max(__m128 a, __m128 b) { return _mm_max_ps(a, b); }
inline __m128 vector_min(__m128 a, __m128 b) { return _mm_min_ps(a, b); }
#if defined(__AVX__)
using DoubleVector = __m256d;
inline __m256d vector_max(__m256d a, __m256d b) { return _mm256_max_pd(a, b); }
inline __m256d vector_min(__m256d a, __m256d b) { return _mm256_min_pd(a, b); }
#else
using DoubleVector = __m128d;
inline __m128d vector_max(__m128d a, __m128d b) { return _mm_max_pd(a, b); }
inline __m128d vector_min(__m128d a, __m128d b) { return _mm_min_pd(a, b); }
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

// The vector types are the compilers' vector extensions: +, *, /, comparisons and subscripts work
// lane by lane.
template <typename S>
using Vector = typename VectorOf<Math<S>>::type;
template <typename S>
constexpr int kLanes = sizeof(Vector<S>) / sizeof(Math<S>);

template <typename S>
inline Vector<S> broadcast(Math<S> value) {
  Vector<S> v;
  for (int j = 0; j < kLanes<S>; ++j) v[j] = value;
  return v;
}

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
  using M = Math<S>;
  const Vector<S> three = broadcast<S>(M(3)), zero = broadcast<S>(M(0)), six = broadcast<S>(M(6));
  int64_t i = 0;
  for (; i + kLanes<S> <= n; i += kLanes<S>) {
    const Vector<S> shifted = load_strided(in, in_stride) + three;
    // max(0, s) is (0 > s ? 0 : s) and gives s when s is NaN; min(6, m) is (6 < m ? 6 : m): the
    // two selects of math::clamp_shifted, operand for operand.
    const Vector<S> clamped = vector_min(six, vector_max(zero, shifted));
    store_strided<S>(clamped / six, out, out_stride);
  }
  return i;
}

template <typename S>
int64_t backward_strided_vectors(const S* grad_output, int64_t grad_output_stride, const S* self,
                                 int64_t self_stride, S* grad_input, int64_t grad_input_stride,
                                 int64_t n) {
  using M = Math<S>;
  const Vector<S> lower = broadcast<S>(M(-3)), upper = broadcast<S>(M(3));
  const Vector<S> one_sixth = broadcast<S>(math::one_sixth<M>());
  int64_t i = 0;
  for (; i + kLanes<S> <= n; i += kLanes<S>) {
    const Vector<S> x = load_strided(self, self_stride);
    const Vector<S> grad = load_strided(grad_output, grad_output_stride);
    // All-ones lanes strictly inside (-3, 3), NaN outside: the gradient there, +0 elsewhere.
    const auto inside = (x > lower) & (x < upper);
    using Bits = decltype(inside);
    const Vector<S> result = (Vector<S>)(inside & (Bits)(grad * one_sixth));
    store_strided<S>(result, grad_input, grad_input_stride);
  }
  return i;
}

}  // namespace
}  // namespace hardsigmoid_ops::cpu

#endif  // __SSE2__
