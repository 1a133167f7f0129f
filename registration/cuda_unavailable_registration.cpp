// A library built without CUDA kernels (no nvcc, HARDSIGMOID_OPS_WITH_CUDA=OFF, the aarch64
// wheel) still meets CUDA tensors wherever torch is a CUDA build: each op's CUDA kernel here
// refuses them by saying so, where the dispatcher would list the backends the op lacks.
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include <string>

namespace hardsigmoid_ops::registration {
namespace {

// The device of the first tensor argument (the dispatcher chose this kernel for it).
std::string first_device(const torch::jit::Stack& stack) {
  for (const c10::IValue& value : stack) {
    if (value.isTensor() && value.toTensor().defined()) {
      return value.toTensor().device().str();
    }
  }
  return "a CUDA device";
}

void refuse_cuda(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  TORCH_CHECK(false, op.schema().operator_name(),
              ": this libhardsigmoid_ops.so was built without CUDA kernels (it holds CUDA code for "
              "no GPU), and a tensor on ",
              first_device(*stack),
              " reached it. Move the tensors to the CPU, or install a build with CUDA kernels: on "
              "x86-64 the release wheel; elsewhere a source build where nvcc of torch's CUDA major "
              "version is found, for the GPU's compute capability (torch.cuda."
              "get_device_capability(), e.g. 9.0): TORCH_CUDA_ARCH_LIST=\"9.0\" pip install "
              "--no-build-isolation <source>.");
}

}  // namespace

TORCH_LIBRARY_IMPL(hardsigmoid_ops, CUDA, m) {
  for (const char* name :
       {"hardsigmoid", "hardsigmoid_", "hardsigmoid_out", "hardsigmoid_backward"}) {
    m.impl(name, torch::CppFunction::makeFromBoxedFunction<&refuse_cuda>());
  }
}

}  // namespace hardsigmoid_ops::registration
