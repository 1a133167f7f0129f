// The public C++ API: the ops called through the dispatcher.
#include "ops/hardsigmoid.h"

#include "ops/op_handles.h"

namespace hardsigmoid_ops {

at::Tensor hardsigmoid(const at::Tensor& self) { return hardsigmoid_op().call(self); }

at::Tensor hardsigmoid_(const at::Tensor& self) {
  hardsigmoid_inplace_op().call(self);
  return self;
}

at::Tensor hardsigmoid_out(const at::Tensor& self, const at::Tensor& out) {
  hardsigmoid_out_op().call(self, out);
  return out;
}

at::Tensor hardsigmoid_backward(const at::Tensor& grad_output, const at::Tensor& self) {
  return hardsigmoid_backward_op().call(grad_output, self);
}

}  // namespace hardsigmoid_ops
