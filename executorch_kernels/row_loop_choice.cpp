#include "executorch_kernels/row_loop_choice.h"

#include <cstdlib>

#include "ops/cpu/capability.h"

namespace hardsigmoid_ops::executorch_kernels {

const cpu::RowLoopTable& chosen_row_loops() {
  static const cpu::RowLoopTable& chosen =
      cpu::row_loops_from(cpu::capability_without_aten(std::getenv("ATEN_CPU_CAPABILITY")));
  return chosen;
}

}  // namespace hardsigmoid_ops::executorch_kernels
