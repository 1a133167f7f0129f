// ExecuTorch's tensors are dense, laid out by their dim order: two of the same sizes and dim order
// have the same strides, so the op is one flat span, run on this thread by the vector row loop
// (aten's loop for a contiguous span: its bits, NaN included, where aten runs the span on one
// thread; ExecuTorch's kernels take no threads of their own here).
#include "executorch_kernels/hardsigmoid_out.h"

#include <cstdint>

#include "executorch_kernels/row_loop_choice.h"

namespace hardsigmoid_ops::executorch_kernels {
namespace {

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::Error;
using executorch::runtime::toString;

template <typename scalar_t>
void forward(const Tensor& self, Tensor& out) {
  chosen_row_loops().get<scalar_t>().forward(self.const_data_ptr<scalar_t>(), 1,
                                             out.mutable_data_ptr<scalar_t>(), 1, self.numel());
}

// out is self, or shares no byte with it.
bool whole_or_no_overlap(const Tensor& self, const Tensor& out) {
  const auto* a = static_cast<const char*>(self.const_data_ptr());
  const auto* b = static_cast<const char*>(out.const_data_ptr());
  if (a == b) return self.nbytes() == out.nbytes();
  return a + self.nbytes() <= b || b + out.nbytes() <= a;
}

}  // namespace

Tensor& hardsigmoid_out(executorch::runtime::KernelRuntimeContext& context, const Tensor& self,
                        Tensor& out) {
  const ScalarType dtype = self.scalar_type();
  ET_KERNEL_CHECK_MSG(context,
                      dtype == ScalarType::Float || dtype == ScalarType::Double ||
                          dtype == ScalarType::Half || dtype == ScalarType::BFloat16,
                      InvalidArgument, out,
                      "hardsigmoid_ops::hardsigmoid.out: not implemented for '%s' (float32, "
                      "float64, float16 and bfloat16 are)",
                      toString(dtype));
  ET_KERNEL_CHECK_MSG(context, out.scalar_type() == dtype, InvalidArgument, out,
                      "hardsigmoid_ops::hardsigmoid.out: out has dtype %s but self has %s",
                      toString(out.scalar_type()), toString(dtype));
  ET_KERNEL_CHECK_MSG(context, executorch::runtime::resize_tensor(out, self.sizes()) == Error::Ok,
                      InvalidArgument, out,
                      "hardsigmoid_ops::hardsigmoid.out: out cannot take self's shape");
  ET_KERNEL_CHECK_MSG(context, executorch::runtime::tensors_have_same_dim_order(self, out),
                      InvalidArgument, out,
                      "hardsigmoid_ops::hardsigmoid.out: out's dim order differs from self's");
  ET_KERNEL_CHECK_MSG(context, whole_or_no_overlap(self, out), InvalidArgument, out,
                      "hardsigmoid_ops::hardsigmoid.out: out partially overlaps self");
  if (self.numel() == 0) return out;
  switch (dtype) {
    case ScalarType::Float:
      forward<float>(self, out);
      break;
    case ScalarType::Double:
      forward<double>(self, out);
      break;
    case ScalarType::Half:
      forward<c10::Half>(self, out);
      break;
    default:
      forward<c10::BFloat16>(self, out);
      break;
  }
  return out;
}

}  // namespace hardsigmoid_ops::executorch_kernels
