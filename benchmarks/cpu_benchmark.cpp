// CPU throughput of hardsigmoid_ops against aten's hardsigmoid in one binary, with std::memcpy
// of the same bytes as the bandwidth ceiling: float32, bfloat16, float16, float64; 2^10 to 2^26
// elements; 1 and 2 threads; contiguous and step-2 inputs; the functional, in-place, out and
// backward ops. Then per-tensor quantized quint8, qint8, qint32: 2^14 to 2^24 elements, 1 and 2
// threads, contiguous, the functional and in-place ops (cpu_benchmark_cases.h names the cases).
//
// One benchmark per case times ours and aten's in turns (time_in_turns below) and reports, per
// repetition, counters ours_bytes_per_s, aten_bytes_per_s and ours_over_aten (aten's time over
// ours in that repetition); a copy case reports memcpy_bytes_per_s. Taking turns within each
// repetition pairs the two under the same state of the machine: the ratio then varies far less
// between repetitions than either time does on a shared virtual machine.
//
// Before its first timing, each case compares ours with aten bit for bit (a quantized result:
// its codes, scale and zero point); a difference (or an error thrown by either) fails the
// benchmark, and the program then exits with status 1.
//
//   cpu_benchmark --benchmark_repetitions=11 --benchmark_display_aggregates_only=true
//     --benchmark_filter='^float32/forward/' --benchmark_out=cpu.json --benchmark_out_format=json
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <benchmark/benchmark.h>
#include <c10/util/Exception.h>
#include <torch/version.h>

#include <sys/resource.h>
#include <algorithm>
#include <chrono>
#include <cstdlib>
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

