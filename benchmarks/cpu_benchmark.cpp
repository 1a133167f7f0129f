// CPU throughput of hardsigmoid_ops against aten's hardsigmoid in one binary, with std::memcpy
// of the same bytes as the bandwidth ceiling: float32, bfloat16, float16, float64; 2^10 to 2^26
// elements; 1 and 2 threads; contiguous and step-2 inputs; the functional, in-place, out and
// backward ops (cpu_benchmark_cases.h names the cases).
//
// Before its first timing, each case compares ours with aten bit for bit; a difference (or an
// error thrown by either) fails the benchmark, and the program then exits with status 1.
//
//   cpu_benchmark --benchmark_repetitions=5 --benchmark_display_aggregates_only=true
//     --benchmark_filter='^float32/forward/' --benchmark_out=cpu.json --benchmark_out_format=json
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <benchmark/benchmark.h>
#include <c10/util/Exception.h>
#include <torch/version.h>

#include <cstring>
#include <exception>
#include <limits>
#include <map>
#include <string>

#include "benchmarks/cpu_benchmark_cases.h"
#include "benchmarks/cpu_benchmark_inputs.h"
#include "ops/hardsigmoid.h"

namespace hardsigmoid_ops::bench {
namespace {

// Set when any case fails its check: Google Benchmark itself exits 0 after a skipped benchmark,
// and the CTest smoke run must fail.
bool any_failure = false;

// The tensor's bits as integers, so that comparing them compares NaNs and signed zeros too.
at::Tensor bits(const at::Tensor& t) {
  switch (c10::elementSize(t.scalar_type())) {
    case 2:
      return t.view(at::kShort);
    case 4:
      return t.view(at::kInt);
    default:
      return t.view(at::kLong);
  }
}

// An empty string when the two are bit for bit equal, else what differs.
std::string compare_bits(const at::Tensor& ours, const at::Tensor& reference) {
  if (ours.sizes() != reference.sizes() || ours.scalar_type() != reference.scalar_type()) {
    return "shape or dtype differs from aten's";
  }
  if (at::equal(bits(ours), bits(reference))) {
    return "";
  }
  const int64_t differing = bits(ours).ne(bits(reference)).sum().item<int64_t>();
  return std::to_string(differing) + " of " + std::to_string(ours.numel()) +
         " elements differ from aten's";
}

// One call of ours and one of aten's on the same input, compared.
std::string check_against_aten(const Case& c, const Inputs& in) {
  switch (c.variant) {
    case Variant::kForward:
      return compare_bits(hardsigmoid_ops::hardsigmoid(in.self), at::hardsigmoid(in.self));
    case Variant::kInplace: {
      at::Tensor scratch = in.scratch;
      scratch.copy_(in.self);
      const at::Tensor ours = hardsigmoid_ops::hardsigmoid_(scratch).clone();
      scratch.copy_(in.self);
      return compare_bits(ours, at::hardsigmoid_(scratch));
    }
    case Variant::kOut: {
      // NaN first, so that an element left unwritten shows.
      const double nan = std::numeric_limits<double>::quiet_NaN();
      at::Tensor out = in.out;
      out.fill_(nan);
      const at::Tensor ours = hardsigmoid_ops::hardsigmoid_out(in.self, out).clone();
      out.fill_(nan);
      return compare_bits(ours, at::hardsigmoid_out(out, in.self));
    }
    case Variant::kBackward:
      return compare_bits(hardsigmoid_ops::hardsigmoid_backward(in.grad, in.self),
                          at::hardsigmoid_backward(in.grad, in.self));
    case Variant::kCopy:
      break;
  }
  return "no aten counterpart";
}

// std::memcpy of self's bytes into out: one call on one thread, one a chunk on more (chunks of
// aten's pointwise grain, as ours and aten split their work).
void parallel_memcpy(const at::Tensor& src, const at::Tensor& dst) {
  const char* from = static_cast<const char*>(src.const_data_ptr());
  char* to = static_cast<char*>(dst.mutable_data_ptr());
  const int64_t element = static_cast<int64_t>(src.element_size());
  at::parallel_for(0, src.numel(), at::internal::GRAIN_SIZE, [&](int64_t begin, int64_t end) {
    std::memcpy(to + begin * element, from + begin * element, (end - begin) * element);
  });
}

std::string check_memcpy(const Inputs& in) {
  parallel_memcpy(in.self, in.out);
  return at::equal(bits(in.out), bits(in.self)) ? "" : "memcpy's copy differs from its source";
}

// The check's result per case (without the implementation), so that it runs once per case
// however often Google Benchmark calls the function.
const std::string& checked(const Case& c, const Inputs& in) {
  static std::map<std::string, std::string> results;
  const std::string key = case_key(c);
  auto found = results.find(key);
  if (found == results.end()) {
    std::string result;
    try {
      result = c.impl == Impl::kMemcpy ? check_memcpy(in) : check_against_aten(c, in);
    } catch (const c10::Error& e) {
      result = e.what_without_backtrace();
    } catch (const std::exception& e) {
      result = e.what();
    }
    found = results.emplace(key, result).first;
  }
  return found->second;
}

template <typename Call>
void time_calls(benchmark::State& state, Call&& call) {
  for (auto _ : state) {
    call();
    benchmark::ClobberMemory();
  }
}

// Ours and aten's calls get loops of their own, so that neither pays for the choice between them
// or for a conversion of its result to the other's return type.
template <typename Ours, typename Aten>
void time_either(benchmark::State& state, bool ours, Ours&& ours_call, Aten&& aten_call) {
  if (ours) {
    time_calls(state, ours_call);
  } else {
    time_calls(state, aten_call);
  }
}

void run_case(benchmark::State& state, const Case& c) {
  at::set_num_threads(c.threads);
  const Inputs& in = inputs_for(c);
  const std::string& failure = checked(c, in);
  if (!failure.empty()) {
    any_failure = true;
    state.SkipWithError(failure.c_str());
    return;
  }
  const bool ours = c.impl == Impl::kOurs;
  at::Tensor out = in.out;
  at::Tensor scratch = in.scratch;
  switch (c.variant) {
    case Variant::kForward:
      time_either(
          state, ours, [&] { benchmark::DoNotOptimize(hardsigmoid_ops::hardsigmoid(in.self)); },
          [&] { benchmark::DoNotOptimize(at::hardsigmoid(in.self)); });
      break;
    case Variant::kInplace:
      // Each call rewrites the previous result, in [0, 1] after the first: the loops of both
      // implementations are branch-free, so their speed does not depend on the values.
      time_either(
          state, ours, [&] { hardsigmoid_ops::hardsigmoid_(scratch); },
          [&] { at::hardsigmoid_(scratch); });
      break;
    case Variant::kOut:
      time_either(
          state, ours, [&] { hardsigmoid_ops::hardsigmoid_out(in.self, out); },
          [&] { at::hardsigmoid_out(out, in.self); });
      break;
    case Variant::kBackward:
      time_either(
          state, ours,
          [&] {
            benchmark::DoNotOptimize(hardsigmoid_ops::hardsigmoid_backward(in.grad, in.self));
          },
          [&] { benchmark::DoNotOptimize(at::hardsigmoid_backward(in.grad, in.self)); });
      break;
    case Variant::kCopy:
      time_calls(state, [&] { parallel_memcpy(in.self, in.out); });
      break;
  }
  state.SetBytesProcessed(state.iterations() * bytes_moved(c));
  state.SetLabel(label(c));
  state.counters["elements"] = static_cast<double>(c.numel());
  state.counters["at_threads"] = c.threads;
}

}  // namespace
}  // namespace hardsigmoid_ops::bench

int main(int argc, char** argv) {
  using namespace hardsigmoid_ops::bench;
  at::manual_seed(0);
  benchmark::AddCustomContext("torch_version", TORCH_VERSION);
  benchmark::AddCustomContext("aten_cpu_capability", at::get_cpu_capability());
  for (const Case& c : all_cases()) {
    // Real time: the work runs on OpenMP threads whose CPU time the main thread's clock misses,
    // and the byte rates are computed from the time chosen here.
    benchmark::RegisterBenchmark(benchmark_name(c).c_str(),
                                 [c](benchmark::State& state) { run_case(state, c); })
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
    return 1;
  }
  const size_t ran = benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  // A filter matching nothing is a mistake in the command line, not a pass.
  return ran == 0 || any_failure ? 1 : 0;
}
