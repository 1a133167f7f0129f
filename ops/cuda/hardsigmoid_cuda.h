// The CUDA entry points, registered as the dispatcher's CUDA kernels (hence *_kernel): bit-for-bit
// aten's CUDA hardsigmoid and hardsigmoid_backward. The __global__ kernels they launch are in
// flat_kernels.cuh and strided_kernel.cuh.
#pragma once

#include <ATen/core/Tensor.h>

namespace hardsigmoid_ops::cuda {

void hardsigmoid_kernel(const at::Tensor& self, const at::Tensor& out);
void hardsigmoid_backward_kernel(const at::Tensor& grad_output, const at::Tensor& self,
                                 const at::Tensor& grad_input);

}  // namespace hardsigmoid_ops::cuda
