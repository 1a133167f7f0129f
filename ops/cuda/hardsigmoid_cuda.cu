// CUDA entry points: functors over ops/hardsigmoid_math.h, run by the walks of elementwise.cuh.
#include "ops/cuda/hardsigmoid_cuda.h"

#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <c10/cuda/CUDAGuard.h>

#include "ops/cuda/elementwise.cuh"
#include "ops/hardsigmoid_math.h"
#include "ops/tensor_walk.h"

namespace hardsigmoid_ops::cuda {
namespace {

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

}  // namespace

void hardsigmoid_kernel(const at::Tensor& self, const at::Tensor& out) {
  if (self.numel() == 0) {
    return;
  }
  const c10::cuda::CUDAGuard device_guard(self.device());
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, self.scalar_type(), "hardsigmoid_cuda",
                                  [&] {
                                    if (same_dense_layout({&self, &out})) {
                                      Pointers<scalar_t, 1> p{out.mutable_data_ptr<scalar_t>(),
                                                              {self.const_data_ptr<scalar_t>()}};
                                      run_flat(p, self.numel(), ForwardOp<scalar_t>{});
                                    } else {
                                      at::TensorIterator iter = make_iterator(out, {self});
                                      run_strided<scalar_t, 1>(iter, ForwardOp<scalar_t>{});
                                    }
                                  });
}

void hardsigmoid_backward_kernel(const at::Tensor& grad_output, const at::Tensor& self,
                                 const at::Tensor& grad_input) {
  if (self.numel() == 0) {
    return;
  }
  const c10::cuda::CUDAGuard device_guard(self.device());
  AT_DISPATCH_FLOATING_TYPES_AND2(
      at::kHalf, at::kBFloat16, self.scalar_type(), "hardsigmoid_backward_cuda", [&] {
        if (same_dense_layout({&grad_output, &self, &grad_input})) {
          Pointers<scalar_t, 2> p{
              grad_input.mutable_data_ptr<scalar_t>(),
              {grad_output.const_data_ptr<scalar_t>(), self.const_data_ptr<scalar_t>()}};
          run_flat(p, self.numel(), BackwardOp<scalar_t>{});
        } else {
          at::TensorIterator iter = make_iterator(grad_input, {grad_output, self});
          run_strided<scalar_t, 2>(iter, BackwardOp<scalar_t>{});
        }
      });
}

}  // namespace hardsigmoid_ops::cuda
