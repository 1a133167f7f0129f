// hardsigmoid on per-tensor quantized tensors, as aten's quantized CPU kernel computes it, bit for
// bit. Each element is dequantized, put through hardsigmoid in float32 and quantized again with
// the output's fixed parameters; two formulas do it, and which one an element gets decides its
// bits:
//   vector: at::vec's dequantize, scale * code + (scale * -zero_point) in one FMA, then
//           Vectorized's quantize;
//   scalar: aten's dequantize_val, scale * (code - zero_point), then quantize_val.
// For QInt32 they differ in the last bit of many results (the product is rounded once, or the
// code converted to float before the zero point is taken away); for the 8-bit types no
// difference was found. aten applies the vector formula in its vector loop and the scalar one to
// the tail of each row its TensorIterator hands a thread, and to rows whose input is not
// contiguous. So the same TensorIterator (built as aten builds it, over an output laid out as
// aten lays it out) drives the same loop structure here (at::native::cpu_kernel_vec), and the
// two formulas are aten's own public helpers and at::vec's: every element gets aten's formula,
// whatever the layout or the number of threads.
#include <ATen/Dispatch.h>
#include <ATen/cpu/vec/vec.h>
#include <ATen/native/TensorIterator.h>
#include <ATen/native/cpu/Loops.h>
#include <ATen/native/quantized/AffineQuantizerBase.h>

#include <algorithm>

#include "ops/cpu/quantized_loops.h"

namespace hardsigmoid_ops::cpu::CPU_CAPABILITY {
namespace {

template <typename scalar_t>
void forward_typed(const at::Tensor& self, const at::Tensor& out) {
  using QVec = at::vec::Vectorized<scalar_t>;
  using FVec = at::vec::Vectorized<float>;
  const float scale = static_cast<float>(self.q_scale());
  const int64_t zero_point = self.q_zero_point();
  // The output's parameters, not out's quantizer: in place, out is self and still carries self's.
  const OutputQuantization output = output_quantization(self.scalar_type());
  const float output_scale = static_cast<float>(output.scale);
  const int64_t output_zero_point = output.zero_point;
  // 256 or 2^32: exact, as is every product with it.
  const float inv_output_scale = static_cast<float>(1.0 / output_scale);
  const FVec scale_vec(scale);
  const FVec zero_point_vec(static_cast<float>(zero_point));
  const FVec scale_neg_zero_point = scale_vec * zero_point_vec.neg();
  const FVec zero(0.0f), three(3.0f), six(6.0f);

  at::TensorBase written = out;  // unary_op takes a mutable reference
  at::TensorIterator iter = at::TensorIterator::unary_op(written, self);
  at::native::cpu_kernel_vec(
      iter,
      [=](scalar_t code) -> scalar_t {
        const float x = at::native::dequantize_val(scale, zero_point, code);
        const float y = std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f;
        return at::native::quantize_val<scalar_t>(output_scale, output_zero_point, y);
      },
      [=](QVec codes) -> QVec {
        auto values = codes.dequantize(scale_vec, zero_point_vec, scale_neg_zero_point);
        for (FVec& v : values) {
          v = at::vec::minimum(at::vec::maximum(v + three, zero), six) / six;
        }
        return QVec::quantize(values, output_scale, output_zero_point, inv_output_scale);
      });
}

}  // namespace

void quantized_forward(const at::Tensor& self, const at::Tensor& out) {
  AT_DISPATCH_QINT_TYPES(self.scalar_type(), "hardsigmoid_quantized_cpu",
                         [&] { forward_typed<scalar_t>(self, out); });
}

}  // namespace hardsigmoid_ops::cpu::CPU_CAPABILITY
