// The innermost CPU loops over contiguous spans, one element at a time. They are the portable
// path; vectorized spans for AVX2 / AVX-512 replace them per dtype without touching the drivers
// in hardsigmoid_cpu.cpp, which only ever hand contiguous spans here.
#pragma once

#include <ATen/OpMathType.h>

#include <cstdint>

#include "ops/hardsigmoid_math.h"

namespace hardsigmoid_ops::cpu {

template <typename scalar_t>
void forward_span(const scalar_t* in, scalar_t* out, int64_t n) {
  using opmath_t = at::opmath_type<scalar_t>;
  for (int64_t i = 0; i < n; ++i) {
    out[i] = static_cast<scalar_t>(math::forward_cpu(static_cast<opmath_t>(in[i])));
  }
}

template <typename scalar_t>
void backward_span(const scalar_t* grad_output, const scalar_t* self, scalar_t* grad_input,
                   int64_t n) {
  using opmath_t = at::opmath_type<scalar_t>;
  for (int64_t i = 0; i < n; ++i) {
    grad_input[i] = static_cast<scalar_t>(
        math::backward(static_cast<opmath_t>(grad_output[i]), static_cast<opmath_t>(self[i])));
  }
}

}  // namespace hardsigmoid_ops::cpu
