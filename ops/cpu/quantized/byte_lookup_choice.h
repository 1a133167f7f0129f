// The one place that chooses the 8-bit quantized table's byte lookup (byte_lookups.h's loops):
// which lookup a process takes, from which size a call takes the table at all, and, per call,
// whether AVX2's line replaces its shuffles.
#pragma once

#include <cstdint>

#include "ops/cpu/quantized/byte_lookups.h"

namespace hardsigmoid_ops::cpu {

// The lookup for `requested` (HARDSIGMOID_OPS_BYTE_LOOKUP's value: a byte_lookup_name), or, where
// it is null or empty, the fastest one this processor runs. Throws for an unknown name or a lookup
// this processor cannot run.
ByteLookup byte_lookup_for(const char* requested);

// The lookup a call takes: a ForcedByteLookup's in this thread, else the process's choice,
// byte_lookup_for(getenv("HARDSIGMOID_OPS_BYTE_LOOKUP")) decided once (asked at every call, so
// that a refused name fails each 8-bit call and leaves qint32 and empty tensors alone).
ByteLookup byte_lookup_for_this_call();

// For tests and studies: while it lives, this thread's calls of the cpu:: functions linked into
// the same binary take `lookup`, which must be runnable (a program linking the internal library
// beside the shared one holds two copies: calls through the dispatcher run the shared library's,
// which this does not reach). Not for production code: the op's own signature names no lookup.
class ForcedByteLookup {
 public:
  explicit ForcedByteLookup(ByteLookup lookup);
  ~ForcedByteLookup();
  ForcedByteLookup(const ForcedByteLookup&) = delete;
  ForcedByteLookup& operator=(const ForcedByteLookup&) = delete;

 private:
  const ByteLookup* previous_;
  ByteLookup lookup_;
};

// Elements from which building the tables and looking the bytes up with `lookup` is faster than
// aten's arithmetic (docs/performance.md, "Quantized tensors").
int64_t table_from_elements(ByteLookup lookup);

// A table made ready for a lookup, once per call, `contiguous_bytes` being the bytes the call looks
// up in contiguous rows: kAvx2Line holds the line that gives the table's bytes, or becomes
// kAvx2Shuffles (the same bytes) where none is found or contiguous_bytes is below
// kLineFromElements (strided rows take the byte loop): fitting a line costs microseconds, which
// the line's speed over the shuffles pays back from this size (docs/performance_history.md, "AVX2's
// line").
inline constexpr int64_t kLineFromElements = int64_t{1} << 17;
PreparedTable prepare_table(ByteLookup lookup, const uint8_t* table, int64_t contiguous_bytes);

}  // namespace hardsigmoid_ops::cpu
