// The CUDA entry points, no __global__ here: the device guard, the check that the library holds
// code for the device (architecture_check.h), and the dtype dispatch, then the
// functors of hardsigmoid_functors.cuh launched through the flat kernels (flat_kernels.cuh) for
// dense spans, else the strided kernel (strided_kernel.cuh).
#include "ops/cuda/hardsigmoid_cuda.h"

#include <ATen/Dispatch.h>
#include <c10/cuda/CUDAGuard.h>

#include "ops/cuda/architecture_check.h"
#include "ops/cuda/flat_kernels.cuh"
#include "ops/cuda/hardsigmoid_functors.cuh"
#include "ops/cuda/strided_kernel.cuh"
#include "ops/tensor_walk.h"

namespace hardsigmoid_ops::cuda {
void hardsigmoid_kernel(const at::Tensor& self, const at::Tensor& out) {
  if (self.numel() == 0) {
    return;
  }
  const c10::cuda::CUDAGuard device_guard(self.device());
  check_device_has_code(self.get_device());
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
  check_device_has_code(self.get_device());
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
