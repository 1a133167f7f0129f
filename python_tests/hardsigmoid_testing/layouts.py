"""Strided views placed inside a larger buffer filled with a sentinel.

Every tensor a test hands to an op is a view of such a buffer, so that a write outside the view
(into a gap of a step slice, before an offset slice, past the end) changes a sentinel and is seen.
"""

import torch

from .values import random_values

# hardsigmoid maps everything into [0, 1] (or NaN): it never produces 42.
SENTINEL = 42.0
# Sentinel elements before and after the region any view may address.
PAD = 5


def _contiguous(n):
    return torch.empty(n, device="meta")


def _transposed(n):
    return torch.empty(n, 3, device="meta").t()


def _offset_by_one(n):
    # Misaligned by one element: vectorized loads must not assume an aligned start.
    return torch.empty(n + 1, device="meta")[1:]


def _step_two(n):
    return torch.empty(2 * n, device="meta")[::2]


def _channels_last(n):
    return torch.empty(1, 3, n, 1, device="meta", memory_format=torch.channels_last)


def _expanded(n):
    return torch.empty(1, n, device="meta").expand(3, n)


def _zero_dim(n):
    return torch.empty((), device="meta")


# Each maps a size to a meta tensor whose shape, strides and offset the test tensors copy.
LAYOUTS = {
    "contiguous": _contiguous,
    "transposed": _transposed,
    "offset": _offset_by_one,
    "step2": _step_two,
    "channels_last": _channels_last,
    "expanded": _expanded,
    "zero_dim": _zero_dim,
}
# Layouts with elements that share memory: valid inputs, but never written.
READ_ONLY_LAYOUTS = {"expanded"}


def storage_extent(t):
    """Elements of storage, from offset 0, that `t` can address."""
    if t.numel() == 0:
        return t.storage_offset()
    return t.storage_offset() + sum((s - 1) * st for s, st in zip(t.shape, t.stride())) + 1


def sentinel_view(template, dtype, device):
    """(buffer, view): a buffer of sentinels and a view of it with `template`'s geometry."""
    buffer = torch.full((storage_extent(template) + 2 * PAD,), SENTINEL, dtype=dtype,
                        device=device)
    view = buffer.as_strided(template.shape, template.stride(), PAD + template.storage_offset())
    return buffer, view


def same_view(buffer, like):
    """The view of `buffer` with the geometry `like` has in its own buffer."""
    return buffer.as_strided(like.shape, like.stride(), like.storage_offset())


def distinct_elements(view):
    """`view` with every stride-0 dimension cut to size 1: each memory location once."""
    sizes = [1 if stride == 0 else size for size, stride in zip(view.shape, view.stride())]
    return view.as_strided(sizes, view.stride(), view.storage_offset())


def random_view(template, dtype, device, gen):
    """(buffer, view) as sentinel_view, with the view's elements set to random_values."""
    buffer, view = sentinel_view(template, dtype, device)
    distinct = distinct_elements(view)
    distinct.copy_(random_values(distinct.numel(), dtype, gen).reshape(distinct.shape))
    return buffer, view


def addressed_mask(buffer, view):
    """Boolean mask over `buffer`: True where `view` has an element."""
    index = torch.arange(buffer.numel(), device=buffer.device)
    mask = torch.zeros(buffer.numel(), dtype=torch.bool, device=buffer.device)
    mask[same_view(index, view).reshape(-1)] = True
    return mask


def is_dense(t):
    """Non-overlapping and dense, as c10's TensorImpl computes it: some permutation of the
    dimensions makes the tensor contiguous (size-1 dimensions aside; empty tensors are)."""
    if t.numel() == 0:
        return True
    expected = 1
    for stride, size in sorted((st, s) for s, st in zip(t.shape, t.stride()) if s != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def significant_strides(t):
    """The strides that address memory: those of dimensions longer than one, none when empty.
    (aten's TensorIterator normalizes the others; no element is reached through them.)"""
    if t.numel() == 0:
        return ()
    return tuple(stride for size, stride in zip(t.shape, t.stride()) if size > 1)
