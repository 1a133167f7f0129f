#include "ops/cpu/quantized/byte_lookups.h"

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

#include "ops/cpu/capability.h"

namespace hardsigmoid_ops::cpu {
namespace {

// The byte loop on contiguous bytes: lookup_strided's, strides of 1 (inlined here).
void lookup_bytes(const uint8_t* table, const uint8_t* from, uint8_t* to, int64_t n) {
  lookup_strided(table, from, 1, to, 1, n);
}

#if defined(__x86_64__)
// 64 bytes a step: two two-register permutes pick each byte's entry among the table's first and
// last 128 (by its low seven bits), its top bit chooses between them. Compiled for these
// instructions alone and called only where the processor has them.
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) void lookup_vbmi_permutes(
    const uint8_t* table, const uint8_t* from, uint8_t* to, int64_t n) {
  const __m512i first_quarter = _mm512_loadu_si512(table);
  const __m512i second_quarter = _mm512_loadu_si512(table + 64);
  const __m512i third_quarter = _mm512_loadu_si512(table + 128);
  const __m512i fourth_quarter = _mm512_loadu_si512(table + 192);
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512i bytes = _mm512_loadu_si512(from + i);
    const __m512i low = _mm512_permutex2var_epi8(first_quarter, bytes, second_quarter);
    const __m512i high = _mm512_permutex2var_epi8(third_quarter, bytes, fourth_quarter);
    _mm512_storeu_si512(to + i, _mm512_mask_blend_epi8(_mm512_movepi8_mask(bytes), low, high));
  }
  lookup_bytes(table, from + i, to + i, n - i);
}

// The entries of 32 bytes, from the table's 16 rows of 16 (row r: entries 16r to 16r + 15, in
// both 128-bit lanes, as vpshufb looks up within a lane). Each row is shuffled by the bytes' low
// four bits; vpshufb gives 0 where an index has its top bit set, so the even rows are shuffled
// with that bit set where a byte's bit 4 is, the odd rows where it is not, and each pair ORed
// keeps each byte's row of the two. A tree of byte blends then keeps the row chosen by bits 5, 6
// and 7: vpblendvb chooses by each byte's top bit, and shifted left by 2, 1 and 0 bits a byte
// brings its bit 5, 6 or 7 there (a 16-bit shift by fewer than 8 bits moves no bit of one byte
// into the top of the next). 16 shuffles, 8 ORs and 7 blends: faster than a tree of 15 blends, and
// than four index vectors (bits 4 and 5) with 12 ORs and 3 blends (docs/performance_history.md,
// "The byte lookups on every CPU").
__attribute__((target("avx2"), always_inline)) inline __m256i look_up_32(const __m256i* rows,
                                                                         __m256i bytes) {
  const __m256i low_four_bits = _mm256_set1_epi8(0x0F);
  const __m256i top_bit = _mm256_set1_epi8(static_cast<char>(0x80));
  const __m256i column = _mm256_and_si256(bytes, low_four_bits);
  const __m256i bit4_on_top = _mm256_and_si256(_mm256_slli_epi16(bytes, 3), top_bit);
  const __m256i even_rows = _mm256_or_si256(column, bit4_on_top);
  const __m256i odd_rows = _mm256_or_si256(column, _mm256_xor_si256(bit4_on_top, top_bit));
  const __m256i bit5 = _mm256_slli_epi16(bytes, 2);
  const __m256i bit6 = _mm256_slli_epi16(bytes, 1);
  __m256i by_bit4[8];
  for (int k = 0; k < 8; ++k) {
    by_bit4[k] = _mm256_or_si256(_mm256_shuffle_epi8(rows[2 * k], even_rows),
                                 _mm256_shuffle_epi8(rows[2 * k + 1], odd_rows));
  }
  __m256i by_bit5[4];
  for (int k = 0; k < 4; ++k) {
    by_bit5[k] = _mm256_blendv_epi8(by_bit4[2 * k], by_bit4[2 * k + 1], bit5);
  }
  const __m256i low_half = _mm256_blendv_epi8(by_bit5[0], by_bit5[1], bit6);
  const __m256i high_half = _mm256_blendv_epi8(by_bit5[2], by_bit5[3], bit6);
  return _mm256_blendv_epi8(low_half, high_half, bytes);
}

