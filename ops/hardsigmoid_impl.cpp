#include "ops/hardsigmoid_impl.h"

#include <ATen/ops/empty_like.h>

#include "ops/hardsigmoid_checks.h"

namespace hardsigmoid_ops::impl {

at::Tensor hardsigmoid(const at::Tensor& self, const DeviceKernels& kernels) {
  checks::check_input("hardsigmoid", "self", self);
  // Strides preserved for dense inputs; others get a contiguous (or channels_last) output.
  at::Tensor out = at::empty_like(self);
  kernels.forward(self, out);
  return out;
}

void hardsigmoid_(const at::Tensor& self, const DeviceKernels& kernels) {
  checks::check_input("hardsigmoid_", "self", self);
  checks::check_no_internal_overlap("hardsigmoid_", "self", self);
  kernels.forward(self, self);
}

void hardsigmoid_out(const at::Tensor& self, const at::Tensor& out, const DeviceKernels& kernels) {
  checks::check_input("hardsigmoid_out", "self", self);
  checks::check_input("hardsigmoid_out", "out", out);
  checks::check_same_device("hardsigmoid_out", "out", out, "self", self);
  checks::check_same_shape_and_dtype("hardsigmoid_out", "out", out, "self", self);
  checks::check_no_internal_overlap("hardsigmoid_out", "out", out);
  checks::check_no_partial_overlap("hardsigmoid_out", self, out);
  kernels.forward(self, out);
}

at::Tensor hardsigmoid_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                const DeviceKernels& kernels) {
  checks::check_input("hardsigmoid_backward", "grad_output", grad_output);
  checks::check_input("hardsigmoid_backward", "self", self);
  checks::check_same_device("hardsigmoid_backward", "grad_output", grad_output, "self", self);
  checks::check_same_shape_and_dtype("hardsigmoid_backward", "grad_output", grad_output, "self",
                                     self);
  // Follow grad_output's layout when it is dense, as aten's TensorIterator does; an expanded
  // grad_output (the gradient of a sum, say) defers to self's.
  at::Tensor grad_input = grad_output.is_non_overlapping_and_dense() ? at::empty_like(grad_output)
                                                                     : at::empty_like(self);
  kernels.backward(grad_output, self, grad_input);
  return grad_input;
}

}  // namespace hardsigmoid_ops::impl
