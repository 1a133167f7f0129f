#include "ops/cpu/byte_table.h"

#include <ATen/Parallel.h>
#include <ATen/native/TensorIterator.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace hardsigmoid_ops::cpu {
namespace {

void lookup_bytes(const uint8_t* table, const uint8_t* from, int64_t from_stride, uint8_t* to,
                  int64_t to_stride, int64_t n) {
  for (int64_t i = 0; i < n; ++i) to[i * to_stride] = table[from[i * from_stride]];
}

#if defined(__x86_64__)
// 64 bytes a step: two two-register permutes pick each byte's entry among the table's first and
// last 128 (by its low seven bits), its top bit chooses between them. Compiled for these
// instructions alone and called only where the processor has them.
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) void lookup_contiguous_vbmi(
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
  lookup_bytes(table, from + i, 1, to + i, 1, n - i);
}
#endif

bool has_vbmi() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vbmi");
#else
  return false;
#endif
}

}  // namespace

bool byte_table_is_vectorized() {
  static const bool vectorized = has_vbmi();
  return vectorized;
}

void apply_byte_table(const std::array<uint8_t, 256>& table, const at::Tensor& self,
                      const at::Tensor& out) {
  TORCH_INTERNAL_ASSERT(self.element_size() == 1 && out.element_size() == 1,
                        "apply_byte_table: tensors of a 1-byte dtype only");
  const bool vectorized = byte_table_is_vectorized();
  at::TensorBase written = out;  // unary_op takes a mutable reference
  at::TensorIterator iter = at::TensorIterator::unary_op(written, self);
  iter.for_each(
      [&table, vectorized](char** data, const int64_t* strides, int64_t size0, int64_t size1) {
        for (int64_t r = 0; r < size1; ++r) {
          uint8_t* to = reinterpret_cast<uint8_t*>(data[0] + r * strides[2]);
          const uint8_t* from = reinterpret_cast<const uint8_t*>(data[1] + r * strides[3]);
#if defined(__x86_64__)
          if (vectorized && strides[0] == 1 && strides[1] == 1) {
            lookup_contiguous_vbmi(table.data(), from, to, size0);
            continue;
          }
#endif
          lookup_bytes(table.data(), from, strides[1], to, strides[0], size0);
        }
      },
      at::internal::GRAIN_SIZE);
}

}  // namespace hardsigmoid_ops::cpu
