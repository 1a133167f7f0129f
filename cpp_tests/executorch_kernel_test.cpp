// The ExecuTorch kernel on ExecuTorch's own tensors, with no libtorch: what it refuses fails the
// kernel (the runtime context's failure state) and leaves out untouched; what it takes (every
// float dtype, any dim order shared by self and out, out being self, empty tensors, an out resized
// to self's shape) is computed as the library's CPU formula computes it. Bitwise equality with
// eager aten, which needs libtorch, is python_tests/test_executorch.py's and the C++ runner's.
#include <gtest/gtest.h>

#include <executorch/extension/tensor/tensor_ptr.h>

#include <cmath>
#include <limits>
#include <vector>

#include "executorch_kernels/hardsigmoid_out.h"
#include "ops/hardsigmoid_math.h"

namespace {

using executorch::aten::ScalarType;
using executorch::aten::TensorShapeDynamism;
using executorch::extension::make_tensor_ptr;
using executorch::runtime::Error;
using executorch::runtime::KernelRuntimeContext;
using hardsigmoid_ops::executorch_kernels::hardsigmoid_out;

const executorch::aten::Device kCpu(executorch::aten::DeviceType::CPU);

const std::vector<float> kValues = {std::numeric_limits<float>::quiet_NaN(),
                                    std::numeric_limits<float>::infinity(),
                                    -std::numeric_limits<float>::infinity(),
                                    0.0f,
                                    -0.0f,
                                    3.0f,
                                    -3.0f,
                                    2.9f,
                                    -2.9f,
                                    1e-40f,
                                    0.5f,
                                    7.0f};

// What the kernel must compute for x (the float formula of aten's CPU kernel; NaN stays NaN).
float expected(float x) { return hardsigmoid_ops::math::forward_cpu(x); }

void expect_float_results(const std::vector<float>& in, const std::vector<float>& out) {
  ASSERT_EQ(in.size(), out.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (std::isnan(in[i])) {
      EXPECT_TRUE(std::isnan(out[i])) << "element " << i;
    } else {
      EXPECT_EQ(out[i], expected(in[i])) << "element " << i << " = " << in[i];
      EXPECT_EQ(std::signbit(out[i]), std::signbit(expected(in[i]))) << "element " << i;
    }
  }
}

TEST(ExecuTorchKernel, ComputesEveryElement) {
  std::vector<float> in = kValues, out(in.size(), 42.0f);
  auto self = make_tensor_ptr({3, 4}, in.data());
  auto result = make_tensor_ptr({3, 4}, out.data());
  KernelRuntimeContext context;
  executorch::aten::Tensor& returned = hardsigmoid_out(context, *self, *result);
  EXPECT_EQ(context.failure_state(), Error::Ok);
  EXPECT_EQ(&returned, result.get());
  expect_float_results(in, out);
}

TEST(ExecuTorchKernel, OutMayBeSelf) {
  std::vector<float> data = kValues;
  auto self = make_tensor_ptr({12}, data.data());
  KernelRuntimeContext context;
  hardsigmoid_out(context, *self, *self);
  EXPECT_EQ(context.failure_state(), Error::Ok);
  expect_float_results(kValues, data);
}

TEST(ExecuTorchKernel, SharedChannelsLastDimOrder) {
  std::vector<float> in(2 * 3 * 2 * 2), out(in.size());
  for (size_t i = 0; i < in.size(); ++i) in[i] = -4.0f + 0.37f * static_cast<float>(i);
  const std::vector<executorch::aten::DimOrderType> channels_last = {0, 2, 3, 1};
  auto self = make_tensor_ptr({2, 3, 2, 2}, in.data(), channels_last, {});
  auto result = make_tensor_ptr({2, 3, 2, 2}, out.data(), channels_last, {});
  KernelRuntimeContext context;
  hardsigmoid_out(context, *self, *result);
  EXPECT_EQ(context.failure_state(), Error::Ok);
  expect_float_results(in, out);
}

TEST(ExecuTorchKernel, ResizesADynamicOutToSelfsShape) {
  std::vector<float> in = kValues, out(in.size(), 42.0f);
  auto self = make_tensor_ptr({3, 4}, in.data());
  // make_tensor_ptr's default: a shape bounded by the data it was made with.
  auto result = make_tensor_ptr({4, 3}, out.data());
  KernelRuntimeContext context;
  hardsigmoid_out(context, *self, *result);
  EXPECT_EQ(context.failure_state(), Error::Ok);
  EXPECT_EQ(result->size(0), 3);
  EXPECT_EQ(result->size(1), 4);
  expect_float_results(in, out);
}

TEST(ExecuTorchKernel, EmptyTensor) {
  std::vector<float> in(1), out(1, 42.0f);
  auto self = make_tensor_ptr({0, 4}, in.data());
  auto result = make_tensor_ptr({0, 4}, out.data());
  KernelRuntimeContext context;
  hardsigmoid_out(context, *self, *result);
  EXPECT_EQ(context.failure_state(), Error::Ok);
  EXPECT_EQ(out[0], 42.0f);
}

TEST(ExecuTorchKernel, SixteenBitTypesRoundTheFloatResult) {
  std::vector<c10::Half> half_in, half_out(kValues.size());
  std::vector<c10::BFloat16> bf16_in, bf16_out(kValues.size());
  for (float v : kValues) {
    half_in.emplace_back(v);
    bf16_in.emplace_back(v);
  }
  KernelRuntimeContext context;
  auto half_self = make_tensor_ptr({12}, half_in.data(), ScalarType::Half);
  auto half_result = make_tensor_ptr({12}, half_out.data(), ScalarType::Half);
  hardsigmoid_out(context, *half_self, *half_result);
  auto bf16_self = make_tensor_ptr({12}, bf16_in.data(), ScalarType::BFloat16);
  auto bf16_result = make_tensor_ptr({12}, bf16_out.data(), ScalarType::BFloat16);
  hardsigmoid_out(context, *bf16_self, *bf16_result);
  EXPECT_EQ(context.failure_state(), Error::Ok);
  for (size_t i = 0; i < kValues.size(); ++i) {
    const float half_x = static_cast<float>(half_in[i]);
    const float bf16_x = static_cast<float>(bf16_in[i]);
    if (std::isnan(half_x)) {
      EXPECT_TRUE(std::isnan(static_cast<float>(half_out[i])));
      EXPECT_TRUE(std::isnan(static_cast<float>(bf16_out[i])));
      continue;
    }
    EXPECT_EQ(half_out[i].x, c10::Half(expected(half_x)).x) << "element " << i;
    EXPECT_EQ(bf16_out[i].x, c10::BFloat16(expected(bf16_x)).x) << "element " << i;
  }
}

// Each refusal: the kernel fails with InvalidArgument and writes nothing.
void expect_refused(const executorch::aten::Tensor& self, executorch::aten::Tensor& out,
                    const std::vector<char>& out_bytes_before) {
  KernelRuntimeContext context;
  hardsigmoid_out(context, self, out);
  EXPECT_EQ(context.failure_state(), Error::InvalidArgument);
  const char* bytes = static_cast<const char*>(out.const_data_ptr());
  EXPECT_EQ(std::vector<char>(bytes, bytes + out_bytes_before.size()), out_bytes_before);
}

std::vector<char> bytes_of(const executorch::aten::Tensor& t) {
  const char* p = static_cast<const char*>(t.const_data_ptr());
  return std::vector<char>(p, p + t.nbytes());
}

TEST(ExecuTorchKernel, RefusesAnIntegerDtype) {
  std::vector<int32_t> in(6, 1), out(6, 7);
  auto self = make_tensor_ptr({6}, in.data(), ScalarType::Int);
  auto result = make_tensor_ptr({6}, out.data(), ScalarType::Int);
  expect_refused(*self, *result, bytes_of(*result));
}

TEST(ExecuTorchKernel, RefusesAnOutOfAnotherDtype) {
  std::vector<float> in(6, 1.0f);
  std::vector<double> out(6, 7.0);
  auto self = make_tensor_ptr({6}, in.data());
  auto result = make_tensor_ptr({6}, out.data(), ScalarType::Double);
  expect_refused(*self, *result, bytes_of(*result));
}

TEST(ExecuTorchKernel, RefusesAStaticOutOfAnotherShape) {
  std::vector<float> in(6, 1.0f), out(6, 7.0f);
  auto self = make_tensor_ptr({2, 3}, in.data());
  auto result =
      make_tensor_ptr({3, 2}, out.data(), ScalarType::Float, kCpu, TensorShapeDynamism::STATIC);
  expect_refused(*self, *result, bytes_of(*result));
}

TEST(ExecuTorchKernel, RefusesAnOutOfAnotherDimOrder) {
  std::vector<float> in(2 * 3 * 2 * 2, 1.0f), out(in.size(), 7.0f);
  auto self = make_tensor_ptr({2, 3, 2, 2}, in.data());
  auto result = make_tensor_ptr({2, 3, 2, 2}, out.data(), {0, 2, 3, 1}, {});
  expect_refused(*self, *result, bytes_of(*result));
}

TEST(ExecuTorchKernel, RefusesAPartlyOverlappingOut) {
  std::vector<float> buffer(8, 1.0f);
  auto self = make_tensor_ptr({6}, buffer.data());
  auto result = make_tensor_ptr({6}, buffer.data() + 2);
  expect_refused(*self, *result, bytes_of(*result));
}

}  // namespace
