// The loops of the quantized CPU kernel (hardsigmoid_quantized.cpp): hardsigmoid from one
// per-tensor quantized tensor into another of the same dtype (or into itself), quantized with the
// op's fixed output parameters whatever `out`'s quantizer says (the caller sets it).
//
// Compiled once per CPU capability that aten has quantized kernels for (cmake/row_loops.cmake),
// each into the namespace of its CPU_CAPABILITY; which one runs is capability_choice.h's.
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

// One capability's loops, registered in the capability table by quantized_loops.cpp compiled for
// it (aten has quantized kernels for DEFAULT and AVX2 on x86-64, DEFAULT and SVE256 on aarch64).
//
// forward: out = hardsigmoid(self) with aten's x86 / fbgemm / onednn arithmetic: the vector
// formula in the vector loop and the scalar one in its tails, on the elements where aten's
// TensorIterator puts them (for QInt32 the two formulas differ).
// table: for an 8-bit dtype (QUInt8, QInt8) and an input's scale and zero point, the output code of
// each of the 256 input codes (indexed by the code's byte) under one formula.
struct QuantizedLoops {
  void (*forward)(const at::Tensor& self, const at::Tensor& out);
  std::array<uint8_t, 256> (*table)(at::ScalarType dtype, double scale, int64_t zero_point,
                                    Formula formula);
};

// The scalar formula's table where the vector formula's is the same, so that every element's
// result is its entry wherever the element falls; nullopt where the two differ on any code.
std::optional<std::array<uint8_t, 256>> agreeing_quantized_table(const QuantizedLoops& loops,
                                                                 at::ScalarType dtype, double scale,
                                                                 int64_t zero_point);

}  // namespace hardsigmoid_ops::cpu
