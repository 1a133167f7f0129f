// How a kernel walks its tensors, the same decision on every device: one flat span of memory when
// all tensors are non-overlapping and dense with the same strides (contiguous, channels_last, any
// permutation, a misaligned slice), else a TensorIterator that coalesces what it can.
#pragma once

#include <ATen/TensorIterator.h>

#include <initializer_list>

namespace hardsigmoid_ops {

// True when the tensors' elements are one span [data_ptr, data_ptr + numel) each, in one order.
inline bool same_dense_layout(std::initializer_list<const at::Tensor*> tensors) {
  const at::Tensor& first = **tensors.begin();
  for (const at::Tensor* t : tensors) {
    if (!t->is_non_overlapping_and_dense() || t->strides() != first.strides()) {
      return false;
    }
  }
  return true;
}

// A TensorIterator over tensors the op has already checked: no resizing, no overlap checks.
inline at::TensorIterator make_iterator(const at::Tensor& out,
                                        std::initializer_list<at::Tensor> inputs) {
  at::TensorIteratorConfig config;
  config.set_check_mem_overlap(false).resize_outputs(false).add_output(out);
  for (const at::Tensor& input : inputs) {
    config.add_const_input(input);
  }
  return config.build();
}

}  // namespace hardsigmoid_ops
