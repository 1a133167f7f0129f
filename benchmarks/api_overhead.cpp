// Per-call host overhead of the C++ API against at::hardsigmoid: many back-to-back calls on a
// 16-element tensor, where launching (CUDA) or dispatching (CPU) costs more than computing.
// Prints the medians of 15 alternating samples of each.
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

// Mean wall time of `calls` calls, in microseconds.
double sample_microseconds(const std::function<void()>& call, const at::Device& device, int calls) {
  synchronize(device);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) call();
  synchronize(device);
  const std::chrono::duration<double, std::micro> elapsed =
      std::chrono::steady_clock::now() - start;
  return elapsed.count() / calls;
}

double median(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::string device_name = argc > 1 ? argv[1] : "cpu";
  const int calls = argc > 2 ? std::atoi(argv[2]) : 20000;
  const at::Device device(device_name);
  const at::Tensor x = at::randn({16}, at::TensorOptions().device(device));
  const auto ours_call = [&] { hardsigmoid_ops::hardsigmoid(x); };
  const auto aten_call = [&] { at::hardsigmoid(x); };
  for (int i = 0; i < 1000; ++i) {
    ours_call();
    aten_call();
  }
  // Samples of the two alternate, so that drifts of the machine (clocks, other load) fall on both.
  std::vector<double> ours_samples;
  std::vector<double> aten_samples;
  for (int s = 0; s < 15; ++s) {
    ours_samples.push_back(sample_microseconds(ours_call, device, calls / 10));
    aten_samples.push_back(sample_microseconds(aten_call, device, calls / 10));
  }
  const double ours = median(ours_samples);
  const double aten = median(aten_samples);
  const bool same = at::equal(hardsigmoid_ops::hardsigmoid(x), at::hardsigmoid(x));
  std::printf(
      "C++ API host overhead per call, %s, 16 elements: ours %.3f us, aten %.3f us "
      "(ours/aten %.3f); results equal: %s\n",
      device_name.c_str(), ours, aten, ours / aten, same ? "yes" : "NO");
  return same ? 0 : 1;
}
