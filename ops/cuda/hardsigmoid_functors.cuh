// The per-element functors the CUDA walks apply: ops/hardsigmoid_math.h in opmath_t, rounded to
// the tensor's dtype (round to nearest even for half and bfloat16, as c10's conversions do).
#pragma once

#include <ATen/OpMathType.h>

#include "ops/hardsigmoid_math.h"

namespace hardsigmoid_ops::cuda {

template <typename scalar_t>
struct ForwardOp {
  __device__ __forceinline__ scalar_t operator()(scalar_t x) const {
    using opmath_t = at::opmath_type<scalar_t>;
    return static_cast<scalar_t>(math::forward_cuda(static_cast<opmath_t>(x)));
  }
};

template <typename scalar_t>
struct BackwardOp {
  __device__ __forceinline__ scalar_t operator()(scalar_t grad_output, scalar_t x) const {
    using opmath_t = at::opmath_type<scalar_t>;
    return static_cast<scalar_t>(
        math::backward(static_cast<opmath_t>(grad_output), static_cast<opmath_t>(x)));
  }
};

}  // namespace hardsigmoid_ops::cuda
