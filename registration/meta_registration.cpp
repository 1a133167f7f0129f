// Meta: the checks and output allocation of every other device, computing nothing, so that fake
// tensors (torch.compile, torch.export) see the same shapes, strides and errors. Outputs come from
// the same empty_output as every device's (at::empty_symint, or at::empty_like where sizes and
// strides are symbolic), which keeps symbolic sizes symbolic: dynamic shapes do not recompile.
#include <torch/library.h>

#include "registration/register_device_kernels.h"

namespace hardsigmoid_ops::registration {
namespace {

void compute_nothing(const at::Tensor&, const at::Tensor&) {}
void compute_nothing(const at::Tensor&, const at::Tensor&, const at::Tensor&) {}

constexpr DeviceKernels kMetaKernels{&compute_nothing, &compute_nothing};

}  // namespace

TORCH_LIBRARY_IMPL(hardsigmoid_ops, Meta, m) { register_device_kernels<kMetaKernels>(m); }

}  // namespace hardsigmoid_ops::registration
