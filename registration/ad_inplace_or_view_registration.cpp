// ADInplaceOrView: the mutating ops bump the version counter of the tensor they write, as aten's
// in-place and out= ops do, so that autograd refuses a backward that would read values
// overwritten since they were saved ("modified by an inplace operation"). Views share their
// base's counter. Registered below Autograd, so that a call under no_grad bumps it too.
#include <ATen/core/LegacyTypeDispatch.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/library.h>

#include "ops/op_handles.h"

namespace hardsigmoid_ops::registration {
namespace {

void hardsigmoid_inplace_or_view(c10::DispatchKeySet keys, const at::Tensor& self) {
  const auto& op = hardsigmoid_inplace_op();
  {
    at::AutoDispatchBelowADInplaceOrView below;
    op.redispatch(keys & c10::after_ADInplaceOrView_keyset, self);
  }
  torch::autograd::impl::bump_version(self);
}

void hardsigmoid_out_inplace_or_view(c10::DispatchKeySet keys, const at::Tensor& self,
                                     const at::Tensor& out) {
  const auto& op = hardsigmoid_out_op();
  {
    at::AutoDispatchBelowADInplaceOrView below;
    op.redispatch(keys & c10::after_ADInplaceOrView_keyset, self, out);
  }
  torch::autograd::impl::bump_version(out);
}

}  // namespace

TORCH_LIBRARY_IMPL(hardsigmoid_ops, ADInplaceOrView, m) {
  m.impl("hardsigmoid_", &hardsigmoid_inplace_or_view);
  m.impl("hardsigmoid_out", &hardsigmoid_out_inplace_or_view);
}

}  // namespace hardsigmoid_ops::registration
