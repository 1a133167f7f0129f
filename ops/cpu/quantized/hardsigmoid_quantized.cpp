#include "ops/cpu/quantized/hardsigmoid_quantized.h"

#include <ATen/Context.h>
#include <ATen/ops/_empty_affine_quantized.h>
#include <ATen/quantized/Quantizer.h>

#include <array>
#include <cmath>

#include "ops/cpu/capability_choice.h"
#include "ops/cpu/quantized/byte_lookup_choice.h"
#include "ops/cpu/quantized/byte_table.h"
#include "ops/cpu/quantized/qnnpack_table.h"
#include "ops/cpu/quantized/quantized_loops.h"
#include "ops/hardsigmoid_checks.h"

namespace hardsigmoid_ops::cpu {
namespace {

// Whether aten's QNNPACK path computes this QUInt8 input (rather than refuse it).
bool qnnpack_takes(const at::Tensor& self) {
  const float scale = static_cast<float>(self.q_scale());
  return self.dim() > 0 && scale > 0 && std::isnormal(scale);
}

void set_output_quantization(const at::Tensor& t) {
  const OutputQuantization q = output_quantization(t.scalar_type());
  at::set_quantizer_(t,
                     at::make_per_tensor_affine_quantizer(q.scale, q.zero_point, t.scalar_type()));
}

}  // namespace

// An 8-bit input has 256 codes, and each formula maps each code to one output code whatever the
// element's place. Under the QNNPACK engine aten computes QUInt8 with QNNPACK's lookup table
// (qnnpack_table.h: the scalar formula's on x86-64, one FMA apart on aarch64), with the zero
// point taken as a uint8_t (one outside [0, 255] wraps). aten's QNNPACK path refuses 0-dim input
// and a scale whose float is not normal and positive, and divides by zero on empty input: ours
// gives those the other engines' result. Under the other engines aten applies the vector formula to
// some elements and the scalar one to others (quantized_loops.cpp): where the two agree on all 256
// codes of this input's scale and zero point, which both tables show, every element's result is the
// table's, and a byte lookup gives aten's bits at a fraction of the arithmetic's cost, from the
// size where the lookup's speed pays for building the tables (table_from_elements). Where they
// differ on any code (none was found for the 8-bit types, but it is not excluded), aten's
// arithmetic runs element for element. QInt32 always takes the arithmetic.
QuantizedPath quantized_forward(const at::Tensor& self, const at::Tensor& out) {
  if (self.numel() == 0) return QuantizedPath::kArithmetic;
  const at::ScalarType dtype = self.scalar_type();
  const int64_t zero_point = self.q_zero_point();
  const QuantizedLoops& loops = selected_quantized_loops();
  if (dtype == at::kQInt32) {
    loops.forward(self, out);
    return QuantizedPath::kArithmetic;
  }
  const ByteLookup lookup = byte_lookup_for_this_call();
  if (at::globalContext().qEngine() == at::QEngine::QNNPACK && dtype == at::kQUInt8 &&
      qnnpack_takes(self)) {
    apply_byte_table(qnnpack_table(self.q_scale(), static_cast<uint8_t>(zero_point)), self, out,
                     lookup);
    return QuantizedPath::kQnnpackTable;
  }
  if (self.numel() >= table_from_elements(lookup)) {
    if (const auto table = agreeing_quantized_table(loops, dtype, self.q_scale(), zero_point)) {
      apply_byte_table(*table, self, out, lookup);
      return QuantizedPath::kFormulaTable;
    }
  }
  loops.forward(self, out);
  return QuantizedPath::kArithmetic;
}

std::optional<std::array<uint8_t, 256>> agreeing_quantized_table(const QuantizedLoops& loops,
                                                                 at::ScalarType dtype, double scale,
                                                                 int64_t zero_point) {
  auto scalar = loops.table(dtype, scale, zero_point, Formula::kScalar);
  if (scalar != loops.table(dtype, scale, zero_point, Formula::kVector)) {
    return std::nullopt;
  }
  return scalar;
}

OutputQuantization output_quantization(at::ScalarType dtype) {
  switch (dtype) {
    case at::kQUInt8:
      return {1.0 / 256, 0};
    case at::kQInt8:
      return {1.0 / 256, -128};
    default:
      return {std::ldexp(1.0, -32), 0};
  }
}

at::Tensor hardsigmoid_quantized(const at::Tensor& self) {
  checks::check_quantized_input("hardsigmoid", "self", self);
  const OutputQuantization q = output_quantization(self.scalar_type());
  // aten's layout: the input's suggested memory format, dense.
  at::Tensor out = at::_empty_affine_quantized(self.sizes(), self.options(), q.scale, q.zero_point,
                                               self.suggest_memory_format());
  quantized_forward(self, out);
  return out;
}

void hardsigmoid_quantized_(const at::Tensor& self) {
  checks::check_quantized_input("hardsigmoid_", "self", self);
  checks::check_no_internal_overlap("hardsigmoid_", "self", self);
  if (self.is_contiguous(self.suggest_memory_format())) {
    // The functional op's output would be laid out as self is: written in place, the elements
    // meet the same formulas, without a new tensor and a copy.
    quantized_forward(self, self);
    set_output_quantization(self);
    return;
  }
  self.copy_(hardsigmoid_quantized(self));  // copy_ gives self the result's quantizer
}

void hardsigmoid_quantized_out(const at::Tensor& self, const at::Tensor& out) {
  checks::check_quantized_out("hardsigmoid_out", self, out);
  checks::check_no_internal_overlap("hardsigmoid_out", "out", out);
  checks::check_no_partial_overlap("hardsigmoid_out", self, out);
  if (out.is_same(self)) {
    hardsigmoid_quantized_(self);
    return;
  }
  out.copy_(hardsigmoid_quantized(self));
}

at::Tensor hardsigmoid_quantized_backward(const at::Tensor& grad_output, const at::Tensor& self) {
  checks::check_input("hardsigmoid_backward", "grad_output", grad_output);
  checks::check_input("hardsigmoid_backward", "self", self);
  TORCH_CHECK(false, "hardsigmoid_backward: reached the quantized kernel with no quantized tensor");
}

}  // namespace hardsigmoid_ops::cpu
