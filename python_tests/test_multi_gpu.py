"""Tensors on a GPU other than the current one: every kernel runs on its tensor's device (the
CUDA guard), never on the current device, and mixing devices is refused before anything runs."""

import pytest
import torch
import torch.nn.functional as F

from hardsigmoid_testing import OPS
from hardsigmoid_testing.checks import (
    assert_every_op_matches_aten,
    assert_identical,
    assert_unchanged,
)

pytestmark = pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs 2 CUDA devices")

DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16)


def _values(gen, dtype, device):
    # Large enough for several blocks, odd so that the tail path runs too.
    return (torch.randn(3, 70001, generator=gen) * 4).to(dtype).to(device)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_every_op_runs_on_the_tensors_device(gen, dtype):
    with torch.cuda.device(0):
        x = _values(gen, dtype, "cuda:1")
        grad = _values(gen, dtype, "cuda:1")
        ours, backward = assert_every_op_matches_aten(x, grad)
        assert ours.device == x.device and backward.device == x.device
        assert torch.cuda.current_device() == 0
    torch.cuda.synchronize(1)


def test_strided_input_on_the_other_device(gen):
    with torch.cuda.device(0):
        x = _values(gen, torch.float32, "cuda:1")[:, ::3].t()
        assert_identical(OPS.hardsigmoid(x), F.hardsigmoid(x), inputs=x)


def test_graph_capture_on_the_other_device(gen):
    with torch.cuda.device(1):
        x = _values(gen, torch.float32, "cuda:1")
        out = torch.empty_like(x)
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            OPS.hardsigmoid_out(x, out)  # warm-up outside capture
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        # A capture stream of this device: torch.cuda.graph's default one is created once per
        # process, on whichever device was current then.
        with torch.cuda.graph(graph, stream=torch.cuda.Stream()):
            OPS.hardsigmoid_out(x, out)
        x.copy_(_values(gen, torch.float32, "cuda:1"))
        graph.replay()
        assert_identical(out, F.hardsigmoid(x), inputs=x)


@pytest.mark.parametrize("variant", ["out", "backward"])
def test_tensors_on_two_devices_are_refused(gen, variant):
    x = _values(gen, torch.float32, "cuda:0")
    other = _values(gen, torch.float32, "cuda:1")
    before = other.clone()
    with pytest.raises(RuntimeError, match="device"):
        if variant == "out":
            OPS.hardsigmoid_out(x, other)
        else:
            OPS.hardsigmoid_backward(other, x)
    assert_unchanged(before, other)
