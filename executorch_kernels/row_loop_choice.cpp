#include "executorch_kernels/row_loop_choice.h"

#include <cstdlib>
#include <cstring>

namespace hardsigmoid_ops::executorch_kernels {
namespace {

using cpu::Capability;

Capability choose() {
  const char* requested = std::getenv("ATEN_CPU_CAPABILITY");
  const Capability widest_first[] = {Capability::kAvx512, Capability::kAvx2, Capability::kSve256,
                                     Capability::kDefault};
  for (Capability c : widest_first) {
    if (requested != nullptr && strcasecmp(requested, cpu::capability_name(c).c_str()) == 0 &&
        cpu::can_run(c)) {
      return c;
    }
  }
  for (Capability c : widest_first) {
    if (cpu::can_run(c)) return c;
  }
  return Capability::kDefault;
}

}  // namespace

const cpu::RowLoopTable& chosen_row_loops() {
  static const cpu::RowLoopTable& chosen = cpu::runnable_row_loops(choose());
  return chosen;
}

}  // namespace hardsigmoid_ops::executorch_kernels
