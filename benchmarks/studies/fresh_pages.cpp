// The measurement behind the fresh-output rule (ops/cpu/fresh_pages.h): the allocating call (a
// new output, then the library's kernel on it) under each way of mapping its pages, beside the
// same kernel into an output written before (out=, the floor) and aten's allocating call, for
// float32 and bfloat16 forward, float32 backward and quint8 (the byte table), over sizes and
// thread counts; and the pages alone (mapped, not written: the kernel's zeroing) beside
// empty_like(x).fill_(0). Each way is forced on the calling thread (ForcedFreshPages); "rule" is
// what the library chooses on this system. Prints CSV: dtype, op, log2 elements, threads, way,
// median milliseconds, and the median over out='s. Rounds take the ways in turns, so that drift
// touches every way alike; each call's output is freed before the next, as a model's would be.
// malloc's mmap threshold is fixed at 128 KiB, so that every output is a fresh mapping: by default
// malloc raises it with each large block freed (up to 32 MiB), and then below 32 MiB a loop reuses
// one block, already mapped, whose calls cost the same under every way (out='s). Usage: fresh_pages
// [threads,...] [rounds] [log2 sizes, e.g. 20,22,24,26]
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "ops/cpu/fresh_pages.h"
#include "ops/cpu/hardsigmoid_cpu.h"
#include "ops/cpu/quantized/hardsigmoid_quantized.h"

namespace {

using hardsigmoid_ops::cpu::ForcedFreshPages;
using hardsigmoid_ops::cpu::FreshPagePlan;

constexpr size_t kWhole = size_t{1} << 50;  // a piece larger than any output: the whole range

struct Way {
  const char* name;
  std::optional<FreshPagePlan> plan;  // none: the library's rule
};
const Way kWays[] = {
    {"fault", FreshPagePlan{false, 0}},
    {"populate-whole", FreshPagePlan{false, kWhole}},
    {"populate-256K", FreshPagePlan{false, size_t{256} << 10}},
    {"populate-2M", FreshPagePlan{false, size_t{2} << 20}},
    {"huge-fault", FreshPagePlan{true, 0}},
    {"huge-populate-whole", FreshPagePlan{true, kWhole}},
    {"huge-populate-2M", FreshPagePlan{true, size_t{2} << 20}},
    {"rule", std::nullopt},
};

struct Case {
  const char* dtype;
  const char* op;
  std::function<at::Tensor()> allocating;  // ours: a new output
  std::function<void()> out;               // ours into an output written before
  std::function<at::Tensor()> aten;
};

std::vector<int> parse_list(const char* text, std::vector<int> fallback) {
  if (text == nullptr) return fallback;
  std::vector<int> values;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) values.push_back(std::atoi(item.c_str()));
  return values;
}

double milliseconds_of(const std::function<void()>& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

double median(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

void measure(const Case& c, int log2, int threads, int rounds) {
  const size_t ways = std::size(kWays);
  std::vector<std::vector<double>> samples(ways + 2);  // the ways, then out= and aten
  for (int round = 0; round < rounds; ++round) {
    for (size_t w = 0; w < ways; ++w) {
      std::optional<ForcedFreshPages> forced;
      if (kWays[w].plan) forced.emplace(*kWays[w].plan);
      samples[w].push_back(milliseconds_of([&] { (void)c.allocating(); }));
    }
    samples[ways].push_back(milliseconds_of(c.out));
    samples[ways + 1].push_back(milliseconds_of([&] { (void)c.aten(); }));
  }
  const double floor = median(samples[ways]);
  auto row = [&](const char* way, double ms) {
    std::printf("%s,%s,%d,%d,%s,%.3f,%.3f\n", c.dtype, c.op, log2, threads, way, ms, ms / floor);
  };
  for (size_t w = 0; w < ways; ++w) row(kWays[w].name, median(samples[w]));
  row("out", floor);
  row("aten", median(samples[ways + 1]));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  mallopt(M_MMAP_THRESHOLD, 128 << 10);
  const std::vector<int> thread_counts = parse_list(argc > 1 ? argv[1] : nullptr, {1, 2});
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 7;
  const std::vector<int> sizes = parse_list(argc > 3 ? argv[3] : nullptr, {20, 22, 24, 26});
  const auto& system = hardsigmoid_ops::cpu::this_page_system();
  std::printf(
      "# page %zu B, huge page %zu B, huge pages mode %d (0 unavailable, 1 never, "
      "2 on request, 3 always), MADV_POPULATE_WRITE %s\n",
      system.page_bytes, system.huge_page_bytes, static_cast<int>(system.huge_pages),
      system.can_populate ? "yes" : "no");
  std::printf("dtype,op,log2,threads,way,ms,over_out\n");
  for (const int log2 : sizes) {
    const int64_t n = int64_t{1} << log2;
    const at::Tensor x = at::empty({n}).uniform_(-4, 4);
    const at::Tensor grad = at::empty({n}).uniform_(-1, 1);
    const at::Tensor xb = x.to(at::kBFloat16);
    const at::Tensor q = at::quantize_per_tensor(x, 0.05, 128, at::kQUInt8);
    at::Tensor out = at::empty_like(x).fill_(0);
    at::Tensor outb = at::empty_like(xb).fill_(0);
    at::Tensor outq = hardsigmoid_ops::cpu::hardsigmoid_quantized(q);
    using namespace hardsigmoid_ops::cpu;
    const Case cases[] = {
        {"float32", "forward",
         [&] {
           at::Tensor y = at::empty_like(x);
           hardsigmoid_kernel(x, y);
           return y;
         },
         [&] { hardsigmoid_kernel(x, out); }, [&] { return at::hardsigmoid(x); }},
        {"bfloat16", "forward",
         [&] {
           at::Tensor y = at::empty_like(xb);
           hardsigmoid_kernel(xb, y);
           return y;
         },
         [&] { hardsigmoid_kernel(xb, outb); }, [&] { return at::hardsigmoid(xb); }},
        {"float32", "backward",
         [&] {
           at::Tensor y = at::empty_like(x);
           hardsigmoid_backward_kernel(grad, x, y);
           return y;
         },
         [&] { hardsigmoid_backward_kernel(grad, x, out); },
         [&] { return at::hardsigmoid_backward(grad, x); }},
        {"quint8", "forward", [&] { return hardsigmoid_quantized(q); },
         [&] { quantized_forward(q, outq); }, [&] { return at::hardsigmoid(q); }},
        // The pages alone: a float32 output mapped by each way and not written (the kernel's
        // zeroing, what the allocating call adds to out='s), beside float32 out= and, as "aten",
        // empty_like(x).fill_(0).
        {"float32", "pages",
         [&] {
           at::Tensor y = at::empty_like(x);
           const FreshOutput fresh(y.data_ptr(), n, 4, at::get_num_threads());
           at::parallel_for(0, n, at::internal::GRAIN_SIZE, [&](int64_t begin, int64_t end) {
             fresh.write(begin, end, 64, [](int64_t, int64_t) {});
           });
           return y;
         },
         [&] { hardsigmoid_kernel(x, out); }, [&] { return at::empty_like(x).fill_(0); }},
    };
    for (const int threads : thread_counts) {
      at::set_num_threads(threads);
      for (const Case& c : cases) measure(c, log2, threads, rounds);
    }
  }
  return 0;
}
