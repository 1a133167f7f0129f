#include <torch/library.h>

#include "ops/cpu/hardsigmoid_cpu.h"
#include "registration/register_device_kernels.h"

namespace hardsigmoid_ops::registration {
namespace {
constexpr DeviceKernels kCpuKernels{&cpu::hardsigmoid_kernel, &cpu::hardsigmoid_backward_kernel};
}  // namespace

TORCH_LIBRARY_IMPL(hardsigmoid_ops, CPU, m) { register_device_kernels<kCpuKernels>(m); }

}  // namespace hardsigmoid_ops::registration
