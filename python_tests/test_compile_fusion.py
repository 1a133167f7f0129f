"""torch.compile with the package's fusion (compile_fusion.py): a graph using our ops compiles to
the code of the same graph using aten's, bit for bit in every dtype, forward and backward, static
and dynamic shapes; no call into the library is left where inductor fuses; the switch restores
the opaque kernels; the on-disk caches never hand one state's graph to the other; torch.export
keeps our ops."""

import os
import re
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F
from torch._dynamo.utils import counters
from torch._inductor.utils import fresh_cache, run_and_get_code

import hardsigmoid_ops
from compile_graphs import graphs
from hardsigmoid_testing import FLOAT_DTYPES, OPS
from hardsigmoid_testing.checks import assert_identical
from hardsigmoid_testing.config import LIBRARY, package_parent
from hardsigmoid_testing.values import random_values

dtypes = pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: str(d).split(".")[1])


def _aten_inplace(t):
    F.hardsigmoid(t, inplace=True)


# The benchmark's graphs (benchmarks/compile_graphs.py), those of the three forward ops.
FORWARD_GRAPHS = ("alone", "before", "after", "both", "inplace", "out")
OURS = {name: graph for name, graph in
        graphs(OPS.hardsigmoid, OPS.hardsigmoid_, OPS.hardsigmoid_out).items()
        if name in FORWARD_GRAPHS}
ATEN = {name: graph for name, graph in
        graphs(F.hardsigmoid, _aten_inplace,
               lambda x, out: torch._C._nn.hardsigmoid(x, out=out)).items()
        if name in FORWARD_GRAPHS}
DIFFERENTIABLE = ("alone", "before", "after", "both", "inplace")


pytestmark = pytest.mark.usefixtures("fused_compile")


def _inputs(dtype, device, gen, rows=37, requires_grad=False):
    def one():
        t = random_values(rows * 11, dtype, gen).reshape(rows, 11).to(device)
        return t.requires_grad_(requires_grad)

    return one(), one()


def _run(fn, x, s, upstream):
    """The result, and with `upstream` the gradients of x and s."""
    y = fn(x, s)
    if upstream is None:
        return (y,)
    grads = torch.autograd.grad(y, (x, s), upstream, allow_unused=True, materialize_grads=True)
    return (y.detach(), *grads)


def _compare(name, dtype, device, gen, dynamic, backward):
    ours = torch.compile(OURS[name], fullgraph=True, dynamic=dynamic)
    aten = torch.compile(ATEN[name], fullgraph=True, dynamic=dynamic)
    for rows in (37, 64) if dynamic else (37,):
        x, s = _inputs(dtype, device, gen, rows, requires_grad=backward)
        upstream = random_values(rows * 11, dtype, gen).reshape(rows, 11).to(device)
        with torch._dynamo.config.patch(error_on_recompile=dynamic and rows != 37):
            got = _run(ours, x, s, upstream if backward else None)
            expected = _run(aten, x, s, upstream if backward else None)
        for g, e in zip(got, expected):
            assert_identical(g, e, inputs=x)


@dtypes
@pytest.mark.parametrize("name", OURS)
def test_forward_equals_compiled_aten(device, dtype, name, gen):
    _compare(name, dtype, device, gen, dynamic=False, backward=False)


@pytest.mark.parametrize("name", DIFFERENTIABLE)
@dtypes
def test_backward_equals_compiled_aten(device, dtype, name, gen):
    # The in-place op in half types checks its functionalization in particular: compiled aten's
    # backward recomputes the in-place result unrounded inside its fused kernel, and so must ours.
    _compare(name, dtype, device, gen, dynamic=False, backward=True)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["float16", "bfloat16"])
def test_opaque_inplace_backward_equals_eager(device, dtype, gen):
    """Fusion off: the in-place op is one opaque call, and the backward reads its stored result,
    rounded as eager's is (compiled aten's recomputes it unrounded). A NaN is compared as NaN:
    the multiplications around the op are inductor's kernels here and eager aten's in the
    reference, and a NaN through them keeps different bits (eager's scalar tail returns c10's
    bfloat16 NaN, inductor's vector code the all-ones one)."""
    hardsigmoid_ops.set_compile_fusion(False)
    compiled = torch.compile(OURS["inplace"], fullgraph=True)
    x, s = _inputs(dtype, device, gen, requires_grad=True)
    upstream = random_values(37 * 11, dtype, gen).reshape(37, 11).to(device)
    got = _run(compiled, x, s, upstream)
    expected = _run(ATEN["inplace"], x, s, upstream)
    for g, e in zip(got, expected):
        assert_identical(g, e, inputs=x, nan_bits=False)


