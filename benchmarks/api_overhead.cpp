// Per-call host overhead of the C++ API against at::hardsigmoid: many back-to-back calls on a
// 16-element tensor, where launching (CUDA) or dispatching (CPU) costs more than computing.
// Usage: api_overhead [cpu|cuda] [calls]
#include <ATen/ATen.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "ops/hardsigmoid.h"

namespace {

// Waits for the work queued on the device: a copy to the host is ordered after it.
void synchronize(const at::Device& device) {
  if (device.is_cuda()) {
    at::zeros({1}, at::TensorOptions().device(device)).cpu();
  }
}

// Median over 7 samples of the mean wall time of `calls` calls, in microseconds.
double microseconds_per_call(const std::function<void()>& call, const at::Device& device,
                             int calls) {
  for (int i = 0; i < 1000; ++i) call();
  std::vector<double> samples;
  for (int s = 0; s < 7; ++s) {
    synchronize(device);
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) call();
    synchronize(device);
    const std::chrono::duration<double, std::micro> elapsed =
        std::chrono::steady_clock::now() - start;
    samples.push_back(elapsed.count() / calls);
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::string device_name = argc > 1 ? argv[1] : "cpu";
  const int calls = argc > 2 ? std::atoi(argv[2]) : 20000;
  const at::Device device(device_name);
  const at::Tensor x = at::randn({16}, at::TensorOptions().device(device));
  const double ours =
      microseconds_per_call([&] { hardsigmoid_ops::hardsigmoid(x); }, device, calls);
  const double aten = microseconds_per_call([&] { at::hardsigmoid(x); }, device, calls);
  const bool same = at::equal(hardsigmoid_ops::hardsigmoid(x), at::hardsigmoid(x));
  std::printf(
      "C++ API host overhead per call, %s, 16 elements: ours %.3f us, aten %.3f us "
      "(ours/aten %.3f); results equal: %s\n",
      device_name.c_str(), ours, aten, ours / aten, same ? "yes" : "NO");
  return same ? 0 : 1;
}
