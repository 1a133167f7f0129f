#include "ops/hardsigmoid_impl.h"

#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/empty_strided.h>
#include <c10/util/SmallVector.h>

#include "ops/hardsigmoid_checks.h"

#include <algorithm>
#include <initializer_list>

namespace hardsigmoid_ops::impl {
namespace {

// The order, fastest first, in which aten's TensorIterator lays out an output it allocates for
// inputs of one shape and dtype (TensorIteratorBase::reorder_dimensions): an insertion sort of the
// dimensions in which the first input with an opinion settles each pair. A zero stride (a size-1
// or expanded dimension) has none, so the next input decides; equal strides put the shorter
// dimension first. The sort is not a total order: a size-1 dimension can move the others, which
// is why a dense input's own strides are not always the answer once there are two inputs.
c10::SmallVector<int64_t, 6> iteration_order(at::IntArrayRef sizes,
                                             std::initializer_list<at::Tensor> inputs) {
  const auto ndim = static_cast<int64_t>(sizes.size());
  c10::SmallVector<int64_t, 6> order(ndim);
  for (int64_t i = 0; i < ndim; ++i) order[i] = ndim - 1 - i;
  const auto should_swap = [&](int64_t dim0, int64_t dim1) {
    for (const at::Tensor& t : inputs) {
      const int64_t stride0 = t.stride(dim0), stride1 = t.stride(dim1);
      if (stride0 == 0 || stride1 == 0) continue;
      if (stride0 != stride1) return stride0 < stride1 ? -1 : 1;
      if (sizes[dim0] > sizes[dim1]) return 1;
    }
    return 0;
  };
  for (int64_t i = 1; i < ndim; ++i) {
    int64_t dim1 = i;
    for (int64_t dim0 = i - 1; dim0 >= 0; --dim0) {
      const int comparison = should_swap(order[dim0], order[dim1]);
      if (comparison > 0) {
        std::swap(order[dim0], order[dim1]);
        dim1 = dim0;
      } else if (comparison < 0) {
        break;
      }
    }
  }
  return order;
}

// An output laid out as aten's TensorIterator lays out its output: contiguous when every input
// is contiguous (strides of size-1 and empty dimensions do not count), channels_last when every
// input is (channels_last_3d has no such rule), the inputs' strides when they are dense and all
// the same, else dense strides in iteration_order's order. at::empty and at::empty_strided
// rather than at::empty_like, which gives the same layouts for one input but costs more a call
// on CPU (docs/performance_history.md, "What was tried on the CPU": "Paired timing in the sweep").
// `like` gives the options and, with symbolic sizes (a meta tensor under torch.compile), the
// layout: empty_like's.
at::Tensor empty_output(const at::Tensor& like, std::initializer_list<at::Tensor> inputs) {
  const at::TensorOptions options = like.options();
  for (const at::MemoryFormat format :
       {at::MemoryFormat::Contiguous, at::MemoryFormat::ChannelsLast}) {
    const bool all = std::all_of(inputs.begin(), inputs.end(),
                                 [&](const at::Tensor& t) { return t.is_contiguous(format); });
    if (all) return at::empty_symint(like.sym_sizes(), options, format);
  }
  if (like.unsafeGetTensorImpl()->has_symbolic_sizes_strides()) return at::empty_like(like);
  const at::Tensor& first = *inputs.begin();
  const bool same_dense = std::all_of(inputs.begin(), inputs.end(), [&](const at::Tensor& t) {
    return t.is_non_overlapping_and_dense() && t.strides() == first.strides();
  });
  if (same_dense) return at::empty_strided(first.sizes(), first.strides(), options);
  const at::IntArrayRef sizes = first.sizes();
  c10::SmallVector<int64_t, 6> strides(sizes.size());
  int64_t next = 1;
  for (const int64_t dim : iteration_order(sizes, inputs)) {
    strides[dim] = next;
    next *= sizes[dim];
  }
  return at::empty_strided(sizes, strides, options);
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
  // With symbolic sizes the layout is empty_like's of grad_output when it is dense, else of self
  // (an expanded grad_output: the gradient of a sum, say).
  const at::Tensor& like = grad_output.is_non_overlapping_and_dense() ? grad_output : self;
  at::Tensor grad_input = empty_output(like, {grad_output, self});
  kernels.backward(grad_output, self, grad_input);
  return grad_input;
}

}  // namespace hardsigmoid_ops::impl
