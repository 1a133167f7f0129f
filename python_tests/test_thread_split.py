"""The CPU kernels' thread split. Below aten's grain (at::internal::GRAIN_SIZE, 32768 elements),
where aten runs on one thread, a flat span is split at the library's own grain (8192 elements) at
whole vector steps; from aten's grain on, as aten splits. Either way every element is aten's,
NaN bits included (the scalar tail of a thread's range returns the input's NaN, the vector loop an
all-ones one): sizes around both grains, on 2 and 3 threads, contiguous, misaligned and strided,
all four ops, a quarter of the inputs NaN with random sign and payload.

Under an emulator (config.EMULATED: the aarch64 lane, where drawing the inputs takes most of this
module's time, normal_ alone more than half under SVE256) the cases whose splits the
others already give are left out: 100_003 elements split as 65_537 do (aten's ranges, 2 on 2
threads and 3 on 3, none ending at a whole vector step), and the transposed layout, which the
kernels take as a flat span of 3n elements, runs up to n = 16_385 (3n = 24_573 .. 49_155: the
library's split, both sides of aten's grain)."""

import pytest
import torch

from hardsigmoid_testing import FLOAT_DTYPES
from hardsigmoid_testing.checks import assert_every_op_matches_aten
from hardsigmoid_testing.config import EMULATED
from hardsigmoid_testing.layouts import LAYOUTS, random_view
from hardsigmoid_testing.values import BITS_DTYPE

MANTISSA_BITS = {torch.float32: 23, torch.float64: 52, torch.float16: 10, torch.bfloat16: 7}
SIZES = [8191, 8192, 8193, 16385, 32767, 32768, 32769, 65537, 100_003]
LAYOUT_NAMES = ["contiguous", "offset", "step2", "transposed"]


def _proves_more_than_emulation_repeats(layout, n):
    return not EMULATED or (n <= 65537 and (layout != "transposed" or n <= 16385))


CASES = [(layout, n) for n in SIZES for layout in LAYOUT_NAMES
         if _proves_more_than_emulation_repeats(layout, n)]


@pytest.fixture(params=[2, 3], ids=lambda t: f"{t}threads")
def threads(request):
    before = torch.get_num_threads()
    torch.set_num_threads(request.param)
    yield request.param
    torch.set_num_threads(before)


def _with_nans(x, gen):
    """`x` with a quarter of its elements replaced by NaNs of random sign and payload."""
    bits = BITS_DTYPE[x.dtype]
    width = 8 * x.element_size()
    mantissa = MANTISSA_BITS[x.dtype]
    payload = torch.randint(1, 1 << min(mantissa, 62), x.shape, generator=gen, dtype=torch.int64)
    sign = torch.randint(0, 2, x.shape, generator=gen, dtype=torch.int64) << (width - 1)
    exponent = ((1 << (width - 1 - mantissa)) - 1) << mantissa
    nan = (payload | exponent | sign).to(bits).view(x.dtype)
    where = torch.rand(x.shape, generator=gen) < 0.25
    x[where] = nan[where]
    return x


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: str(d).split(".")[1])
@pytest.mark.parametrize("layout, n", CASES, ids=[f"{layout}-{n}" for layout, n in CASES])
def test_every_op_matches_aten_around_the_grains(threads, dtype, n, layout, gen):
    x = _with_nans(random_view(LAYOUTS[layout](n), dtype, "cpu", gen)[1], gen)
    grad = _with_nans(random_view(LAYOUTS[layout](n), dtype, "cpu", gen)[1], gen)
    assert torch.get_num_threads() == threads
    assert_every_op_matches_aten(x, grad)
