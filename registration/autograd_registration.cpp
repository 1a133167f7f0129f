// Autograd, registered in C++ so that TorchScript models and C++ programs get every gradient
// Python gets. Written as PyTorch's generated VariableType kernels are, which every torch.func
// transform accepts: record a backward Node (autograd_nodes.h) when grad mode is on and an input
// requires grad, propagate forward-mode tangents, then redispatch below autograd.
//
//   hardsigmoid            Node saving self; tangent hardsigmoid_backward(tangent, self)
//   hardsigmoid_           aten's in-place rules: check_inplace (a leaf that requires grad is
//                          refused), self saved before it is overwritten, rebase_history (a view
//                          goes through CopySlices); the tangent updated in place
//   hardsigmoid_out        refused while an input requires grad, as aten's out= functions; out's
//                          tangent follows self's
//   hardsigmoid_backward   Node for double backward; tangent hardsigmoid_backward(tangent of
//                          grad_output, self), self's tangent contributing nothing
//
// The version counter of what the mutating ops write is bumped by their ADInplaceOrView kernels
// (ad_inplace_or_view_registration.cpp), below these.
#include <c10/core/GradMode.h>
#include <torch/library.h>

#include <optional>

#include "ops/hardsigmoid.h"
#include "ops/hardsigmoid_checks.h"
#include "ops/op_handles.h"
#include "registration/autograd_nodes.h"
#include "registration/torch_internals.h"

