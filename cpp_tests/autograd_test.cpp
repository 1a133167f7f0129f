// Autograd from C++: gradients of the functional op against aten's, double backward, the
// in-place op recorded on a non-leaf and on a view of one, forward-mode AD, and the version
// counter of the mutating ops.
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/forward_grad.h>
#include <torch/csrc/autograd/function.h>

#include <functional>
#include <string>
#include <tuple>

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

// The in-place op on a non-leaf, whole or through a view (CopySlices), then backward: values,
// gradients and version counters as aten's in-place op gives them.
TEST_P(AutogradPerDtype, InPlaceOnANonLeafMatchesAten) {
  HARDSIGMOID_SEED_THIS_TEST();
  const at::Tensor values = random_values(kShape, GetParam());
  const at::Tensor upstream = random_values(kShape, GetParam());
  for (const bool through_view : {false, true}) {
    SCOPED_TRACE(through_view ? "view" : "whole");
    const auto run = [&](const std::function<void(const at::Tensor&)>& inplace) {
      const at::Tensor leaf = leaf_requiring_grad(values);
      const at::Tensor y = leaf * 2;
      const at::Tensor target = through_view ? y.narrow(0, 5, 40).select(1, 3) : y;
      const int64_t version = y._version();
      inplace(target);
      const int64_t bump = y._version() - version;
      const std::string node = y.grad_fn()->name();
      y.backward(upstream);
      return std::make_tuple(y.detach(), leaf.grad(), bump, node);
    };
    const auto [ours, ours_grad, ours_bump, ours_node] =
        run([](const at::Tensor& t) { ops::hardsigmoid_(t); });
    const auto [theirs, theirs_grad, theirs_bump, theirs_node] =
        run([](at::Tensor t) { at::hardsigmoid_(t); });
    EXPECT_TRUE(same_bits(ours, theirs, values));
    EXPECT_TRUE(same_bits(ours_grad, theirs_grad, values));
    EXPECT_EQ(ours_bump, theirs_bump);
    EXPECT_EQ(ours_node, through_view ? "torch::autograd::CopySlices" : "HardsigmoidOpsBackward");
    if (through_view) {
      EXPECT_EQ(theirs_node, "torch::autograd::CopySlices");
    }
  }
}

// Forward-mode AD through the C++ API: dual tensors at a level of their own.
TEST_P(AutogradPerDtype, ForwardModeTangents) {
  HARDSIGMOID_SEED_THIS_TEST();
  const at::Tensor values = random_values(kShape, GetParam());
  const at::Tensor tangent = random_values(kShape, GetParam());
  const at::Tensor grad_output = random_values(kShape, GetParam());
  const uint64_t level = torch::autograd::ForwardADLevel::get_next_idx();
  const auto tangent_of = [&](const at::Tensor& t) {
    return std::get<1>(at::_unpack_dual(t, static_cast<int64_t>(level)));
  };
  const at::Tensor dual = at::_make_dual(values, tangent, static_cast<int64_t>(level));
  EXPECT_TRUE(
      same_bits(tangent_of(ops::hardsigmoid(dual)), tangent_of(at::hardsigmoid(dual)), values));
  // The in-place op updates the dual's own tangent, as aten's does.
  at::Tensor ours = at::_make_dual(values.clone(), tangent.clone(), static_cast<int64_t>(level));
  at::Tensor theirs = at::_make_dual(values.clone(), tangent.clone(), static_cast<int64_t>(level));
  ops::hardsigmoid_(ours);
  at::hardsigmoid_(theirs);
  EXPECT_TRUE(same_bits(tangent_of(ours), tangent_of(theirs), values));
  // hardsigmoid_backward is linear in grad_output: tangent hardsigmoid_backward(tangent, self).
  const at::Tensor g_dual = at::_make_dual(grad_output, tangent, static_cast<int64_t>(level));
  EXPECT_TRUE(same_bits(tangent_of(ops::hardsigmoid_backward(g_dual, values)),
                        at::hardsigmoid_backward(tangent, values), values));
  torch::autograd::ForwardADLevel::release_idx(level);
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
