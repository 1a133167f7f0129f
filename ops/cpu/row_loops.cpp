// hardsigmoid over one row, compiled once per CPU capability: CMake builds this file for each
// capability of the processor's architecture (cmake/row_loops.cmake) with CPU_CAPABILITY set to
// its name and aten's flags for it, so that at::vec::Vectorized<T> is that instruction set's vector
// and every symbol lands in hardsigmoid_ops::cpu::CPU_CAPABILITY; the table it makes registers
// itself in the capability table (capability.h).
//
// The loop structure is aten's (aten/src/ATen/native/cpu/Loops.h, VectorizedLoop2d), so that
// aten's bits follow, NaN bits included:
// - every operand contiguous, or one input a broadcast scalar (stride 0) beside contiguous
//   others: aten's vector loop. Two 256-bit vectors an iteration, at::vec::maximum / minimum (a
//   NaN lane becomes an all-ones NaN on x86), Vectorized's own half / bfloat16 conversions; the
//   last elements, fewer than an iteration, through the scalar formula.
// - any other strides: aten's scalar loop, the scalar formula element by element (std::max's NaN
//   rule, c10's scalar half / bfloat16 conversions). Here on vectors of lanes gathered one at a
//   time, with the same NaN rule and c10's results, which runs faster (docs/performance.md).
// Where a measurement showed Vectorized's own way slower, a named function does it another way
// with the same bits: with_atens_vector_nan, narrow_as_scalar_loop, load_as_floats /
// store_from_floats (float16 under AVX512), FourFloats (strided float32 rows), and forward_math,
// which multiplies by 1/6 where aten divides by 6 for half and bfloat16 (the same 16 bits on every
// input: hardsigmoid_math.h).
#include "ops/cpu/row_loops.h"

#include <ATen/OpMathType.h>
#include <ATen/cpu/vec/functional.h>
#include <ATen/cpu/vec/vec.h>
#include <c10/macros/Macros.h>

#include <utility>

#include "ops/cpu/capability.h"
#include "ops/hardsigmoid_math.h"

#if !defined(CPU_CAPABILITY)
#error "row_loops.cpp is compiled once per CPU_CAPABILITY (cmake/row_loops.cmake)"
#endif

