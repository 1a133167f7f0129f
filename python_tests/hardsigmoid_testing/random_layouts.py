"""Random shapes and strided geometries, drawn from a `random.Random`, as meta tensors that
layouts.sentinel_view turns into real views of sentinel-filled buffers."""

import torch

# Small tensors keep thousands of cases fast; a few exceed a vector or two of any width.
MAX_NUMEL = 4096
# A few cases are split into several threads' work by the CPU kernels (at::internal::GRAIN_SIZE
# is 32768 elements), so that each thread's first element is an odd place in a strided walk.
LARGE_PROBABILITY = 0.01
LARGE_NUMEL = (32768 + 1, 2 * 32768)


def draw_shape(rng):
    """0 to 5 dimensions, sizes 0 and 1 frequent, at most MAX_NUMEL elements (rarely more)."""
    if rng.random() < LARGE_PROBABILITY:
        return _draw_large_shape(rng)
    ndim = rng.choice([0, 1, 1, 2, 2, 3, 3, 4, 5])
    while True:
        shape = []
        for _ in range(ndim):
            roll = rng.random()
            if roll < 0.05:
                shape.append(0)
            elif roll < 0.25:
                shape.append(1)
            elif roll < 0.85:
                shape.append(rng.randint(2, 9))
            else:
                shape.append(rng.randint(10, 70))
        if torch.Size(shape).numel() <= MAX_NUMEL:
            return tuple(shape)


def _draw_large_shape(rng):
    outer = [rng.randint(1, 40) for _ in range(rng.randint(0, 2))]
    numel = rng.randint(*LARGE_NUMEL)
    return (*outer, max(numel // torch.Size(outer).numel(), 1))


def draw_geometry(rng, shape, writable):
    """(strides, storage_offset) for a view of `shape`: the dimensions laid out in a random order,
    some sliced with a step and a start, size-1 dimensions given arbitrary strides, and, unless the
    view is `writable`, some dimensions expanded (stride 0). A third of the time contiguous."""
    if rng.random() < 0.3:
        return _contiguous_strides(shape), rng.choice([0, 0, 1])
    steps = [rng.choice([1, 1, 1, 2, 3]) for _ in shape]
    starts = [rng.choice([0, 0, 0, 1, 2]) for _ in shape]
    # The base tensor each dimension is sliced from, one spare element at its end now and then.
    base = [
        start + (size - 1) * step + 1 + rng.choice([0, 0, 1]) if size else start
        for size, step, start in zip(shape, steps, starts)
    ]
    order = list(range(len(shape)))
    rng.shuffle(order)
    base_strides = [0] * len(shape)
    stride = 1
    for dim in reversed(order):  # the last of `order` is innermost
        base_strides[dim] = stride
        stride *= max(base[dim], 1)
    strides = [b * s for b, s in zip(base_strides, steps)]
    offset = rng.choice([0, 0, 1, 3]) + sum(b * s for b, s in zip(base_strides, starts))
    for dim, size in enumerate(shape):
        if size == 1 and rng.random() < 0.3:
            # No element is reached through it: any stride is valid and must be ignored.
            strides[dim] = rng.choice([0, 1, 5, 1000])
        elif not writable and size > 1 and rng.random() < 0.15:
            strides[dim] = 0
    return tuple(strides), offset


def _contiguous_strides(shape):
    return torch.empty(shape, device="meta").stride()


def meta_view(shape, strides, offset):
    """A meta tensor with this geometry, the template layouts.sentinel_view expects (meta storage
    has no bounds to respect)."""
    return torch.empty(0, device="meta").as_strided(shape, strides, offset)
