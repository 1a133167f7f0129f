// Loads the TorchScript models saved by save_models.py with torch::jit::load, runs them on the
// CPU (and on CUDA when present) and checks that the models using hardsigmoid_ops give, bit for
// bit, what the same model with aten's hardsigmoid gives: the inference models' outputs, and the
// training model's loss, gradients and weights after one SGD step (its in-place hardsigmoid is
// recorded by autograd, in C++), and the int8 model's output (hardsigmoid on quantized tensors, on
// the CPU).
//
// Nothing here names a symbol of libhardsigmoid_ops: the ops are found through the dispatcher.
// The library is linked with --no-as-needed (carried by its CMake target) so that the linker keeps
// it and its registrations run; without that, loading fails with "Unknown builtin op".
// Usage: run_models MODEL_DIR
#include <ATen/Context.h>
#include <torch/cuda.h>
#include <torch/script.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

bool check(const std::string& dir, const std::string& name, const c10::Device& device) {
  torch::jit::Module model = torch::jit::load(dir + "/" + name, device);
  torch::jit::Module reference = torch::jit::load(dir + "/gate_aten.pt", device);
  model.eval();
  reference.eval();
  const torch::Tensor x = torch::randn({4, 3, 20, 24}, torch::TensorOptions().device(device));
  torch::NoGradGuard no_grad;
  // The models write into their intermediate in place; each gets its own copy of the input.
  const torch::Tensor ours = model.forward({x.clone()}).toTensor();
  const torch::Tensor expected = reference.forward({x.clone()}).toTensor();
  const bool same = torch::equal(ours, expected);
  std::printf("%-18s on %-6s: %s\n", name.c_str(), device.str().c_str(),
              same ? "equal to aten's model" : "DIFFERS from aten's model");
  return same;
}

// One SGD step of the training model and of its aten twin, from the same weights and batch.
bool train_one_step(const std::string& dir, const c10::Device& device) {
  torch::jit::Module model = torch::jit::load(dir + "/block_scripted.pt", device);
  torch::jit::Module reference = torch::jit::load(dir + "/block_aten.pt", device);
  const torch::Tensor x = torch::randn({4, 3, 20, 24}, torch::TensorOptions().device(device)) * 3;
  const auto step = [&](torch::jit::Module& m) {
    m.train();
    const torch::Tensor loss = m.forward({x}).toTensor().square().mean();
    loss.backward();
    std::vector<torch::Tensor> seen{loss.detach()};
    torch::NoGradGuard no_grad;
    for (const torch::Tensor& p : m.parameters()) {
      seen.push_back(p.grad().clone());
      p.sub_(p.grad() * 0.1);
      seen.push_back(p.detach().clone());
    }
    return seen;
  };
  const std::vector<torch::Tensor> ours = step(model);
  const std::vector<torch::Tensor> expected = step(reference);
  bool same = ours.size() == expected.size() && ours.size() > 1;
  for (size_t i = 0; same && i < ours.size(); ++i) same = torch::equal(ours[i], expected[i]);
  std::printf("%-18s on %-6s: %s\n", "block_scripted.pt", device.str().c_str(),
              same ? "one training step equal to aten's model" : "training step DIFFERS");
  return same;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Sets the quantized engine the int8 models were made for (int8_engine.txt, written by
// save_models.py: x86 on x86-64, qnnpack on ARM): a quantized convolution's weights are packed
// for the current engine when the model is loaded. False where this torch has no such engine.
bool use_int8_engine(const std::string& dir) {
  std::ifstream file(dir + "/int8_engine.txt");
  std::string name;
  file >> name;
  for (const at::QEngine engine : at::globalContext().supportedQEngines()) {
    if (lower(c10::toString(engine)) == name) {
      at::globalContext().setQEngine(engine);
      return true;
    }
  }
  std::printf("int8_scripted.pt  : quantized engine '%s' is not supported by this torch\n",
              name.c_str());
  return false;
}

// The int8 model (CPU only, as quantized tensors are in aten), under the engine it was made for.
bool check_int8(const std::string& dir) {
  if (!use_int8_engine(dir)) return false;
  torch::jit::Module model = torch::jit::load(dir + "/int8_scripted.pt");
  torch::jit::Module reference = torch::jit::load(dir + "/int8_aten.pt");
  model.eval();
  reference.eval();
  const torch::Tensor x = torch::randn({4, 3, 20, 24}) * 2;
  torch::NoGradGuard no_grad;
  const bool same = torch::equal(model.forward({x}).toTensor(), reference.forward({x}).toTensor());
  std::printf("%-18s on %-6s: %s (%s engine)\n", "int8_scripted.pt", "cpu",
              same ? "equal to aten's model" : "DIFFERS from aten's model",
              lower(c10::toString(at::globalContext().qEngine())).c_str());
  return same;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s MODEL_DIR\n", argv[0]);
    return 2;
  }
  // cuDNN's deterministic algorithms: the gradients of two identical models then agree bit for bit.
  at::globalContext().setDeterministicCuDNN(true);
  at::globalContext().setBenchmarkCuDNN(false);
  std::vector<c10::Device> devices{c10::Device("cpu")};
  if (torch::cuda::is_available()) {
    devices.emplace_back("cuda");
  } else {
    std::printf("no CUDA device: CPU only\n");
  }
  bool ok = true;
  for (const c10::Device& device : devices) {
    for (const char* name : {"gate_scripted.pt", "gate_traced.pt"}) {
      ok = check(argv[1], name, device) && ok;
    }
    ok = train_one_step(argv[1], device) && ok;
  }
  ok = check_int8(argv[1]) && ok;
  return ok ? 0 : 1;
}
