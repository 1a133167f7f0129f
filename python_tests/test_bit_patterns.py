"""Every one of the 65,536 bit patterns of float16 and bfloat16 (NaNs of every sign and payload,
infinities, subnormals, both zeros) through all four ops, contiguous and step-2, against aten's
same op on the same operands: every bit equal, NaN bits included. Under ATEN_CPU_CAPABILITY the
same test covers each CPU build of the row loops."""

import pytest
import torch

from hardsigmoid_testing import OPS
from hardsigmoid_testing.checks import assert_every_op_matches_aten, assert_identical

DTYPES = [torch.float16, torch.bfloat16]


def _every_pattern(dtype, device):
    return torch.arange(-(1 << 15), 1 << 15, dtype=torch.int32).to(torch.int16).view(dtype).to(device)


def _layouts(x):
    """`x` contiguous, and the same values as a step-2 view of a buffer twice as long."""
    return {"contiguous": x, "step2": torch.repeat_interleave(x, 2)[::2]}


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: str(d).split(".")[1])
@pytest.mark.parametrize("layout", ["contiguous", "step2"])
def test_every_pattern_matches_aten(device, dtype, layout, gen):
    x = _layouts(_every_pattern(dtype, device))[layout]
    other = _layouts(torch.randn(x.numel(), generator=gen).to(dtype).to(device))[layout]
    assert_every_op_matches_aten(x, other)
    # Every pattern as the gradient too (NaN gradients inside the mask).
    ref = torch.ops.aten.hardsigmoid_backward(x, other)
    assert_identical(OPS.hardsigmoid_backward(x, other), ref, inputs=other)
