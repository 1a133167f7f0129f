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

const c10::DispatchKeySet kCudaOnly(c10::DispatchKey::CUDA);

c10::TypedOperatorHandle<at::Tensor(const at::Tensor&)> unary(const char* name) {
  return c10::Dispatcher::singleton()
      .findSchemaOrThrow(name, "")
      .typed<at::Tensor(const at::Tensor&)>();
}

template <typename Call>
void expect_refused_by_name(const char* op, Call call) {
  try {
    call();
    ADD_FAILURE() << op << ": the CUDA kernel ran";
  } catch (const c10::Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(op), std::string::npos) << message;
    EXPECT_NE(message.find("built without CUDA kernels"), std::string::npos) << message;
  }
}

TEST(CudaUnavailable, EveryOpRefusesCudaTensorsByName) {
#if HARDSIGMOID_OPS_TESTS_LIBRARY_HAS_CUDA
  GTEST_SKIP() << "this library has CUDA kernels (the refusal is a build without them: the "
                  "sanitizer build, the aarch64 build)";
#else
  const at::Tensor x = at::zeros({3});
  auto& dispatcher = c10::Dispatcher::singleton();
  expect_refused_by_name("hardsigmoid_ops::hardsigmoid",
                         [&] { unary("hardsigmoid_ops::hardsigmoid").redispatch(kCudaOnly, x); });
  expect_refused_by_name("hardsigmoid_ops::hardsigmoid_", [&] {
    dispatcher.findSchemaOrThrow("hardsigmoid_ops::hardsigmoid_", "")
        .typed<void(const at::Tensor&)>()
        .redispatch(kCudaOnly, x);
  });
  expect_refused_by_name("hardsigmoid_ops::hardsigmoid_out", [&] {
    dispatcher.findSchemaOrThrow("hardsigmoid_ops::hardsigmoid_out", "")
        .typed<void(const at::Tensor&, const at::Tensor&)>()
        .redispatch(kCudaOnly, x, at::empty_like(x));
  });
  expect_refused_by_name("hardsigmoid_ops::hardsigmoid_backward", [&] {
    dispatcher.findSchemaOrThrow("hardsigmoid_ops::hardsigmoid_backward", "")
        .typed<at::Tensor(const at::Tensor&, const at::Tensor&)>()
        .redispatch(kCudaOnly, x, x);
  });
#endif
}

}  // namespace
}  // namespace hardsigmoid_test
