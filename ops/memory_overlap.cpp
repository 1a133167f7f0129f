#include "ops/memory_overlap.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace hardsigmoid_ops {
namespace {

// The storage elements [first, last] a non-empty tensor can address.
std::pair<int64_t, int64_t> element_span(const at::Tensor& t) {
  int64_t first = t.storage_offset();
  int64_t last = t.storage_offset();
  for (int64_t d = 0; d < t.dim(); ++d) {
    const int64_t extent = (t.size(d) - 1) * t.stride(d);
    (extent < 0 ? first : last) += extent;
  }
  return {first, last};
}

// Strides of size-1 dimensions are never used, so they may differ.
bool same_strides(const at::Tensor& a, const at::Tensor& b) {
  for (int64_t d = 0; d < a.dim(); ++d) {
    if (a.size(d) > 1 && a.stride(d) != b.stride(d)) return false;
  }
  return true;
}

struct Dim {
  int64_t stride;
  int64_t size;
};

// Whether `offset` = sum of c_k * stride_k with |c_k| < size_k over dims[k...], i.e. whether two
// tensors with these strides, `offset` storage elements apart, address a common element.
// `reach[k]` bounds what dims[k...] can add up to. `budget` caps the search; running out answers
// yes, the safe answer.
bool reachable(int64_t offset, const std::vector<Dim>& dims, const std::vector<int64_t>& reach,
               size_t k, int& budget) {
  if (--budget < 0) return true;
  if (k == dims.size()) return offset == 0;
  const int64_t stride = dims[k].stride;
  const int64_t rest = reach[k + 1];
  // c_k * stride must land within `rest` of offset.
  const int64_t low = std::max(-(dims[k].size - 1), -((rest - offset) / stride));
  const int64_t high = std::min(dims[k].size - 1, (offset + rest) / stride);
  for (int64_t c = low; c <= high; ++c) {
    if (reachable(offset - c * stride, dims, reach, k + 1, budget)) return true;
  }
  return false;
}

}  // namespace

Overlap element_overlap(const at::Tensor& a, const at::Tensor& b) {
  if (a.numel() == 0 || !a.is_alias_of(b)) return Overlap::kNone;
  const bool strides_match = same_strides(a, b);
  if (strides_match && a.storage_offset() == b.storage_offset()) return Overlap::kSameElements;
  const auto [a_first, a_last] = element_span(a);
  const auto [b_first, b_last] = element_span(b);
  if (a_last < b_first || b_last < a_first) return Overlap::kNone;
  if (!strides_match) return Overlap::kPartial;  // interleaved in different orders: refuse

  // One layout at two offsets (x[0::2] and x[1::2], say): they meet only if the offset between
  // them is a difference of two indices' offsets.
  std::vector<Dim> dims;
  for (int64_t d = 0; d < a.dim(); ++d) {
    if (a.size(d) == 1) continue;
    if (a.stride(d) == 0) return Overlap::kPartial;  // repeats elements: not a layout to write
    dims.push_back({a.stride(d), a.size(d)});
  }
  std::sort(dims.begin(), dims.end(), [](Dim x, Dim y) { return x.stride > y.stride; });
  std::vector<int64_t> reach(dims.size() + 1, 0);
  for (size_t k = dims.size(); k-- > 0;) {
    reach[k] = reach[k + 1] + (dims[k].size - 1) * dims[k].stride;
  }
  int budget = 4096;
  const int64_t offset = b.storage_offset() - a.storage_offset();
  return reachable(offset, dims, reach, 0, budget) ? Overlap::kPartial : Overlap::kNone;
}

}  // namespace hardsigmoid_ops
