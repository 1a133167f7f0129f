// The schemas, defined once. Why the mutating ops return nothing: torch.compile and torch.export
// (torch 2.11) refuse a custom op whose output aliases an input, while `-> ()` is functionalized.
#include <torch/library.h>

TORCH_LIBRARY(hardsigmoid_ops, m) {
  m.def("hardsigmoid(Tensor self) -> Tensor", {at::Tag::pt2_compliant_tag, at::Tag::pointwise});
  m.def("hardsigmoid_(Tensor(a!) self) -> ()", {at::Tag::pt2_compliant_tag});
  m.def("hardsigmoid_out(Tensor self, Tensor(a!) out) -> ()", {at::Tag::pt2_compliant_tag});
  m.def("hardsigmoid_backward(Tensor grad_output, Tensor self) -> Tensor",
        {at::Tag::pt2_compliant_tag});
  // The functional op's out variant in the form that a runtime finding an op's out variant by
  // its schema looks for (ExecuTorch's to_executorch: kwarg-only `out`, returned): the out op
  // under another schema (out_overload_registration.cpp). Not for traced programs, whose
  // compilers refuse its aliasing result (above); ExecuTorch brings it in after tracing.
  m.def("hardsigmoid.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)");
}
