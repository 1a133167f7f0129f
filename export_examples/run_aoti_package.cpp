// Loads the AOTInductor package written by export_model.py with AOTIModelPackageLoader and checks
// its output, bit for bit, against the same model built with aten's hardsigmoid (io.pt).
// The package calls hardsigmoid_ops through the dispatcher, so the op library must be loaded:
// it is linked with --no-as-needed (carried by its CMake target) although no symbol of it is named.
// Usage: run_aoti_package MODEL_DIR [DEVICE]    (the device the package was compiled for; cpu)
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#include <torch/script.h>

#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: %s MODEL_DIR [DEVICE]\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const c10::Device device(argc == 3 ? argv[2] : "cpu");
  torch::jit::Module io = torch::jit::load(dir + "/io.pt");
  const at::Tensor input = io.attr("input").toTensor().to(device);
  const at::Tensor expected = io.attr("expected").toTensor();

  torch::inductor::AOTIModelPackageLoader loader(dir + "/gate_aoti.pt2");
  torch::NoGradGuard no_grad;
  const std::vector<at::Tensor> outputs = loader.run({input});
  // The device's type: the output is on "cuda:0" where the argument said "cuda".
  const bool same = outputs.size() == 1 && outputs[0].device().type() == device.type() &&
                    at::equal(outputs[0].cpu(), expected);
  std::printf("AOTInductor package on %s, batch %lld: %s (output on %s)\n", device.str().c_str(),
              static_cast<long long>(input.size(0)),
              same ? "equal to aten's model" : "DIFFERS from aten's model",
              outputs.empty() ? "nothing" : outputs[0].device().str().c_str());
  return same ? 0 : 1;
}
