// The one table of the CPU capabilities: aten's names for the instruction sets its per-ISA kernels
// are compiled for, whether this processor runs each, and the loops this build compiled for each.
//
// As aten's DispatchStub: every per-ISA translation unit (row_loops.cpp, quantized/
// quantized_loops.cpp, compiled once per CPU_CAPABILITY by cmake/row_loops.cmake) fills its own
// entry from a static initialiser; this file's rules choose among the entries. capability.cpp
// is the one place that asks the processor what it has (byte lookups' instructions included), in
// one vocabulary: the compiler's __x86_64__ and __aarch64__.
//
// Adding a capability: an enumerator, its place in kCapabilities, its description in
// capability.cpp (name, the capability it falls back to) and the processor's test there, and its
// flags in cmake/row_loops.cmake (docs/architecture.md).
//
// Free of ATen and c10's library: the ExecuTorch kernel library links it with no libtorch.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hardsigmoid_ops::cpu {

enum class Capability { kDefault, kAvx2, kAvx512, kSve256 };

// Every capability, DEFAULT first, the wider after the narrower.
inline constexpr Capability kCapabilities[] = {Capability::kDefault, Capability::kAvx2,
                                               Capability::kAvx512, Capability::kSve256};

struct RowLoopTable;    // row_loops.h
struct QuantizedLoops;  // quantized/quantized_loops.h

struct CapabilityEntry {
  const char* name;  // aten's: "DEFAULT", "AVX2", "AVX512", "SVE256"
  // The capability whose kernel aten's DispatchStub runs where this one's slot is empty (AVX512's
  // quantized kernels: AVX2's); DEFAULT falls back to itself.
  Capability falls_back_to;
  bool processor_runs;
  // The loops compiled for it; null where this build has none (another architecture; the
  // quantized loops where aten has no quantized kernel for it, or in the ExecuTorch library).
  const RowLoopTable* row_loops;
  const QuantizedLoops* quantized_loops;
};

const CapabilityEntry& capability_entry(Capability capability);
std::string capability_name(Capability capability);
// By aten's name ("AVX2", as at::get_cpu_capability() gives it).
std::optional<Capability> capability_named(std::string_view name);

// Its row loops are compiled in and this processor runs it.
bool can_run(Capability capability);
// The capabilities that can run, DEFAULT first.
std::vector<Capability> runnable_capabilities();

// The rule of aten's DispatchStub over one kind of loops: the entry of `wanted` if it has them
// and can run, else of the capability it falls back to, down to DEFAULT's.
const RowLoopTable& row_loops_from(Capability wanted);
const QuantizedLoops& quantized_loops_from(Capability wanted);

// aten's choice made without libtorch (the ExecuTorch kernels): ATEN_CPU_CAPABILITY's value
// (`requested`, in lower case as aten reads it: "avx2") where it names a capability that can run,
// else the widest that can.
Capability capability_without_aten(const char* requested);

// What the byte lookups (quantized/byte_lookups.h) need beyond a capability.
enum class ByteInstructions { kAvx512Vbmi, kAvx2, kNeon };
bool processor_has(ByteInstructions instructions);

// The per-ISA translation units' registrations, one static object each, under the name their
// CPU_CAPABILITY spells (C10_STRINGIZE(CPU_CAPABILITY)); a name outside the table aborts the load.
struct RegisterRowLoops {
  RegisterRowLoops(std::string_view cpu_capability, const RowLoopTable& loops);
};
struct RegisterQuantizedLoops {
  RegisterQuantizedLoops(std::string_view cpu_capability, const QuantizedLoops& loops);
};

}  // namespace hardsigmoid_ops::cpu
