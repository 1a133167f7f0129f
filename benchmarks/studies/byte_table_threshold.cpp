// The measurement behind the 8-bit quantized op's table thresholds
// (ops/cpu/quantized/byte_lookup_choice.cpp's table_from_elements): from how many elements building
// the two 256-entry tables of aten's results, comparing them and applying the table with each byte
// lookup this processor runs beats aten's arithmetic (the library's own copy of it, as the op runs
// it), on one thread, into a preallocated output, QUInt8 and QInt8 with codes over [-4, 4], 2^8 to
// 2^16 elements. Prints the median time of each lookup's table path over the arithmetic's: below 1,
// the table wins. Rounds take the paths in turns, so that drift touches each alike. Run it again
// with ATEN_CPU_CAPABILITY=default for a processor whose aten arithmetic is DEFAULT's. Usage:
// byte_table_threshold [rounds]
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "ops/cpu/capability_choice.h"
#include "ops/cpu/quantized/byte_table.h"
#include "ops/cpu/quantized/hardsigmoid_quantized.h"
#include "ops/cpu/quantized/quantized_loops.h"

namespace cpu = hardsigmoid_ops::cpu;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void sweep(at::ScalarType dtype, int rounds) {
  std::vector<cpu::ByteLookup> lookups;
  for (const cpu::ByteLookup lookup : cpu::kByteLookups) {
    if (cpu::can_run(lookup)) lookups.push_back(lookup);
  }
  std::printf("%s, aten's capability %s: table path time / arithmetic time\n%8s",
              c10::toString(dtype), at::get_cpu_capability().c_str(), "elements");
  for (const cpu::ByteLookup lookup : lookups) {
    std::printf(" %8s", cpu::byte_lookup_name(lookup).c_str());
  }
  std::printf(" %14s\n", "arithmetic ns");
  const double scale = 8.0 / 255;
  const int64_t zero_point = dtype == at::kQUInt8 ? 128 : 0;
  for (int log2 = 8; log2 <= 16; ++log2) {
    const int64_t n = int64_t{1} << log2;
    const at::Tensor self =
        at::quantize_per_tensor(at::empty({n}).uniform_(-4, 4), scale, zero_point, dtype);
    const cpu::OutputQuantization q = cpu::output_quantization(dtype);
    at::Tensor out = at::_empty_affine_quantized({n}, self.options(), q.scale, q.zero_point);
    std::vector<std::function<void()>> paths;
    paths.push_back([&] { cpu::selected_quantized_loops().forward(self, out); });
    for (const cpu::ByteLookup lookup : lookups) {
      paths.push_back([&, lookup] {
        // What quantized_forward does above the threshold: both tables, compared, applied.
        if (const auto table = cpu::agreeing_quantized_table(cpu::selected_quantized_loops(), dtype,
                                                             scale, zero_point)) {
          cpu::apply_byte_table(*table, self, out, lookup);
        }
      });
    }
    const int calls = static_cast<int>(std::max<int64_t>(16, (int64_t{1} << 22) / n / 16));
    std::vector<std::vector<double>> samples(paths.size());
    for (int round = 0; round < rounds; ++round) {
      for (size_t p = 0; p < paths.size(); ++p) {
        const auto start = std::chrono::steady_clock::now();
        for (int c = 0; c < calls; ++c) paths[p]();
        const std::chrono::duration<double, std::nano> took =
            std::chrono::steady_clock::now() - start;
        samples[p].push_back(took.count() / calls);
      }
    }
    const double arithmetic = median(samples[0]);
    std::printf("%8lld", static_cast<long long>(n));
    for (size_t p = 1; p < paths.size(); ++p)
      std::printf(" %8.3f", median(samples[p]) / arithmetic);
    std::printf(" %14.0f\n", arithmetic);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 21;
  at::set_num_threads(1);
  sweep(at::kQUInt8, rounds);
  sweep(at::kQInt8, rounds);
  return 0;
}
