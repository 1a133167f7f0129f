// The quantized CPU ops: hardsigmoid, hardsigmoid_ and hardsigmoid_out on per-tensor affine
// quantized tensors (QUInt8, QInt8, QInt32), with aten's results: its codes, its fixed output
// scale and zero point, its output layout, under each quantized engine. Checked here; the loops
// are quantized_loops.h's, the 8-bit types' table byte_table.h's.
// Where an 8-bit input takes the table, its byte lookup is byte_lookup_choice.h's
// byte_lookup_for_this_call().
#pragma once

#include <ATen/core/Tensor.h>

namespace hardsigmoid_ops::cpu {

at::Tensor hardsigmoid_quantized(const at::Tensor& self);
// The tensor takes the output's scale and zero point, as aten's in-place op gives it.
void hardsigmoid_quantized_(const at::Tensor& self);
// out: a per-tensor quantized tensor of self's dtype and shape; it takes the output's scale and
// zero point.
void hardsigmoid_quantized_out(const at::Tensor& self, const at::Tensor& out);

// How quantized_forward computed its input: QNNPACK's table (QUInt8 under that engine), the table
// of aten's results where aten's two formulas agree on every code, or aten's arithmetic.
enum class QuantizedPath { kQnnpackTable, kFormulaTable, kArithmetic };

// out = hardsigmoid(self)'s codes, for out quantized with the output's parameters, out laid out
// as self or being self; no checks.
QuantizedPath quantized_forward(const at::Tensor& self, const at::Tensor& out);

// Always throws: the backward op takes no quantized tensor (aten's has no quantized kernel),
// and the dispatcher comes here only with one. The error names the argument.
at::Tensor hardsigmoid_quantized_backward(const at::Tensor& grad_output, const at::Tensor& self);

}  // namespace hardsigmoid_ops::cpu
