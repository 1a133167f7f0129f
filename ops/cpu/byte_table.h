// A 256-entry table applied to every byte of a tensor: out[i] = table[self[i]], the 8-bit
// quantized op's fast path (hardsigmoid_quantized.cpp). Where the processor has AVX-512 VBMI, a
// contiguous row takes 64 bytes per step with byte permutes; elsewhere, and in strided rows, one
// byte at a time. Any split of the work gives the same bytes.
#pragma once

#include <ATen/core/Tensor.h>

#include <array>
#include <cstdint>

namespace hardsigmoid_ops::cpu {

// Whether apply_byte_table's contiguous rows take the byte-permute loop on this processor.
bool byte_table_is_vectorized();

// out and self: tensors of one 1-byte dtype and shape; out may be self.
void apply_byte_table(const std::array<uint8_t, 256>& table, const at::Tensor& self,
                      const at::Tensor& out);

}  // namespace hardsigmoid_ops::cpu