def test_tracing_outside_compile_keeps_the_inplace_op(device, gen):
    """The in-place op's decomposition is for torch.compile's functionalization only: make_fx
    records the op itself."""
    def f(x):
        t = x * 2
        OPS.hardsigmoid_(t)
        return t

    x, _ = _inputs(torch.float32, device, gen)
    graph = torch.fx.experimental.proxy_tensor.make_fx(f)(x)
    targets = {str(node.target) for node in graph.graph.nodes}
    assert "hardsigmoid_ops.hardsigmoid_.default" in targets, targets
    assert_identical(graph(x), f(x), inputs=x)


@pytest.mark.parametrize("name, dtype", [
    ("both", torch.float32), ("both", torch.bfloat16), ("inplace", torch.float32),
    ("inplace", torch.bfloat16)],
    ids=["both-float32", "both-bfloat16", "inplace-float32", "inplace-bfloat16"])
def test_dynamic_shapes_without_recompiling(device, dtype, name, gen):
    _compare(name, dtype, device, gen, dynamic=True, backward=True)


@dtypes
def test_backward_op_equals_compiled_aten(device, dtype, gen):
    def ours(g, x):
        return OPS.hardsigmoid_backward(g * 2, x) + x

    def aten(g, x):
        return torch.ops.aten.hardsigmoid_backward(g * 2, x) + x

    g, x = _inputs(dtype, device, gen)
    assert_identical(torch.compile(ours, fullgraph=True)(g, x),
                     torch.compile(aten, fullgraph=True)(g, x), inputs=x)


# How generated code calls a library op (comments of fused kernels name the op too).
LIBRARY_CALL = "torch.ops.hardsigmoid_ops."


def _generated_code(fn, *args):
    _, code = run_and_get_code(torch.compile(fn, fullgraph=True), *args)
    return "\n".join(code)


@pytest.mark.parametrize("name", ["before", "after", "both", "inplace", "out"])
def test_fused_code_calls_no_library_kernel(device, name, gen):
    x, s = _inputs(torch.float32, device, gen)
    code = _generated_code(OURS[name], x, s)
    assert LIBRARY_CALL not in code, code
    torch._dynamo.reset()
    hardsigmoid_ops.set_compile_fusion(False)
    assert LIBRARY_CALL in _generated_code(OURS[name], x, s)


def _normalized(code):
    """Generated code without what names its origin: comments, cache paths, hashes."""
    code = re.sub(r"#.*", "", code)
    code = re.sub(r"/tmp/\S+", "", code)
    return re.sub(r"\b[a-z0-9]{20,}\b", "<hash>", code)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["float32", "bfloat16"])
@pytest.mark.parametrize("name", OURS)
def test_fused_code_is_atens_code(device, dtype, name, gen):
    """The whole generated program, forward and backward where differentiable, is the one
    compiled from aten's graph: then any time difference between the two is noise."""
    backward = name in DIFFERENTIABLE
    x, s = _inputs(dtype, device, gen, requires_grad=backward)
    upstream = random_values(37 * 11, dtype, gen).reshape(37, 11).to(device)

    def code(fn):
        torch._dynamo.reset()
        compiled = torch.compile(fn, fullgraph=True)
        run = (lambda a, b: _run(compiled, a, b, upstream)) if backward else compiled
        return _normalized("\n".join(run_and_get_code(run, x, s)[1]))

    assert code(OURS[name]) == code(ATEN[name])


def test_switching_off_leaves_the_opaque_kernel(device, gen):
    x, s = _inputs(torch.float64, device, gen)
    hardsigmoid_ops.set_compile_fusion(False)
    assert not hardsigmoid_ops.compile_fusion_enabled()
    compiled = torch.compile(OURS["after"], fullgraph=True)
    # The library's kernel inside the compiled graph: eager aten's result, bit for bit. The
    # multiply is inductor's in both: where x is a NaN, so is aten's hardsigmoid of it, and a
    # product of two NaNs takes one operand's bits, inductor's choice of which not eager's.
    multiply = torch.compile(lambda x, h: x * h, fullgraph=True)
    assert_identical(compiled(x, s), multiply(x, F.hardsigmoid(x)), inputs=x)


