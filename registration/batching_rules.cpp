// vmap batching rules (the FuncTorchBatched key), so that torch.func.vmap runs each op once on the
// whole batch instead of functorch's per-example fallback, which warns and cannot run the mutating
// ops at all. Each rule is what functorch's generated plumbing does for a pointwise aten op: find
// the current vmap level, unwrap the inputs batched at that level, call the op once on the
// physical tensors, wrap the result.
//
//   hardsigmoid           the result keeps self's batch dimension (it keeps self's strides)
//   hardsigmoid_          self written in place, batched or not
//   hardsigmoid_out       out batched (self batched or not); self batched into an unbatched out
//                         is an error, as for aten's in-place ops
//   hardsigmoid_backward  grad_output and self batched at any dimensions, or only one of them
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <torch/library.h>

#include <optional>
#include <tuple>

#include "ops/hardsigmoid.h"
#include "ops/hardsigmoid_checks.h"
#include "registration/torch_internals.h"

namespace hardsigmoid_ops::registration {
namespace {

using at::functorch::isBatchedAtLevel;
using at::functorch::makeBatched;
using at::functorch::unwrapTensorAtLevel;

// The level of the innermost vmap, where a batched input must be unwrapped. No vmap at all means
// a batched tensor escaped the function it was created in (functorch's vmap_check_escaped).
int64_t current_vmap_level(const char* op) {
  const auto layer = at::functorch::maybeCurrentDynamicLayer();
  TORCH_CHECK(layer.has_value(), op,
              ": called on a tensor batched by vmap outside of vmap; a batched tensor may have "
              "escaped from the function being vmapped");
  return layer->layerId();
}

// `t` with its batch dimension first: moved there, or (not batched) broadcast along a new one.
at::Tensor batch_first(const at::Tensor& t, std::optional<int64_t> bdim,
                       const c10::SymInt& batch_size) {
  if (bdim.has_value()) return t.movedim(*bdim, 0);
  c10::SymDimVector sizes(t.sym_sizes().begin(), t.sym_sizes().end());
  sizes.insert(sizes.begin(), batch_size);
  return t.unsqueeze(0).expand_symint(sizes);
}

at::Tensor hardsigmoid_batched(const at::Tensor& self) {
  c10::impl::ExcludeDispatchKeyGuard not_batched(c10::DispatchKey::FuncTorchBatched);
  const int64_t level = current_vmap_level("hardsigmoid");
  if (!isBatchedAtLevel(self, level)) return hardsigmoid_ops::hardsigmoid(self);
  const auto [value, bdim] = unwrapTensorAtLevel(self, level);
  return makeBatched(hardsigmoid_ops::hardsigmoid(value), bdim, level);
}

void hardsigmoid_inplace_batched(const at::Tensor& self) {
  c10::impl::ExcludeDispatchKeyGuard not_batched(c10::DispatchKey::FuncTorchBatched);
  const int64_t level = current_vmap_level("hardsigmoid_");
  if (!isBatchedAtLevel(self, level)) {
    hardsigmoid_ops::hardsigmoid_(self);
    return;
  }
  hardsigmoid_ops::hardsigmoid_(std::get<0>(unwrapTensorAtLevel(self, level)));
}

void hardsigmoid_out_batched(const at::Tensor& self, const at::Tensor& out) {
  c10::impl::ExcludeDispatchKeyGuard not_batched(c10::DispatchKey::FuncTorchBatched);
  const int64_t level = current_vmap_level("hardsigmoid_out");
  const bool self_batched = isBatchedAtLevel(self, level);
  if (!isBatchedAtLevel(out, level)) {
    TORCH_CHECK(!self_batched,
                "vmap: hardsigmoid_out(self, out): self is batched but out is not, and one out "
                "cannot hold a result per example; batch out as well (map over it), or use the "
                "functional hardsigmoid");
    hardsigmoid_ops::hardsigmoid_out(self, out);
    return;
  }
  const auto [out_value, out_bdim] = unwrapTensorAtLevel(out, level);
  const at::Tensor out_first = out_value.movedim(*out_bdim, 0);
  const c10::SymInt batch_size = out_first.sym_size(0);
  const auto [self_value, self_bdim] = unwrapTensorAtLevel(self, level);
  if (!self_batched) {
    // Shapes compared per example, as the user wrote them, before self is broadcast.
    const c10::SymIntArrayRef example_sizes = out_first.sym_sizes().slice(1);
    TORCH_CHECK(self.sym_sizes() == example_sizes, "hardsigmoid_out: out has shape ",
                checks::format_sizes(example_sizes), " but self has shape ",
                checks::format_sizes(self.sym_sizes()), "; expected the same shape");
  }
  hardsigmoid_ops::hardsigmoid_out(batch_first(self_value, self_bdim, batch_size), out_first);
}

at::Tensor hardsigmoid_backward_batched(const at::Tensor& grad_output, const at::Tensor& self) {
  c10::impl::ExcludeDispatchKeyGuard not_batched(c10::DispatchKey::FuncTorchBatched);
  const int64_t level = current_vmap_level("hardsigmoid_backward");
  if (!isBatchedAtLevel(grad_output, level) && !isBatchedAtLevel(self, level)) {
    return hardsigmoid_ops::hardsigmoid_backward(grad_output, self);
  }
  const auto [grad_value, grad_bdim] = unwrapTensorAtLevel(grad_output, level);
  const auto [self_value, self_bdim] = unwrapTensorAtLevel(self, level);
  // Batched alike: no movement, the result keeps the batch dimension where it is.
  if (grad_bdim.has_value() && self_bdim.has_value() && *grad_bdim == *self_bdim) {
    return makeBatched(hardsigmoid_ops::hardsigmoid_backward(grad_value, self_value), grad_bdim,
                       level);
  }
  const c10::SymInt batch_size =
      grad_bdim ? grad_value.sym_size(*grad_bdim) : self_value.sym_size(*self_bdim);
  return makeBatched(
      hardsigmoid_ops::hardsigmoid_backward(batch_first(grad_value, grad_bdim, batch_size),
                                            batch_first(self_value, self_bdim, batch_size)),
      0, level);
}

}  // namespace

TORCH_LIBRARY_IMPL(hardsigmoid_ops, FuncTorchBatched, m) {
  m.impl("hardsigmoid", &hardsigmoid_batched);
  m.impl("hardsigmoid_", &hardsigmoid_inplace_batched);
  m.impl("hardsigmoid_out", &hardsigmoid_out_batched);
  m.impl("hardsigmoid_backward", &hardsigmoid_backward_batched);
}

}  // namespace hardsigmoid_ops::registration
