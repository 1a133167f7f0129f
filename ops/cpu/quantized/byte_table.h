// A 256-entry table applied to every byte of a tensor: out[i] = table[self[i]], the 8-bit
// quantized op's fast path (hardsigmoid_quantized.cpp). Contiguous rows take one of
// byte_lookups.h's loops, strided rows a byte at a time; any split of the work gives the same
// bytes. Which loop is byte_lookup_choice.h's.
#pragma once

#include <ATen/core/Tensor.h>

#include <array>
#include <cstdint>

#include "ops/cpu/quantized/byte_lookups.h"

namespace hardsigmoid_ops::cpu {

// out and self: tensors of one 1-byte dtype and shape; out may be self. `lookup` must be
// runnable (can_run).
void apply_byte_table(const std::array<uint8_t, 256>& table, const at::Tensor& self,
                      const at::Tensor& out, ByteLookup lookup);

}  // namespace hardsigmoid_ops::cpu
