#include "ops/hardsigmoid_impl.h"

#include <ATen/ExpandUtils.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/empty_strided.h>

#include "ops/hardsigmoid_checks.h"

#include <algorithm>
#include <initializer_list>

namespace hardsigmoid_ops::impl {
namespace {

// An output laid out as aten's TensorIterator lays out its output: contiguous when every input
// is contiguous (strides of size-1 and empty dimensions do not count), channels_last when every
// input is, else `like`'s strides (dense) or dense strides in the order of like's (not dense).
// at::empty and at::empty_strided rather than at::empty_like, which gives the same layouts but
// costs 250 - 350 ns more a call on CPU (benchmarks/NOTES.md): a sixth of a 1,024-element forward.
at::Tensor empty_output(const at::Tensor& like, std::initializer_list<at::Tensor> inputs) {
  const at::TensorOptions options = like.options();
  for (const at::MemoryFormat format :
       {at::MemoryFormat::Contiguous, at::MemoryFormat::ChannelsLast,
        at::MemoryFormat::ChannelsLast3d}) {
    const bool all = std::all_of(inputs.begin(), inputs.end(),
                                 [&](const at::Tensor& t) { return t.is_contiguous(format); });
    if (all) return at::empty_symint(like.sym_sizes(), options, format);
  }
  if (like.is_non_overlapping_and_dense()) {
    return at::empty_strided_symint(like.sym_sizes(), like.sym_strides(), options);
  }
  // Symbolic sizes (a meta tensor under torch.compile) leave the strides to empty_like.
  if (like.unsafeGetTensorImpl()->has_symbolic_sizes_strides()) return at::empty_like(like);
  return at::empty_strided(like.sizes(), at::infer_dense_strides(like.sizes(), like.strides()),
                           options);
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
