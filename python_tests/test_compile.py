"""torch.compile (inductor, fullgraph) of a function using all three forward variants among other
ops, with the ops left opaque (the package's compile fusion switched off: the library's kernels
run inside the compiled graph): the same result as the function written with aten, eager, static
and dynamic shapes, no recompile across sizes when dynamic, and backward through the compiled
functional op. The fused path is test_compile_fusion.py's."""

import pytest
import torch
import torch.nn.functional as F
from torch._dynamo.utils import counters

import hardsigmoid_ops
from hardsigmoid_testing import OPS
from hardsigmoid_testing.checks import assert_identical

# float32 only: the surrounding ops are compiled by inductor, which may compute float16 / bfloat16
# arithmetic in float32 without rounding in between, unlike eager aten. The surrounding
# arithmetic is chosen to be exact or a single rounding (scaling by powers of two, one add), so
# that fusion or FMA contraction by inductor cannot change the result either.
DTYPE = torch.float32


def with_ours(x, weight, preallocated):
    h = F.linear(x, weight)
    a = OPS.hardsigmoid(h)
    t = h * 2 + 1
    OPS.hardsigmoid_(t)  # in place on an intermediate
    tmp = torch.empty_like(h)
    OPS.hardsigmoid_out(h - 1, tmp)  # out into an intermediate
    OPS.hardsigmoid_out(a + t, preallocated)  # out into a graph input
    return (a + t) * 0.5 + tmp, preallocated * 4


def with_aten(x, weight, preallocated):
    h = F.linear(x, weight)
    a = F.hardsigmoid(h)
    t = h * 2 + 1
    F.hardsigmoid(t, inplace=True)
    tmp = torch.empty_like(h)
    torch._C._nn.hardsigmoid(h - 1, out=tmp)
    torch._C._nn.hardsigmoid(a + t, out=preallocated)
    return (a + t) * 0.5 + tmp, preallocated * 4


@pytest.fixture(autouse=True)
def fresh_dynamo():
    # Compiled code is cached per Python function; each test compiles under its own settings.
    fusion = hardsigmoid_ops.compile_fusion_enabled()
    hardsigmoid_ops.set_compile_fusion(False)
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()
    hardsigmoid_ops.set_compile_fusion(fusion)


def _arguments(rows, device, gen):
    x = (torch.randn(rows, 16, generator=gen) * 3).to(device)
    weight = torch.randn(24, 16, generator=gen).to(device)
    preallocated = torch.full((rows, 24), 42.0, device=device)
    return x, weight, preallocated


def _check_against_aten(compiled, rows, device, gen):
    x, weight, preallocated = _arguments(rows, device, gen)
    ref_preallocated = preallocated.clone()
    ours = compiled(x, weight, preallocated)
    ref = with_aten(x, weight, ref_preallocated)
    for got, expected in zip(ours, ref):
        assert_identical(got, expected)
    # The mutation of a graph input is visible to the caller, as in eager mode.
    assert_identical(preallocated, ref_preallocated)


def test_static_shapes(device, gen):
    compiled = torch.compile(with_ours, fullgraph=True, backend="inductor", dynamic=False)
    _check_against_aten(compiled, 33, device, gen)


def test_dynamic_shapes_do_not_recompile(device, gen):
    compiled = torch.compile(with_ours, fullgraph=True, backend="inductor", dynamic=True)
    graphs_before = counters["stats"]["unique_graphs"]
    _check_against_aten(compiled, 33, device, gen)
    with torch._dynamo.config.patch(error_on_recompile=True):
        _check_against_aten(compiled, 61, device, gen)
    assert counters["stats"]["unique_graphs"] - graphs_before == 1


def test_backward_through_compiled_functional(device, gen):
    def ours(x):
        return OPS.hardsigmoid(x * 2)

    def aten(x):
        return F.hardsigmoid(x * 2)

    compiled = torch.compile(ours, fullgraph=True, backend="inductor")
    values = (torch.randn(7, 9, generator=gen) * 3).to(device)
    upstream = torch.randn(7, 9, generator=gen).to(device)
    results = {}
    for name, fn in {"ours": compiled, "aten": aten}.items():
        x = values.clone().requires_grad_()
        y = fn(x)
        (grad,) = torch.autograd.grad(y, x, upstream)
        results[name] = (y.detach(), grad)
    for got, expected in zip(results["ours"], results["aten"]):
        assert_identical(got, expected, inputs=values)


def test_no_graph_breaks(device, gen):
    """dynamo captures the three variants, the aten ops around them, in one graph."""
    explanation = torch._dynamo.explain(with_ours)(*_arguments(9, device, gen))
    assert explanation.graph_break_count == 0, explanation.break_reasons
    assert explanation.graph_count == 1


def backward_with_ours(grad, x):
    return OPS.hardsigmoid_backward(grad * 2, x - 1) * 0.5


def backward_with_aten(grad, x):
    return torch.ops.aten.hardsigmoid_backward(grad * 2, x - 1) * 0.5


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_backward_op_compiled_on_its_own(device, gen, dynamic):
    """The backward op called directly inside a compiled function, as a user's own backward
    would: one graph, the same result as aten's kernel, no recompile across sizes when dynamic."""
    compiled = torch.compile(backward_with_ours, fullgraph=True, backend="inductor",
                             dynamic=dynamic)
    graphs_before = counters["stats"]["unique_graphs"]
    for step, rows in enumerate((13, 40)):
        grad = torch.randn(rows, 9, generator=gen).to(device)
        x = (torch.randn(rows, 9, generator=gen) * 4).to(device)
        with torch._dynamo.config.patch(error_on_recompile=dynamic and step > 0):
            got = compiled(grad, x)
        assert_identical(got, backward_with_aten(grad, x), inputs=x)
    assert counters["stats"]["unique_graphs"] - graphs_before == (1 if dynamic else 2)
    explanation = torch._dynamo.explain(backward_with_ours)(grad, x)
    assert explanation.graph_break_count == 0, explanation.break_reasons


def gate(x, weight):
    """The variants without mutating a graph input, so that CUDA graphs capture all of it."""
    h = F.linear(x, weight)
    a = OPS.hardsigmoid(h)
    t = h * 2 + 1
    OPS.hardsigmoid_(t)
    tmp = torch.empty_like(h)
    OPS.hardsigmoid_out(h - 1, tmp)
    return (a + t) * 0.5 + tmp


def gate_aten(x, weight):
    h = F.linear(x, weight)
    a = F.hardsigmoid(h)
    t = F.hardsigmoid(h * 2 + 1)
    tmp = F.hardsigmoid(h - 1)
    return (a + t) * 0.5 + tmp


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_reduce_overhead_with_work_on_a_second_stream(gen):
    """mode="reduce-overhead" records CUDA graphs and replays them; meanwhile another stream
    keeps the GPU busy with unrelated work. Every call equals aten's."""
    compiled = torch.compile(gate, mode="reduce-overhead", fullgraph=True)
    weight = torch.randn(24, 16, generator=gen).cuda()
    side = torch.cuda.Stream()
    busy = torch.randn(2048, 2048, device="cuda")
    for step in range(6):  # warm-up, recording, then replays
        with torch.cuda.stream(side):
            for _ in range(4):
                busy = torch.tanh(busy @ busy)
        x = (torch.randn(33, 16, generator=gen) * 3).cuda()
        got = compiled(x, weight).clone()  # a replay's output is overwritten by the next
        assert_identical(got, gate_aten(x, weight), inputs=x)
    torch.cuda.synchronize()