namespace hardsigmoid_ops::cpu::CPU_CAPABILITY {
namespace {

using at::vec::Vectorized;

// The elements one iteration of aten's vector loop covers: two 256-bit vectors. aten registers
// no AVX-512 hardsigmoid (REGISTER_DISPATCH leaves the AVX512 slot empty and DispatchStub falls
// back to AVX2), so under AVX512 its step is one 512-bit vector, and the tails must match it.
#if defined(CPU_CAPABILITY_AVX512)
constexpr int64_t kVectorsPerStep = 1;
#else
constexpr int64_t kVectorsPerStep = 2;
#endif
template <typename scalar_t>
constexpr int64_t kStep = Vectorized<scalar_t>::size() * kVectorsPerStep;

// Under AVX512 strided rows are AVX2's: gathered one lane at a time, sixteen lanes ran slower than
// eight (docs/performance_history.md, "What was tried on the CPU": "Hand-written loops"), and
// aten's own strided rows there are its AVX2 kernel's.
#if defined(CPU_CAPABILITY_AVX512)
constexpr bool kStridedRowsOfAvx2 = true;
#else
constexpr bool kStridedRowsOfAvx2 = false;
#endif
// Looked up once, not at every strided row (the table is filled before any op runs).
template <typename scalar_t>
const RowLoops<scalar_t>& avx2_rows() {
  static const RowLoops<scalar_t>& rows =
      capability_entry(Capability::kAvx2).row_loops->get<scalar_t>();
  return rows;
}

// The lane operations, std::max's and std::min's rule lane by lane: clamp_min(a, b) and
// clamp_max(a, b) are the max and min instructions with b first, which return a when either is
// NaN, as std::max(a, b) and std::min(a, b) do (aten's scalar loop).
struct VectorOps {
  template <typename V>
  static V max(const V& a, const V& b) {
    return at::vec::clamp_min(a, b);
  }
  template <typename V>
  static V min(const V& a, const V& b) {
    return at::vec::clamp_max(a, b);
  }
  template <typename V>
  static V both(const V& a, const V& b) {
    return a & b;
  }
  template <typename V>
  static V select(const V& mask, const V& if_true, const V& if_false) {
    return V::blendv(if_false, if_true, mask);
  }
};

// aten's vector loop calls at::vec::maximum and minimum, which on x86 return an all-ones NaN for
// a NaN lane (max or min, OR'd with the unordered mask) and in the generic DEFAULT build the
// first operand's NaN. With VectorOps' clamp, a NaN input ends as its own NaN; here it becomes
// the all-ones one where aten's does: the same bits for every input at two instructions a
// vector, where maximum and minimum take six (faster on the 16-bit types:
// docs/performance_history.md, "What was tried on the CPU": "Rebuilt on at::vec::Vectorized").
// Checked on x86 (every bit pattern of the 16-bit types, each capability). For bfloat16 results
// there is nothing to add: Vectorized's x86 bfloat16 rounding turns every NaN into aten's 0xFFFF by
// itself.
template <typename scalar_t, typename V>
V with_atens_vector_nan(const V& result, [[maybe_unused]] const V& x) {
#if defined(CPU_CAPABILITY_AVX2) || defined(CPU_CAPABILITY_AVX512)
  if constexpr (!std::is_same_v<scalar_t, c10::BFloat16>) return result | x.isnan();
#endif
  return result;
}

template <typename scalar_t>
using opmath_t = at::opmath_type<scalar_t>;

// The forward in opmath_t for results of type scalar_t: aten's division for float and double; for
// half and bfloat16 the multiplication that rounds to the same 16 bits (hardsigmoid_math.h).
template <typename scalar_t, typename Ops = math::ScalarOps, typename V>
C10_ALWAYS_INLINE V forward_math(const V& x) {
  if constexpr (at::vec::is_reduced_floating_point_v<scalar_t>) {
    return math::forward_times_one_sixth<Ops>(x);
  } else {
    return math::forward_cpu<Ops>(x);
  }
}

template <typename scalar_t>
scalar_t forward_scalar(scalar_t x) {
  return static_cast<scalar_t>(forward_math<scalar_t>(static_cast<opmath_t<scalar_t>>(x)));
}

template <typename scalar_t>
scalar_t backward_scalar(scalar_t grad_output, scalar_t x) {
  using M = opmath_t<scalar_t>;
  return static_cast<scalar_t>(math::backward(static_cast<M>(grad_output), static_cast<M>(x)));
}

// Elements [i, i + size) of a contiguous operand, or a broadcast operand's one value in every lane.
template <typename scalar_t>
Vectorized<scalar_t> load(const scalar_t* p, int64_t stride, int64_t i) {
  return stride == 0 ? Vectorized<scalar_t>(*p) : Vectorized<scalar_t>::loadu(p + i);
}

// The 16-bit types are computed as two float vectors, as aten's vector loop computes them, with
// Vectorized's conversions.
template <typename scalar_t>
C10_ALWAYS_INLINE std::pair<Vectorized<float>, Vectorized<float>> load_as_floats(const scalar_t* p,
                                                                                 int64_t stride,
                                                                                 int64_t i) {
  const auto [low, high] = at::vec::convert_to_float<scalar_t>(load(p, stride, i));
  return {low, high};
}

template <typename scalar_t>
C10_ALWAYS_INLINE void store_from_floats(scalar_t* p, const Vectorized<float>& low,
                                         const Vectorized<float>& high) {
  at::vec::convert_from_float<scalar_t>(low, high).store(p);
}

#if defined(CPU_CAPABILITY_AVX512)
// Contiguous float16 under AVX512 converted from and to two 256-bit halves directly: Vectorized's
// 512-bit load, split and merge add shuffles that ran float16 rows slower
// (docs/performance_history.md, "What was tried on the CPU": "Rebuilt on at::vec::Vectorized"). The
// same F16C-style rounding, so the same bits.
template <>
C10_ALWAYS_INLINE std::pair<Vectorized<float>, Vectorized<float>> load_as_floats(const c10::Half* p,
                                                                                 int64_t stride,
                                                                                 int64_t i) {
  if (stride == 0) return {Vectorized<float>(float(*p)), Vectorized<float>(float(*p))};
  const auto* half = reinterpret_cast<const __m256i*>(p + i);
  return {_mm512_cvtph_ps(_mm256_loadu_si256(half)), _mm512_cvtph_ps(_mm256_loadu_si256(half + 1))};
}

template <>
C10_ALWAYS_INLINE void store_from_floats(c10::Half* p, const Vectorized<float>& low,
                                         const Vectorized<float>& high) {
  constexpr int kRounding = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  auto* half = reinterpret_cast<__m256i*>(p);
  _mm256_storeu_si256(half, _mm512_cvtps_ph(low, kRounding));
  _mm256_storeu_si256(half + 1, _mm512_cvtps_ph(high, kRounding));
}
#endif

// aten's vector op on the elements [i, i + Vectorized<scalar_t>::size()), stored to out + i.
template <typename scalar_t>
C10_ALWAYS_INLINE void forward_vector(const scalar_t* in, int64_t in_stride, scalar_t* out,
                                      int64_t i) {
  if constexpr (at::vec::is_reduced_floating_point_v<scalar_t>) {
    const auto [low, high] = load_as_floats(in, in_stride, i);
    store_from_floats(
        out + i, with_atens_vector_nan<scalar_t>(forward_math<scalar_t, VectorOps>(low), low),
        with_atens_vector_nan<scalar_t>(forward_math<scalar_t, VectorOps>(high), high));
  } else {
    const Vectorized<scalar_t> x = load(in, in_stride, i);
    with_atens_vector_nan<scalar_t>(forward_math<scalar_t, VectorOps>(x), x).store(out + i);
  }
}

template <typename scalar_t>
C10_ALWAYS_INLINE void backward_vector(const scalar_t* grad_output, int64_t grad_output_stride,
                                       const scalar_t* self, int64_t self_stride,
                                       scalar_t* grad_input, int64_t i) {
  if constexpr (at::vec::is_reduced_floating_point_v<scalar_t>) {
    const auto [grad_low, grad_high] = load_as_floats(grad_output, grad_output_stride, i);
    const auto [x_low, x_high] = load_as_floats(self, self_stride, i);
    store_from_floats(grad_input + i, math::backward<VectorOps>(grad_low, x_low),
                      math::backward<VectorOps>(grad_high, x_high));
  } else {
    math::backward<VectorOps>(load(grad_output, grad_output_stride, i), load(self, self_stride, i))
        .store(grad_input + i);
  }
}

// aten's vector loop takes a row whose output and inputs are contiguous, except for at most one
// input of stride 0.
inline bool vector_loop_takes(int64_t out_stride, int64_t in_stride) {
  return out_stride == 1 && (in_stride == 1 || in_stride == 0);
}
inline bool vector_loop_takes(int64_t out_stride, int64_t a_stride, int64_t b_stride) {
  return out_stride == 1 &&
         ((a_stride == 1 && (b_stride == 1 || b_stride == 0)) || (a_stride == 0 && b_stride == 1));
}

// Strided rows on vectors of gathered lanes. Each lane is loaded into the vector register
// (Vectorized's per-lane constructor: inserts, not a store and a wider load, which stalls store
// forwarding), the pointers walked lane by lane (p += stride: indexing p[j * stride] would hold a
// register per lane). Returns the elements done.
template <typename V, typename scalar_t, size_t... kLane>
V gather(const scalar_t*& p, int64_t stride, std::index_sequence<kLane...>) {
  const auto next = [&] {
    const auto value = static_cast<typename V::value_type>(*p);
    p += stride;
    return value;
  };
  return V{((void)kLane, next())...};
}

template <typename V, typename scalar_t>
V gather(const scalar_t*& p, int64_t stride) {
  return gather<V>(p, stride, std::make_index_sequence<V::size()>());
}

// A contiguous output beside strided inputs (the functional ops' own output) takes one store.
template <typename V, typename scalar_t>
void scatter(const V& v, scalar_t*& p, int64_t stride) {
  if constexpr (std::is_same_v<typename V::value_type, scalar_t>) {
    if (stride == 1) {
      v.store(p);
      p += V::size();
      return;
    }
  }
  __at_align__ typename V::value_type lanes[V::size()];
  v.store(lanes);
  for (int64_t j = 0; j < V::size(); ++j, p += stride) *p = static_cast<scalar_t>(lanes[j]);
}

// The 16-bit types, a Vectorized<scalar_t> of them at a time, rounded in vectors: bit for bit
// c10's scalar conversions (F16C's, or c10's own in the DEFAULT build) except that Vectorized's
// bfloat16 rounding returns 0xFFFF for every NaN where c10's returns 0x7FC0, which is put back.
template <typename scalar_t>
Vectorized<scalar_t> narrow_as_scalar_loop(const Vectorized<float>& low,
                                           const Vectorized<float>& high) {
  const Vectorized<scalar_t> narrowed = at::vec::convert_from_float<scalar_t>(low, high);
  if constexpr (std::is_same_v<scalar_t, c10::BFloat16>) {
    const Vectorized<scalar_t> c10_nan(c10::BFloat16(0x7FC0, c10::BFloat16::from_bits()));
    return Vectorized<scalar_t>::blendv(narrowed, c10_nan, narrowed.isnan());
  } else {
    return narrowed;
  }
}

#if defined(CPU_CAPABILITY_AVX2)
// Strided float rows in four SSE lanes, the one hand-written lane type: in Vectorized's eight
// lanes step-2 float32 rows ran behind aten, backward most, and in four they do not
// (docs/performance_history.md, "What was tried on the CPU":
// "Rebuilt on at::vec::Vectorized"). The formulas are math::'s,
// on these operations.
struct FourFloats {
  using value_type = float;
  __m128 v;
  FourFloats(float x) : v(_mm_set1_ps(x)) {}
  FourFloats(__m128 x) : v(x) {}
};
inline FourFloats operator+(FourFloats a, FourFloats b) { return _mm_add_ps(a.v, b.v); }
inline FourFloats operator*(FourFloats a, FourFloats b) { return _mm_mul_ps(a.v, b.v); }
inline FourFloats operator/(FourFloats a, FourFloats b) { return _mm_div_ps(a.v, b.v); }
inline FourFloats operator>(FourFloats a, FourFloats b) { return _mm_cmpgt_ps(a.v, b.v); }
inline FourFloats operator<(FourFloats a, FourFloats b) { return _mm_cmplt_ps(a.v, b.v); }

// std::max(a, b) and std::min(a, b) are the instructions with b first (as VectorOps').
struct FourFloatOps {
  static FourFloats max(FourFloats a, FourFloats b) { return _mm_max_ps(b.v, a.v); }
  static FourFloats min(FourFloats a, FourFloats b) { return _mm_min_ps(b.v, a.v); }
  static FourFloats both(FourFloats a, FourFloats b) { return _mm_and_ps(a.v, b.v); }
  static FourFloats select(FourFloats mask, FourFloats if_true, FourFloats if_false) {
    return _mm_blendv_ps(if_false.v, if_true.v, mask.v);
  }
};

inline FourFloats gather_four(const float*& p, int64_t stride) {
  const float a = *p;
  const float b = *(p += stride);
  const float c = *(p += stride);
  const float d = *(p += stride);
  p += stride;
  return _mm_set_ps(d, c, b, a);
}

inline void scatter_four(FourFloats v, float*& p, int64_t stride) {
  if (stride == 1) {
    _mm_storeu_ps(p, v.v);
    p += 4;
    return;
  }
  __at_align__ float lanes[4];
  _mm_store_ps(lanes, v.v);
  for (int j = 0; j < 4; ++j, p += stride) *p = lanes[j];
}

int64_t forward_gathered(const float* in, int64_t in_stride, float* out, int64_t out_stride,
                         int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    scatter_four(math::forward_cpu<FourFloatOps>(gather_four(in, in_stride)), out, out_stride);
  }
  return i;
}

int64_t backward_gathered(const float* grad_output, int64_t grad_output_stride, const float* self,
                          int64_t self_stride, float* grad_input, int64_t grad_input_stride,
                          int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const FourFloats grad = gather_four(grad_output, grad_output_stride);
    const FourFloats x = gather_four(self, self_stride);
    scatter_four(math::backward<FourFloatOps>(grad, x), grad_input, grad_input_stride);
  }
  return i;
}
#endif

