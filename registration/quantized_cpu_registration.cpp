// QuantizedCPU: the forward ops on per-tensor quantized CPU tensors
// (ops/cpu/hardsigmoid_quantized.h). hardsigmoid_backward has no kernel here, as aten's has none:
// the Autograd kernel refuses a quantized argument by name before the dispatcher would find none.
#include <torch/library.h>

#include "ops/cpu/hardsigmoid_quantized.h"

namespace hardsigmoid_ops::registration {

TORCH_LIBRARY_IMPL(hardsigmoid_ops, QuantizedCPU, m) {
  m.impl("hardsigmoid", &cpu::hardsigmoid_quantized);
  m.impl("hardsigmoid_", &cpu::hardsigmoid_quantized_);
  m.impl("hardsigmoid_out", &cpu::hardsigmoid_quantized_out);
  m.impl("hardsigmoid_backward", &cpu::hardsigmoid_quantized_backward);
}

}  // namespace hardsigmoid_ops::registration
