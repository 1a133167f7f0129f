// Contiguous float, double and half rows on x86 at the widest vectors compiled in (AVX-512: 16
// floats or 8 doubles; AVX2: 8 or 4), two vectors an iteration as aten's vectorized loop runs them,
// with x86_vectors.h's max / min / division. Half is widened to float and rounded back (to nearest
// even, as c10's conversion) in registers, as aten's Vectorized<Half> does.
//
// Written with intrinsics because the compiler, left to vectorize the scalar loop, splits the
// division over the clamp's selects (6 / 6 is 1) and emits four compares, three mask operations
// and a blend for every vector: with AVX2 that loop ran at 0.88 - 0.95 of aten's speed on float32
// rows in L1 and L2 (benchmarks/NOTES.md).
#pragma once

#include "ops/cpu/x86_vectors.h"

#if defined(HARDSIGMOID_OPS_X86_VECTORS) && defined(__AVX2__)
#define HARDSIGMOID_OPS_CONTIGUOUS_VECTORS 1

#include <c10/util/Half.h>

#include <cstdint>
#include <cstring>

namespace hardsigmoid_ops::cpu {
namespace {

template <typename T>
struct Widest;
#if defined(__AVX512F__)
template <>
struct Widest<float> {
  using type = __m512;
};
template <>
struct Widest<double> {
  using type = __m512d;
};
#else
template <>
struct Widest<float> {
  using type = __m256;
};
template <>
struct Widest<double> {
  using type = __m256d;
};
#endif
template <typename T>
using WideVector = typename Widest<T>::type;

template <typename V, typename T>
inline V load(const T* p) {
  V v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

template <typename V, typename T>
inline void store(T* p, V v) {
  std::memcpy(p, &v, sizeof(v));
}

// Returns the elements done (a multiple of two vectors); the caller finishes the rest with the
// scalar formulas. `out` may be `in`.
template <typename T>
int64_t forward_contiguous_vectors(const T* in, T* out, int64_t n) {
  using V = WideVector<T>;
  constexpr int64_t kLanes = sizeof(V) / sizeof(T);
  int64_t i = 0;
  for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
    const V a = load<V>(in + i);
    const V b = load<V>(in + i + kLanes);
    store(out + i, forward_vector(a));
    store(out + i + kLanes, forward_vector(b));
  }
  return i;
}

template <typename T>
int64_t backward_contiguous_vectors(const T* grad_output, const T* self, T* grad_input, int64_t n) {
  using V = WideVector<T>;
  constexpr int64_t kLanes = sizeof(V) / sizeof(T);
  int64_t i = 0;
  for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
    const V grad_a = load<V>(grad_output + i);
    const V grad_b = load<V>(grad_output + i + kLanes);
    const V x_a = load<V>(self + i);
    const V x_b = load<V>(self + i + kLanes);
    store(grad_input + i, backward_vector(grad_a, x_a));
    store(grad_input + i + kLanes, backward_vector(grad_b, x_b));
  }
  return i;
}

// Half rows: float vectors of the widest width, each filled from half its width of halves.
#if defined(__AVX512F__)
using HalfMath = __m512;
inline HalfMath load_half(const c10::Half* p) {
  return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}
inline void store_half(c10::Half* p, HalfMath v) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
}
#else
using HalfMath = __m256;
inline HalfMath load_half(const c10::Half* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
inline void store_half(c10::Half* p, HalfMath v) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
}
#endif

inline int64_t forward_contiguous_vectors(const c10::Half* in, c10::Half* out, int64_t n) {
  constexpr int64_t kLanes = sizeof(HalfMath) / sizeof(float);
  int64_t i = 0;
  for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
    const HalfMath a = load_half(in + i);
    const HalfMath b = load_half(in + i + kLanes);
    store_half(out + i, forward_vector(a));
    store_half(out + i + kLanes, forward_vector(b));
  }
  return i;
}

inline int64_t backward_contiguous_vectors(const c10::Half* grad_output, const c10::Half* self,
                                           c10::Half* grad_input, int64_t n) {
  constexpr int64_t kLanes = sizeof(HalfMath) / sizeof(float);
  int64_t i = 0;
  for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
    const HalfMath grad_a = load_half(grad_output + i);
    const HalfMath grad_b = load_half(grad_output + i + kLanes);
    const HalfMath x_a = load_half(self + i);
    const HalfMath x_b = load_half(self + i + kLanes);
    store_half(grad_input + i, backward_vector(grad_a, x_a));
    store_half(grad_input + i + kLanes, backward_vector(grad_b, x_b));
  }
  return i;
}

}  // namespace
}  // namespace hardsigmoid_ops::cpu

#endif
