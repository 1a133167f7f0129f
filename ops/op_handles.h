// Typed handles of the four ops, looked up once: the public API calls them, and the kernels that
// pass a call on to the next dispatch key (Autograd, ADInplaceOrView) redispatch them.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>

namespace hardsigmoid_ops {

using UnaryOp = at::Tensor(const at::Tensor&);
using InplaceOp = void(const at::Tensor&);
using OutOp = void(const at::Tensor&, const at::Tensor&);
using BackwardOp = at::Tensor(const at::Tensor&, const at::Tensor&);

template <typename Signature>
c10::TypedOperatorHandle<Signature> find_op(const char* name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, "").typed<Signature>();
}

inline const c10::TypedOperatorHandle<UnaryOp>& hardsigmoid_op() {
  static const auto op = find_op<UnaryOp>("hardsigmoid_ops::hardsigmoid");
  return op;
}
inline const c10::TypedOperatorHandle<InplaceOp>& hardsigmoid_inplace_op() {
  static const auto op = find_op<InplaceOp>("hardsigmoid_ops::hardsigmoid_");
  return op;
}
inline const c10::TypedOperatorHandle<OutOp>& hardsigmoid_out_op() {
  static const auto op = find_op<OutOp>("hardsigmoid_ops::hardsigmoid_out");
  return op;
}
inline const c10::TypedOperatorHandle<BackwardOp>& hardsigmoid_backward_op() {
  static const auto op = find_op<BackwardOp>("hardsigmoid_ops::hardsigmoid_backward");
  return op;
}

}  // namespace hardsigmoid_ops
