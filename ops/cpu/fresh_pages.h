// A new output's memory, mapped as the loop that writes it goes.
//
// A large output the allocator has just taken from the kernel (above malloc's mmap threshold) has
// no pages yet: left alone, the loop that writes it takes one page fault per 4 KiB, and the faults
// and the kernel's zeroing, not the arithmetic, are most of the allocating call's time
// (hardsigmoid(x) from Python), more so with many threads, whose faults contend in the kernel.
// Where the system grants huge pages on request (transparent huge pages on `madvise`), the output
// asks for them: one fault per 2 MiB. Each thread then maps its own range a piece at a time, just
// before it writes that piece (MADV_POPULATE_WRITE), so that the zeroed piece is still in the
// caches when the loop writes it (docs/performance.md, "The allocating call").
//
// plan_fresh_pages is the one rule: from the output's size and what the system offers. Memory
// that is already mapped (a reused heap block, a caching allocator's, an out= tensor written
// before) is left as it is: one mincore of its first page decides. Nothing here changes what the
// memory holds, and every failure of the system's calls leaves the loop to fault as before.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace hardsigmoid_ops::cpu {

// What the system offers a new output's pages, read once (sysconf, /sys/kernel/mm/transparent_
// hugepage): its transparent huge pages' mode, and whether it maps a range on request.
// HARDSIGMOID_OPS_HUGE_PAGES=0 refuses huge pages on request for the process (kNever).
enum class HugePages { kUnavailable, kNever, kOnRequest, kAlways };
struct PageSystem {
  size_t page_bytes = 4096;
  size_t huge_page_bytes = 0;  // the PMD size (2 MiB on x86-64); 0 where unavailable
  HugePages huge_pages = HugePages::kUnavailable;
  bool can_populate = false;  // MADV_POPULATE_WRITE: Linux 5.14 and later
};
const PageSystem& this_page_system();

// What a fresh output of some size, written by some threads, gets: huge pages asked for (one
// madvise by the calling thread), and each thread's range mapped in pieces of piece_bytes before
// they are written (0: left to fault).
struct FreshPagePlan {
  bool request_huge_pages = false;
  size_t piece_bytes = 0;
  bool operator==(const FreshPagePlan& other) const {
    return request_huge_pages == other.request_huge_pages && piece_bytes == other.piece_bytes;
  }
};
FreshPagePlan plan_fresh_pages(size_t bytes, int threads, const PageSystem& system);

// An output about to be written by `threads` threads: created on the calling thread before they
// start (it decides, and asks for huge pages), then each thread writes its elements through
// write(), which hands the writer pieces of a multiple of `step` elements so that a row loop's
// vector iterations and scalar tail fall where they would in one call. `threads` defaults to
// aten's intra-op thread count, asked only of outputs large enough for the rule to look at.
class FreshOutput {
 public:
  static constexpr int kAtenThreads = 0;
  FreshOutput(void* data, int64_t numel, int64_t element_bytes, int threads = kAtenThreads);

  // write_piece(piece_begin, piece_end) over [begin, end), each piece's pages mapped first where
  // the output is fresh; in one piece where it is not. Pieces end where the memory crosses a
  // multiple of the plan's piece size (a huge page's edge), moved on to the next multiple of
  // `step` elements from `begin`.
  template <typename F>
  void write(int64_t begin, int64_t end, int64_t step, const F& write_piece) const {
    if (piece_bytes_ == 0) {
      write_piece(begin, end);
      return;
    }
    for (int64_t piece_begin = begin; piece_begin < end;) {
      const uintptr_t address = address_of(piece_begin);
      const uintptr_t edge = (address / piece_bytes_ + 1) * piece_bytes_;
      const int64_t to_edge = static_cast<int64_t>((edge - address + element_bytes_ - 1) /
                                                   static_cast<uintptr_t>(element_bytes_));
      const int64_t past_edge = piece_begin + to_edge - begin;
      const int64_t piece_end = std::min(end, begin + (past_edge + step - 1) / step * step);
      map(piece_begin, piece_end);
      write_piece(piece_begin, piece_end);
      piece_begin = piece_end;
    }
  }

  // What this output got (tests, studies).
  bool fresh() const { return fresh_; }
  const FreshPagePlan& plan() const { return plan_; }

 private:
  uintptr_t address_of(int64_t element) const {
    return reinterpret_cast<uintptr_t>(data_) + static_cast<uintptr_t>(element * element_bytes_);
  }
  void map(int64_t begin, int64_t end) const;

  char* data_;
  int64_t element_bytes_;
  bool fresh_ = false;
  FreshPagePlan plan_;
  uintptr_t piece_bytes_ = 0;  // the plan's where the output is fresh, else 0: one piece
};

// For tests and studies: while it lives, outputs created on this thread take `plan` when fresh,
// or, given a system, the rule's plan for that system (a refusing one: THP `never`, no
// MADV_POPULATE_WRITE). Reaches the cpu:: functions of its own binary only (a program linking the
// internal library beside the shared one holds two copies).
class ForcedFreshPages {
 public:
  explicit ForcedFreshPages(const FreshPagePlan& plan);
  explicit ForcedFreshPages(const PageSystem& system);
  ~ForcedFreshPages();
  ForcedFreshPages(const ForcedFreshPages&) = delete;
  ForcedFreshPages& operator=(const ForcedFreshPages&) = delete;

 private:
  const void* previous_plan_;
  const void* previous_system_;
  FreshPagePlan plan_;
  PageSystem system_;
};

// The system calls made for fresh outputs since the process started, in every thread: huge-page
// requests and pieces mapped (tests: which path a call took).
struct FreshPageCalls {
  int64_t huge_page_requests;
  int64_t pieces_mapped;
};
FreshPageCalls fresh_page_calls();

}  // namespace hardsigmoid_ops::cpu
