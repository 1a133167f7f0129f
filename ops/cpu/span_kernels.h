// The CPU's innermost loops over rows of elements, compiled once per instruction set (portable,
// AVX2, AVX-512) and chosen at run time as aten's DispatchStub chooses: aten's own capability
// (at::get_cpu_capability), which honours ATEN_CPU_CAPABILITY. Every version computes
// ops/hardsigmoid_math.h's CPU formulas (a true division by 6, no FMA), so all agree bit for bit.
#pragma once

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <cstdint>
#include <string>
#include <vector>

namespace hardsigmoid_ops::cpu {

enum class Capability { kDefault, kAvx2, kAvx512 };

// Loops over n elements spaced by strides counted in elements; strides of 1 take the vector path.
template <typename scalar_t>
struct SpanKernels {
  void (*forward)(const scalar_t* in, int64_t in_stride, scalar_t* out, int64_t out_stride,
                  int64_t n);
  void (*backward)(const scalar_t* grad_output, int64_t grad_output_stride, const scalar_t* self,
                   int64_t self_stride, scalar_t* grad_input, int64_t grad_input_stride, int64_t n);
};

struct SpanKernelTable {
  SpanKernels<float> f32;
  SpanKernels<double> f64;
  SpanKernels<c10::Half> f16;
  SpanKernels<c10::BFloat16> bf16;

  template <typename scalar_t>
  const SpanKernels<scalar_t>& get() const;
};

template <>
inline const SpanKernels<float>& SpanKernelTable::get<float>() const {
  return f32;
}
template <>
inline const SpanKernels<double>& SpanKernelTable::get<double>() const {
  return f64;
}
template <>
inline const SpanKernels<c10::Half>& SpanKernelTable::get<c10::Half>() const {
  return f16;
}
template <>
inline const SpanKernels<c10::BFloat16>& SpanKernelTable::get<c10::BFloat16>() const {
  return bf16;
}

// The capability aten runs with in this process.
Capability selected_capability();

// The capabilities compiled into the library that this processor can run, portable first.
std::vector<Capability> runnable_capabilities();

std::string capability_name(Capability capability);

// The loops of one capability (which must be runnable), or of the selected one.
const SpanKernelTable& span_kernels(Capability capability);
const SpanKernelTable& selected_span_kernels();

}  // namespace hardsigmoid_ops::cpu
