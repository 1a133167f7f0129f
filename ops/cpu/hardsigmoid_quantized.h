// The quantized CPU ops: hardsigmoid, hardsigmoid_ and hardsigmoid_out on per-tensor affine
// quantized tensors (QUInt8, QInt8, QInt32), with aten's results: its codes, its fixed output
// scale and zero point, its output layout, under each quantized engine. Checked here; the loops
// are quantized_loops.h's.
#pragma once

#include <ATen/core/Tensor.h>

namespace hardsigmoid_ops::cpu {

at::Tensor hardsigmoid_quantized(const at::Tensor& self);
// The tensor takes the output's scale and zero point, as aten's in-place op gives it.
void hardsigmoid_quantized_(const at::Tensor& self);
// out: a per-tensor quantized tensor of self's dtype and shape; it takes the output's scale and
// zero point.
void hardsigmoid_quantized_out(const at::Tensor& self, const at::Tensor& out);

// Always throws: the backward op takes no quantized tensor (aten's has no quantized kernel),
// and the dispatcher comes here only with one. The error names the argument.
at::Tensor hardsigmoid_quantized_backward(const at::Tensor& grad_output, const at::Tensor& self);

}  // namespace hardsigmoid_ops::cpu