// The tensor's bits as integers, so that comparing them compares NaNs and signed zeros too; a
// quantized tensor's are its codes.
at::Tensor bits(const at::Tensor& t) {
  if (t.is_quantized()) {
    return t.int_repr();
  }
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
  // Equal codes mean other values under another scale or zero point.
  if (ours.is_quantized() &&
      (ours.q_scale() != reference.q_scale() || ours.q_zero_point() != reference.q_zero_point())) {
    return "scale or zero point differs from aten's";
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
      // copy_ restores a quantized scratch's scale and zero point too, which the op replaced.
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

// The check's result per case, so that it runs once per case however often Google Benchmark
// calls the function (once per repetition, and more to choose the iteration count).
const std::string& checked(const Case& c, const Inputs& in) {
  static std::map<std::string, std::string> results;
  const std::string key = benchmark_name(c);
  auto found = results.find(key);
  if (found == results.end()) {
    std::string result;
    try {
      result = c.variant == Variant::kCopy ? check_memcpy(in) : check_against_aten(c, in);
    } catch (const c10::Error& e) {
      result = e.what_without_backtrace();
    } catch (const std::exception& e) {
      result = e.what();
    }
    found = results.emplace(key, result).first;
  }
  return found->second;
}

using Clock = std::chrono::steady_clock;

// Calls in one turn: from 2^16 elements one; below, enough that a turn lasts some tens of
// microseconds, so that the two clock reads around it are a small part of it.
int64_t calls_per_turn(const Case& c) {
  return std::max<int64_t>(1, (int64_t{1} << 16) >> c.log2n);
}

// Page faults of the process so far (minor: pages mapped on first touch). A fresh output above
// malloc's mmap threshold faults in every page of it, which costs more than the op itself; whether
// a call gets such memory depends on the allocations before it, so the benchmark counts them.
int64_t page_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

struct Turn {
  double seconds = 0;
  int64_t faults = 0;
};

template <typename Call>
Turn timed_turn(int64_t calls, Call& call) {
  const int64_t faults_before = page_faults();
  const Clock::time_point start = Clock::now();
  for (int64_t i = 0; i < calls; ++i) {
    call();
    benchmark::ClobberMemory();
  }
  const Clock::time_point end = Clock::now();
  return {std::chrono::duration<double>(end - start).count(), page_faults() - faults_before};
}

// Which of the two goes first in the next turn: it alternates over every turn of the run (a
// repetition of the largest sizes is one turn), so that neither always finds the caches as the
// other left them.
bool ours_first = true;

// Ours and aten's calls in turns: each iteration times a turn of ours and a turn of aten's. The
// manual time Google Benchmark sees is the two together; the counters split it.
template <typename Ours, typename Aten>
void time_in_turns(benchmark::State& state, const Case& c, Ours&& ours, Aten&& aten) {
  const int64_t calls = calls_per_turn(c);
  Turn ours_total;
  Turn aten_total;
  for (auto _ : state) {
    Turn ours_turn;
    Turn aten_turn;
    if (ours_first) {
      ours_turn = timed_turn(calls, ours);
      aten_turn = timed_turn(calls, aten);
    } else {
      aten_turn = timed_turn(calls, aten);
      ours_turn = timed_turn(calls, ours);
    }
    ours_first = !ours_first;
    ours_total.seconds += ours_turn.seconds;
    ours_total.faults += ours_turn.faults;
    aten_total.seconds += aten_turn.seconds;
    aten_total.faults += aten_turn.faults;
    state.SetIterationTime(ours_turn.seconds + aten_turn.seconds);
  }
  const double total_calls = static_cast<double>(state.iterations()) * static_cast<double>(calls);
  const double bytes = total_calls * static_cast<double>(bytes_moved(c));
  state.counters["ours_bytes_per_s"] = bytes / ours_total.seconds;
  state.counters["aten_bytes_per_s"] = bytes / aten_total.seconds;
  state.counters["ours_over_aten"] = aten_total.seconds / ours_total.seconds;
  state.counters["ours_faults_per_call"] = static_cast<double>(ours_total.faults) / total_calls;
  state.counters["aten_faults_per_call"] = static_cast<double>(aten_total.faults) / total_calls;
}

void time_memcpy(benchmark::State& state, const Case& c, const Inputs& in) {
  const int64_t calls = calls_per_turn(c);
  auto copy = [&] { parallel_memcpy(in.self, in.out); };
  double seconds = 0;
  for (auto _ : state) {
    const double turn = timed_turn(calls, copy).seconds;
    seconds += turn;
    state.SetIterationTime(turn);
  }
  state.counters["memcpy_bytes_per_s"] = static_cast<double>(state.iterations()) *
                                         static_cast<double>(calls) *
                                         static_cast<double>(bytes_moved(c)) / seconds;
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
  at::Tensor out = in.out;
  at::Tensor scratch = in.scratch;
  switch (c.variant) {
    case Variant::kForward:
      time_in_turns(
          state, c, [&] { benchmark::DoNotOptimize(hardsigmoid_ops::hardsigmoid(in.self)); },
          [&] { benchmark::DoNotOptimize(at::hardsigmoid(in.self)); });
      break;
    case Variant::kInplace:
      // Each call rewrites the previous result, in [0, 1] after the first: the loops of both
      // implementations are branch-free, so their speed does not depend on the values. A
      // quantized scratch has the output's scale and zero point after the first call, for ours
      // and aten's alike. qint32 is the exception to the speed: its output scale, 2^-32, caps
      // the output at 0.5, so after the second call every code is the largest, and aten's
      // qint32 arithmetic (which ours shares) runs some four times faster on such codes than on
      // varied ones: its in-place throughput is that of a constant input.
      time_in_turns(
          state, c, [&] { hardsigmoid_ops::hardsigmoid_(scratch); },
          [&] { at::hardsigmoid_(scratch); });
      break;
    case Variant::kOut:
      time_in_turns(
          state, c, [&] { hardsigmoid_ops::hardsigmoid_out(in.self, out); },
          [&] { at::hardsigmoid_out(out, in.self); });
      break;
    case Variant::kBackward:
      time_in_turns(
          state, c,
          [&] {
            benchmark::DoNotOptimize(hardsigmoid_ops::hardsigmoid_backward(in.grad, in.self));
          },
          [&] { benchmark::DoNotOptimize(at::hardsigmoid_backward(in.grad, in.self)); });
      break;
    case Variant::kCopy:
      time_memcpy(state, c, in);
      break;
  }
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
  // The 8-bit quantized table's lookup, where a run names one (else the processor's fastest).
  const char* byte_lookup = std::getenv("HARDSIGMOID_OPS_BYTE_LOOKUP");
  benchmark::AddCustomContext("byte_lookup", byte_lookup && *byte_lookup ? byte_lookup : "fastest");
  for (const Case& c : all_cases()) {
    // Manual time, from the wall clock: the work runs on OpenMP threads whose CPU time the main
    // thread's clock misses.
    benchmark::RegisterBenchmark(benchmark_name(c).c_str(),
                                 [c](benchmark::State& state) { run_case(state, c); })
        ->UseManualTime()
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
