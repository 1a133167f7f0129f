// The row loops, included once per capability by span_kernels_<capability>.cpp, each compiled
// with that capability's instruction-set flags after defining HARDSIGMOID_OPS_CAPABILITY (the
// namespace, so that no two capabilities share a symbol). Contiguous float and double rows are
// plain loops the compiler vectorizes for the target; half and bfloat16 go through float blocks,
// as aten's Vectorized<Half / BFloat16> do: widen, compute in float, round to nearest even.
#ifndef HARDSIGMOID_OPS_CAPABILITY
#error "define HARDSIGMOID_OPS_CAPABILITY before including span_kernels_impl.h"
#endif

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "ops/cpu/contiguous_vectors.h"
#include "ops/cpu/span_kernels.h"
#include "ops/cpu/strided_vectors.h"
#include "ops/hardsigmoid_math.h"

#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace hardsigmoid_ops::cpu::HARDSIGMOID_OPS_CAPABILITY {
namespace {

// Elements converted to float per block: a few KiB, so the blocks stay in L1.
constexpr int64_t kBlock = 256;

// Contiguous float and double rows (also the reduced types' float blocks): contiguous_vectors.h's
// loops where compiled in (AVX2, AVX-512), the last elements, or all of them elsewhere, with the
// scalar formulas.
template <typename opmath_t>
C10_ALWAYS_INLINE void forward_contiguous(const opmath_t* in, opmath_t* out, int64_t n) {
  int64_t i = 0;
#if defined(HARDSIGMOID_OPS_CONTIGUOUS_VECTORS)
  i = forward_contiguous_vectors(in, out, n);
#endif
  for (; i < n; ++i) out[i] = math::forward_cpu(in[i]);
}

template <typename opmath_t>
C10_ALWAYS_INLINE void backward_contiguous(const opmath_t* grad_output, const opmath_t* self,
                                           opmath_t* grad_input, int64_t n) {
  int64_t i = 0;
#if defined(HARDSIGMOID_OPS_CONTIGUOUS_VECTORS)
  i = backward_contiguous_vectors(grad_output, self, grad_input, n);
#endif
  for (; i < n; ++i) grad_input[i] = math::backward(grad_output[i], self[i]);
}

// bfloat16 <-> float with integer operations the compiler vectorizes; c10's results (round to
// nearest even; a NaN becomes c10's quiet NaN).
void widen(const c10::BFloat16* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t bits = uint32_t{in[i].x} << 16;
    std::memcpy(&out[i], &bits, sizeof(float));
  }
}

void narrow(const float* in, c10::BFloat16* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &in[i], sizeof(float));
    const uint32_t rounded = (bits + (((bits >> 16) & 1) + 0x7FFF)) >> 16;
    out[i].x = in[i] != in[i] ? uint16_t{0x7FC0} : static_cast<uint16_t>(rounded);
  }
}

// half <-> float: AVX-512's or F16C's conversions where the target has them (round to nearest
// even, as c10's software conversion), else c10's.
void widen(const c10::Half* in, float* out, int64_t n) {
  int64_t i = 0;
#if defined(__AVX512F__)
  for (; i + 16 <= n; i += 16) {
    const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    _mm512_storeu_ps(out + i, _mm512_cvtph_ps(h));
  }
#endif
#if defined(__F16C__)
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
  }
#endif
  for (; i < n; ++i) out[i] = static_cast<float>(in[i]);
}

void narrow(const float* in, c10::Half* out, int64_t n) {
  int64_t i = 0;
#if defined(__AVX512F__)
  for (; i + 16 <= n; i += 16) {
    const __m256i h = _mm512_cvtps_ph(_mm512_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), h);
  }
#endif
#if defined(__F16C__)
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), h);
  }
#endif
  for (; i < n; ++i) out[i] = static_cast<c10::Half>(in[i]);
}

// float and double rows with a stride, as aten's strided loop runs them (strided_vectors.h), the
// last elements, or all of them off x86, with the scalar formulas. Staging them through a
// contiguous block instead, as the reduced types do to convert in vectors, ran at 0.5 - 0.65 of
// aten's speed (benchmarks/NOTES.md).
template <typename opmath_t>
void forward_strided(const opmath_t* in, int64_t in_stride, opmath_t* out, int64_t out_stride,
                     int64_t n) {
  int64_t i = 0;
#if defined(HARDSIGMOID_OPS_STRIDED_VECTORS)
  i = forward_strided_vectors(in, in_stride, out, out_stride, n);
#endif
  for (; i < n; ++i) out[i * out_stride] = math::forward_cpu(in[i * in_stride]);
}

template <typename opmath_t>
void backward_strided(const opmath_t* grad_output, int64_t grad_output_stride, const opmath_t* self,
                      int64_t self_stride, opmath_t* grad_input, int64_t grad_input_stride,
                      int64_t n) {
  int64_t i = 0;
#if defined(HARDSIGMOID_OPS_STRIDED_VECTORS)
  i = backward_strided_vectors(grad_output, grad_output_stride, self, self_stride, grad_input,
                               grad_input_stride, n);
#endif
  for (; i < n; ++i) {
    grad_input[i * grad_input_stride] =
        math::backward(grad_output[i * grad_output_stride], self[i * self_stride]);
  }
}

// Gathers n elements spaced by `stride` into a contiguous block, and back.
template <typename scalar_t>
void gather(const scalar_t* in, int64_t stride, scalar_t* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = in[i * stride];
}

template <typename scalar_t>
void scatter(const scalar_t* in, scalar_t* out, int64_t stride, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i * stride] = in[i];
}

template <typename scalar_t>
constexpr bool kIsReduced = !std::is_same_v<scalar_t, float> && !std::is_same_v<scalar_t, double>;

