// The loops that apply a 256-entry byte table to a contiguous run of bytes, to[i] = table[from[i]],
// one per instruction set that has a byte lookup: AVX-512 VBMI's two-register byte permutes, AVX2's
// 16-byte shuffles, NEON's 64-byte table lookups, and the plain loop a byte at a time that every
// processor runs; and with AVX2 the table computed as a line where one gives it (byte_line.h).
// Each gives the same bytes; which one runs is byte_lookup_choice.h's choice.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ops/cpu/quantized/byte_line.h"

namespace hardsigmoid_ops::cpu {

enum class ByteLookup { kVbmiPermutes, kAvx2Line, kAvx2Shuffles, kNeonTables, kBytes };

// Every lookup, fastest first (as measured: docs/performance.md, quantized tensors).
inline constexpr ByteLookup kByteLookups[] = {ByteLookup::kVbmiPermutes, ByteLookup::kAvx2Line,
                                              ByteLookup::kAvx2Shuffles, ByteLookup::kNeonTables,
                                              ByteLookup::kBytes};

// "vbmi", "avx2-line", "avx2", "neon", "bytes".
std::string byte_lookup_name(ByteLookup lookup);
std::optional<ByteLookup> byte_lookup_named(std::string_view name);

// Whether this build has the lookup's loop and this processor its instructions (capability.h's
// processor_has).
bool can_run(ByteLookup lookup);

// A table made ready for one call (byte_lookup_choice.h's prepare_table): kAvx2Line carries the
// line that gives the table's bytes.
struct PreparedTable {
  const uint8_t* table;
  ByteLookup lookup;
  ByteLine line;  // kAvx2Line's
};
// to[i] = table[from[i]] for i in [0, n). The lookup must be runnable; to may be from.
void lookup_contiguous(const PreparedTable& prepared, const uint8_t* from, uint8_t* to, int64_t n);

// The same for bytes `from_stride` and `to_stride` apart, a byte at a time whatever the processor.
void lookup_strided(const uint8_t* table, const uint8_t* from, int64_t from_stride, uint8_t* to,
                    int64_t to_stride, int64_t n);

}  // namespace hardsigmoid_ops::cpu
