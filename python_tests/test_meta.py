"""The Meta kernels predict the real ones: same output shape, dtype and strides for every input
geometry. torch.compile and torch.export plan memory from these fake outputs; opcheck's fake
tensor test compares shapes and dtypes but not strides, so they are compared here."""

import pytest
import torch

from hardsigmoid_testing import FLOAT_DTYPES, OPS
from hardsigmoid_testing.layouts import PAD, random_view, significant_strides, storage_extent

GEOMETRIES = {
    "contiguous": lambda: torch.empty(5, 7, device="meta"),
    "transposed": lambda: torch.empty(7, 5, device="meta").t(),
    "step2": lambda: torch.empty(5, 14, device="meta")[:, ::2],
    "offset": lambda: torch.empty(36, device="meta")[1:].view(5, 7),
    "expanded": lambda: torch.empty(1, 7, device="meta").expand(5, 7),
    "channels_last": lambda: torch.empty(2, 3, 4, 5, device="meta",
                                         memory_format=torch.channels_last),
    "permuted_3d": lambda: torch.empty(4, 2, 3, device="meta").permute(2, 0, 1),
    "size_one_dims": lambda: torch.empty(3, 1, 4, device="meta").transpose(0, 2),
    "zero_dim": lambda: torch.empty((), device="meta"),
    "empty": lambda: torch.empty(0, 3, device="meta").t(),
}

dtypes = pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: str(d).split(".")[1])


def _on_meta(t):
    """A meta tensor with `t`'s shape, strides and storage offset."""
    storage = torch.empty(storage_extent(t) + PAD, dtype=t.dtype, device="meta")
    return storage.as_strided(t.shape, t.stride(), t.storage_offset())


def _assert_same_geometry(fake, real):
    # Strides of size-1 dimensions and of empty tensors address nothing; torch's own empty_like
    # sets them differently on meta and CPU, and inductor's stride asserts ignore them.
    assert fake.device.type == "meta"
    assert (fake.shape, significant_strides(fake), fake.dtype) == (
        real.shape, significant_strides(real), real.dtype)


@dtypes
@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_functional(device, dtype, geometry, gen):
    x = random_view(GEOMETRIES[geometry](), dtype, device, gen)[1]
    _assert_same_geometry(OPS.hardsigmoid(_on_meta(x)), OPS.hardsigmoid(x))


# The [5, 7] geometries pair with each other; the rest with themselves.
FIVE_BY_SEVEN = ["contiguous", "transposed", "step2", "offset", "expanded"]
BACKWARD_PAIRS = [(g, s) for g in FIVE_BY_SEVEN for s in FIVE_BY_SEVEN] + [
    (g, g) for g in GEOMETRIES if g not in FIVE_BY_SEVEN
]


@dtypes
@pytest.mark.parametrize("grad_geometry,self_geometry", BACKWARD_PAIRS)
def test_backward(device, dtype, grad_geometry, self_geometry, gen):
    grad = random_view(GEOMETRIES[grad_geometry](), dtype, device, gen)[1]
    x = random_view(GEOMETRIES[self_geometry](), dtype, device, gen)[1]
    real = OPS.hardsigmoid_backward(grad, x)
    _assert_same_geometry(OPS.hardsigmoid_backward(_on_meta(grad), _on_meta(x)), real)
