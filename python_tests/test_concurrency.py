"""The ops used concurrently or repeatedly: from 8 CPU threads at once, on several CUDA streams at
once, captured in CUDA graphs and replayed, and with the library loaded again under other paths.
Each time the results are the serial ones, which equal aten's."""

import concurrent.futures
import json
import subprocess
import sys
import threading

import pytest
import torch
import torch.nn.functional as F

from hardsigmoid_testing import FLOAT_DTYPES, OPS
from hardsigmoid_testing.checks import assert_identical, assert_only_view_written
from hardsigmoid_testing.config import LIBRARY
from hardsigmoid_testing.fuzz_cases import VARIANTS
from hardsigmoid_testing.layouts import LAYOUTS, SENTINEL, random_view, sentinel_view
from hardsigmoid_testing.values import BITS_DTYPE

requires_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")


def run_variant(variant, x, grad, scratch):
    """`variant`'s result for self `x` (and `grad`, for the backward). The in-place and out
    variants write into `scratch`, a writable tensor of x's shape, first reset."""
    if variant == "functional":
        return OPS.hardsigmoid(x)
    if variant == "inplace":
        scratch.copy_(x)
        OPS.hardsigmoid_(scratch)
        return scratch
    if variant == "out":
        scratch.fill_(SENTINEL)  # an op that writes nothing leaves sentinels, not a past result
        OPS.hardsigmoid_out(x, scratch)
        return scratch
    return OPS.hardsigmoid_backward(grad, x)


def aten_result(variant, x, grad, scratch):
    """aten's same variant on the same operands (the layouts decide which NaN aten returns)."""
    if variant == "inplace":
        scratch.copy_(x)
        return F.hardsigmoid(scratch, inplace=True)
    if variant == "out":
        return torch._C._nn.hardsigmoid(x, out=scratch)
    if variant == "backward":
        return torch.ops.aten.hardsigmoid_backward(grad, x)
    return F.hardsigmoid(x)


def bits_equal(a, b):
    """Identical bits, NaN payloads included: the same op on the same input must not vary."""
    bits = BITS_DTYPE[a.dtype]
    return a.dtype == b.dtype and torch.equal(a.view(bits), b.view(bits))


def serial_results(x, grad):
    """Each variant's result from a serial call, checked against aten's first."""
    results = {}
    for variant in VARIANTS:
        ours = run_variant(variant, x, grad, torch.empty_like(x)).clone()
        assert_identical(ours, aten_result(variant, x, grad, torch.empty_like(x)), inputs=x)
        results[variant] = ours
    return results


def random_operands(layout, n, dtype, device, gen):
    """(self, grad_output) of one layout, each a view into its own buffer."""
    return (random_view(LAYOUTS[layout](n), dtype, device, gen)[1],
            random_view(LAYOUTS[layout](n), dtype, device, gen)[1])


# CPU threads: each on its own input and dtype. Some inputs are large enough for the CPU kernels
# to split them over intra-op threads (at::internal::GRAIN_SIZE is 32768), so that parallel_for is
# entered from all 8 threads at once; the others take odd strided walks.
THREADS = 8
CPU_ITERATIONS = 40
CPU_INPUTS = [
    ("contiguous", 40_003),
    ("transposed", 333),
    ("offset", 50_001),
    ("step2", 1001),
    ("channels_last", 77),
    ("expanded", 257),
    ("contiguous", 7),
    ("offset", 4097),
]


def _hammer(x, grad, expected, iterations, start):
    """Calls every variant `iterations` times; the first difference from `expected`, or None."""
    scratch = torch.empty_like(x)
    start.wait()
    for iteration in range(iterations):
        for variant in VARIANTS:
            if not bits_equal(run_variant(variant, x, grad, scratch), expected[variant]):
                return f"iteration {iteration}: {variant} differs from the serial result"
    return None


def test_cpu_threads_at_once(gen):
    operands = [random_operands(layout, n, FLOAT_DTYPES[i % len(FLOAT_DTYPES)], "cpu", gen)
                for i, (layout, n) in enumerate(CPU_INPUTS[:THREADS])]
    expected = [serial_results(x, grad) for x, grad in operands]
    start = threading.Barrier(THREADS, timeout=120)  # no hang if a thread dies first
    with concurrent.futures.ThreadPoolExecutor(THREADS) as pool:
        futures = [pool.submit(_hammer, x, grad, want, CPU_ITERATIONS, start)
                   for (x, grad), want in zip(operands, expected)]
        outcomes = [future.result() for future in futures]
    failures = [f"thread {i} ({CPU_INPUTS[i]}, {operands[i][0].dtype}): {outcome}"
                for i, outcome in enumerate(outcomes) if outcome]
    assert not failures, "\n".join(failures)


# CUDA streams: one host thread per stream, each launching on its own stream. Every iteration
# first resets the operands to sentinels, then stalls its stream (torch.cuda._sleep) before
# copying the inputs in: a kernel launched on any stream but the current one would run during the
# stall and read sentinels.
STREAMS = 4
CUDA_ITERATIONS = 10
STALL_CYCLES = 1_000_000
CUDA_INPUTS = [("contiguous", 1 << 20), ("offset", (1 << 20) + 1), ("transposed", 100_003),
               ("step2", 1 << 19)]


