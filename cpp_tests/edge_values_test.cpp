// Every edge value, every time: random inputs mix them in only by chance, so these cases feed
// the ops exactly the edge values of each dtype and compare with aten at zero tolerance.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "compare_with_aten.h"
#include "test_support.h"

namespace hardsigmoid_test {
namespace {

// A vector kernel handles lanes differently from its scalar tail; 64 lanes is wider than any
// vector of these dtypes.
constexpr int64_t kLanes = 64;

// Each edge value at every lane position (element b * kLanes + l holds edge (b + l) % E), then a
// tail of E - 1 elements that no full vector covers.
at::Tensor every_edge_at_every_lane(at::ScalarType dtype) {
  const at::Tensor edges = edge_values(dtype);
  const int64_t count = edges.numel();
  const at::Tensor blocks = at::arange(count).unsqueeze(1);
  const at::Tensor lanes = at::arange(kLanes).unsqueeze(0);
  const at::Tensor index =
      at::cat({((blocks + lanes) % count).reshape({-1}), at::arange(count - 1)});
  return edges.index_select(0, index);
}

// (self, grad_output) over every pair of edge values.
std::pair<at::Tensor, at::Tensor> every_edge_pair(at::ScalarType dtype) {
  const at::Tensor edges = edge_values(dtype);
  return {edges.repeat_interleave(edges.numel()), edges.repeat({edges.numel()})};
}

using EdgeCase = std::tuple<Op, at::ScalarType, Layout, DeviceKind>;

std::string edge_case_label(const EdgeCase& c) {
  const auto& [op, dtype, layout, device] = c;
  return op_label(op) + "_" + dtype_label(dtype) + "_" + layout_label(layout) + "_" +
         device_label(device);
}

class EdgeValues : public testing::TestWithParam<EdgeCase> {};

TEST_P(EdgeValues, MatchAten) {
  const auto [op, dtype, layout, device_kind] = GetParam();
  if (device_missing(device_kind)) GTEST_SKIP() << "no CUDA device";
  const at::Device device = to_device(device_kind);
  if (op == Op::Backward) {
    const auto [self, grad_output] = every_edge_pair(dtype);
    expect_matches_aten(op, place_values(layout, self, device),
                        place_values(layout, grad_output, device));
    return;
  }
  const at::Tensor self = every_edge_at_every_lane(dtype);
  const Placed out = place_values(layout, at::full_like(self, kSentinel), device);
  expect_matches_aten(op, place_values(layout, self, device), out);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, EdgeValues,
    testing::Combine(testing::Values(Op::Functional, Op::InPlace, Op::Out, Op::Backward),
                     testing::ValuesIn(supported_dtypes()),
                     // One flat span, and the strided path.
                     testing::Values(Layout::Contiguous, Layout::Step2),
                     testing::Values(DeviceKind::CPU, DeviceKind::CUDA)),
    [](const testing::TestParamInfo<EdgeCase>& info) { return edge_case_label(info.param); });

}  // namespace
}  // namespace hardsigmoid_test
