#include "ops/cpu/capability.h"

#include <array>
#include <cctype>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#if defined(__aarch64__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#endif

namespace hardsigmoid_ops::cpu {
namespace {

// __builtin_cpu_init() before each x86 test: a registration runs as a static initialiser, possibly
// before libgcc's own has filled what __builtin_cpu_supports reads.
bool processor_runs(Capability capability) {
  switch (capability) {
    case Capability::kDefault:
      return true;
#if defined(__x86_64__)
    // aten's tests (its cpuinfo): AVX2 with FMA and F16C; AVX-512 F, BW, VL and DQ.
    case Capability::kAvx2:
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
             __builtin_cpu_supports("f16c");
    case Capability::kAvx512:
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
#elif defined(__aarch64__)
    // aten's test: SVE and BF16, and vectors of 256 bits (the length this process runs with).
    case Capability::kSve256:
      return (getauxval(AT_HWCAP) & HWCAP_SVE) && (getauxval(AT_HWCAP2) & HWCAP2_BF16) &&
             (prctl(PR_SVE_GET_VL) & PR_SVE_VL_LEN_MASK) == 32;
#endif
    default:
      return false;
  }
}

// What the build knows of each capability, in kCapabilities' order (checked below).
struct Description {
  Capability capability;
  const char* name;
  Capability falls_back_to;
};
constexpr Description kDescriptions[] = {
    {Capability::kDefault, "DEFAULT", Capability::kDefault},
    {Capability::kAvx2, "AVX2", Capability::kDefault},
    {Capability::kAvx512, "AVX512", Capability::kAvx2},
    {Capability::kSve256, "SVE256", Capability::kDefault},
};
constexpr bool described_in_order() {
  if (std::size(kDescriptions) != std::size(kCapabilities)) return false;
  for (size_t i = 0; i < std::size(kCapabilities); ++i) {
    if (kDescriptions[i].capability != kCapabilities[i] ||
        static_cast<size_t>(kCapabilities[i]) != i) {
      return false;
    }
  }
  return true;
}
static_assert(described_in_order(),
              "kCapabilities and kDescriptions list every Capability once, in its order");

using Entries = std::array<CapabilityEntry, std::size(kCapabilities)>;

Entries& entries() {
  static Entries table = [] {
    Entries made{};
    for (size_t i = 0; i < made.size(); ++i) {
      const Description& d = kDescriptions[i];
      made[i] = {d.name, d.falls_back_to, processor_runs(d.capability), nullptr, nullptr};
    }
    return made;
  }();
  return table;
}

CapabilityEntry& entry_compiled_as(std::string_view cpu_capability) {
  const std::optional<Capability> capability = capability_named(cpu_capability);
  if (!capability) {
    std::fprintf(stderr,
                 "hardsigmoid_ops: loops compiled for CPU_CAPABILITY %.*s, which the "
                 "capability table does not hold (ops/cpu/capability.cpp)\n",
                 static_cast<int>(cpu_capability.size()), cpu_capability.data());
    std::abort();
  }
  return entries()[static_cast<size_t>(*capability)];
}

template <typename Loops>
const Loops& loops_from(Capability wanted, const Loops* CapabilityEntry::*loops) {
  for (Capability c = wanted;; c = capability_entry(c).falls_back_to) {
    const CapabilityEntry& entry = capability_entry(c);
    if (entry.processor_runs && entry.*loops != nullptr) return *(entry.*loops);
    if (c == Capability::kDefault) break;
  }
  // DEFAULT's loops are compiled into every build that has this kind of loops at all.
  std::fprintf(stderr, "hardsigmoid_ops: no DEFAULT loops registered (ops/cpu/capability.h)\n");
  std::abort();
}

}  // namespace

const CapabilityEntry& capability_entry(Capability capability) {
  return entries()[static_cast<size_t>(capability)];
}

std::string capability_name(Capability capability) { return capability_entry(capability).name; }

std::optional<Capability> capability_named(std::string_view name) {
  for (const Capability c : kCapabilities) {
    if (name == capability_entry(c).name) return c;
  }
  return std::nullopt;
}

bool can_run(Capability capability) {
  const CapabilityEntry& entry = capability_entry(capability);
  return entry.processor_runs && entry.row_loops != nullptr;
}

std::vector<Capability> runnable_capabilities() {
  std::vector<Capability> runnable;
  for (const Capability c : kCapabilities) {
    if (can_run(c)) runnable.push_back(c);
  }
  return runnable;
}

const RowLoopTable& row_loops_from(Capability wanted) {
  return loops_from(wanted, &CapabilityEntry::row_loops);
}

const QuantizedLoops& quantized_loops_from(Capability wanted) {
  return loops_from(wanted, &CapabilityEntry::quantized_loops);
}

Capability capability_without_aten(const char* requested) {
  // aten reads ATEN_CPU_CAPABILITY's value in lower case only ("avx2"; "AVX2" it ignores).
  for (const Capability c : kCapabilities) {
    std::string lower = capability_entry(c).name;
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (requested != nullptr && lower == requested && can_run(c)) return c;
  }
  Capability widest = Capability::kDefault;
  for (const Capability c : runnable_capabilities()) widest = c;
  return widest;
}

bool processor_has(ByteInstructions instructions) {
  switch (instructions) {
#if defined(__x86_64__)
    case ByteInstructions::kAvx512Vbmi:
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vbmi");
    case ByteInstructions::kAvx2:
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx2");
#elif defined(__aarch64__)
    case ByteInstructions::kNeon:
      return (getauxval(AT_HWCAP) & HWCAP_ASIMD) != 0;
#endif
    default:
      return false;
  }
}

RegisterRowLoops::RegisterRowLoops(std::string_view cpu_capability, const RowLoopTable& loops) {
  entry_compiled_as(cpu_capability).row_loops = &loops;
}

RegisterQuantizedLoops::RegisterQuantizedLoops(std::string_view cpu_capability,
                                               const QuantizedLoops& loops) {
  entry_compiled_as(cpu_capability).quantized_loops = &loops;
}

}  // namespace hardsigmoid_ops::cpu