template <typename scalar_t>
int64_t forward_gathered(const scalar_t* in, int64_t in_stride, scalar_t* out, int64_t out_stride,
                         int64_t n) {
  using V = Vectorized<opmath_t<scalar_t>>;
  int64_t i = 0;
  if constexpr (at::vec::is_reduced_floating_point_v<scalar_t>) {
    for (; i + 2 * V::size() <= n; i += 2 * V::size()) {
      const V low = forward_math<scalar_t, VectorOps>(gather<V>(in, in_stride));
      const V high = forward_math<scalar_t, VectorOps>(gather<V>(in, in_stride));
      scatter(narrow_as_scalar_loop<scalar_t>(low, high), out, out_stride);
    }
  } else {
    for (; i + V::size() <= n; i += V::size()) {
      scatter(math::forward_cpu<VectorOps>(gather<V>(in, in_stride)), out, out_stride);
    }
  }
  return i;
}

template <typename scalar_t>
int64_t backward_gathered(const scalar_t* grad_output, int64_t grad_output_stride,
                          const scalar_t* self, int64_t self_stride, scalar_t* grad_input,
                          int64_t grad_input_stride, int64_t n) {
  using V = Vectorized<opmath_t<scalar_t>>;
  const auto next = [&] {
    const V grad = gather<V>(grad_output, grad_output_stride);
    return math::backward<VectorOps>(grad, gather<V>(self, self_stride));
  };
  int64_t i = 0;
  if constexpr (at::vec::is_reduced_floating_point_v<scalar_t>) {
    for (; i + 2 * V::size() <= n; i += 2 * V::size()) {
      const V low = next();
      scatter(narrow_as_scalar_loop<scalar_t>(low, next()), grad_input, grad_input_stride);
    }
  } else {
    for (; i + V::size() <= n; i += V::size()) scatter(next(), grad_input, grad_input_stride);
  }
  return i;
}

