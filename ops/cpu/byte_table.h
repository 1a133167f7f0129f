// A 256-entry table applied to every byte of a tensor: out[i] = table[self[i]], the 8-bit
// quantized op's fast path (hardsigmoid_quantized.cpp). Contiguous rows take one of
// byte_lookups.h's loops, strided rows a byte at a time; any split of the work gives the same
// bytes. This file is the one place that chooses the loop.
#pragma once

#include <ATen/core/Tensor.h>

#include <array>
#include <cstdint>

#include "ops/cpu/byte_lookups.h"

namespace hardsigmoid_ops::cpu {

// The lookup for `requested` (HARDSIGMOID_OPS_BYTE_LOOKUP's value: a byte_lookup_name), or, where
// it is null or empty, the fastest one this processor runs. Throws for an unknown name or a lookup
// this processor cannot run.
ByteLookup byte_lookup_for(const char* requested);

// byte_lookup_for(getenv("HARDSIGMOID_OPS_BYTE_LOOKUP")), decided once per process.
ByteLookup chosen_byte_lookup();

// Elements from which building the tables and looking the bytes up with `lookup` is faster than
// aten's arithmetic (measured: docs/performance.md, quantized tensors).
int64_t table_from_elements(ByteLookup lookup);

// out and self: tensors of one 1-byte dtype and shape; out may be self. `lookup` must be
// runnable (can_run).
void apply_byte_table(const std::array<uint8_t, 256>& table, const at::Tensor& self,
                      const at::Tensor& out, ByteLookup lookup);

}  // namespace hardsigmoid_ops::cpu
