"""torch.library.opcheck on every op: schema (mutations declared), autograd registration, fake
tensor (Meta kernel agrees with the real one) and AOT dispatch with dynamic shapes."""

import pytest
import torch

from hardsigmoid_testing import FLOAT_DTYPES, OPS
from hardsigmoid_testing.layouts import random_view

# Small operands; what matters here is the variety of geometries the Meta kernel must reproduce.
GEOMETRIES = {
    "contiguous": lambda: torch.empty(5, 7, device="meta"),
    "transposed": lambda: torch.empty(7, 5, device="meta").t(),
    "step2": lambda: torch.empty(5, 14, device="meta")[:, ::2],
    "channels_last": lambda: torch.empty(2, 3, 4, 5, device="meta",
                                         memory_format=torch.channels_last),
    "expanded": lambda: torch.empty(1, 7, device="meta").expand(5, 7),
    "zero_dim": lambda: torch.empty((), device="meta"),
    "empty": lambda: torch.empty(0, 3, device="meta"),
}
WRITABLE = [name for name in GEOMETRIES if name != "expanded"]

dtypes = pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: str(d).split(".")[1])


def _tensor(geometry, dtype, device, gen):
    buffer, view = random_view(GEOMETRIES[geometry](), dtype, device, gen)
    # opcheck compares results with assert_close without equal_nan: NaN inputs would fail it for
    # no fault of the op (NaN handling is tested against aten in test_matches_aten.py).
    buffer.nan_to_num_(0.0, float("inf"), float("-inf"))
    return view


@dtypes
@pytest.mark.parametrize("geometry", GEOMETRIES)
@pytest.mark.parametrize("requires_grad", [False, True], ids=["no_grad", "requires_grad"])
def test_functional(device, dtype, geometry, requires_grad, gen):
    x = _tensor(geometry, dtype, device, gen).detach().requires_grad_(requires_grad)
    torch.library.opcheck(OPS.hardsigmoid.default, (x,))


@dtypes
@pytest.mark.parametrize("geometry", WRITABLE)
@pytest.mark.parametrize("requires_grad", [False, True], ids=["no_grad", "requires_grad"])
def test_inplace(device, dtype, geometry, requires_grad, gen):
    x = _tensor(geometry, dtype, device, gen)
    if requires_grad:  # a non-leaf that requires grad: recorded, as aten's in-place op is
        x = x.detach().requires_grad_() * 1
    torch.library.opcheck(OPS.hardsigmoid_.default, (x,))


@dtypes
@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_out(device, dtype, geometry, gen):
    x = _tensor(geometry, dtype, device, gen)
    out = torch.empty(x.shape, dtype=dtype, device=device)
    torch.library.opcheck(OPS.hardsigmoid_out.default, (x, out))


@dtypes
@pytest.mark.parametrize("geometry", GEOMETRIES)
@pytest.mark.parametrize("requires_grad", [False, True], ids=["no_grad", "requires_grad"])
def test_backward(device, dtype, geometry, requires_grad, gen):
    grad = _tensor(geometry, dtype, device, gen).detach().requires_grad_(requires_grad)
    x = _tensor(geometry, dtype, device, gen).detach().requires_grad_(requires_grad)
    torch.library.opcheck(OPS.hardsigmoid_backward.default, (grad, x))