template <typename scalar_t>
void forward_row(const scalar_t* in, int64_t in_stride, scalar_t* out, int64_t out_stride,
                 int64_t n) {
  int64_t i = 0;
  if (vector_loop_takes(out_stride, in_stride)) {
    for (; i + kStep<scalar_t> <= n; i += kStep<scalar_t>) {
      for (int64_t j = i; j < i + kStep<scalar_t>; j += Vectorized<scalar_t>::size()) {
        forward_vector(in, in_stride, out, j);
      }
    }
  } else if constexpr (kStridedRowsOfAvx2) {
    return avx2_rows<scalar_t>().forward(in, in_stride, out, out_stride, n);
  } else {
    i = forward_gathered(in, in_stride, out, out_stride, n);
  }
  for (; i < n; ++i) out[i * out_stride] = forward_scalar(in[i * in_stride]);
}

template <typename scalar_t>
void backward_row(const scalar_t* grad_output, int64_t grad_output_stride, const scalar_t* self,
                  int64_t self_stride, scalar_t* grad_input, int64_t grad_input_stride, int64_t n) {
  int64_t i = 0;
  if (vector_loop_takes(grad_input_stride, grad_output_stride, self_stride)) {
    for (; i + kStep<scalar_t> <= n; i += kStep<scalar_t>) {
      for (int64_t j = i; j < i + kStep<scalar_t>; j += Vectorized<scalar_t>::size()) {
        backward_vector(grad_output, grad_output_stride, self, self_stride, grad_input, j);
      }
    }
  } else if constexpr (kStridedRowsOfAvx2) {
    return avx2_rows<scalar_t>().backward(grad_output, grad_output_stride, self, self_stride,
                                          grad_input, grad_input_stride, n);
  } else {
    i = backward_gathered(grad_output, grad_output_stride, self, self_stride, grad_input,
                          grad_input_stride, n);
  }
  for (; i < n; ++i) {
    grad_input[i * grad_input_stride] =
        backward_scalar(grad_output[i * grad_output_stride], self[i * self_stride]);
  }
}

template <typename scalar_t>
constexpr RowLoops<scalar_t> kLoops{&forward_row<scalar_t>, &backward_row<scalar_t>};

static_assert(kRowLoopStepMultiple % kStep<float> == 0 &&
              kRowLoopStepMultiple % kStep<double> == 0 &&
              kRowLoopStepMultiple % kStep<c10::Half> == 0 &&
              kRowLoopStepMultiple % kStep<c10::BFloat16> == 0);

constexpr RowLoopTable kTable{kLoops<float>, kLoops<double>, kLoops<c10::Half>,
                              kLoops<c10::BFloat16>};
const RegisterRowLoops registered(C10_STRINGIZE(CPU_CAPABILITY), kTable);

}  // namespace

}  // namespace hardsigmoid_ops::cpu::CPU_CAPABILITY
