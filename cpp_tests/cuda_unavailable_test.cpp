// A library built without CUDA kernels refuses CUDA tensors by saying so
// (registration/cuda_unavailable_registration.cpp), where the dispatcher would list backends. Each
// op's CUDA kernel is reached through the dispatcher with a CPU tensor, which needs no GPU: the
// refusal comes before the tensor is looked at.
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <gtest/gtest.h>

#include <string>

namespace hardsigmoid_test {
namespace {

// The op's CUDA kernel alone, reached with `args`; expects the library's refusal naming the op.
template <typename Signature, typename... Args>
void expect_refused_by_name(const char* op, const Args&... args) {
  const auto handle = c10::Dispatcher::singleton().findSchemaOrThrow(op, "").typed<Signature>();
  try {
    handle.redispatch(c10::DispatchKeySet(c10::DispatchKey::CUDA), args...);
    ADD_FAILURE() << op << ": the CUDA kernel ran";
  } catch (const c10::Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(op), std::string::npos) << message;
    EXPECT_NE(message.find("built without CUDA kernels"), std::string::npos) << message;
    EXPECT_NE(message.find("a tensor on cpu"), std::string::npos) << message;
  }
}

TEST(CudaUnavailable, EveryOpRefusesCudaTensorsByName) {
#if HARDSIGMOID_OPS_TESTS_LIBRARY_HAS_CUDA
  GTEST_SKIP() << "this library has CUDA kernels (the refusal is a build without them: the "
                  "sanitizer build, the aarch64 build)";
#else
  const at::Tensor x = at::zeros({3});
  expect_refused_by_name<at::Tensor(const at::Tensor&)>("hardsigmoid_ops::hardsigmoid", x);
  expect_refused_by_name<void(const at::Tensor&)>("hardsigmoid_ops::hardsigmoid_", x);
  expect_refused_by_name<void(const at::Tensor&, const at::Tensor&)>(
      "hardsigmoid_ops::hardsigmoid_out", x, at::empty_like(x));
  expect_refused_by_name<at::Tensor(const at::Tensor&, const at::Tensor&)>(
      "hardsigmoid_ops::hardsigmoid_backward", x, x);
#endif
}

}  // namespace
}  // namespace hardsigmoid_test
