#include <torch/library.h>

#include "ops/cuda/hardsigmoid_cuda.h"
#include "registration/register_device_kernels.h"

namespace hardsigmoid_ops::registration {
namespace {
constexpr DeviceKernels kCudaKernels{&cuda::hardsigmoid_kernel, &cuda::hardsigmoid_backward_kernel};
}  // namespace

TORCH_LIBRARY_IMPL(hardsigmoid_ops, CUDA, m) { register_device_kernels<kCudaKernels>(m); }

}  // namespace hardsigmoid_ops::registration