namespace hardsigmoid_ops::registration {
namespace {

// Forward-mode AD's level 0: the one torch.autograd.forward_ad and torch.func.jvp use.
constexpr uint64_t kForwardLevel = 0;

bool requires_grad(const at::Tensor& t) { return c10::GradMode::is_enabled() && t.requires_grad(); }

at::Tensor tangent_of(const at::Tensor& t) { return t._fw_grad(kForwardLevel); }

// The tangent every op here propagates: hardsigmoid_backward of the incoming tangent at self's
// primal (the derivative of hardsigmoid; hardsigmoid_backward is linear in grad_output).
at::Tensor propagated_tangent(const at::Tensor& tangent, const at::Tensor& self) {
  return hardsigmoid_ops::hardsigmoid_backward(tangent, self._fw_primal(kForwardLevel));
}

// A tangent for `result`, a new tensor or one written in place: set, or copied into the tangent
// it already has (aten's in-place rule; a view's tangent is a view of its base's).
void set_tangent(const at::Tensor& result, const at::Tensor& tangent) {
  const at::Tensor existing = tangent_of(result);
  if (existing.defined()) {
    existing.copy_(tangent);
  } else {
    result._set_fw_grad(tangent, kForwardLevel, /*is_inplace_op=*/true);
  }
}

// Inside torch.func.grad / vjp / jvp, a tensor the function captured from outside (not one of its
// inputs, nor made inside it) must not be written: its wrapper there shares no version counter
// with it, so a backward would silently read the new values. functorch refuses this itself for
// ops that return their mutated argument (checkForInvalidMutationOnCaptures); ours return
// nothing, so the same check is made here, with functorch's message.
void check_not_a_captured_tensor(const char* op, const at::Tensor& written) {
  const auto layer = at::functorch::maybeCurrentDynamicLayer();
  if (!layer.has_value()) return;
  const auto transform = layer->key();
  if (transform != at::functorch::TransformType::Grad &&
      transform != at::functorch::TransformType::Jvp) {
    return;
  }
  const auto* wrapper = at::functorch::maybeGetTensorWrapper(at::functorch::unwrapIfDead(written));
  const bool own =
      wrapper != nullptr && wrapper->level() == layer->layerId() && !wrapper->is_immutable();
  TORCH_CHECK(own,
              "During a grad (vjp, jvp, grad, etc) transform, the function provided "
              "attempted to call in-place operation (hardsigmoid_ops::",
              op,
              ") that would mutate a captured Tensor. A captured Tensor is one that is defined "
              "outside of the function being transformed and is not an input to the function. "
              "Please try to rewrite your function to not do an in-place operation on a captured "
              "tensor (clone it first, or use the functional hardsigmoid).");
}

at::Tensor hardsigmoid_autograd(c10::DispatchKeySet keys, const at::Tensor& self) {
  const auto& op = hardsigmoid_op();
  // Checked here too, so that a sparse or nested input is named before the dispatcher finds no
  // kernel for its backend. Quantized inputs go on to the QuantizedCPU kernels; the backward op
  // refuses them (check_input), as aten's has no quantized kernel.
  checks::check_forward_input("hardsigmoid", "self", self);
  NodePtr grad_fn;
  if (requires_grad(self)) grad_fn = make_hardsigmoid_node(self, self);
  at::Tensor result = [&] {
    at::AutoDispatchBelowADInplaceOrView below;
    return op.redispatch(keys & c10::after_autograd_keyset, self);
  }();
  if (grad_fn) torch::autograd::set_history(result, grad_fn);
  if (const at::Tensor tangent = tangent_of(self); tangent.defined()) {
    result._set_fw_grad(propagated_tangent(tangent, self), kForwardLevel,
                        /*is_inplace_op=*/false);
  }
  return result;
}

void hardsigmoid_inplace_autograd(c10::DispatchKeySet keys, const at::Tensor& self) {
  const auto& op = hardsigmoid_inplace_op();
  checks::check_forward_input("hardsigmoid_", "self", self);
  check_not_a_captured_tensor("hardsigmoid_", self);
  const bool record = requires_grad(self);
  const at::Tensor tangent = tangent_of(self);
  torch::autograd::check_inplace(self, record);
  // Both derivatives need the values about to be overwritten.
  std::optional<at::Tensor> original_self;
  if (record || tangent.defined()) {
    original_self = (tangent.defined() ? self._fw_primal(kForwardLevel) : self).clone();
  }
  NodePtr grad_fn;
  if (record) grad_fn = make_hardsigmoid_node(self, *original_self);
  {
    at::AutoDispatchBelowAutograd below;
    op.redispatch(keys & c10::after_autograd_keyset, self);
  }
  if (grad_fn) torch::autograd::rebase_history(self, grad_fn);
  if (tangent.defined()) {
    tangent.copy_(hardsigmoid_ops::hardsigmoid_backward(tangent, *original_self));
  }
}

void hardsigmoid_out_autograd(c10::DispatchKeySet keys, const at::Tensor& self,
                              const at::Tensor& out) {
  const auto& op = hardsigmoid_out_op();
  checks::check_forward_input("hardsigmoid_out", "self", self);
  checks::check_forward_input("hardsigmoid_out", "out", out);
  check_not_a_captured_tensor("hardsigmoid_out", out);
  if (requires_grad(self) || requires_grad(out)) {
    torch::autograd::throw_error_out_requires_grad("hardsigmoid_out");
  }
  const at::Tensor self_tangent = tangent_of(self);
  const bool out_has_tangent = tangent_of(out).defined();
  // out may be self: its values and tangent are read before either is written.
  at::Tensor out_tangent;
  if (self_tangent.defined()) out_tangent = propagated_tangent(self_tangent, self);
  {
    at::AutoDispatchBelowAutograd below;
    op.redispatch(keys & c10::after_autograd_keyset, self, out);
  }
  if (out_tangent.defined()) {
    set_tangent(out, out_tangent);
  } else if (out_has_tangent) {
    tangent_of(out).zero_();  // out's old values, and their tangent, are gone
  }
}

at::Tensor hardsigmoid_backward_autograd(c10::DispatchKeySet keys, const at::Tensor& grad_output,
                                         const at::Tensor& self) {
  const auto& op = hardsigmoid_backward_op();
  checks::check_input("hardsigmoid_backward", "grad_output", grad_output);
  checks::check_input("hardsigmoid_backward", "self", self);
  NodePtr grad_fn;
  if (requires_grad(grad_output) || requires_grad(self)) {
    grad_fn = make_hardsigmoid_backward_node(grad_output, self);
  }
  at::Tensor result = [&] {
    at::AutoDispatchBelowADInplaceOrView below;
    return op.redispatch(keys & c10::after_autograd_keyset, grad_output, self);
  }();
  if (grad_fn) torch::autograd::set_history(result, grad_fn);
  if (const at::Tensor tangent = tangent_of(grad_output); tangent.defined()) {
    result._set_fw_grad(propagated_tangent(tangent, self), kForwardLevel,
                        /*is_inplace_op=*/false);
  }
  return result;
}

}  // namespace

TORCH_LIBRARY_IMPL(hardsigmoid_ops, Autograd, m) {
  m.impl("hardsigmoid", &hardsigmoid_autograd);
  m.impl("hardsigmoid_", &hardsigmoid_inplace_autograd);
  m.impl("hardsigmoid_out", &hardsigmoid_out_autograd);
  m.impl("hardsigmoid_backward", &hardsigmoid_backward_autograd);
}

}  // namespace hardsigmoid_ops::registration
