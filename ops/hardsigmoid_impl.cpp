#include "ops/hardsigmoid_impl.h"

#include <ATen/ops/empty_like.h>

#include "ops/hardsigmoid_checks.h"

#include <algorithm>
#include <initializer_list>

namespace hardsigmoid_ops::impl {
namespace {

// An output laid out as aten's TensorIterator lays out its output: contiguous when every input
// is contiguous (strides of size-1 and empty dimensions do not count), channels_last when every
// input is, else `like`'s strides (dense) or its suggested format (not dense).
at::Tensor empty_output(const at::Tensor& like, std::initializer_list<at::Tensor> inputs) {
  for (const at::MemoryFormat format :
       {at::MemoryFormat::Contiguous, at::MemoryFormat::ChannelsLast,
        at::MemoryFormat::ChannelsLast3d}) {
    const bool all = std::all_of(inputs.begin(), inputs.end(),
                                 [&](const at::Tensor& t) { return t.is_contiguous(format); });
    if (all) return at::empty_like(like, like.options(), format);
  }
  return at::empty_like(like);
}

}  // namespace

at::Tensor hardsigmoid(const at::Tensor& self, const DeviceKernels& kernels) {
  checks::check_input("hardsigmoid", "self", self);
  at::Tensor out = empty_output(self, {self});
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
  const at::Tensor& like = grad_output.is_non_overlapping_and_dense() ? grad_output : self;
  at::Tensor grad_input = empty_output(like, {grad_output, self});
  kernels.backward(grad_output, self, grad_input);
  return grad_input;
}

}  // namespace hardsigmoid_ops::impl
