"""The suite's compilations run in inductor's deterministic mode, every one of them: the tests
comparing a graph compiled with our ops against the same graph compiled with aten's rely on both
compilations choosing alike, without timings (conftest.py says how the mode is set, and why
inductor's own flag alone is not enough). Each test here compiles four graphs, forward and
backward, resetting Dynamo between them as the tests do: the mode must be in force at every
inductor compilation, whatever ran before."""

import pytest
import torch
import torch.nn.functional as F
from torch._inductor.compile_fx import compile_fx, compile_fx_inner
from torch._inductor.utils import fresh_cache

from hardsigmoid_testing import OPS


def _recording_inductor(modes):
    """Inductor as torch.compile's backend, noting the mode in force at each graph it compiles
    (the forward graph, and the backward graph when autograd first needs it)."""

    def inner(*args, **kwargs):
        modes.append(torch._inductor.config.deterministic)
        return compile_fx_inner(*args, **kwargs)

    return lambda graph, inputs: compile_fx(graph, inputs, inner_compile=inner)


@pytest.mark.parametrize("first", ["library", "aten"])
def test_every_compilation_is_deterministic(device, first, gen):
    ops = {"library": OPS.hardsigmoid, "aten": F.hardsigmoid}
    order = [first, *(name for name in ops if name != first)] * 2
    modes = []
    # An empty cache, and a graph of its own each time (its own constant): a graph served from a
    # cache is not compiled.
    with fresh_cache():
        for step, name in enumerate(order):
            torch._dynamo.reset()
            op, scale = ops[name], step + 2
            compiled = torch.compile(lambda t: op(t * scale) * t, fullgraph=True,
                                     backend=_recording_inductor(modes))
            x = torch.randn(37, 11, generator=gen).to(device).requires_grad_()
            compiled(x).sum().backward()
    torch._dynamo.reset()
    assert modes == [True] * 2 * len(order), modes
