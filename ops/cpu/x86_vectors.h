// hardsigmoid on x86 vector registers, shared by the strided and contiguous row loops: the clamp as
// max and min instructions and one vector division (forward), two compares and a mask (backward),
// aten's own instruction sequence. Bit for bit the scalar formulas of ops/hardsigmoid_math.h (no
// FMA: the files including this are compiled with -ffp-contract=off).
//
// The vector types are the compilers' vector extensions (__m128, __m256d, ...): +, *, /,
// comparisons and subscripts work lane by lane. Only max and min need intrinsics, for their NaN
// rule. Everything has internal linkage: each span_kernels_<capability>.cpp compiles its own copy
// with its own instruction set.
#pragma once

#if defined(__SSE2__)
#define HARDSIGMOID_OPS_X86_VECTORS 1

#include <immintrin.h>

#include <cstddef>

#include "ops/hardsigmoid_math.h"

namespace hardsigmoid_ops::cpu {
namespace {

// max(a, b) is (a > b ? a : b) and min(a, b) is (a < b ? a : b): a NaN in either gives b.
inline __m128 vector_max(__m128 a, __m128 b) { return _mm_max_ps(a, b); }
inline __m128 vector_min(__m128 a, __m128 b) { return _mm_min_ps(a, b); }
inline __m128d vector_max(__m128d a, __m128d b) { return _mm_max_pd(a, b); }
inline __m128d vector_min(__m128d a, __m128d b) { return _mm_min_pd(a, b); }
#if defined(__AVX__)
inline __m256 vector_max(__m256 a, __m256 b) { return _mm256_max_ps(a, b); }
inline __m256 vector_min(__m256 a, __m256 b) { return _mm256_min_ps(a, b); }
inline __m256d vector_max(__m256d a, __m256d b) { return _mm256_max_pd(a, b); }
inline __m256d vector_min(__m256d a, __m256d b) { return _mm256_min_pd(a, b); }
#endif
#if defined(__AVX512F__)
inline __m512 vector_max(__m512 a, __m512 b) { return _mm512_max_ps(a, b); }
inline __m512 vector_min(__m512 a, __m512 b) { return _mm512_min_ps(a, b); }
inline __m512d vector_max(__m512d a, __m512d b) { return _mm512_max_pd(a, b); }
inline __m512d vector_min(__m512d a, __m512d b) { return _mm512_min_pd(a, b); }
#endif

// The type of V's lanes: float or double.
template <typename V>
using LaneOf = decltype(V{}[0] + 0);

template <typename V>
inline V broadcast(LaneOf<V> value) {
  V v;
  for (size_t j = 0; j < sizeof(V) / sizeof(value); ++j) v[j] = value;
  return v;
}

// math::forward_cpu lane by lane: max(0, s) is (0 > s ? 0 : s) and keeps a NaN s; min(6, m) is
// (6 < m ? 6 : m): the two selects of math::clamp_shifted, operand for operand.
template <typename V>
inline V forward_vector(V x) {
  const V zero = broadcast<V>(0), six = broadcast<V>(6);
  return vector_min(six, vector_max(zero, x + broadcast<V>(3))) / six;
}

// math::backward lane by lane: all-ones lanes strictly inside (-3, 3) (NaN is outside), the
// gradient times the float-rounded 1/6 there, +0 elsewhere.
template <typename V>
inline V backward_vector(V grad_output, V x) {
  using M = LaneOf<V>;
  const auto inside = (x > broadcast<V>(M(-3))) & (x < broadcast<V>(M(3)));
  using Bits = decltype(inside);
  return (V)(inside & (Bits)(grad_output * broadcast<V>(math::one_sixth<M>())));
}

}  // namespace
}  // namespace hardsigmoid_ops::cpu

#endif  // __SSE2__
