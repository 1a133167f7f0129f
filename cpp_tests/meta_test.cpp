// Meta tensors, which torch.compile and torch.export trace with: every op returns what aten
// returns on meta (shape, strides, dtype, device) and what the CPU op returns, and refuses what the
// CPU op refuses, with the same error.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "compare_with_aten.h"
#include "ops/hardsigmoid.h"
#include "test_support.h"

namespace hardsigmoid_test {
namespace {

namespace ops = hardsigmoid_ops;

const at::Device kMeta(at::kMeta);

// Shape, strides, dtype and device of `actual` equal those of `expected`.
void expect_same_metadata(const at::Tensor& actual, const at::Tensor& expected) {
  EXPECT_EQ(actual.sizes().vec(), expected.sizes().vec());
  EXPECT_EQ(strides_of(actual), strides_of(expected));
  EXPECT_EQ(actual.scalar_type(), expected.scalar_type());
  EXPECT_EQ(actual.device(), expected.device());
}

using MetaCase = std::tuple<Op, Layout, int64_t>;

class MetaOutputs : public testing::TestWithParam<MetaCase> {};

TEST_P(MetaOutputs, MatchAtenAndCpu) {
  const auto [op, layout, size] = GetParam();
  HARDSIGMOID_SEED_THIS_TEST();
  const std::vector<int64_t> shape = shape_for(layout, size);
  // Out is written, so an expanded self gets a contiguous out.
  const Layout other = op == Op::Out && layout == Layout::Expanded ? Layout::Contiguous : layout;
  for (at::ScalarType dtype : supported_dtypes()) {
    SCOPED_TRACE(dtype_label(dtype));
    const Placed self = place(layout, shape, dtype, kMeta);
    const Placed second = place(other, shape, dtype, kMeta);
    const Placed cpu_self = place(layout, shape, dtype, at::kCPU);
    const Placed cpu_second = place(other, shape, dtype, at::kCPU);
    switch (op) {
      case Op::Functional: {
        const at::Tensor ours = ops::hardsigmoid(self.view);
        expect_same_metadata(ours, at::hardsigmoid(self.view));
        EXPECT_EQ(strides_of(ours), strides_of(ops::hardsigmoid(cpu_self.view)));
        break;
      }
      case Op::InPlace: {
        const at::Tensor returned = ops::hardsigmoid_(self.view);
        EXPECT_TRUE(returned.is_same(self.view));
        EXPECT_EQ(strides_of(returned), strides_of(cpu_self.view));
        break;
      }
      case Op::Out: {
        const at::Tensor returned = ops::hardsigmoid_out(self.view, second.view);
        EXPECT_TRUE(returned.is_same(second.view));
        EXPECT_EQ(strides_of(returned), strides_of(cpu_second.view));
        break;
      }
      case Op::Backward: {
        const at::Tensor ours = ops::hardsigmoid_backward(second.view, self.view);
        expect_same_metadata(ours, at::hardsigmoid_backward(second.view, self.view));
        EXPECT_EQ(strides_of(ours),
                  strides_of(ops::hardsigmoid_backward(cpu_second.view, cpu_self.view)));
        break;
      }
    }
  }
}

std::vector<MetaCase> meta_cases() {
  std::vector<MetaCase> cases;
  for (Op op : {Op::Functional, Op::InPlace, Op::Out, Op::Backward}) {
    cases.emplace_back(op, Layout::Contiguous, kZeroDim);
    for (Layout layout : {Layout::Contiguous, Layout::Transposed, Layout::Offset, Layout::Step2,
                          Layout::ChannelsLast, Layout::Expanded}) {
      if (op == Op::InPlace && layout == Layout::Expanded) continue;
      cases.emplace_back(op, layout, 7);
    }
  }
  return cases;
}

std::string meta_case_label(const MetaCase& c) {
  const auto& [op, layout, size] = c;
  return op_label(op) + "_" + (size == kZeroDim ? std::string("ZeroDim") : layout_label(layout));
}

INSTANTIATE_TEST_SUITE_P(Cases, MetaOutputs, testing::ValuesIn(meta_cases()),
                         [](const testing::TestParamInfo<MetaCase>& info) {
                           return meta_case_label(info.param);
                         });

// A bad input, built on a given device; calling it runs the op.
struct BadCall {
  std::string name;
  std::function<void(at::Device)> call;
};

void PrintTo(const BadCall& bad, std::ostream* os) { *os << bad.name; }

at::Tensor zeros(at::IntArrayRef shape, at::ScalarType dtype, at::Device device) {
  return at::zeros(shape, at::TensorOptions().dtype(dtype).device(device));
}

std::vector<BadCall> bad_calls() {
  const at::ScalarType f = at::kFloat;
  return {
      {"FunctionalLong", [](at::Device d) { ops::hardsigmoid(zeros({4}, at::kLong, d)); }},
      {"InPlaceLong", [](at::Device d) { ops::hardsigmoid_(zeros({4}, at::kLong, d)); }},
      {"OutLong",
       [f](at::Device d) { ops::hardsigmoid_out(zeros({4}, f, d), zeros({4}, at::kLong, d)); }},
      {"BackwardComplex",
       [f](at::Device d) {
         ops::hardsigmoid_backward(zeros({4}, at::kComplexFloat, d), zeros({4}, f, d));
       }},
      {"OutOfAnotherShape",
       [f](at::Device d) {
         ops::hardsigmoid_out(zeros({4}, f, d), zeros({2, 2}, f, d));
       }},
      {"OutOfAnotherDtype",
       [f](at::Device d) { ops::hardsigmoid_out(zeros({4}, f, d), zeros({4}, at::kDouble, d)); }},
      {"OutPartiallyOverlappingSelf",
       [f](at::Device d) {
         const at::Tensor buffer = zeros({9}, f, d);
         ops::hardsigmoid_out(buffer.narrow(0, 0, 8), buffer.narrow(0, 1, 8));
       }},
      {"InPlaceOnExpanded",
       [f](at::Device d) {
         ops::hardsigmoid_(zeros({1, 4}, f, d).expand({3, 4}));
       }},
      {"OutExpanded",
       [f](at::Device d) {
         ops::hardsigmoid_out(zeros({3, 4}, f, d), zeros({1, 4}, f, d).expand({3, 4}));
       }},
      {"InPlaceRequiringGrad",
       [f](at::Device d) { ops::hardsigmoid_(zeros({4}, f, d).set_requires_grad(true)); }},
      {"OutRequiringGrad",
       [f](at::Device d) {
         ops::hardsigmoid_out(zeros({4}, f, d).set_requires_grad(true), zeros({4}, f, d));
       }},
  };
}

class MetaErrors : public testing::TestWithParam<BadCall> {};

TEST_P(MetaErrors, SameAsCpu) {
  const BadCall& bad = GetParam();
  const std::optional<Thrown> on_cpu = thrown_by([&] { bad.call(at::kCPU); });
  const std::optional<Thrown> on_meta = thrown_by([&] { bad.call(kMeta); });
  ASSERT_TRUE(on_cpu.has_value()) << "the CPU op accepted it";
  ASSERT_TRUE(on_meta.has_value())
      << "the Meta op accepted what the CPU op refuses: " << on_cpu->message;
  EXPECT_EQ(on_meta->type, on_cpu->type);
  EXPECT_EQ(on_meta->message, on_cpu->message);
}

INSTANTIATE_TEST_SUITE_P(Cases, MetaErrors, testing::ValuesIn(bad_calls()),
                         [](const testing::TestParamInfo<BadCall>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace hardsigmoid_test
