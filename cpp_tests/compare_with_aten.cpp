#include "compare_with_aten.h"

#include "ops/hardsigmoid.h"

namespace hardsigmoid_test {
namespace {

bool all_dense(std::initializer_list<at::Tensor> tensors) {
  for (const at::Tensor& t : tensors) {
    if (!t.is_non_overlapping_and_dense()) return false;
  }
  return true;
}

// A read-only input still holds exactly what it held before.
void expect_unchanged(const char* what, const Placed& input, const Placed& before) {
  EXPECT_TRUE(same_bits(input.buffer, before.buffer)) << what << " was modified";
}

void expect_functional(const Placed& self) {
  const Placed before = clone(self);
  const at::Tensor ours = hardsigmoid_ops::hardsigmoid(self.view);
  const at::Tensor expected = at::hardsigmoid(self.view);
  EXPECT_TRUE(same_bits(ours, expected, self.view));
  EXPECT_EQ(ours.device(), expected.device());
  // The contract: strides preserved for dense inputs, as aten's.
  if (all_dense({self.view})) {
    EXPECT_EQ(strides_of(ours), strides_of(expected));
  }
  expect_unchanged("self", self, before);
}

void expect_in_place(const Placed& self) {
  const Placed ours = clone(self);
  Placed expected = clone(self);
  const at::Tensor returned = hardsigmoid_ops::hardsigmoid_(ours.view);
  at::hardsigmoid_(expected.view);
  EXPECT_TRUE(returned.is_same(ours.view)) << "hardsigmoid_ must return its argument";
  // Whole buffers: the gaps of a step-2 slice and the element before an offset view must keep
  // their sentinel.
  EXPECT_TRUE(same_bits(ours.buffer, expected.buffer, self.buffer));
}

void expect_out(const Placed& self, const Placed& out) {
  const Placed before = clone(self);
  const Placed ours = clone(out);
  Placed expected = clone(out);
  const at::Tensor returned = hardsigmoid_ops::hardsigmoid_out(self.view, ours.view);
  at::hardsigmoid_out(expected.view, self.view);
  EXPECT_TRUE(returned.is_same(ours.view)) << "hardsigmoid_out must return out";
  EXPECT_EQ(strides_of(ours.view), strides_of(out.view)) << "out was restrided";
  EXPECT_TRUE(same_bits(ours.buffer, expected.buffer));
  expect_unchanged("self", self, before);
}

void expect_backward(const Placed& self, const Placed& grad_output) {
  const Placed self_before = clone(self);
  const Placed grad_before = clone(grad_output);
  const at::Tensor ours = hardsigmoid_ops::hardsigmoid_backward(grad_output.view, self.view);
  const at::Tensor expected = at::hardsigmoid_backward(grad_output.view, self.view);
  EXPECT_TRUE(same_bits(ours, expected, self.view));
  EXPECT_EQ(ours.device(), expected.device());
  if (all_dense({self.view, grad_output.view})) {
    EXPECT_EQ(strides_of(ours), strides_of(expected));
  }
  expect_unchanged("self", self, self_before);
  expect_unchanged("grad_output", grad_output, grad_before);
}

}  // namespace

std::string op_label(Op op) {
  switch (op) {
    case Op::Functional:
      return "Functional";
    case Op::InPlace:
      return "InPlace";
    case Op::Out:
      return "Out";
    case Op::Backward:
      return "Backward";
  }
  return "?";
}

void PrintTo(Op op, std::ostream* os) { *os << op_label(op); }

void expect_matches_aten(Op op, const Placed& self, const Placed& other) {
  switch (op) {
    case Op::Functional:
      return expect_functional(self);
    case Op::InPlace:
      return expect_in_place(self);
    case Op::Out:
      return expect_out(self, other);
    case Op::Backward:
      return expect_backward(self, other);
  }
}

}  // namespace hardsigmoid_test
