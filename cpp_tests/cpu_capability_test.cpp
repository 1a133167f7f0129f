// The CPU row loops exist once per instruction set (DEFAULT, AVX2, AVX512 on x86-64; DEFAULT and
// SVE256 on aarch64) and follow aten's
// choice, which ATEN_CPU_CAPABILITY overrides: CTest reruns the CPU cases under each capability
// (CMakeLists.txt). This case makes sure such a rerun really runs the loops it names.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>

#include "ops/cpu/row_loops.h"

namespace hardsigmoid_test {
namespace {

namespace cpu = hardsigmoid_ops::cpu;

TEST(CpuCapability, LoopsFollowAten) {
  const std::string aten = at::get_cpu_capability();
  if (const char* requested = std::getenv("ATEN_CPU_CAPABILITY")) {
    std::string upper = requested;
    std::transform(upper.begin(), upper.end(), upper.begin(),
                   [](unsigned char c) { return std::toupper(c); });
    ASSERT_EQ(aten, upper) << "aten ignored ATEN_CPU_CAPABILITY=" << requested;
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
  EXPECT_EQ(cpu::capability_name(cpu::selected_capability()), aten);
}

}  // namespace
}  // namespace hardsigmoid_test
