// QuantizedCPU: the forward ops on per-tensor quantized CPU tensors
// (ops/cpu/hardsigmoid_quantized.h). hardsigmoid_backward takes no quantized tensor (aten's has no
// QuantizedCPU kernel): its kernel here only refuses, by name, under inference mode, where the
// Autograd kernel that refuses it otherwise is skipped. The forward ops take the process's byte
// lookup (the kernels' last argument, which the schemas do not have).
#include <torch/library.h>

#include "ops/cpu/hardsigmoid_quantized.h"

namespace hardsigmoid_ops::registration {

TORCH_LIBRARY_IMPL(hardsigmoid_ops, QuantizedCPU, m) {
  m.impl("hardsigmoid", [](const at::Tensor& self) { return cpu::hardsigmoid_quantized(self); });
  m.impl("hardsigmoid_", [](const at::Tensor& self) { cpu::hardsigmoid_quantized_(self); });
  m.impl("hardsigmoid_out", [](const at::Tensor& self, const at::Tensor& out) {
    cpu::hardsigmoid_quantized_out(self, out);
  });
  m.impl("hardsigmoid_backward", &cpu::hardsigmoid_quantized_backward);
}

}  // namespace hardsigmoid_ops::registration