def _on_stream(stream, x, grad, expected, start):
    """Every variant on `stream`, from staged copies of `x` and `grad`; the first difference."""
    with torch.cuda.stream(stream):
        staged = [sentinel_view(t, t.dtype, t.device) for t in (x, grad)]
        scratch = torch.empty_like(x)
        start.wait()
        for iteration in range(CUDA_ITERATIONS):
            for buffer, _ in staged:
                buffer.fill_(SENTINEL)
            torch.cuda._sleep(STALL_CYCLES)
            for (_, view), source in zip(staged, (x, grad)):
                view.copy_(source)
            results = {v: run_variant(v, staged[0][1], staged[1][1], scratch).clone()
                       for v in VARIANTS}
            stream.synchronize()
            for variant, result in results.items():
                if not bits_equal(result, expected[variant]):
                    return f"iteration {iteration}: {variant} differs from the serial result"
    return None


@requires_cuda
def test_cuda_streams_at_once(gen):
    operands = [random_operands(layout, n, FLOAT_DTYPES[i % len(FLOAT_DTYPES)], "cuda", gen)
                for i, (layout, n) in enumerate(CUDA_INPUTS[:STREAMS])]
    expected = [serial_results(x, grad) for x, grad in operands]
    torch.cuda.synchronize()  # the side streams start from finished inputs
    streams = [torch.cuda.Stream() for _ in range(STREAMS)]
    start = threading.Barrier(STREAMS, timeout=120)
    with concurrent.futures.ThreadPoolExecutor(STREAMS) as pool:
        futures = [pool.submit(_on_stream, stream, x, grad, want, start)
                   for stream, (x, grad), want in zip(streams, operands, expected)]
        outcomes = [future.result() for future in futures]
    failures = [f"stream {i} ({CUDA_INPUTS[i]}): {outcome}"
                for i, outcome in enumerate(outcomes) if outcome]
    assert not failures, "\n".join(failures)


# CUDA graphs: a captured call must launch on the capturing stream, never synchronize, and read
# its operands at replay time, so that a replay after new contents gives the new result.
GRAPH_N = 4099


@requires_cuda
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("layout", ["contiguous", "offset", "step2"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["float32", "bfloat16"])
def test_cuda_graph_replay(variant, layout, dtype, gen):
    template = LAYOUTS[layout](GRAPH_N)
    x, grad = random_operands(layout, GRAPH_N, dtype, "cuda", gen)
    scratch_buffer, scratch = sentinel_view(template, dtype, "cuda")

    side = torch.cuda.Stream()  # warm-up off the default stream, as torch.cuda.graph advises
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            run_variant(variant, x, grad, scratch)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        result = run_variant(variant, x, grad, scratch)

    for replay in range(3):
        if replay:  # new contents in the same static inputs
            new_x, new_grad = random_operands(layout, GRAPH_N, dtype, "cuda", gen)
            x.copy_(new_x)
            grad.copy_(new_grad)
        scratch_buffer.fill_(SENTINEL)
        graph.replay()
        torch.cuda.synchronize()
        assert_identical(result, aten_result(variant, x, grad, torch.empty_like(scratch)), inputs=x)
        assert_only_view_written(scratch_buffer, scratch)


# Loading again, in a fresh process so that a crash fails this test rather than the session.
# torch.ops.load_library canonicalizes the path, so the script also dlopens the other spellings
# as given; the dynamic loader must recognize the file already loaded and run no registration
# twice.
LOAD_AGAIN = r"""
import ctypes, json, os, sys, tempfile
import torch

library = sys.argv[1]
directory, name = os.path.split(library)
link = os.path.join(tempfile.mkdtemp(), name)
os.symlink(library, link)
torch.ops.load_library(library)
for path in (library, os.path.join(directory, ".", name), link):
    torch.ops.load_library(path)
    ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
os.remove(link)

x = torch.randn(1000) * 4
grad = torch.randn(1000)
ops = torch.ops.hardsigmoid_ops
out = torch.empty_like(x)
ops.hardsigmoid_out(x, out)
y = x.clone()
ops.hardsigmoid_(y)
ref = torch.nn.functional.hardsigmoid(x)
works = [torch.equal(ops.hardsigmoid(x), ref), torch.equal(out, ref), torch.equal(y, ref),
         torch.equal(ops.hardsigmoid_backward(grad, x),
                     torch.ops.aten.hardsigmoid_backward(grad, x))]
dumps = {op: torch._C._dispatch_dump("hardsigmoid_ops::" + op)
         for op in ("hardsigmoid", "hardsigmoid_", "hardsigmoid_out", "hardsigmoid_backward")}
print(json.dumps({"works": works, "dumps": dumps}))
"""


def _registered_keys(dump):
    """The dispatch key of every kernel in a _dispatch_dump, overridden ones included (these show
    as "CPU (inactive): registered at ...")."""
    return [line.split(":")[0].removesuffix(" (inactive)") for line in dump.splitlines()
            if ": registered at " in line and not line.startswith("debug:")]


def test_loading_again_under_other_paths():
    process = subprocess.run([sys.executable, "-c", LOAD_AGAIN, str(LIBRARY)],
                             capture_output=True, text=True, timeout=300)
    assert process.returncode == 0, process.stderr
    # A second registration of a kernel would warn "Overriding a previously registered kernel".
    assert "Overriding" not in process.stderr, process.stderr
    report = json.loads(process.stdout.splitlines()[-1])
    assert report["works"] == [True] * 4
    for op, dump in report["dumps"].items():
        keys = _registered_keys(dump)
        assert keys.count("CPU") == 1, f"{op}:\n{dump}"
        assert len(keys) == len(set(keys)), f"{op} has a key registered twice:\n{dump}"
        assert sum(line.startswith("schema:") for line in dump.splitlines()) == 1, dump
