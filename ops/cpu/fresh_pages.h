// A new output's memory, mapped ahead of the loop that writes it.
//
// A large output that the allocator has just taken from the kernel (above malloc's mmap
// threshold) has no pages yet: the loop that writes it first takes one page fault per 4 KiB, and
// those faults, not the arithmetic, are most of the allocating call's time (hardsigmoid(x) from
// Python). Mapping the range in one madvise(MADV_POPULATE_WRITE) call before the loop costs the
// same zeroing without a fault per page (docs/performance.md, "bfloat16 and float16 above the
// caches, and the allocating call").
#pragma once

#include <cstddef>

namespace hardsigmoid_ops::cpu {

// Maps the pages wholly inside [begin, begin + bytes) if the first of them is not mapped yet;
// does nothing for small ranges, for memory already mapped (one mincore call), or where the
// system has no MADV_POPULATE_WRITE (Linux before 5.14: the call fails and the loop faults the
// pages in as before). Never changes what the memory holds.
void populate_fresh_pages(void* begin, size_t bytes);

}  // namespace hardsigmoid_ops::cpu
