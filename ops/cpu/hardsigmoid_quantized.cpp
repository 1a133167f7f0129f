#include "ops/cpu/hardsigmoid_quantized.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <ATen/native/TensorIterator.h>
#include <ATen/native/quantized/AffineQuantizerBase.h>
#include <ATen/ops/_empty_affine_quantized.h>
#include <ATen/quantized/Quantizer.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "ops/cpu/quantized_loops.h"
#include "ops/cpu/row_loops.h"
#include "ops/hardsigmoid_checks.h"

namespace hardsigmoid_ops::cpu {
namespace {

// aten's quantized kernels are registered for DEFAULT and AVX2; where aten runs AVX512 it runs
// their AVX2 versions (DispatchStub's fallback), whose vector width decides where the scalar
// tails fall.
void forward_with_aten_arithmetic(const at::Tensor& self, const at::Tensor& out) {
#if defined(HARDSIGMOID_OPS_X86_CAPABILITIES)
  if (selected_capability() != Capability::kDefault) {
    AVX2::quantized_forward(self, out);
    return;
  }
#endif
  DEFAULT::quantized_forward(self, out);
}

// Under the QNNPACK engine aten computes QUInt8 with QNNPACK's lookup table: the scalar formula
// for each of the 256 codes, whatever an element's place. The same table here, built with aten's
// scalar helpers. (aten's QNNPACK path also refuses 0-dim input and divides by zero on empty
// input; this table takes both.)
void forward_with_qnnpack_table(const at::Tensor& self, const at::Tensor& out) {
  const double scale = self.q_scale();
  const int64_t zero_point = self.q_zero_point();
  const OutputQuantization output = output_quantization(at::kQUInt8);
  const float output_scale = static_cast<float>(output.scale);
  const int64_t output_zero_point = output.zero_point;
  std::array<uint8_t, 256> table;
  for (int code = 0; code < 256; ++code) {
    const float x = at::native::dequantize_val(scale, zero_point, c10::quint8(code));
    const float y = std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f;
    table[code] = at::native::quantize_val<c10::quint8>(output_scale, output_zero_point, y).val_;
  }
  at::TensorBase written = out;  // unary_op takes a mutable reference
  at::TensorIterator iter = at::TensorIterator::unary_op(written, self);
  iter.for_each(
      [&table](char** data, const int64_t* strides, int64_t size0, int64_t size1) {
        for (int64_t r = 0; r < size1; ++r) {
          uint8_t* to = reinterpret_cast<uint8_t*>(data[0] + r * strides[2]);
          const uint8_t* from = reinterpret_cast<const uint8_t*>(data[1] + r * strides[3]);
          for (int64_t i = 0; i < size0; ++i) to[i * strides[0]] = table[from[i * strides[1]]];
        }
      },
      at::internal::GRAIN_SIZE);
}

// out = hardsigmoid(self), quantized with output_quantization's parameters; out may be self.
void forward(const at::Tensor& self, const at::Tensor& out) {
  if (self.numel() == 0) return;
  if (at::globalContext().qEngine() == at::QEngine::QNNPACK && self.scalar_type() == at::kQUInt8) {
    forward_with_qnnpack_table(self, out);
  } else {
    forward_with_aten_arithmetic(self, out);
  }
}

void set_output_quantization(const at::Tensor& t) {
  const OutputQuantization q = output_quantization(t.scalar_type());
  at::set_quantizer_(t,
                     at::make_per_tensor_affine_quantizer(q.scale, q.zero_point, t.scalar_type()));
}

}  // namespace

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
  forward(self, out);
  return out;
}

void hardsigmoid_quantized_(const at::Tensor& self) {
  checks::check_quantized_input("hardsigmoid_", "self", self);
  checks::check_no_internal_overlap("hardsigmoid_", "self", self);
  if (self.is_contiguous(self.suggest_memory_format())) {
    // The functional op's output would be laid out as self is: written in place, the elements
    // meet the same formulas, without a new tensor and a copy.
    forward(self, self);
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
