// Autograd, registered in C++ so that TorchScript and C++ callers get gradients too.
//
// hardsigmoid's gradient is hardsigmoid_backward(grad, self). hardsigmoid_backward is itself
// differentiable, so double backward works: it is linear in grad_output (its gradient there is
// hardsigmoid_backward(grad, self)) and piecewise constant in self (gradient zero). aten's own
// hardsigmoid_backward has no derivative in torch 2.11. The in-place and out ops refuse to be
// recorded and otherwise bump the version counter of what they wrote, as aten's in-place ops do.
#include <ATen/core/LegacyTypeDispatch.h>
#include <ATen/ops/zeros_like.h>
#include <torch/csrc/autograd/custom_function.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/library.h>

#include "ops/hardsigmoid.h"
#include "ops/hardsigmoid_checks.h"

namespace hardsigmoid_ops::registration {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

class HardsigmoidFunction : public torch::autograd::Function<HardsigmoidFunction> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& self) {
    ctx->save_for_backward({self});
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    return hardsigmoid_ops::hardsigmoid(self);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const at::Tensor self = ctx->get_saved_variables()[0];
    return {hardsigmoid_ops::hardsigmoid_backward(grad_outputs[0], self)};
  }
};

class HardsigmoidBackwardFunction : public torch::autograd::Function<HardsigmoidBackwardFunction> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& grad_output,
                            const at::Tensor& self) {
    ctx->save_for_backward({self});
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    return hardsigmoid_ops::hardsigmoid_backward(grad_output, self);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const at::Tensor self = ctx->get_saved_variables()[0];
    return {hardsigmoid_ops::hardsigmoid_backward(grad_outputs[0], self), at::zeros_like(self)};
  }
};

at::Tensor hardsigmoid_autograd(const at::Tensor& self) {
  // Checked here too, so that a sparse or nested input is named before the dispatcher finds no
  // kernel for its backend.
  checks::check_input("hardsigmoid", "self", self);
  // Not recorded: run without building a graph node, most of the cost of a small call.
  if (!checks::autograd_records({self})) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    return hardsigmoid_ops::hardsigmoid(self);
  }
  return HardsigmoidFunction::apply(self);
}

void hardsigmoid_inplace_autograd(const at::Tensor& self) {
  checks::check_input("hardsigmoid_", "self", self);
  checks::check_not_recorded_by_autograd("hardsigmoid_", {self});
  {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    hardsigmoid_ops::hardsigmoid_(self);
  }
  torch::autograd::impl::bump_version(self);
}

void hardsigmoid_out_autograd(const at::Tensor& self, const at::Tensor& out) {
  checks::check_input("hardsigmoid_out", "self", self);
  checks::check_input("hardsigmoid_out", "out", out);
  checks::check_not_recorded_by_autograd("hardsigmoid_out", {self, out});
  {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    hardsigmoid_ops::hardsigmoid_out(self, out);
  }
  torch::autograd::impl::bump_version(out);
}

at::Tensor hardsigmoid_backward_autograd(const at::Tensor& grad_output, const at::Tensor& self) {
  checks::check_input("hardsigmoid_backward", "grad_output", grad_output);
  checks::check_input("hardsigmoid_backward", "self", self);
  if (!checks::autograd_records({grad_output, self})) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    return hardsigmoid_ops::hardsigmoid_backward(grad_output, self);
  }
  return HardsigmoidBackwardFunction::apply(grad_output, self);
}

}  // namespace

TORCH_LIBRARY_IMPL(hardsigmoid_ops, Autograd, m) {
  m.impl("hardsigmoid", &hardsigmoid_autograd);
  m.impl("hardsigmoid_", &hardsigmoid_inplace_autograd);
  m.impl("hardsigmoid_out", &hardsigmoid_out_autograd);
  m.impl("hardsigmoid_backward", &hardsigmoid_backward_autograd);
}

}  // namespace hardsigmoid_ops::registration
