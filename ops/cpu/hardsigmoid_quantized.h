// The quantized CPU ops: hardsigmoid, hardsigmoid_ and hardsigmoid_out on per-tensor affine
// quantized tensors (QUInt8, QInt8, QInt32), with aten's results: its codes, its fixed output
// scale and zero point, its output layout, under each quantized engine. Checked here; the loops
// are quantized_loops.h's, the 8-bit types' table byte_table.h's.
//
// `lookup`: the byte table's loop where an 8-bit input takes the table, which a test or study may
// name (it must be runnable); by default the process's choice, asked for at every non-empty 8-bit
// call (the size from which the table is taken depends on it), so that a refused
// HARDSIGMOID_OPS_BYTE_LOOKUP fails those calls and leaves qint32 and empty tensors alone.
#pragma once

#include <ATen/core/Tensor.h>

#include <optional>

#include "ops/cpu/byte_table.h"

namespace hardsigmoid_ops::cpu {

at::Tensor hardsigmoid_quantized(const at::Tensor& self,
                                 std::optional<ByteLookup> lookup = std::nullopt);
// The tensor takes the output's scale and zero point, as aten's in-place op gives it.
void hardsigmoid_quantized_(const at::Tensor& self,
                            std::optional<ByteLookup> lookup = std::nullopt);
// out: a per-tensor quantized tensor of self's dtype and shape; it takes the output's scale and
// zero point.
void hardsigmoid_quantized_out(const at::Tensor& self, const at::Tensor& out,
                               std::optional<ByteLookup> lookup = std::nullopt);

// How quantized_forward computed its input: QNNPACK's table (QUInt8 under that engine), the table
// of aten's results where aten's two formulas agree on every code, or aten's arithmetic.
enum class QuantizedPath { kQnnpackTable, kFormulaTable, kArithmetic };

// out = hardsigmoid(self)'s codes, for out quantized with the output's parameters, out laid out
// as self or being self; no checks.
QuantizedPath quantized_forward(const at::Tensor& self, const at::Tensor& out,
                                std::optional<ByteLookup> lookup);

// Always throws: the backward op takes no quantized tensor (aten's has no quantized kernel),
// and the dispatcher comes here only with one. The error names the argument.
at::Tensor hardsigmoid_quantized_backward(const at::Tensor& grad_output, const at::Tensor& self);

}  // namespace hardsigmoid_ops::cpu