// 32 bytes a step (two independent lookups a step measured no faster).
__attribute__((target("avx2"))) void lookup_avx2_shuffles(const uint8_t* table, const uint8_t* from,
                                                          uint8_t* to, int64_t n) {
  __m256i rows[16];
  for (int r = 0; r < 16; ++r) {
    rows[r] = _mm256_broadcastsi128_si256(
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(table + 16 * r)));
  }
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(from + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(to + i), look_up_32(rows, bytes));
  }
  lookup_bytes(table, from + i, to + i, n - i);
}
#endif

#if defined(__aarch64__)
// 16 bytes a step: tbl looks each byte up in the table's first 64 entries (0 where the byte is 64
// or more), then tbx in each next 64 with the byte less 64, 128 and 192, keeping what it has where
// that index is out of range (so a byte is looked up in its own quarter only).
void lookup_neon_tables(const uint8_t* table, const uint8_t* from, uint8_t* to, int64_t n) {
  auto quarter = [table](int q) {
    const uint8_t* p = table + 64 * q;
    return uint8x16x4_t{{vld1q_u8(p), vld1q_u8(p + 16), vld1q_u8(p + 32), vld1q_u8(p + 48)}};
  };
  const uint8x16x4_t first = quarter(0), second = quarter(1), third = quarter(2),
                     fourth = quarter(3);
  const uint8x16_t sixty_four = vdupq_n_u8(64);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8x16_t index = vld1q_u8(from + i);
    uint8x16_t looked_up = vqtbl4q_u8(first, index);
    index = vsubq_u8(index, sixty_four);
    looked_up = vqtbx4q_u8(looked_up, second, index);
    index = vsubq_u8(index, sixty_four);
    looked_up = vqtbx4q_u8(looked_up, third, index);
    index = vsubq_u8(index, sixty_four);
    looked_up = vqtbx4q_u8(looked_up, fourth, index);
    vst1q_u8(to + i, looked_up);
  }
  lookup_bytes(table, from + i, to + i, n - i);
}
#endif

}  // namespace

std::string byte_lookup_name(ByteLookup lookup) {
  switch (lookup) {
    case ByteLookup::kVbmiPermutes:
      return "vbmi";
    case ByteLookup::kAvx2Line:
      return "avx2-line";
    case ByteLookup::kAvx2Shuffles:
      return "avx2";
    case ByteLookup::kNeonTables:
      return "neon";
    case ByteLookup::kBytes:
      return "bytes";
  }
  return "?";
}

std::optional<ByteLookup> byte_lookup_named(std::string_view name) {
  for (const ByteLookup lookup : kByteLookups) {
    if (byte_lookup_name(lookup) == name) return lookup;
  }
  return std::nullopt;
}

bool can_run(ByteLookup lookup) {
  switch (lookup) {
#if defined(__x86_64__)
    case ByteLookup::kVbmiPermutes:
      return processor_has(ByteInstructions::kAvx512Vbmi);
    case ByteLookup::kAvx2Line:
    case ByteLookup::kAvx2Shuffles:
      return processor_has(ByteInstructions::kAvx2);
#elif defined(__aarch64__)
    case ByteLookup::kNeonTables:
      return processor_has(ByteInstructions::kNeon);
#endif
    case ByteLookup::kBytes:
      return true;
    default:
      return false;
  }
}

void lookup_contiguous(const PreparedTable& prepared, const uint8_t* from, uint8_t* to, int64_t n) {
  const uint8_t* table = prepared.table;
  switch (prepared.lookup) {
#if defined(__x86_64__)
    case ByteLookup::kVbmiPermutes:
      return lookup_vbmi_permutes(table, from, to, n);
    case ByteLookup::kAvx2Line:
      return line_avx2(prepared.line, from, to, n);
    case ByteLookup::kAvx2Shuffles:
      return lookup_avx2_shuffles(table, from, to, n);
#elif defined(__aarch64__)
    case ByteLookup::kNeonTables:
      return lookup_neon_tables(table, from, to, n);
#endif
    default:
      return lookup_bytes(table, from, to, n);
  }
}

void lookup_strided(const uint8_t* table, const uint8_t* from, int64_t from_stride, uint8_t* to,
                    int64_t to_stride, int64_t n) {
  for (int64_t i = 0; i < n; ++i) to[i * to_stride] = table[from[i * from_stride]];
}

}  // namespace hardsigmoid_ops::cpu