// half and bfloat16 in blocks of kBlock elements: strided rows gathered into a contiguous block,
// widened to float, the vectorized contiguous loop, rounded back. Contiguous half rows (bfloat16
// too, with AVX2) and strided bfloat16 rows take contiguous_vectors.h's and strided_vectors.h's
// loops where compiled in, all but a tail.
template <typename scalar_t>
void forward_reduced(const scalar_t* in, int64_t in_stride, scalar_t* out, int64_t out_stride,
                     int64_t n) {
#if defined(HARDSIGMOID_OPS_CONTIGUOUS_VECTORS)
  if constexpr (kReducedInRegisters<scalar_t>) {
    if (in_stride == 1 && out_stride == 1) {
      const int64_t done = forward_contiguous_vectors(in, out, n);
      in += done;
      out += done;
      n -= done;
    }
  }
#endif
#if defined(HARDSIGMOID_OPS_STRIDED_VECTORS)
  if constexpr (std::is_same_v<scalar_t, c10::BFloat16>) {
    if (in_stride != 1 || out_stride != 1) {
      const int64_t done = forward_strided_vectors(in, in_stride, out, out_stride, n);
      in += done * in_stride;
      out += done * out_stride;
      n -= done;
    }
  }
#endif
  scalar_t staged[kBlock];
  float block[kBlock];
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t len = std::min(kBlock, n - start);
    const scalar_t* src = in + start * in_stride;
    if (in_stride != 1) {
      gather(src, in_stride, staged, len);
      src = staged;
    }
    scalar_t* dst = out_stride == 1 ? out + start : staged;
    widen(src, block, len);
    forward_contiguous(block, block, len);
    narrow(block, dst, len);
    if (out_stride != 1) scatter(staged, out + start * out_stride, out_stride, len);
  }
}

template <typename scalar_t>
void backward_reduced(const scalar_t* grad_output, int64_t grad_output_stride, const scalar_t* self,
                      int64_t self_stride, scalar_t* grad_input, int64_t grad_input_stride,
                      int64_t n) {
#if defined(HARDSIGMOID_OPS_CONTIGUOUS_VECTORS)
  if constexpr (kReducedInRegisters<scalar_t>) {
    if (grad_output_stride == 1 && self_stride == 1 && grad_input_stride == 1) {
      const int64_t done = backward_contiguous_vectors(grad_output, self, grad_input, n);
      grad_output += done;
      self += done;
      grad_input += done;
      n -= done;
    }
  }
#endif
#if defined(HARDSIGMOID_OPS_STRIDED_VECTORS)
  if constexpr (std::is_same_v<scalar_t, c10::BFloat16>) {
    if (grad_output_stride != 1 || self_stride != 1 || grad_input_stride != 1) {
      const int64_t done = backward_strided_vectors(grad_output, grad_output_stride, self,
                                                    self_stride, grad_input, grad_input_stride, n);
      grad_output += done * grad_output_stride;
      self += done * self_stride;
      grad_input += done * grad_input_stride;
      n -= done;
    }
  }
#endif
  scalar_t staged_grad[kBlock];
  scalar_t staged_self[kBlock];
  float grad_block[kBlock];
  float self_block[kBlock];
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t len = std::min(kBlock, n - start);
    const scalar_t* grad = grad_output + start * grad_output_stride;
    const scalar_t* x = self + start * self_stride;
    if (grad_output_stride != 1) {
      gather(grad, grad_output_stride, staged_grad, len);
      grad = staged_grad;
    }
    if (self_stride != 1) {
      gather(x, self_stride, staged_self, len);
      x = staged_self;
    }
    scalar_t* dst = grad_input_stride == 1 ? grad_input + start : staged_grad;
    widen(grad, grad_block, len);
    widen(x, self_block, len);
    backward_contiguous(grad_block, self_block, grad_block, len);
    narrow(grad_block, dst, len);
    if (grad_input_stride != 1) {
      scatter(staged_grad, grad_input + start * grad_input_stride, grad_input_stride, len);
    }
  }
}

// float and double: the contiguous loop the compiler vectorizes, or the strided vectors; half and
// bfloat16: through float blocks.
template <typename scalar_t>
void forward(const scalar_t* in, int64_t in_stride, scalar_t* out, int64_t out_stride, int64_t n) {
  if constexpr (kIsReduced<scalar_t>) {
    forward_reduced(in, in_stride, out, out_stride, n);
  } else if (in_stride == 1 && out_stride == 1) {
    forward_contiguous(in, out, n);
  } else {
    forward_strided(in, in_stride, out, out_stride, n);
  }
}

template <typename scalar_t>
void backward(const scalar_t* grad_output, int64_t grad_output_stride, const scalar_t* self,
              int64_t self_stride, scalar_t* grad_input, int64_t grad_input_stride, int64_t n) {
  if constexpr (kIsReduced<scalar_t>) {
    backward_reduced(grad_output, grad_output_stride, self, self_stride, grad_input,
                     grad_input_stride, n);
  } else if (grad_output_stride == 1 && self_stride == 1 && grad_input_stride == 1) {
    backward_contiguous(grad_output, self, grad_input, n);
  } else {
    backward_strided(grad_output, grad_output_stride, self, self_stride, grad_input,
                     grad_input_stride, n);
  }
}

}  // namespace

const SpanKernelTable& table() {
  static const SpanKernelTable kTable{
      {&forward<float>, &backward<float>},
      {&forward<double>, &backward<double>},
      {&forward<c10::Half>, &backward<c10::Half>},
      {&forward<c10::BFloat16>, &backward<c10::BFloat16>},
  };
  return kTable;
}

}  // namespace hardsigmoid_ops::cpu::HARDSIGMOID_OPS_CAPABILITY
