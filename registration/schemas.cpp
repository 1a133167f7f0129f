// The schemas, defined once. Why the mutating ops return nothing: torch.compile and torch.export
// (torch 2.11) refuse a custom op whose output aliases an input, while `-> ()` is functionalized.
#include <torch/library.h>

TORCH_LIBRARY(hardsigmoid_ops, m) {
  m.def("hardsigmoid(Tensor self) -> Tensor", {at::Tag::pt2_compliant_tag, at::Tag::pointwise});
  m.def("hardsigmoid_(Tensor(a!) self) -> ()", {at::Tag::pt2_compliant_tag});
  m.def("hardsigmoid_out(Tensor self, Tensor(a!) out) -> ()", {at::Tag::pt2_compliant_tag});
  m.def("hardsigmoid_backward(Tensor grad_output, Tensor self) -> Tensor",
        {at::Tag::pt2_compliant_tag});
}
