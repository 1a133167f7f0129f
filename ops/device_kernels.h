// What a device provides: two kernels that compute into tensors already checked and allocated.
// The device-independent op logic (ops/hardsigmoid_impl.h) does the checking and allocation, so
// every device refuses the same inputs with the same messages and allocates the same layouts.
#pragma once

#include <ATen/core/Tensor.h>

namespace hardsigmoid_ops {

struct DeviceKernels {
  // out = hardsigmoid(self). Same shape, dtype and device; out may be self; no partial overlap.
  void (*forward)(const at::Tensor& self, const at::Tensor& out);
  // grad_input = hardsigmoid_backward(grad_output, self), under the same guarantees.
  void (*backward)(const at::Tensor& grad_output, const at::Tensor& self,
                   const at::Tensor& grad_input);
};

}  // namespace hardsigmoid_ops
