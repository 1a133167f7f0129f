#include "ops/cpu/fresh_pages.h"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace hardsigmoid_ops::cpu {
namespace {

// Ranges below this are left to fault as before: the mincore call that decides is a measurable
// share of a range in the caches and negligible from a few MiB, and the measured gains are for
// larger ranges (docs/performance.md, History, CPU: "A new output's page faults").
constexpr size_t kMinBytes = size_t{4} << 20;

}  // namespace

void populate_fresh_pages([[maybe_unused]] void* begin, [[maybe_unused]] size_t bytes) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  if (bytes < kMinBytes) return;
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t start = (reinterpret_cast<uintptr_t>(begin) + page - 1) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(begin) + bytes) & ~(page - 1);
  if (end <= start) return;
  void* first = reinterpret_cast<void*>(start);
  unsigned char resident = 0;
  // Memory the process has written before (a reused heap block, a preallocated out) is mapped:
  // asking the kernel to map it again would walk its page tables for nothing.
  if (mincore(first, page, &resident) != 0 || (resident & 1) != 0) return;
  madvise(first, end - start, MADV_POPULATE_WRITE);
#endif
}

}  // namespace hardsigmoid_ops::cpu
