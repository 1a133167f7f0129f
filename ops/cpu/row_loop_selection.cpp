// Which row loops run in a torch process: aten's CPU capability, within those compiled in and
// runnable here (row_loop_tables.cpp).
#include <ATen/Version.h>
#include <c10/util/Exception.h>

#include "ops/cpu/row_loops.h"

namespace hardsigmoid_ops::cpu {
namespace {

// aten's choice, by its name ("AVX512", "AVX2", "SVE256", "DEFAULT"), within what this library has.
Capability from_aten() {
  const std::string aten = at::get_cpu_capability();
  for (Capability c : {Capability::kAvx512, Capability::kAvx2, Capability::kSve256}) {
    if (aten == capability_name(c) && can_run(c)) return c;
  }
  return Capability::kDefault;
}

}  // namespace

Capability selected_capability() {
  static const Capability selected = from_aten();
  return selected;
}

const RowLoopTable& row_loops(Capability capability) {
  TORCH_CHECK(can_run(capability), "hardsigmoid_ops: the ", capability_name(capability),
              " row loops are not compiled in or cannot run on this processor");
  return runnable_row_loops(capability);
}

const RowLoopTable& selected_row_loops() {
  static const RowLoopTable& selected = row_loops(selected_capability());
  return selected;
}

}  // namespace hardsigmoid_ops::cpu
