// The measurement behind the CPU drivers' grain size (ops/cpu/hardsigmoid_cpu.cpp): the selected
// row loop over a contiguous float32 or bfloat16 span split by at::parallel_for with several
// grains, on 2 threads (the machine's cores; with 1 thread the grain changes nothing), sizes 2^12
// to 2^22. Prints the median time of each grain relative to aten's GRAIN_SIZE, the library's
// choice. Rounds take the grains in turns, so that drift touches every grain alike.
// Usage: grain_size [threads] [rounds]
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "ops/cpu/capability_choice.h"

namespace {

constexpr int64_t kGrains[] = {2048, 8192, 16384, at::internal::GRAIN_SIZE, 65536, 262144};

template <typename scalar_t>
void sweep(at::ScalarType dtype, int rounds) {
  const auto& loops = hardsigmoid_ops::cpu::selected_row_loops().get<scalar_t>();
  for (int log2 = 12; log2 <= 22; log2 += 2) {
    const int64_t n = int64_t{1} << log2;
    const at::Tensor x = at::empty({n}, at::TensorOptions().dtype(dtype)).uniform_(-4, 4);
    at::Tensor y = at::zeros_like(x);
    const scalar_t* in = x.const_data_ptr<scalar_t>();
    scalar_t* out = y.mutable_data_ptr<scalar_t>();
    const int calls = static_cast<int>(std::max<int64_t>(1, (int64_t{1} << 24) / n));
    std::vector<std::vector<double>> samples(std::size(kGrains));
    for (int round = 0; round < rounds; ++round) {
      for (size_t g = 0; g < std::size(kGrains); ++g) {
        const auto start = std::chrono::steady_clock::now();
        for (int c = 0; c < calls; ++c) {
          at::parallel_for(0, n, kGrains[g], [&](int64_t begin, int64_t end) {
            loops.forward(in + begin, 1, out + begin, 1, end - begin);
          });
        }
        samples[g].push_back(
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
                .count() /
            calls);
      }
    }
    std::printf("%s 2^%d:", c10::toString(dtype), log2);
    double reference = 0;
    std::vector<double> medians;
    for (size_t g = 0; g < std::size(kGrains); ++g) {
      std::sort(samples[g].begin(), samples[g].end());
      medians.push_back(samples[g][samples[g].size() / 2]);
      if (kGrains[g] == at::internal::GRAIN_SIZE) reference = medians.back();
    }
    for (size_t g = 0; g < std::size(kGrains); ++g) {
      std::printf("  grain %lld %.2f us (%.3f)", static_cast<long long>(kGrains[g]), medians[g],
                  reference / medians[g]);
    }
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  at::set_num_threads(argc > 1 ? std::atoi(argv[1]) : 2);
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 15;
  std::printf("threads %d; in parentheses: time with grain %lld over the time with that grain\n",
              at::get_num_threads(), static_cast<long long>(at::internal::GRAIN_SIZE));
  sweep<float>(at::kFloat, rounds);
  sweep<c10::BFloat16>(at::kBFloat16, rounds);
  return 0;
}
