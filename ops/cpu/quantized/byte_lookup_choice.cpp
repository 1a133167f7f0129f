#include "ops/cpu/quantized/byte_lookup_choice.h"

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

thread_local const ByteLookup* forced_lookup = nullptr;

}  // namespace

ByteLookup byte_lookup_for(const char* requested) {
  const Choice choice = choose(requested);
  TORCH_CHECK(choice.lookup, choice.error);
  return *choice.lookup;
}

ByteLookup byte_lookup_for_this_call() {
  if (forced_lookup != nullptr) return *forced_lookup;
  static const Choice choice = choose(std::getenv("HARDSIGMOID_OPS_BYTE_LOOKUP"));
  TORCH_CHECK(choice.lookup, choice.error);
  return *choice.lookup;
}

ForcedByteLookup::ForcedByteLookup(ByteLookup lookup) : previous_(forced_lookup), lookup_(lookup) {
  TORCH_CHECK(can_run(lookup), "ForcedByteLookup: ", byte_lookup_name(lookup),
              " cannot run on this processor");
  forced_lookup = &lookup_;
}

ForcedByteLookup::~ForcedByteLookup() { forced_lookup = previous_; }

// Measured by benchmarks/studies/byte_table_threshold.cpp (docs/performance_history.md,
// "The byte lookups on every CPU"): the table wins from the size where the lookup's speed over the
// arithmetic's has paid for building the two tables. Each lookup is measured against the arithmetic
// it replaces where it is chosen: the vector lookups against aten's vector arithmetic (AVX2), the
// byte loop against DEFAULT's (a processor without AVX2). NEON's is not measured (no ARM machine):
// AVX2's, as both stand beside vector arithmetic.
int64_t table_from_elements(ByteLookup lookup) {
  switch (lookup) {
    case ByteLookup::kVbmiPermutes:
      return int64_t{1} << 13;
    case ByteLookup::kAvx2Line:  // its shuffles there (kLineFromElements)
    case ByteLookup::kAvx2Shuffles:
    case ByteLookup::kNeonTables:
      return int64_t{1} << 14;
    case ByteLookup::kBytes:
      return int64_t{1} << 10;
  }
  return int64_t{1} << 14;
}

PreparedTable prepare_table(ByteLookup lookup, const uint8_t* table, int64_t contiguous_bytes) {
  PreparedTable prepared{table, lookup, ByteLine{}};
  if (lookup == ByteLookup::kAvx2Line) {
    std::optional<ByteLine> line;
    if (contiguous_bytes >= kLineFromElements) line = fit_byte_line(table);
    if (line) {
      prepared.line = *line;
    } else {
      prepared.lookup = ByteLookup::kAvx2Shuffles;
    }
  }
  return prepared;
}

}  // namespace hardsigmoid_ops::cpu
