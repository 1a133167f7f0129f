// A new output's pages (ops/cpu/fresh_pages.h): the rule on every kind of system; which memory
// counts as fresh; the calls each path makes (huge pages asked for, pieces mapped), and none
// where the system refuses, below the threshold or over memory written before; huge pages in the
// output where this system grants them (read back from /proc/self/smaps); and, under every way
// of mapping the pages and several thread counts, results bit-for-bit aten's, forward, backward
// and the 8-bit quantized table. Outputs are fresh anonymous mappings of the test's own, so that
// no allocator's history decides what is fresh.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/quantized/Quantizer.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ops/cpu/fresh_pages.h"
#include "ops/cpu/hardsigmoid_cpu.h"
#include "ops/cpu/quantized/hardsigmoid_quantized.h"
#include "test_support.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace hardsigmoid_test {
namespace {

namespace cpu = hardsigmoid_ops::cpu;

constexpr size_t kMiB = size_t{1} << 20;

// Fresh anonymous memory, never written, unmapped at the end of the scope; viewed as a 1-D tensor.
class FreshMapping {
 public:
  explicit FreshMapping(size_t bytes) : bytes_(bytes) {
#if defined(__linux__)
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    data_ = p == MAP_FAILED ? nullptr : p;
#endif
  }
  ~FreshMapping() {
#if defined(__linux__)
    if (data_ != nullptr) munmap(data_, bytes_);
#endif
  }
  FreshMapping(const FreshMapping&) = delete;
  FreshMapping& operator=(const FreshMapping&) = delete;

  bool ok() const { return data_ != nullptr; }
  void* data() const { return data_; }
  at::Tensor tensor(at::ScalarType dtype) const {
    const int64_t n = static_cast<int64_t>(bytes_ / c10::elementSize(dtype));
    return at::from_blob(data_, {n}, at::TensorOptions().dtype(dtype));
  }

