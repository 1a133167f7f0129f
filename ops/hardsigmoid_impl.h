// The four ops, independent of the device: check, allocate, then run the device's kernels.
// CPU, CUDA and Meta register these with their own DeviceKernels (Meta's compute nothing), so
// every device refuses the same inputs and allocates the same output layouts.
#pragma once

#include <ATen/core/Tensor.h>

#include "ops/device_kernels.h"

namespace hardsigmoid_ops::impl {

at::Tensor hardsigmoid(const at::Tensor& self, const DeviceKernels& kernels);
void hardsigmoid_(const at::Tensor& self, const DeviceKernels& kernels);
void hardsigmoid_out(const at::Tensor& self, const at::Tensor& out, const DeviceKernels& kernels);
at::Tensor hardsigmoid_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                const DeviceKernels& kernels);

}  // namespace hardsigmoid_ops::impl
