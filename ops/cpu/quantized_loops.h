// The loops of the quantized CPU kernel (hardsigmoid_quantized.cpp): hardsigmoid from one
// per-tensor quantized tensor into another of the same dtype (or into itself), quantized with the
// op's fixed output parameters whatever `out`'s quantizer says (the caller sets it).
//
// Compiled once per instruction set from quantized_loops.cpp (DEFAULT and, on x86-64, AVX2: aten
// registers its quantized kernels for those two, and an AVX512 process runs the AVX2 ones; on
// aarch64 DEFAULT and SVE256), each into the namespace of its CPU_CAPABILITY.
#pragma once

#include <ATen/core/Tensor.h>

#include <array>
#include <cstdint>
#include <optional>

namespace hardsigmoid_ops::cpu {

// What the output quantization of each dtype is, whatever the input's: QUInt8 1/256 and 0, QInt8
// 1/256 and -128 (the [0, 1] range over all 256 codes), QInt32 2^-32 and 0.
struct OutputQuantization {
  double scale;
  int64_t zero_point;
};
OutputQuantization output_quantization(at::ScalarType dtype);

// Which of aten's two formulas (quantized_loops.cpp).
enum class Formula { kScalar, kVector };

// The loops below of the capability aten's own choice selects (hardsigmoid_quantized.cpp): AVX2
// where aten runs AVX2 or AVX512 (its quantized kernels' AVX512 slot is empty, so DispatchStub
// falls back to AVX2), SVE256 where aten runs SVE256, else DEFAULT; ATEN_CPU_CAPABILITY honoured.
void selected_quantized_forward(const at::Tensor& self, const at::Tensor& out);
std::array<uint8_t, 256> selected_quantized_table(at::ScalarType dtype, double scale,
                                                  int64_t zero_point, Formula formula);
// The scalar formula's table where the vector formula's is the same, so that every element's
// result is its entry wherever the element falls; nullopt where the two differ on any code.
std::optional<std::array<uint8_t, 256>> agreeing_quantized_table(at::ScalarType dtype, double scale,
                                                                 int64_t zero_point);

// out = hardsigmoid(self) with aten's x86 / fbgemm / onednn arithmetic: the vector formula in the
// vector loop and the scalar one in its tails, on the elements where aten's TensorIterator puts
// them (for QInt32 the two formulas differ). Defined by quantized_loops.cpp compiled with
// CPU_CAPABILITY set to each namespace's name.
//
// quantized_table: for an 8-bit dtype (QUInt8, QInt8) and an input's scale and zero point, the
// output code of each of the 256 input codes (indexed by the code's byte) under one formula.
namespace DEFAULT {
void quantized_forward(const at::Tensor& self, const at::Tensor& out);
std::array<uint8_t, 256> quantized_table(at::ScalarType dtype, double scale, int64_t zero_point,
                                         Formula formula);
}  // namespace DEFAULT
namespace AVX2 {
void quantized_forward(const at::Tensor& self, const at::Tensor& out);
std::array<uint8_t, 256> quantized_table(at::ScalarType dtype, double scale, int64_t zero_point,
                                         Formula formula);
}  // namespace AVX2
namespace SVE256 {
void quantized_forward(const at::Tensor& self, const at::Tensor& out);
std::array<uint8_t, 256> quantized_table(at::ScalarType dtype, double scale, int64_t zero_point,
                                         Formula formula);
}  // namespace SVE256

}  // namespace hardsigmoid_ops::cpu
