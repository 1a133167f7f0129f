// The backward Nodes the Autograd kernels record, written as PyTorch's generated nodes are
// (torch/csrc/autograd/generated/Functions.h): the forward's `self` held in a SavedVariable, so
// that the version check, saved-tensor hooks, release after backward and compiled autograd all
// work as they do for aten's hardsigmoid.
#pragma once

#include <ATen/core/Tensor.h>

#include <memory>

#include "registration/torch_internals.h"

namespace hardsigmoid_ops::registration {

// Gradient of hardsigmoid(self), and of hardsigmoid_(self) with the self it overwrote:
// hardsigmoid_backward(grad, self). One input edge: self.
NodePtr make_hardsigmoid_node(const at::Tensor& self, const at::Tensor& saved_self);

// Gradient of hardsigmoid_backward(grad_output, self). It is linear in grad_output, with gradient
// hardsigmoid_backward(grad, self), and piecewise constant in self, with gradient zero (aten's own
// hardsigmoid_backward has no derivative). Two input edges: grad_output, self.
NodePtr make_hardsigmoid_backward_node(const at::Tensor& grad_output, const at::Tensor& self);

}  // namespace hardsigmoid_ops::registration
