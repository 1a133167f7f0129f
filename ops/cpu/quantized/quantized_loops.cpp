// hardsigmoid on per-tensor quantized tensors, as aten's quantized CPU kernel computes it, bit for
// bit. Each element is dequantized, put through hardsigmoid in float32 and quantized again with
// the output's fixed parameters; two formulas do it, and which one an element gets decides its
// bits:
//   vector: at::vec's dequantize, scale * code + (scale * -zero_point) in one FMA, then
//           Vectorized's quantize;
//   scalar: aten's dequantize_val, scale * (code - zero_point), then quantize_val.
// For QInt32 they differ in the last bit of many results (the product is rounded once, or the
// code converted to float before the zero point is taken away); for the 8-bit types none was
// found (every code under 100,000 random scales and zero points each for QUInt8 and QInt8), and
// hardsigmoid_quantized.cpp checks the two tables per call before it relies on that. aten applies
// the vector formula in its vector loop and the scalar one to the tail of each row its
// TensorIterator hands a thread, and to rows whose input is not contiguous. So the same
// TensorIterator (built as aten builds it, over an output laid out as aten lays it out) drives the
// same loop structure here (at::native::cpu_kernel_vec), and the two formulas are aten's own public
// helpers and at::vec's: every element gets aten's formula, whatever the layout or the number of
// threads. quantized_table gives either formula's result for each of an 8-bit dtype's 256 codes.
#include <ATen/Dispatch.h>
#include <ATen/cpu/vec/vec.h>
#include <ATen/native/TensorIterator.h>
#include <ATen/native/cpu/Loops.h>
#include <ATen/native/quantized/AffineQuantizerBase.h>
#include <c10/macros/Macros.h>

#include <algorithm>
#include <array>

#include "ops/cpu/capability.h"
#include "ops/cpu/quantized/quantized_loops.h"

namespace hardsigmoid_ops::cpu::CPU_CAPABILITY {
namespace {

// aten's two formulas for one input quantization, into the output's fixed parameters (whatever
// out's quantizer says: in place, out is self and still carries self's).
template <typename scalar_t>
struct Formulas {
  using QVec = at::vec::Vectorized<scalar_t>;
  using FVec = at::vec::Vectorized<float>;

  float scale;
  int64_t zero_point;
  float output_scale;
  int64_t output_zero_point;
  float inv_output_scale;  // 256 or 2^32: exact, as is every product with it
  FVec scale_vec, zero_point_vec, scale_neg_zero_point;

  Formulas(double input_scale, int64_t input_zero_point)
      : scale(static_cast<float>(input_scale)),
        zero_point(input_zero_point),
        output_scale(static_cast<float>(
            output_quantization(c10::CppTypeToScalarType<scalar_t>::value).scale)),
        output_zero_point(
            output_quantization(c10::CppTypeToScalarType<scalar_t>::value).zero_point),
        inv_output_scale(static_cast<float>(1.0 / output_scale)),
        scale_vec(scale),
        zero_point_vec(static_cast<float>(zero_point)),
        scale_neg_zero_point(scale_vec * zero_point_vec.neg()) {}

  scalar_t scalar(scalar_t code) const {
    const float x = at::native::dequantize_val(scale, zero_point, code);
    const float y = std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f;
    return at::native::quantize_val<scalar_t>(output_scale, output_zero_point, y);
  }

  QVec vector(QVec codes) const {
    const FVec zero(0.0f), three(3.0f), six(6.0f);
    auto values = codes.dequantize(scale_vec, zero_point_vec, scale_neg_zero_point);
    for (FVec& v : values) {
      v = at::vec::minimum(at::vec::maximum(v + three, zero), six) / six;
    }
    return QVec::quantize(values, output_scale, output_zero_point, inv_output_scale);
  }
};

template <typename scalar_t>
void forward_typed(const at::Tensor& self, const at::Tensor& out) {
  using QVec = at::vec::Vectorized<scalar_t>;
  const Formulas<scalar_t> formulas(self.q_scale(), self.q_zero_point());
  at::TensorBase written = out;  // unary_op takes a mutable reference
  at::TensorIterator iter = at::TensorIterator::unary_op(written, self);
  at::native::cpu_kernel_vec(
      iter, [&formulas](scalar_t code) { return formulas.scalar(code); },
      [&formulas](QVec codes) { return formulas.vector(codes); });
}

template <typename scalar_t>
std::array<uint8_t, 256> table_typed(double scale, int64_t zero_point, bool vector) {
  using QVec = at::vec::Vectorized<scalar_t>;
  using underlying = typename scalar_t::underlying;
  static_assert(sizeof(underlying) == 1 && 256 % QVec::size() == 0);
  const Formulas<scalar_t> formulas(scale, zero_point);
  std::array<uint8_t, 256> codes, table;
  for (int byte = 0; byte < 256; ++byte) codes[byte] = static_cast<uint8_t>(byte);
  if (vector) {
    for (int first = 0; first < 256; first += QVec::size()) {
      formulas.vector(QVec::loadu(codes.data() + first)).store(table.data() + first);
    }
    return table;
  }
  for (int byte = 0; byte < 256; ++byte) {
    const scalar_t code(static_cast<underlying>(codes[byte]));
    table[byte] = static_cast<uint8_t>(formulas.scalar(code).val_);
  }
  return table;
}

void forward(const at::Tensor& self, const at::Tensor& out) {
  AT_DISPATCH_QINT_TYPES(self.scalar_type(), "hardsigmoid_quantized_cpu",
                         [&] { forward_typed<scalar_t>(self, out); });
}

std::array<uint8_t, 256> table(at::ScalarType dtype, double scale, int64_t zero_point,
                               Formula formula) {
  const bool vector = formula == Formula::kVector;
  if (dtype == at::kQUInt8) return table_typed<c10::quint8>(scale, zero_point, vector);
  TORCH_CHECK(dtype == at::kQInt8, "quantized_table: an 8-bit quantized dtype, not ",
              c10::toString(dtype));
  return table_typed<c10::qint8>(scale, zero_point, vector);
}

constexpr QuantizedLoops kLoops{&forward, &table};
const RegisterQuantizedLoops registered(C10_STRINGIZE(CPU_CAPABILITY), kLoops);

}  // namespace
}  // namespace hardsigmoid_ops::cpu::CPU_CAPABILITY
