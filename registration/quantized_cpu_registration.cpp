// QuantizedCPU: the forward ops on per-tensor quantized CPU tensors
// (ops/cpu/quantized/hardsigmoid_quantized.h). hardsigmoid_backward takes no quantized tensor
// (aten's has no QuantizedCPU kernel): its kernel here only refuses, by name, under inference
// mode, where the Autograd kernel that refuses it otherwise is skipped.
#include <torch/library.h>

#include "ops/cpu/quantized/hardsigmoid_quantized.h"

namespace hardsigmoid_ops::registration {

TORCH_LIBRARY_IMPL(hardsigmoid_ops, QuantizedCPU, m) {
  m.impl("hardsigmoid", &cpu::hardsigmoid_quantized);
  m.impl("hardsigmoid_", &cpu::hardsigmoid_quantized_);
  m.impl("hardsigmoid_out", &cpu::hardsigmoid_quantized_out);
  m.impl("hardsigmoid_backward", &cpu::hardsigmoid_quantized_backward);
}

}  // namespace hardsigmoid_ops::registration
