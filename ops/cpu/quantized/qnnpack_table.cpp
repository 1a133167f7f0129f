// QNNPACK builds its hardsigmoid table in float32, in plain C inside libtorch: the input's value
// scale * (code - zero point), plus 3, clamped to [0, 6], over 6, times the output's inverse scale
// (256, exact), clamped to the code range and rounded to nearest even. Written so, it is aten's
// scalar formula on x86-64. But the value and the 3 that follows it are two roundings only where
// the compiler that built torch left them two: torch's aarch64 build (GCC, whose default
// contraction fuses a product with the sum it feeds, across statements) makes them one FMA, and
// near a tie the two round apart (scale 0.0125558041036129, zero point 234, code 24: 15 fused, 16
// not). So the fusion is written out per architecture, and this file is compiled with contraction
// off (CMakeLists.txt) so that the compiler adds none of its own.
#include "ops/cpu/quantized/qnnpack_table.h"

#include <algorithm>
#include <cmath>

#include "ops/cpu/quantized/quantized_loops.h"

namespace hardsigmoid_ops::cpu {

std::array<uint8_t, 256> qnnpack_table(double scale, uint8_t zero_point) {
  const float input_scale = static_cast<float>(scale);
  const OutputQuantization output = output_quantization(at::kQUInt8);
  const float inv_output_scale = 1.0f / static_cast<float>(output.scale);
  const float output_zero_point = static_cast<float>(output.zero_point);
  std::array<uint8_t, 256> table;
  for (int code = 0; code < 256; ++code) {
    const float from_zero_point = static_cast<float>(code - static_cast<int>(zero_point));
#if defined(__aarch64__)
    const float shifted = std::fma(input_scale, from_zero_point, 3.0f);
#else
    const float shifted = input_scale * from_zero_point + 3.0f;
#endif
    const float unit = std::min(std::max(shifted, 0.0f), 6.0f) / 6.0f;
    // inv_output_scale * unit is exact (a power of two), so fused or not the sum is the same.
    const float scaled =
        std::min(std::max(inv_output_scale * unit + output_zero_point, 0.0f), 255.0f);
    table[code] = static_cast<uint8_t>(std::nearbyint(scaled));
  }
  return table;
}

}  // namespace hardsigmoid_ops::cpu
