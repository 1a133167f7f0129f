// A library built without CUDA kernels (no nvcc, HARDSIGMOID_OPS_WITH_CUDA=OFF, the aarch64
// wheel) still meets CUDA tensors wherever torch is a CUDA build: each op's CUDA kernel here
// refuses them by saying so, where the dispatcher would list the backends the op lacks.
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

namespace hardsigmoid_ops::registration {
namespace {

void refuse_cuda(const c10::OperatorHandle& op, torch::jit::Stack* /*stack*/) {
  TORCH_CHECK(false, op.schema().operator_name(),
              ": this libhardsigmoid_ops.so was built without CUDA kernels, and a CUDA tensor "
              "reached it. Move the tensors to the CPU, or install a build with CUDA kernels: "
              "the x86-64 wheel, or a source build where nvcc (of torch's CUDA major version) "
              "is found: pip install --no-build-isolation <source>.");
}

}  // namespace

TORCH_LIBRARY_IMPL(hardsigmoid_ops, CUDA, m) {
  for (const char* name :
       {"hardsigmoid", "hardsigmoid_", "hardsigmoid_out", "hardsigmoid_backward"}) {
    m.impl(name, torch::CppFunction::makeFromBoxedFunction<&refuse_cuda>());
  }
}

}  // namespace hardsigmoid_ops::registration
