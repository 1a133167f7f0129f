// Runs an ExecuTorch program (.pte) with no libtorch: ExecuTorch's runtime, its CPU kernels and
// this library's ExecuTorch kernels (hardsigmoid_ops::hardsigmoid.out), all registered when the
// program starts.
//
//   run_pte MODEL.pte INPUT.bin OUTPUT.bin
//
// INPUT.bin holds the raw bytes of the forward method's one input tensor (its shape and dtype are
// the program's); the first output's raw bytes go to OUTPUT.bin, and a summary to stdout.
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor_ptr.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <vector>

namespace {

using executorch::extension::Module;
using executorch::runtime::Error;

int fail(const std::string& message) {
  std::cerr << "run_pte: " << message << "\n";
  return 1;
}

std::string shape_of(executorch::aten::ArrayRef<executorch::aten::SizesType> sizes) {
  std::string text = "[";
  for (size_t i = 0; i < sizes.size(); ++i) text += (i ? ", " : "") + std::to_string(sizes[i]);
  return text + "]";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) return fail("usage: run_pte MODEL.pte INPUT.bin OUTPUT.bin");
  Module module(argv[1]);
  const auto meta = module.method_meta("forward");
  if (!meta.ok()) return fail("cannot load the forward method of " + std::string(argv[1]));
  const auto input_meta = meta->input_tensor_meta(0);
  if (meta->num_inputs() != 1 || !input_meta.ok()) return fail("forward must take one tensor");

  std::ifstream file(argv[2], std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (bytes.size() != input_meta->nbytes()) {
    return fail(std::string(argv[2]) + " holds " + std::to_string(bytes.size()) +
                " bytes; the input takes " + std::to_string(input_meta->nbytes()));
  }
  const auto sizes = input_meta->sizes();
  auto input = executorch::extension::make_tensor_ptr(
      std::vector<executorch::aten::SizesType>(sizes.begin(), sizes.end()), bytes.data(),
      input_meta->scalar_type());

  const auto outputs = module.forward(input);
  if (!outputs.ok()) {
    return fail("forward failed with error " + std::to_string(static_cast<int>(outputs.error())));
  }
  const executorch::aten::Tensor output = outputs->at(0).toTensor();
  std::ofstream(argv[3], std::ios::binary)
      .write(static_cast<const char*>(output.const_data_ptr()), output.nbytes());
  std::cout << "output 0: " << executorch::runtime::toString(output.scalar_type()) << " "
            << shape_of(output.sizes()) << ", " << output.nbytes() << " bytes to " << argv[3]
            << "\n";
  if (output.scalar_type() == executorch::aten::ScalarType::Float) {
    const float* values = output.const_data_ptr<float>();
    std::cout << "first values:";
    for (ssize_t i = 0; i < std::min<ssize_t>(output.numel(), 8); ++i) {
      std::printf(" %.9g", values[i]);
    }
    std::cout << "\n";
  }
  return 0;
}
