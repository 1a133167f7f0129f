// The public C++ API: typed operator handles, looked up once, called through the dispatcher.
#include "ops/hardsigmoid.h"

#include <ATen/core/dispatch/Dispatcher.h>

namespace hardsigmoid_ops {
namespace {

template <typename Signature>
c10::TypedOperatorHandle<Signature> find_op(const char* name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, "").typed<Signature>();
}

}  // namespace

at::Tensor hardsigmoid(const at::Tensor& self) {
  static const auto op = find_op<at::Tensor(const at::Tensor&)>("hardsigmoid_ops::hardsigmoid");
  return op.call(self);
}

at::Tensor hardsigmoid_(const at::Tensor& self) {
  static const auto op = find_op<void(const at::Tensor&)>("hardsigmoid_ops::hardsigmoid_");
  op.call(self);
  return self;
}

at::Tensor hardsigmoid_out(const at::Tensor& self, const at::Tensor& out) {
  static const auto op =
      find_op<void(const at::Tensor&, const at::Tensor&)>("hardsigmoid_ops::hardsigmoid_out");
  op.call(self, out);
  return out;
}

at::Tensor hardsigmoid_backward(const at::Tensor& grad_output, const at::Tensor& self) {
  static const auto op = find_op<at::Tensor(const at::Tensor&, const at::Tensor&)>(
      "hardsigmoid_ops::hardsigmoid_backward");
  return op.call(grad_output, self);
}

}  // namespace hardsigmoid_ops
