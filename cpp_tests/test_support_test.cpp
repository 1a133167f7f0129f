// The helpers every other test trusts: a comparison that lets a difference through, or edge
// values that are not what they claim, would make those tests unable to fail.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>

#include "test_support.h"

namespace hardsigmoid_test {
namespace {

class SupportPerDtype : public testing::TestWithParam<at::ScalarType> {};

TEST_P(SupportPerDtype, SameBitsTellsSignedZerosApart) {
  const at::Tensor plus = at::zeros({3}, GetParam());
  const at::Tensor minus = -plus;
  EXPECT_FALSE(same_bits(plus, minus));
  EXPECT_TRUE(same_bits(plus, plus.clone()));
}

TEST_P(SupportPerDtype, SameBitsMatchesNaNOnlyWithTheSameNaN) {
  const at::Tensor nan = at::full({2}, NAN, GetParam());
  EXPECT_TRUE(same_bits(nan, nan.clone()));
  // The same NaN with its sign bit set (the top bit of an element's last byte, little-endian).
  // Not -nan: negating a bfloat16 NaN in float and rounding back may return c10's one NaN.
  at::Tensor negative = nan.clone();
  negative.view(at::kByte)[c10::elementSize(GetParam()) - 1].bitwise_xor_(0x80);
  EXPECT_FALSE(same_bits(nan, negative));
  EXPECT_FALSE(same_bits(nan, at::zeros({2}, GetParam())));
  EXPECT_FALSE(same_bits(at::zeros({2}, GetParam()), nan));
}

TEST_P(SupportPerDtype, SameBitsSeesOneUlpShapeAndDtype) {
  const at::Tensor x = at::ones({5}, GetParam());
  at::Tensor y = x.clone();
  y.view(at::kByte)[0].bitwise_xor_(
      1);  // the lowest mantissa bit of the first element (little-endian)
  EXPECT_FALSE(same_bits(x, y));
  EXPECT_FALSE(same_bits(x, x.reshape({5, 1})));
  EXPECT_FALSE(same_bits(x, x.to(GetParam() == at::kDouble ? at::kFloat : at::kDouble)));
}

TEST_P(SupportPerDtype, EdgeValuesAreWhatTheyClaim) {
  const at::Tensor edges = edge_values(GetParam()).to(at::kDouble);
  const double min_normal = edges[15].item<double>();
  EXPECT_TRUE(std::isnan(edges[0].item<double>()));
  EXPECT_EQ(edges[1].item<double>(), INFINITY);
  EXPECT_EQ(edges[2].item<double>(), -INFINITY);
  EXPECT_FALSE(std::signbit(edges[3].item<double>()));
  EXPECT_TRUE(std::signbit(edges[4].item<double>()));
  EXPECT_EQ(edges[5].item<double>(), 3.0);
  EXPECT_EQ(edges[6].item<double>(), -3.0);
  // The neighbours of 3 and -3 lie on either side of them.
  EXPECT_LT(edges[7].item<double>(), 3.0);
  EXPECT_GT(edges[8].item<double>(), 3.0);
  EXPECT_GT(edges[9].item<double>(), -3.0);
  EXPECT_LT(edges[10].item<double>(), -3.0);
  for (int i : {11, 12, 13, 14}) {
    const double subnormal = edges[i].item<double>();
    EXPECT_TRUE(subnormal != 0 && std::abs(subnormal) < min_normal) << subnormal;
  }
  EXPECT_TRUE(std::isfinite(edges[17].item<double>()));
  EXPECT_EQ(edges[18].item<double>(), -edges[17].item<double>());
}

INSTANTIATE_TEST_SUITE_P(Dtypes, SupportPerDtype, testing::ValuesIn(supported_dtypes()),
                         [](const auto& info) { return dtype_label(info.param); });

TEST(Support, PlaceKeepsTheSentinelOutsideTheView) {
  const Placed step = place(Layout::Step2, {5}, at::kFloat, at::kCPU);
  EXPECT_EQ(step.buffer.numel(), 9);
  EXPECT_TRUE(same_bits(step.buffer.slice(0, 1, 9, 2), at::full({4}, kSentinel, at::kFloat)));
  const Placed offset = place(Layout::Offset, {5}, at::kFloat, at::kCPU);
  EXPECT_EQ(offset.buffer[0].item<double>(), kSentinel);
  EXPECT_EQ(offset.view.data_ptr(), offset.buffer[1].data_ptr());
}

TEST(Support, LayoutsHaveTheStridesTheyClaim) {
  const int64_t n = 7;
  EXPECT_TRUE(place(Layout::Contiguous, shape_for(Layout::Contiguous, n), at::kFloat, at::kCPU)
                  .view.is_contiguous());
  const at::Tensor transposed =
      place(Layout::Transposed, shape_for(Layout::Transposed, n), at::kFloat, at::kCPU).view;
  EXPECT_EQ(strides_of(transposed), strides_of(at::empty({3, n}).t()));
  const at::Tensor channels_last =
      place(Layout::ChannelsLast, shape_for(Layout::ChannelsLast, n), at::kFloat, at::kCPU).view;
  EXPECT_TRUE(channels_last.is_contiguous(at::MemoryFormat::ChannelsLast));
  EXPECT_FALSE(channels_last.is_contiguous());
  const at::Tensor expanded =
      place(Layout::Expanded, shape_for(Layout::Expanded, n), at::kFloat, at::kCPU).view;
  EXPECT_EQ(strides_of(expanded), strides_of(at::empty({1, n}).expand({3, n})));
  EXPECT_FALSE(place(Layout::Step2, {n}, at::kFloat, at::kCPU).view.is_non_overlapping_and_dense());
}

TEST(Support, RandomValuesMixInEveryEdgeValue) {
  HARDSIGMOID_SEED_THIS_TEST();
  const at::Tensor values = random_values({1 << 14}, at::kHalf);
  const at::Tensor edges = edge_values(at::kHalf);
  for (int64_t i = 0; i < edges.numel(); ++i) {
    const at::Tensor bits = values.view(at::kShort);
    EXPECT_TRUE((bits == edges.view(at::kShort)[i]).any().item<bool>()) << "edge value " << i;
  }
}

}  // namespace
}  // namespace hardsigmoid_test
