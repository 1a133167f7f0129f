"""Every one of the 65,536 bit patterns of float16 and bfloat16 (NaNs of every sign and payload,
infinities, subnormals, both zeros) through all four ops, contiguous and step-2, against aten's
same op on the same operands: every bit equal, NaN bits included. Under ATEN_CPU_CAPABILITY the
same test covers each CPU build of the row loops. For the 16-bit types the row loops multiply by
the float-rounded 1/6 where aten divides by 6 (ops/hardsigmoid_math.h): this is the proof that
the two round to the same 16 bits on every input, on every path of the loops."""

import pytest
import torch

from hardsigmoid_testing import OPS
from hardsigmoid_testing.checks import assert_every_op_matches_aten, assert_identical

DTYPES = [torch.float16, torch.bfloat16]


def _every_pattern(dtype, device):
    codes = torch.arange(-(1 << 15), 1 << 15, dtype=torch.int32).to(torch.int16)
    return codes.view(dtype).to(device)


def _short_rows(x):
    """The same values in rows of 8 (a [N, 8] view of an [N, 9] buffer): rows shorter than any
    vector step, so that every element takes the row loops' scalar formula."""
    buffer = torch.zeros(x.numel() // 8, 9, dtype=x.dtype, device=x.device)
    buffer[:, :8] = x.view(-1, 8)
    return buffer[:, :8]


def _layouts(x):
    """`x` contiguous, the same values as a step-2 view of a buffer twice as long (vectors of
    gathered lanes), and in short rows (the scalar formula)."""
    return {
        "contiguous": x,
        "step2": torch.repeat_interleave(x, 2)[::2],
        "short_rows": _short_rows(x),
    }


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: str(d).split(".")[1])
@pytest.mark.parametrize("layout", ["contiguous", "step2", "short_rows"])
def test_every_pattern_matches_aten(device, dtype, layout, gen):
    x = _layouts(_every_pattern(dtype, device))[layout]
    other = _layouts(torch.randn(x.numel(), generator=gen).to(dtype).to(device))[layout]
    assert_every_op_matches_aten(x, other)
    # Every pattern as the gradient too (NaN gradients inside the mask).
    ref = torch.ops.aten.hardsigmoid_backward(x, other)
    assert_identical(OPS.hardsigmoid_backward(x, other), ref, inputs=other)
