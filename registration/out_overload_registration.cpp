// hardsigmoid.out (schemas.cpp) is the out op under the schema ExecuTorch looks for: one kernel
// for every dispatch key, which calls hardsigmoid_out through the dispatcher (so its checks, its
// kernels on each device, autograd's refusal and the version counter are the out op's) and
// returns out.
#include <torch/library.h>

#include "ops/op_handles.h"

namespace hardsigmoid_ops::registration {

TORCH_LIBRARY_IMPL(hardsigmoid_ops, CompositeImplicitAutograd, m) {
  m.impl("hardsigmoid.out", [](const at::Tensor& self, at::Tensor& out) -> at::Tensor& {
    hardsigmoid_out_op().call(self, out);
    return out;
  });
}

}  // namespace hardsigmoid_ops::registration
