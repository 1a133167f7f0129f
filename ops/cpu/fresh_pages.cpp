#include "ops/cpu/fresh_pages.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <string>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace hardsigmoid_ops::cpu {
namespace {

// The rule's thresholds, measured by benchmarks/studies/fresh_pages.cpp on fresh outputs of 1 to
// 16 threads (docs/performance_history.md, "The allocating call: the tables of 2026-12-06"):
// - below kFromBytes nothing is called: the mincore that decides costs a few percent of a call
//   on memory already mapped, which is what malloc gives at such sizes once a loop runs (a fresh
//   output of 1 to 4 MiB on one thread would still gain);
// - huge pages from kHugeFromHugePages of them (only whole huge pages inside the range can be
//   huge) and kHugeFromBytesPerThread: below, threads share huge pages, and each waits for the
//   one that faults the page in;
// - 4 KiB pages are mapped first from kSmallPiecesFromBytesPerThread: below, many threads'
//   mapping calls contend in the kernel and cost more than their faults;
// - with 4 KiB pages each thread maps kSmallPieceBytes at a time, a piece the caches still hold
//   when the loop writes it; with huge pages, one huge page at a time.
constexpr size_t kFromBytes = size_t{4} << 20;
constexpr size_t kHugeFromHugePages = 2;
constexpr size_t kHugeFromBytesPerThread = size_t{512} << 10;
constexpr size_t kSmallPiecesFromBytesPerThread = size_t{1} << 20;
constexpr size_t kSmallPieceBytes = size_t{256} << 10;

std::atomic<int64_t> huge_page_requests{0};
std::atomic<int64_t> pieces_mapped{0};

thread_local const FreshPagePlan* forced_plan = nullptr;
thread_local const PageSystem* forced_system = nullptr;

#if defined(__linux__)
// The mode transparent_hugepage/enabled marks with brackets: "always [madvise] never".
HugePages read_huge_page_mode() {
  std::ifstream file("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  if (!std::getline(file, modes)) return HugePages::kUnavailable;
  if (modes.find("[madvise]") != std::string::npos) return HugePages::kOnRequest;
  if (modes.find("[always]") != std::string::npos) return HugePages::kAlways;
  if (modes.find("[never]") != std::string::npos) return HugePages::kNever;
  return HugePages::kUnavailable;
}

size_t read_huge_page_bytes() {
  std::ifstream file("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
  size_t bytes = 0;
  return file >> bytes ? bytes : 0;
}

// Whether the kernel knows MADV_POPULATE_WRITE, asked of one page of our own: kernels before 5.14
// answer EINVAL.
bool kernel_populates([[maybe_unused]] size_t page_bytes) {
#if defined(MADV_POPULATE_WRITE)
  void* page =
      mmap(nullptr, page_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return false;
  const bool populated = madvise(page, page_bytes, MADV_POPULATE_WRITE) == 0;
  munmap(page, page_bytes);
  return populated;
#else
  return false;
#endif
}

PageSystem read_page_system() {
  PageSystem system;
  system.page_bytes = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  system.huge_pages = read_huge_page_mode();
  // A process may refuse them itself: a huge-page fault can wait for the kernel to compact memory
  // (its `defrag` setting), which a latency-bound program may not want.
  const char* refused = std::getenv("HARDSIGMOID_OPS_HUGE_PAGES");
  if (refused != nullptr && std::string(refused) == "0" &&
      system.huge_pages == HugePages::kOnRequest) {
    system.huge_pages = HugePages::kNever;
  }
  system.huge_page_bytes =
      system.huge_pages == HugePages::kUnavailable ? 0 : read_huge_page_bytes();
  if (system.huge_page_bytes == 0) system.huge_pages = HugePages::kUnavailable;
  system.can_populate = kernel_populates(system.page_bytes);
  return system;
}
#endif

uintptr_t page_floor(uintptr_t address, size_t page) { return address & ~(page - 1); }
uintptr_t page_ceil(uintptr_t address, size_t page) { return (address + page - 1) & ~(page - 1); }

// Whether the first page wholly inside [begin, begin + bytes) is not mapped yet (the page holding
// the first byte may hold malloc's header, written when the block was made): memory the process
// has written before is mapped, and asking the kernel to map it again would walk its page tables
// for nothing.
bool first_page_unmapped([[maybe_unused]] const char* begin, [[maybe_unused]] size_t bytes,
                         [[maybe_unused]] size_t page) {
#if defined(__linux__)
  const uintptr_t first = page_ceil(reinterpret_cast<uintptr_t>(begin), page);
  if (first + page > reinterpret_cast<uintptr_t>(begin) + bytes) return false;
  unsigned char resident = 0;
  return mincore(reinterpret_cast<void*>(first), page, &resident) == 0 && (resident & 1) == 0;
#else
  return false;
#endif
}

}  // namespace

const PageSystem& this_page_system() {
#if defined(__linux__)
  static const PageSystem system = read_page_system();
#else
  static const PageSystem system;
#endif
  return system;
}

FreshPagePlan plan_fresh_pages(size_t bytes, int threads, const PageSystem& system) {
  FreshPagePlan plan;
  if (bytes < kFromBytes) return plan;
  const size_t per_thread = bytes / static_cast<size_t>(std::max(threads, 1));
  const bool huge =
      system.huge_page_bytes > 0 &&
      (system.huge_pages == HugePages::kOnRequest || system.huge_pages == HugePages::kAlways) &&
      bytes >= kHugeFromHugePages * system.huge_page_bytes && per_thread >= kHugeFromBytesPerThread;
  plan.request_huge_pages = huge && system.huge_pages == HugePages::kOnRequest;
  if (!system.can_populate) return plan;
  if (huge) {
    plan.piece_bytes = system.huge_page_bytes;
  } else if (per_thread >= kSmallPiecesFromBytesPerThread) {
    plan.piece_bytes = kSmallPieceBytes;
  }
  return plan;
}

FreshOutput::FreshOutput(void* data, int64_t numel, int64_t element_bytes, int threads)
    : data_(static_cast<char*>(data)), element_bytes_(element_bytes) {
  const size_t bytes = static_cast<size_t>(numel) * static_cast<size_t>(element_bytes);
  // The common small call returns here, before the system, the thread count or mincore is asked.
  if (bytes < kFromBytes && forced_plan == nullptr) return;
  if (threads == kAtenThreads) threads = at::get_num_threads();
  const PageSystem& system = forced_system != nullptr ? *forced_system : this_page_system();
  const FreshPagePlan plan =
      forced_plan != nullptr ? *forced_plan : plan_fresh_pages(bytes, threads, system);
  if (plan == FreshPagePlan{} || bytes == 0 ||
      !first_page_unmapped(data_, bytes, this_page_system().page_bytes)) {
    return;
  }
  fresh_ = true;
  plan_ = plan;
  piece_bytes_ = plan.piece_bytes;
#if defined(__linux__)
  if (plan.request_huge_pages) {
    // The pages holding the output's first and last bytes are inside its mapping; the policy
    // changes no byte, and a refusal leaves the 4 KiB pages as they were.
    const size_t page = this_page_system().page_bytes;
    const uintptr_t begin = page_floor(address_of(0), page);
    const uintptr_t end = page_ceil(address_of(numel), page);
    madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
    huge_page_requests.fetch_add(1, std::memory_order_relaxed);
  }
#endif
}

void FreshOutput::map([[maybe_unused]] int64_t begin, [[maybe_unused]] int64_t end) const {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  // The pages holding the piece's bytes, those at its ends included (inside the output's mapping,
  // shared with the next piece or another allocation's bytes: mapping changes no byte). A failure
  // (memory short, a kernel that refuses) leaves the loop to fault the pages in as before.
  static const size_t page = this_page_system().page_bytes;
  const uintptr_t first = page_floor(address_of(begin), page);
  const uintptr_t last = page_ceil(address_of(end), page);
  madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_WRITE);
  pieces_mapped.fetch_add(1, std::memory_order_relaxed);
#endif
}

ForcedFreshPages::ForcedFreshPages(const FreshPagePlan& plan)
    : previous_plan_(forced_plan), previous_system_(forced_system), plan_(plan) {
  forced_plan = &plan_;
}

ForcedFreshPages::ForcedFreshPages(const PageSystem& system)
    : previous_plan_(forced_plan), previous_system_(forced_system), system_(system) {
  forced_plan = nullptr;
  forced_system = &system_;
}

ForcedFreshPages::~ForcedFreshPages() {
  forced_plan = static_cast<const FreshPagePlan*>(previous_plan_);
  forced_system = static_cast<const PageSystem*>(previous_system_);
}

FreshPageCalls fresh_page_calls() {
  return {huge_page_requests.load(std::memory_order_relaxed),
          pieces_mapped.load(std::memory_order_relaxed)};
}

}  // namespace hardsigmoid_ops::cpu
