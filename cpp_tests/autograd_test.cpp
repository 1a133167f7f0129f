// Autograd from C++: gradients of the functional op against aten's, double backward, and the
// version counter of the mutating ops.
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/csrc/autograd/autograd.h>

#include <functional>

#include "ops/hardsigmoid.h"
#include "test_support.h"

namespace hardsigmoid_test {
namespace {

namespace ops = hardsigmoid_ops;

const std::vector<int64_t> kShape = {83, 7};

at::Tensor leaf_requiring_grad(const at::Tensor& values) {
  return values.clone().set_requires_grad(true);
}

class AutogradPerDtype : public testing::TestWithParam<at::ScalarType> {};

TEST_P(AutogradPerDtype, GradientMatchesAten) {
  HARDSIGMOID_SEED_THIS_TEST();
  const at::Tensor values = random_values(kShape, GetParam());
  const at::Tensor grad_output = random_values(kShape, GetParam());
  const at::Tensor ours_in = leaf_requiring_grad(values);
  const at::Tensor aten_in = leaf_requiring_grad(values);
  const at::Tensor ours = ops::hardsigmoid(ours_in);
  const at::Tensor expected = at::hardsigmoid(aten_in);
  ASSERT_TRUE(ours.requires_grad());
  EXPECT_TRUE(same_bits(ours, expected, values));
  const at::Tensor ours_grad = torch::autograd::grad({ours}, {ours_in}, {grad_output})[0];
  const at::Tensor aten_grad = torch::autograd::grad({expected}, {aten_in}, {grad_output})[0];
  EXPECT_TRUE(same_bits(ours_grad, aten_grad, values));
  // backward() accumulates into .grad the same way.
  ops::hardsigmoid(ours_in).backward(grad_output);
  EXPECT_TRUE(same_bits(ours_in.grad(), aten_grad, values));
}

// aten's own autograd has no derivative for hardsigmoid_backward (torch 2.11 raises "derivative
// for aten::hardsigmoid_backward is not implemented"), so the second-order reference is worked out
// with aten's kernels: hardsigmoid_backward(g, x) is linear in g, with derivative
// hardsigmoid_backward(gg, x), and piecewise constant in x, with derivative 0.
TEST_P(AutogradPerDtype, DoubleBackward) {
  HARDSIGMOID_SEED_THIS_TEST();
  const at::Tensor values = random_values(kShape, GetParam());
  const at::Tensor grad_values = random_values(kShape, GetParam());
  const at::Tensor grad_grad = random_values(kShape, GetParam());
  const at::Tensor x = leaf_requiring_grad(values);
  const at::Tensor g = leaf_requiring_grad(grad_values);
  const at::Tensor y = ops::hardsigmoid(x);
  const at::Tensor gx = torch::autograd::grad({y}, {x}, {g}, /*retain_graph=*/true,
                                              /*create_graph=*/true)[0];
  ASSERT_TRUE(gx.requires_grad());
  EXPECT_TRUE(same_bits(gx, at::hardsigmoid_backward(grad_values, values), values));
  const auto second = torch::autograd::grad({gx}, {x, g}, {grad_grad});
  EXPECT_TRUE(same_bits(second[0], at::zeros_like(values)));
  EXPECT_TRUE(same_bits(second[1], at::hardsigmoid_backward(grad_grad, values), values));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, AutogradPerDtype, testing::ValuesIn(supported_dtypes()),
                         [](const auto& info) { return dtype_label(info.param); });

// A mutating op bumps the version counter as much as aten's op does, so autograd notices when a
// tensor it saved is overwritten. Views share their base's counter.
TEST(Autograd, MutatingOpsBumpTheVersionCounter) {
  HARDSIGMOID_SEED_THIS_TEST();
  const auto bump = [](const at::Tensor& watched, const std::function<void()>& op) {
    const int64_t before = watched._version();
    op();
    return watched._version() - before;
  };
  const at::Tensor values = random_values({84}, at::kFloat);

  const at::Tensor ours = values.clone();
  at::Tensor theirs = values.clone();
  const int64_t expected = bump(theirs, [&] { at::hardsigmoid_(theirs); });
  ASSERT_GT(expected, 0);
  EXPECT_EQ(bump(ours, [&] { ops::hardsigmoid_(ours); }), expected);

  const at::Tensor base = values.clone();
  EXPECT_EQ(bump(base, [&] { ops::hardsigmoid_(base.narrow(0, 1, 83)); }), expected);

  const at::Tensor out = at::empty_like(values);
  at::Tensor aten_out = at::empty_like(values);
  const int64_t expected_out = bump(aten_out, [&] { at::hardsigmoid_out(aten_out, values); });
  EXPECT_EQ(bump(out, [&] { ops::hardsigmoid_out(values, out); }), expected_out);
}

TEST(Autograd, OverwritingASavedTensorIsCaught) {
  HARDSIGMOID_SEED_THIS_TEST();
  const at::Tensor weight = leaf_requiring_grad(random_values({16}, at::kFloat));
  const at::Tensor x = random_values({16}, at::kFloat);
  const at::Tensor y = weight * x;  // saves x for the gradient of weight
  ops::hardsigmoid_(x);
  EXPECT_TRUE(raised(thrown_by([&] { y.sum().backward(); }), Raises::Error,
                     {"modified by an inplace operation"}));
}

}  // namespace
}  // namespace hardsigmoid_test
