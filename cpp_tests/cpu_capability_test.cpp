// The CPU loops exist once per capability (DEFAULT, AVX2, AVX512 on x86-64; DEFAULT and SVE256 on
// aarch64), registered in one table (ops/cpu/capability.h), and follow aten's choice, which
// ATEN_CPU_CAPABILITY overrides: CTest reruns the CPU cases under each capability
// (CMakeLists.txt). This case makes sure such a rerun really runs the loops it names.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <string>

#include "ops/cpu/capability_choice.h"

namespace hardsigmoid_test {
namespace {

namespace cpu = hardsigmoid_ops::cpu;

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

// The capability a run expects aten to run: ATEN_CPU_CAPABILITY where set, else
// HARDSIGMOID_OPS_EXPECTED_CPU_CAPABILITY (scripts/aarch64_check.sh: asked for sve256 by
// ATEN_CPU_CAPABILITY, aten 2.11 in a C++ program reports it unavailable without asking the kernel
// for the vector length, so that run lets aten choose from the emulated processor and names what
// it must choose).
TEST(CpuCapability, LoopsFollowAten) {
  const std::string aten = at::get_cpu_capability();
  if (const char* requested = std::getenv("ATEN_CPU_CAPABILITY")) {
    ASSERT_EQ(aten, upper(requested)) << "aten ignored ATEN_CPU_CAPABILITY=" << requested;
  }
  if (const char* expected = std::getenv("HARDSIGMOID_OPS_EXPECTED_CPU_CAPABILITY")) {
    ASSERT_EQ(aten, upper(expected)) << "aten chose another capability on this processor";
  }
  const auto runnable = cpu::runnable_capabilities();
  const bool have_it = std::any_of(runnable.begin(), runnable.end(), [&](cpu::Capability c) {
    return cpu::capability_name(c) == aten;
  });
  // Every capability aten selects on x86-64 and aarch64 is compiled in, and where aten runs it the
  // library's own test of the processor must agree: a false "cannot run" would silently run
  // the DEFAULT loops, whose bits differ from aten's wherever the vector widths split rows
  // differently.
  EXPECT_TRUE(have_it) << "aten runs " << aten << " here; the library's loops for it are "
                       << "missing or judged not runnable";
  const std::optional<cpu::Capability> named = cpu::capability_named(aten);
  ASSERT_TRUE(named) << "the capability table has no entry named " << aten;
  EXPECT_EQ(cpu::atens_capability(), *named);
  EXPECT_EQ(&cpu::selected_row_loops(), cpu::capability_entry(*named).row_loops);
  // aten has quantized kernels for DEFAULT, AVX2 and SVE256; under AVX512 its DispatchStub runs
  // the AVX2 ones.
  const cpu::Capability quantized =
      *named == cpu::Capability::kAvx512 ? cpu::Capability::kAvx2 : *named;
  EXPECT_EQ(&cpu::selected_quantized_loops(), cpu::capability_entry(quantized).quantized_loops);
}

}  // namespace
}  // namespace hardsigmoid_test
