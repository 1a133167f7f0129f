// Whether an op's output shares elements with its input. Used to allow `out` = `self` (or a view
// addressing exactly its elements) and outputs merely sharing a storage (x[0::2] and x[1::2]),
// and to refuse an `out` that would overwrite input elements before they are read.
#pragma once

#include <ATen/core/Tensor.h>

namespace hardsigmoid_ops {

enum class Overlap {
  kNone,          // no element in common (or different storages)
  kSameElements,  // the same element at every index: an in-place result
  kPartial,       // some elements in common, or a layout too tangled to tell
};

// a and b have one shape and dtype, on a device with memory (not meta).
Overlap element_overlap(const at::Tensor& a, const at::Tensor& b);

}  // namespace hardsigmoid_ops
