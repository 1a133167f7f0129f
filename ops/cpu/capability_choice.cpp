#include "ops/cpu/capability_choice.h"

#include <ATen/Version.h>

namespace hardsigmoid_ops::cpu {

Capability atens_capability() {
  static const Capability capability =
      capability_named(at::get_cpu_capability()).value_or(Capability::kDefault);
  return capability;
}

const RowLoopTable& selected_row_loops() {
  static const RowLoopTable& selected = row_loops_from(atens_capability());
  return selected;
}

const QuantizedLoops& selected_quantized_loops() {
  static const QuantizedLoops& selected = quantized_loops_from(atens_capability());
  return selected;
}

}  // namespace hardsigmoid_ops::cpu