def test_disk_caches_keep_the_two_states_apart(device, gen):
    """A graph compiled and cached fused is not served once fusion is off, nor the reverse;
    each state's own entry is still served to itself."""
    x, s = _inputs(torch.float32, device, gen)
    with fresh_cache():
        codes = {}
        for step, state in enumerate((True, False, True, False)):
            torch._dynamo.reset()
            hardsigmoid_ops.set_compile_fusion(state)
            hits = counters["inductor"]["fxgraph_cache_hit"]
            codes[step] = _generated_code(OURS["both"], x, s)
            hit = counters["inductor"]["fxgraph_cache_hit"] > hits
            assert (LIBRARY_CALL in codes[step]) == (not state), (step, state)
            assert hit == (step >= 2), (step, state, "cache hit" if hit else "cache miss")


def test_export_keeps_the_ops(device, gen):
    class Gate(torch.nn.Module):
        def forward(self, x):
            t = x * 2
            OPS.hardsigmoid_(t)
            return OPS.hardsigmoid(x) * t

    x, _ = _inputs(torch.float32, device, gen)
    program = torch.export.export(Gate(), (x,))
    for graph in (program, program.run_decompositions()):
        # The in-place op is functionalized: the first argument of auto_functionalized.
        targets = {str(node.target) for node in graph.graph.nodes}
        targets |= {str(node.args[0]) for node in graph.graph.nodes
                    if "auto_functionalized" in str(node.target)}
        assert {"hardsigmoid_ops.hardsigmoid.default",
                "hardsigmoid_ops.hardsigmoid_.default"} <= targets, targets


def test_environment_switch_and_library_loaded_first():
    """HARDSIGMOID_OPS_COMPILE_FUSION=0 at import leaves the opaque kernel; without it, importing
    the package after torch.ops.load_library fuses."""
    script = (
        "import torch\n"
        f"torch.ops.load_library({str(LIBRARY)!r})\n"
        "import hardsigmoid_ops\n"
        "from torch._inductor.utils import run_and_get_code\n"
        "f = torch.compile(lambda x: x * torch.ops.hardsigmoid_ops.hardsigmoid(x))\n"
        "_, code = run_and_get_code(f, torch.randn(8))\n"
        "print('opaque' if 'torch.ops.hardsigmoid_ops' in '\\n'.join(code) else 'fused')\n"
    )
    for value, expected in (("0", "opaque"), (None, "fused")):
        env = dict(os.environ, PYTHONPATH=str(package_parent()))
        env.pop("HARDSIGMOID_OPS_COMPILE_FUSION", None)
        if value is not None:
            env["HARDSIGMOID_OPS_COMPILE_FUSION"] = value
        result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                                text=True, timeout=300)
        assert result.returncode == 0, result.stderr[-3000:]
        assert result.stdout.split()[-1] == expected, (value, result.stdout)


def test_functionalization_without_inductors_table_keeps_the_ops(device, gen):
    """AOTAutograd with no decomposition table (aot_eager's way): the mutating ops are
    functionalized as custom ops, not turned into aten's."""
    from torch._functorch.aot_autograd import aot_function

    graphs = []

    def keep(graph, _):
        graphs.append(graph)
        return graph

    def f(x, s):
        t = x * 2
        OPS.hardsigmoid_(t)
        o = torch.empty_like(s)
        OPS.hardsigmoid_out(s, o)
        return t + o

    x, s = _inputs(torch.float32, device, gen)
    result = aot_function(f, fw_compiler=keep)(x, s)
    assert_identical(result, f(x, s), inputs=x)
    code = graphs[0].code
    assert "hardsigmoid_ops.hardsigmoid_.default" in code, code
    assert "hardsigmoid_ops.hardsigmoid_out.default" in code, code
    assert "aten.hardsigmoid" not in code, code


@pytest.mark.parametrize("device_type", ["xpu", "mps"])
def test_tracing_on_a_device_without_kernels_reaches_the_meta_kernels(device_type, monkeypatch):
    """Fake tensors of a device the library has no kernel for, under the Python dispatcher (as
    dynamo traces): the mutating ops reach their Meta kernels, as the functional op does."""
    from torch._dispatch.python import enable_python_dispatcher
    from torch._subclasses import fake_tensor
    from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode

    # A fake xpu tensor first allocates a real one wherever CUDA is available (a context for
    # backward), which this torch, built without XPU, cannot: the fake tensors need no device.
    monkeypatch.setattr(fake_tensor, "init_gpu_context", lambda device: None)
    mode = FakeTensorMode()

    def fake():
        return FakeTensor(mode, torch.empty(5, 3, device="meta"), torch.device(device_type))

    x, out = fake(), fake()
    with mode, enable_python_dispatcher():
        OPS.hardsigmoid_(x)
        OPS.hardsigmoid_out(x, out)
        y = OPS.hardsigmoid(x)
    assert y.device.type == device_type and y.shape == (5, 3)
