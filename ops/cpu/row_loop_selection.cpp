// Which row loops run: aten's CPU capability, within those compiled in and runnable here.
#include <ATen/Version.h>
#include <c10/util/Exception.h>

#include "ops/cpu/row_loops.h"

namespace hardsigmoid_ops::cpu {
namespace {

bool can_run(Capability capability) {
  switch (capability) {
    case Capability::kDefault:
      return true;
#if defined(HARDSIGMOID_OPS_X86_CAPABILITIES)
    case Capability::kAvx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
             __builtin_cpu_supports("f16c");
    case Capability::kAvx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
#endif
    default:
      return false;
  }
}

// aten's choice, by its name ("AVX512", "AVX2", "DEFAULT", ...), within what this library has.
Capability from_aten() {
  const std::string aten = at::get_cpu_capability();
  for (Capability c : {Capability::kAvx512, Capability::kAvx2}) {
    if (aten == capability_name(c) && can_run(c)) return c;
  }
  return Capability::kDefault;
}

}  // namespace

std::string capability_name(Capability capability) {
  switch (capability) {
    case Capability::kAvx2:
      return "AVX2";
    case Capability::kAvx512:
      return "AVX512";
    default:
      return "DEFAULT";
  }
}

Capability selected_capability() {
  static const Capability selected = from_aten();
  return selected;
}

std::vector<Capability> runnable_capabilities() {
  std::vector<Capability> runnable;
  for (Capability c : {Capability::kDefault, Capability::kAvx2, Capability::kAvx512}) {
    if (can_run(c)) runnable.push_back(c);
  }
  return runnable;
}

const RowLoopTable& row_loops(Capability capability) {
  TORCH_CHECK(can_run(capability), "hardsigmoid_ops: the ", capability_name(capability),
              " row loops are not compiled in or cannot run on this processor");
  switch (capability) {
#if defined(HARDSIGMOID_OPS_X86_CAPABILITIES)
    case Capability::kAvx2:
      return AVX2::row_loop_table();
    case Capability::kAvx512:
      return AVX512::row_loop_table();
#endif
    default:
      return DEFAULT::row_loop_table();
  }
}

const RowLoopTable& selected_row_loops() {
  static const RowLoopTable& selected = row_loops(selected_capability());
  return selected;
}

}  // namespace hardsigmoid_ops::cpu
