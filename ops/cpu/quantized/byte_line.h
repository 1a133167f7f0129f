// An 8-bit table computed instead of looked up: the quantized op's tables are monotone ramps (0 up
// to the hardsigmoid's ramp, a line of the code on it, the top code above), and most of them are,
// byte for byte, a line of saturated 16-bit integer arithmetic, which AVX2 evaluates for 32 bytes
// in 14 instructions where its shuffles look the 256 entries up in 39. The line is fitted to
// each table and checked on all 256 bytes, so that where it runs its bytes are the table's:
//
//   u = byte ^ flip_in                                  (qint8: its codes' order as unsigned bytes)
//   s = clamp(((u * multiplier) >> 8) + offset, 0, 65535)
//   result = min(s >> shift, 255) ^ flip_out
#pragma once

#include <cstdint>
#include <optional>

namespace hardsigmoid_ops::cpu {

struct ByteLine {
  uint16_t multiplier;
  int32_t offset;  // in [-65535, 65535]
  int shift;       // in [1, 8]
  uint8_t flip_in;
  uint8_t flip_out;
};

// The formula above, one byte.
uint8_t line_byte(const ByteLine& line, uint8_t byte);

// A line giving table[b] for every byte b, flip_in and flip_out both 0 or both 0x80, or nullopt
// where none is found (the table is monotone under neither, or the search finds no line: 3 of
// 1000 aten tables with random scales and zero points, and tables whose ramp has round-half-even
// ties, such as that of scale 1/256 and zero point 0).
std::optional<ByteLine> fit_byte_line(const uint8_t* table);

#if defined(__x86_64__)
// to[i] = line_byte(line, from[i]) for i in [0, n), 32 bytes a step for a line in fit_byte_line's
// ranges (shift 1 - 8, offset within +-65535); to may be from. Only where the processor has AVX2
// (byte_lookups.h's can_run(ByteLookup::kAvx2Line)).
void line_avx2(const ByteLine& line, const uint8_t* from, uint8_t* to, int64_t n);
#endif

}  // namespace hardsigmoid_ops::cpu
