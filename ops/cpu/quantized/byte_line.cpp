#include "ops/cpu/quantized/byte_line.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace hardsigmoid_ops::cpu {
namespace {

bool gives_table(const ByteLine& line, const uint8_t* table) {
  for (int b = 0; b < 256; ++b) {
    if (line_byte(line, static_cast<uint8_t>(b)) != table[b]) return false;
  }
  return true;
}

// The line for one pair of flips. want[u] is the result the line must give for u (the byte
// flip_in ^ u); a line exists only where want never decreases and stays within 2 of the straight
// line through the ends of its ramp (first: the first u above 0; last: the last below 255).
// For the finest shift whose multiplier can hold the ramp's slope, and the next, the multiplier is
// bisected: for a multiplier m each u bounds the offset from below (want[u] << shift - v, unless
// want[u] is 0, which any s below 1 << shift gives) and from above ((want[u] + 1) << shift - 1 - v,
// unless it is 255, which saturation gives), v being (u * m) >> 8; where the largest lower bound
// (at u1) passes the smallest upper bound (at u2), v[u2] - v[u1] is too large for the results'
// step between them if u2 > u1 (m too large), too small otherwise. Only the ramp and the u on
// either side of it bind (v grows with u). Of 1000 aten tables with random scales and zero points,
// 997 had a line at the finest shift, found in some 11 multipliers, and 3 none at any shift; a
// line found is checked on every byte.
std::optional<ByteLine> fit_with_flips(const uint8_t* table, uint8_t flip_in, uint8_t flip_out) {
  int32_t want[256];
  for (int u = 0; u < 256; ++u) want[u] = table[u ^ flip_in] ^ flip_out;
  for (int u = 1; u < 256; ++u) {
    if (want[u] < want[u - 1]) return std::nullopt;
  }
  int first = 0;
  while (first < 256 && want[first] == 0) ++first;
  int last = 255;
  while (last >= 0 && want[last] == 255) --last;
  // The slope through the ramp's ends, or, for a ramp of one entry or none (a scale of 3 or
  // more), the largest step from one byte to the next.
  double slope = 0.0;
  if (first < last) {
    slope = double(want[last] - want[first]) / (last - first);
  } else {
    for (int u = 1; u < 256; ++u) slope = std::max(slope, double(want[u] - want[u - 1]));
  }
  for (int u = first; u <= last; ++u) {
    if (std::abs(want[u] - want[first] - slope * (u - first)) > 2.0) return std::nullopt;
  }
  const int begin = std::max(first - 1, 0), end = std::min(last + 1, 255);
  int top_shift = 8;
  while (top_shift > 1 && slope * double(1 << (8 + top_shift)) > 65535.0) --top_shift;

  for (int shift = top_shift; shift >= std::max(top_shift - 1, 1); --shift) {
    int32_t low_m = 0, high_m = 65535;
    while (low_m <= high_m) {
      const int32_t m = (low_m + high_m) / 2;
      int32_t lowest = std::numeric_limits<int32_t>::min();
      int32_t highest = std::numeric_limits<int32_t>::max();
      int at_lowest = 0, at_highest = 0;
      for (int u = begin; u <= end; ++u) {
        const int32_t v = (u * m) >> 8;
        if (want[u] != 0 && (want[u] << shift) - v > lowest) {
          lowest = (want[u] << shift) - v;
          at_lowest = u;
        }
        if (want[u] != 255 && ((want[u] + 1) << shift) - 1 - v < highest) {
          highest = ((want[u] + 1) << shift) - 1 - v;
          at_highest = u;
        }
      }
      if (lowest <= highest) {
        // lowest is at most 255 << 8 and highest above -65535, so the offset is in range.
        const int32_t offset = std::max(lowest, -65535);
        const ByteLine line{static_cast<uint16_t>(m), offset, shift, flip_in, flip_out};
        if (gives_table(line, table)) return line;
        break;
      }
      if (at_highest > at_lowest) {
        high_m = m - 1;
      } else {
        low_m = m + 1;
      }
    }
  }
  return std::nullopt;
}

}  // namespace

uint8_t line_byte(const ByteLine& line, uint8_t byte) {
  const int64_t u = byte ^ line.flip_in;
  const int64_t s = std::clamp<int64_t>(((u * line.multiplier) >> 8) + line.offset, 0, 65535);
  return static_cast<uint8_t>(std::min<int64_t>(s >> line.shift, 255) ^ line.flip_out);
}

std::optional<ByteLine> fit_byte_line(const uint8_t* table) {
  // Unflipped (quint8 in and out), then flipped (qint8 in and out): the op's input and output
  // have one dtype.
  if (auto line = fit_with_flips(table, 0, 0)) return line;
  return fit_with_flips(table, 0x80, 0x80);
}

#if defined(__x86_64__)
namespace {

// The results of 16 bytes, each the high byte of a 16-bit lane (u << 8), so that the unsigned
// high half of its product with the multiplier is (u * multiplier) >> 8; the offset is added, or
// subtracted, with 16-bit saturation (one of raise and lower is 0); the shift leaves at most
// 32767, which the caller's packus saturates to 255.
__attribute__((target("avx2"), always_inline)) inline __m256i line_words(
    __m256i u_high, __m256i multiplier, __m256i raise, __m256i lower, __m128i shift) {
  const __m256i v = _mm256_mulhi_epu16(u_high, multiplier);
  return _mm256_srl_epi16(_mm256_subs_epu16(_mm256_adds_epu16(v, raise), lower), shift);
}

}  // namespace

// unpacklo / unpackhi and packus work within each 128-bit lane alike, so the bytes come back in
// their order.
__attribute__((target("avx2"))) void line_avx2(const ByteLine& line, const uint8_t* from,
                                               uint8_t* to, int64_t n) {
  // The 16-bit lanes hold the formula for these ranges (fit_byte_line's); outside them, the
  // formula a byte at a time.
  if (line.shift < 1 || line.shift > 8 || line.offset < -65535 || line.offset > 65535) {
    for (int64_t i = 0; i < n; ++i) to[i] = line_byte(line, from[i]);
    return;
  }
  const __m256i flip_in = _mm256_set1_epi8(static_cast<char>(line.flip_in));
  const __m256i flip_out = _mm256_set1_epi8(static_cast<char>(line.flip_out));
  const __m256i multiplier = _mm256_set1_epi16(static_cast<int16_t>(line.multiplier));
  const __m256i raise = _mm256_set1_epi16(static_cast<int16_t>(std::max(line.offset, 0)));
  const __m256i lower = _mm256_set1_epi16(static_cast<int16_t>(std::max(-line.offset, 0)));
  const __m128i shift = _mm_cvtsi32_si128(line.shift);
  const __m256i zero = _mm256_setzero_si256();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i u =
        _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(from + i)), flip_in);
    const __m256i low = line_words(_mm256_unpacklo_epi8(zero, u), multiplier, raise, lower, shift);
    const __m256i high = line_words(_mm256_unpackhi_epi8(zero, u), multiplier, raise, lower, shift);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(to + i),
                        _mm256_xor_si256(_mm256_packus_epi16(low, high), flip_out));
  }
  for (; i < n; ++i) to[i] = line_byte(line, from[i]);
}
#endif

}  // namespace hardsigmoid_ops::cpu
