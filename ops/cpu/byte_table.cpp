#include "ops/cpu/byte_table.h"

#include <ATen/Parallel.h>
#include <ATen/native/TensorIterator.h>
#include <c10/util/Exception.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace hardsigmoid_ops::cpu {
namespace {

std::string runnable_names() {
  std::string names;
  for (const ByteLookup lookup : kByteLookups) {
    if (!can_run(lookup)) continue;
    names += (names.empty() ? "" : ", ") + byte_lookup_name(lookup);
  }
  return names;
}

// The choice, or the error that asking for an impossible one raises at every call.
struct Choice {
  std::optional<ByteLookup> lookup;
  std::string error;
};

Choice choose(const char* requested) {
  if (requested == nullptr || *requested == '\0') {
    for (const ByteLookup lookup : kByteLookups) {
      if (can_run(lookup)) return {lookup, ""};
    }
  }
  const std::optional<ByteLookup> named = byte_lookup_named(requested);
  if (named && can_run(*named)) return {named, ""};
  return {std::nullopt, std::string("HARDSIGMOID_OPS_BYTE_LOOKUP=") + requested + ": " +
                            (named ? "this processor cannot run it" : "no lookup of that name") +
                            "; this processor runs " + runnable_names()};
}

}  // namespace

ByteLookup byte_lookup_for(const char* requested) {
  const Choice choice = choose(requested);
  TORCH_CHECK(choice.lookup, choice.error);
  return *choice.lookup;
}

ByteLookup chosen_byte_lookup() {
  static const Choice choice = choose(std::getenv("HARDSIGMOID_OPS_BYTE_LOOKUP"));
  TORCH_CHECK(choice.lookup, choice.error);
  return *choice.lookup;
}

// Measured by benchmarks/studies/byte_table_threshold.cpp (docs/performance.md): building the two
// tables costs 2.5 - 3.5 microseconds, so the table wins from the size where the lookup's speed
// over the arithmetic's has paid for them. Each lookup is measured against the arithmetic it
// replaces where it is chosen: the vector lookups against aten's vector arithmetic (AVX2), the
// byte loop against DEFAULT's (a processor without AVX2), where it wins from 2^10 elements. NEON's
// is not measured (no ARM machine): AVX2's, as both stand beside vector arithmetic.
int64_t table_from_elements(ByteLookup lookup) {
  switch (lookup) {
    case ByteLookup::kVbmiPermutes:
      return int64_t{1} << 13;
    case ByteLookup::kAvx2Line:  // its shuffles there (byte_lookups.h's kLineFromElements)
    case ByteLookup::kAvx2Shuffles:
    case ByteLookup::kNeonTables:
      return int64_t{1} << 14;
    case ByteLookup::kBytes:
      return int64_t{1} << 10;
  }
  return int64_t{1} << 14;
}

void apply_byte_table(const std::array<uint8_t, 256>& table, const at::Tensor& self,
                      const at::Tensor& out, ByteLookup lookup) {
  TORCH_INTERNAL_ASSERT(self.element_size() == 1 && out.element_size() == 1,
                        "apply_byte_table: tensors of a 1-byte dtype only");
  TORCH_INTERNAL_ASSERT(can_run(lookup), "apply_byte_table: ", byte_lookup_name(lookup),
                        " cannot run on this processor");
  // Dense tensors of the same strides are iterated as contiguous rows (TensorIterator coalesces
  // them); others may be strided, where the line is not used.
  const bool dense = self.is_non_overlapping_and_dense() && out.strides() == self.strides();
  const PreparedTable prepared = prepare_table(lookup, table.data(), dense ? self.numel() : 0);
  at::TensorBase written = out;  // unary_op takes a mutable reference
  at::TensorIterator iter = at::TensorIterator::unary_op(written, self);
  iter.for_each(
      [&table, &prepared](char** data, const int64_t* strides, int64_t size0, int64_t size1) {
        for (int64_t r = 0; r < size1; ++r) {
          uint8_t* to = reinterpret_cast<uint8_t*>(data[0] + r * strides[2]);
          const uint8_t* from = reinterpret_cast<const uint8_t*>(data[1] + r * strides[3]);
          if (strides[0] == 1 && strides[1] == 1) {
            lookup_contiguous(prepared, from, to, size0);
          } else {
            lookup_strided(table.data(), from, strides[1], to, strides[0], size0);
          }
        }
      },
      at::internal::GRAIN_SIZE);
}

}  // namespace hardsigmoid_ops::cpu
