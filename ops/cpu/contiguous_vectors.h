// Contiguous float, double and half rows (bfloat16 too with AVX2) on x86 at the widest vectors
// compiled in (AVX-512: 16 floats or 8 doubles; AVX2: 8 or 4), two vectors an iteration as aten's
// vectorized loop runs them, with x86_vectors.h's max / min / division. The 16-bit types are
// widened to float and rounded back (to nearest even, as c10's conversions) in registers, as
// aten's Vectorized<Half> / <BFloat16> do.
//
// Written with intrinsics because the compiler, left to vectorize the scalar loop, splits the
// division over the clamp's selects (6 / 6 is 1) and emits four compares, three mask operations
// and a blend for every vector: with AVX2 that loop ran at 0.88 - 0.95 of aten's speed on float32
// rows in L1 and L2 (benchmarks/NOTES.md).
#pragma once

#include "ops/cpu/x86_vectors.h"

#if defined(HARDSIGMOID_OPS_X86_VECTORS) && defined(__AVX2__)
#define HARDSIGMOID_OPS_CONTIGUOUS_VECTORS 1

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace hardsigmoid_ops::cpu {
namespace {

// The vector a row of S is computed in, at the widest width compiled in: double lanes for
// double, float lanes for float and the 16-bit types (as aten computes them).
#if defined(__AVX512F__)
using FloatMath = __m512;
using DoubleMath = __m512d;
#else
using FloatMath = __m256;
using DoubleMath = __m256d;
#endif
template <typename S>
struct MathVector {
  using type = FloatMath;
};
template <>
struct MathVector<double> {
  using type = DoubleMath;
};

// A vector's worth of a row, widened to its math vector, and back.
inline FloatMath load_row(const float* p) {
  FloatMath v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline DoubleMath load_row(const double* p) {
  DoubleMath v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline void store_row(float* p, FloatMath v) { std::memcpy(p, &v, sizeof(v)); }
inline void store_row(double* p, DoubleMath v) { std::memcpy(p, &v, sizeof(v)); }

// Half rows always; bfloat16 rows where AVX2 is the widest. Under AVX-512 the bfloat16 block
// loop of span_kernels_impl.h is kept, measured at 1.29 - 1.38 of aten as group medians, while
// these were measured only with AVX2, where the blocks read 0.85 - 0.95 for the backward.
#if defined(__AVX512F__)
inline FloatMath load_row(const c10::Half* p) {
  return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}
inline void store_row(c10::Half* p, FloatMath v) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
}
template <typename S>
constexpr bool kReducedInRegisters = std::is_same_v<S, c10::Half>;
#else
inline FloatMath load_row(const c10::Half* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
inline void store_row(c10::Half* p, FloatMath v) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
}
// bfloat16 is a float's upper half: widening shifts it into place.
inline FloatMath load_row(const c10::BFloat16* p) {
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}
// c10's rounding, lane by lane: add 0x7FFF plus the lowest kept bit (to nearest, ties to even),
// keep the upper half; a NaN becomes c10's quiet NaN 0x7FC0.
inline void store_row(c10::BFloat16* p, FloatMath v) {
  const __m256i bits = _mm256_castps_si256(v);
  const __m256i lowest_kept = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
  const __m256i bias = _mm256_add_epi32(lowest_kept, _mm256_set1_epi32(0x7FFF));
  const __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(bits, bias), 16);
  const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
  const __m256i result = _mm256_blendv_epi8(rounded, _mm256_set1_epi32(0x7FC0), nan);
  // Every lane is below 2^16, so the saturating pack keeps it; the pack works per 128-bit half,
  // and the permute brings the two halves' results together.
  const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(result, result), 0x08);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_castsi256_si128(packed));
}
template <typename S>
constexpr bool kReducedInRegisters = true;
#endif

// Returns the elements done (a multiple of two vectors); the caller finishes the rest. `out` may
// be `in`.
template <typename S>
int64_t forward_contiguous_vectors(const S* in, S* out, int64_t n) {
  using V = typename MathVector<S>::type;
  constexpr int64_t kLanes = sizeof(V) / sizeof(V{}[0]);
  int64_t i = 0;
  for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
    const V a = load_row(in + i);
    const V b = load_row(in + i + kLanes);
    store_row(out + i, forward_vector(a));
    store_row(out + i + kLanes, forward_vector(b));
  }
  return i;
}

template <typename S>
int64_t backward_contiguous_vectors(const S* grad_output, const S* self, S* grad_input, int64_t n) {
  using V = typename MathVector<S>::type;
  constexpr int64_t kLanes = sizeof(V) / sizeof(V{}[0]);
  int64_t i = 0;
  for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
    const V grad_a = load_row(grad_output + i);
    const V grad_b = load_row(grad_output + i + kLanes);
    const V x_a = load_row(self + i);
    const V x_b = load_row(self + i + kLanes);
    store_row(grad_input + i, backward_vector(grad_a, x_a));
    store_row(grad_input + i + kLanes, backward_vector(grad_b, x_b));
  }
  return i;
}

}  // namespace
}  // namespace hardsigmoid_ops::cpu

#endif
