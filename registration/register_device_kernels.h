// Registers the four device-independent ops (ops/hardsigmoid_impl.h) bound to one device's
// kernels, inside that device's TORCH_LIBRARY_IMPL block.
#pragma once

#include <torch/library.h>

#include "ops/device_kernels.h"
#include "ops/hardsigmoid_impl.h"

namespace hardsigmoid_ops::registration {

template <const DeviceKernels& kKernels>
void register_device_kernels(torch::Library& m) {
  m.impl("hardsigmoid", [](const at::Tensor& self) { return impl::hardsigmoid(self, kKernels); });
  m.impl("hardsigmoid_", [](const at::Tensor& self) { impl::hardsigmoid_(self, kKernels); });
  m.impl("hardsigmoid_out", [](const at::Tensor& self, const at::Tensor& out) {
    impl::hardsigmoid_out(self, out, kKernels);
  });
  m.impl("hardsigmoid_backward", [](const at::Tensor& grad_output, const at::Tensor& self) {
    return impl::hardsigmoid_backward(grad_output, self, kKernels);
  });
}

}  // namespace hardsigmoid_ops::registration