 private:
  size_t bytes_;
  void* data_ = nullptr;
};

// The kilobytes of huge pages in the mappings of [begin, begin + bytes), from /proc/self/smaps.
int64_t anon_huge_kib(const void* begin, size_t bytes) {
  std::ifstream smaps("/proc/self/smaps");
  const uintptr_t lo = reinterpret_cast<uintptr_t>(begin);
  const uintptr_t hi = lo + bytes;
  bool inside = false;
  int64_t kib = 0;
  for (std::string line; std::getline(smaps, line);) {
    std::istringstream fields(line);
    std::string first;
    fields >> first;
    const size_t dash = first.find('-');
    if (dash != std::string::npos && first.back() != ':') {
      const uintptr_t start = std::stoull(first.substr(0, dash), nullptr, 16);
      const uintptr_t end = std::stoull(first.substr(dash + 1), nullptr, 16);
      inside = start < hi && lo < end;
    } else if (inside && first == "AnonHugePages:") {
      int64_t value = 0;
      fields >> value;
      kib += value;
    }
  }
  return kib;
}

// Whether huge pages come here when asked for: the system's mode allows them, and a mapping of
// the test's own, asked and written, holds some (an emulator may accept the request and ignore
// it; a host may have none free).
bool grants_huge_pages() {
  const cpu::HugePages mode = cpu::this_page_system().huge_pages;
  if (mode != cpu::HugePages::kOnRequest && mode != cpu::HugePages::kAlways) return false;
#if defined(__linux__)
  const FreshMapping probe(8 * kMiB);
  if (!probe.ok()) return false;
  madvise(probe.data(), 8 * kMiB, MADV_HUGEPAGE);
  std::memset(probe.data(), 1, 8 * kMiB);
  return anon_huge_kib(probe.data(), 8 * kMiB) > 0;
#else
  return false;
#endif
}

// The bytes of a case's output sized for the page system: `native`, or under an emulator
// (under_emulator) 4 MiB, or 1 MiB a thread where that is more. There the cases prove bits and
// the library's calls, not the pages themselves (under qemu-user every mapping call is the host's
// kernel's), and at their native sizes they took some 900 s of the SVE256 GoogleTest run (the 64
// MiB quantized table alone 375 s). 4 MiB is the rule's threshold, and 1 MiB a thread keeps each
// thread's share at the rule's thresholds for huge pages (two in all, 512 KiB a thread) and for
// 4 KiB pieces (1 MiB a thread), so that each path still makes its calls.
size_t case_bytes(size_t native) {
  if (!under_emulator()) return native;
  return std::min(native, std::max(4 * kMiB, static_cast<size_t>(at::get_num_threads()) * kMiB));
}

int64_t calls_since(const cpu::FreshPageCalls& before, bool huge) {
  const cpu::FreshPageCalls now = cpu::fresh_page_calls();
  return huge ? now.huge_page_requests - before.huge_page_requests
              : now.pieces_mapped - before.pieces_mapped;
}

// ---- the rule ----------------------------------------------------------------------------------

cpu::PageSystem system_of(cpu::HugePages huge_pages, bool can_populate) {
  cpu::PageSystem system;
  system.page_bytes = 4096;
  system.huge_page_bytes = huge_pages == cpu::HugePages::kUnavailable ? 0 : 2 * kMiB;
  system.huge_pages = huge_pages;
  system.can_populate = can_populate;
  return system;
}

TEST(FreshPages, RuleCallsNothingBelowItsThreshold) {
  for (const auto mode : {cpu::HugePages::kUnavailable, cpu::HugePages::kNever,
                          cpu::HugePages::kOnRequest, cpu::HugePages::kAlways}) {
    for (const bool populate : {false, true}) {
      EXPECT_EQ(cpu::plan_fresh_pages(4 * kMiB - 1, 1, system_of(mode, populate)),
                cpu::FreshPagePlan{});
    }
  }
}

TEST(FreshPages, RuleFollowsWhatTheSystemOffers) {
  const size_t bytes = 64 * kMiB;
  using cpu::HugePages;
  for (const int threads : {1, 16}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    // Huge pages on request: asked for, and mapped a huge page at a time where the kernel maps.
    EXPECT_EQ(cpu::plan_fresh_pages(bytes, threads, system_of(HugePages::kOnRequest, true)),
              (cpu::FreshPagePlan{true, 2 * kMiB}));
    EXPECT_EQ(cpu::plan_fresh_pages(bytes, threads, system_of(HugePages::kOnRequest, false)),
              (cpu::FreshPagePlan{true, 0}));
    // Huge pages for every mapping: nothing to ask, the pieces still a huge page.
    EXPECT_EQ(cpu::plan_fresh_pages(bytes, threads, system_of(HugePages::kAlways, true)),
              (cpu::FreshPagePlan{false, 2 * kMiB}));
    // Refused or absent: 4 KiB pages, mapped in smaller pieces where the kernel maps at all.
    for (const auto mode : {HugePages::kNever, HugePages::kUnavailable}) {
      EXPECT_EQ(cpu::plan_fresh_pages(bytes, threads, system_of(mode, true)),
                (cpu::FreshPagePlan{false, 256 << 10}));
      EXPECT_EQ(cpu::plan_fresh_pages(bytes, threads, system_of(mode, false)),
                cpu::FreshPagePlan{});
    }
  }
}

TEST(FreshPages, RuleWeighsEachThreadsShare) {
  using cpu::HugePages;
  const cpu::PageSystem on_request = system_of(HugePages::kOnRequest, true);
  const cpu::PageSystem never = system_of(HugePages::kNever, true);
  // Huge pages from two of them in all, and 512 KiB a thread.
  EXPECT_EQ(cpu::plan_fresh_pages(4 * kMiB, 8, on_request), (cpu::FreshPagePlan{true, 2 * kMiB}));
  EXPECT_EQ(cpu::plan_fresh_pages(4 * kMiB, 16, on_request), cpu::FreshPagePlan{});
  // 4 KiB pages mapped first from 1 MiB a thread.
  EXPECT_EQ(cpu::plan_fresh_pages(4 * kMiB, 4, never), (cpu::FreshPagePlan{false, 256 << 10}));
  EXPECT_EQ(cpu::plan_fresh_pages(4 * kMiB, 8, never), cpu::FreshPagePlan{});
  EXPECT_EQ(cpu::plan_fresh_pages(16 * kMiB, 16, never), (cpu::FreshPagePlan{false, 256 << 10}));
  EXPECT_EQ(cpu::plan_fresh_pages(8 * kMiB, 16, never), cpu::FreshPagePlan{});
}

// ---- fresh memory, and the calls made ----------------------------------------------------------

TEST(FreshPages, FreshMemoryTakesTheRulesPlanAndWrittenMemoryNone) {
  const FreshMapping fresh(64 * kMiB);
  ASSERT_TRUE(fresh.ok());
  const cpu::FreshPagePlan rule = cpu::plan_fresh_pages(64 * kMiB, 1, cpu::this_page_system());
  if (rule == cpu::FreshPagePlan{}) {
    GTEST_SKIP() << "this system offers neither huge pages nor MADV_POPULATE_WRITE";
  }
  // The first byte is not page-aligned, as malloc's blocks are not: its page is not the one asked.
  const cpu::FreshOutput output(static_cast<char*>(fresh.data()) + 64, (64 * kMiB - 64) / 4, 4, 1);
  EXPECT_TRUE(output.fresh());
  EXPECT_EQ(output.plan(), rule);

  at::Tensor written = fresh.tensor(at::kFloat);
  written.fill_(1);
  const cpu::FreshOutput again(fresh.data(), written.numel(), 4, 1);
  EXPECT_FALSE(again.fresh());
}

TEST(FreshPages, EachPathMakesItsCallsAndARefusingSystemNone) {
  HARDSIGMOID_SEED_THIS_TEST();
  const size_t bytes = case_bytes(64 * kMiB);
  const at::Tensor x = random_values({static_cast<int64_t>(bytes / 4)}, at::kFloat);
  const at::Tensor expected = at::hardsigmoid(x);
  struct Path {
    const char* name;
    cpu::PageSystem system;
    bool huge_requests;
    bool pieces;
  };
  const Path paths[] = {
      {"huge pages on request", system_of(cpu::HugePages::kOnRequest, true), true, true},
      {"huge pages always", system_of(cpu::HugePages::kAlways, true), false, true},
      {"4 KiB pages", system_of(cpu::HugePages::kNever, true), false, true},
      {"refused: THP never, no MADV_POPULATE_WRITE", system_of(cpu::HugePages::kNever, false),
       false, false},
      {"no huge pages, no MADV_POPULATE_WRITE", system_of(cpu::HugePages::kUnavailable, false),
       false, false},
  };
  for (const Path& path : paths) {
    SCOPED_TRACE(path.name);
    const FreshMapping fresh(bytes);
    ASSERT_TRUE(fresh.ok());
    const at::Tensor out = fresh.tensor(at::kFloat);
    const cpu::FreshPageCalls before = cpu::fresh_page_calls();
    {
      const cpu::ForcedFreshPages forced(path.system);
      cpu::hardsigmoid_kernel(x, out);
    }
    EXPECT_EQ(calls_since(before, true) > 0, path.huge_requests);
    EXPECT_EQ(calls_since(before, false) > 0, path.pieces);
    EXPECT_TRUE(same_bits(out, expected, x));
  }
}

TEST(FreshPages, MemoryWrittenBeforeAndSmallOutputsGetNoCalls) {
  HARDSIGMOID_SEED_THIS_TEST();
  const at::Tensor large =
      random_values({static_cast<int64_t>(case_bytes(64 * kMiB) / 4)}, at::kFloat);
  at::Tensor written = at::empty_like(large).fill_(0);
  const at::Tensor small = random_values({(int64_t{1} << 18) - 1}, at::kFloat);
  const FreshMapping fresh_small(kMiB - 4);
  ASSERT_TRUE(fresh_small.ok());
  const at::Tensor small_out = fresh_small.tensor(at::kFloat);
  const cpu::FreshPageCalls before = cpu::fresh_page_calls();
  cpu::hardsigmoid_kernel(large, written);
  cpu::hardsigmoid_kernel(small, small_out);
  EXPECT_EQ(calls_since(before, true), 0);
  EXPECT_EQ(calls_since(before, false), 0);
  EXPECT_TRUE(same_bits(written, at::hardsigmoid(large), large));
  EXPECT_TRUE(same_bits(small_out, at::hardsigmoid(small), small));
}

TEST(FreshPages, HugePagesWhereThisSystemGrantsThem) {
  if (!grants_huge_pages()) {
    GTEST_SKIP() << "huge pages do not come here when asked for (transparent huge pages off or "
                    "absent, an emulator that ignores the request, or none free)";
  }
  HARDSIGMOID_SEED_THIS_TEST();
  const size_t bytes = 64 * kMiB;
  const at::Tensor x = random_values({static_cast<int64_t>(bytes / 4)}, at::kFloat);
  const FreshMapping fresh(bytes);
  const FreshMapping refused(bytes);
  ASSERT_TRUE(fresh.ok() && refused.ok());
  cpu::hardsigmoid_kernel(x, fresh.tensor(at::kFloat));
  // Most of the output in huge pages (only its ends may be outside whole ones).
  EXPECT_GE(anon_huge_kib(fresh.data(), bytes), static_cast<int64_t>(bytes / 1024 / 2));
  if (cpu::this_page_system().huge_pages == cpu::HugePages::kOnRequest) {
    // Where huge pages come only on request, a refusing system's plan asks for none.
    const cpu::ForcedFreshPages forced(system_of(cpu::HugePages::kNever, true));
    cpu::hardsigmoid_kernel(x, refused.tensor(at::kFloat));
    EXPECT_EQ(anon_huge_kib(refused.data(), bytes), 0);
  }
}

// ---- bits under every way ----------------------------------------------------------------------

const cpu::FreshPagePlan kWays[] = {
    {false, 0},                // left to fault
    {false, 256 << 10},        // 4 KiB pages, in pieces
    {false, 12345},            // pieces of no round size
    {false, size_t{1} << 50},  // the whole range at once
    {true, 0},                 // huge pages, left to fault
    {true, 2 * kMiB},          // huge pages, a huge page at a time
};

class FreshPagesBits : public testing::TestWithParam<at::ScalarType> {};

TEST_P(FreshPagesBits, EveryWayAndThreadCountGivesAtensBits) {
  HARDSIGMOID_SEED_THIS_TEST();
  const at::ScalarType dtype = GetParam();
  // Above the threshold with a tail in every thread's range: not a multiple of any vector step.
  const int64_t n = static_cast<int64_t>(case_bytes(10 * kMiB) / c10::elementSize(dtype)) + 37;
  const at::Tensor x = random_values({n}, dtype);
  const at::Tensor grad = random_values({n}, dtype);
  const size_t bytes = static_cast<size_t>(n) * c10::elementSize(dtype);
  const int threads_before = at::get_num_threads();
  for (const int threads : {1, 2, 3}) {
    at::set_num_threads(threads);
    // aten's on as many threads: where its ranges end, its scalar tails give the input's NaN.
    const at::Tensor forward = at::hardsigmoid(x);
    const at::Tensor backward = at::hardsigmoid_backward(grad, x);
    for (const cpu::FreshPagePlan& way : kWays) {
      SCOPED_TRACE(std::to_string(threads) + " threads, huge " +
                   std::to_string(way.request_huge_pages) + ", pieces of " +
                   std::to_string(way.piece_bytes) + " B");
      const cpu::ForcedFreshPages forced(way);
      const FreshMapping out_forward(bytes);
      const FreshMapping out_backward(bytes);
      ASSERT_TRUE(out_forward.ok() && out_backward.ok());
      const at::Tensor y = out_forward.tensor(dtype).narrow(0, 0, n);
      const at::Tensor g = out_backward.tensor(dtype).narrow(0, 0, n);
      cpu::hardsigmoid_kernel(x, y);
      cpu::hardsigmoid_backward_kernel(grad, x, g);
      EXPECT_TRUE(same_bits(y, forward, x));
      EXPECT_TRUE(same_bits(g, backward, x));
    }
  }
  at::set_num_threads(threads_before);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, FreshPagesBits,
                         testing::Values(at::kFloat, at::kDouble, at::kHalf, at::kBFloat16),
                         [](const testing::TestParamInfo<at::ScalarType>& info) {
                           return dtype_label(info.param);
                         });

TEST(FreshPages, QuantizedTableUnderEveryWayGivesAtensCodes) {
  HARDSIGMOID_SEED_THIS_TEST();
  const int64_t n = static_cast<int64_t>(case_bytes(64 * kMiB)) + 37;
  const at::Tensor q = at::quantize_per_tensor(at::randn({n}) * 4, 0.05, 128, at::kQUInt8);
  const int threads_before = at::get_num_threads();
  for (const int threads : {1, 3}) {
    at::set_num_threads(threads);
    const at::Tensor expected = at::hardsigmoid(q).int_repr();
    for (const cpu::FreshPagePlan& way : kWays) {
      SCOPED_TRACE(std::to_string(threads) + " threads, huge " +
                   std::to_string(way.request_huge_pages) + ", pieces of " +
                   std::to_string(way.piece_bytes) + " B");
      // The output over a fresh mapping of the test's own (an allocator may hand out memory it
      // has mapped before: a sanitizer's does), with the op's output quantization.
      const FreshMapping fresh(static_cast<size_t>(n));
      ASSERT_TRUE(fresh.ok());
      const at::Tensor out = at::from_blob_quantized_per_tensor_affine(
          fresh.data(), {n}, [](void*) {}, 1.0F / 256, 0, at::TensorOptions().dtype(at::kQUInt8));
      const cpu::FreshPageCalls before = cpu::fresh_page_calls();
      {
        const cpu::ForcedFreshPages forced(way);
        // The table (the formulas' or, under the QNNPACK engine, QNNPACK's), not the arithmetic.
        EXPECT_NE(cpu::quantized_forward(q, out), cpu::QuantizedPath::kArithmetic);
      }
      EXPECT_EQ(calls_since(before, true) > 0, way.request_huge_pages);
      EXPECT_EQ(calls_since(before, false) > 0, way.piece_bytes > 0);
      EXPECT_TRUE(same_bytes(out.int_repr(), expected));
    }
  }
  at::set_num_threads(threads_before);
}

}  // namespace
}  // namespace hardsigmoid_test
