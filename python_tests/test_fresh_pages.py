"""A new output's pages from Python (ops/cpu/fresh_pages.h): where the system grants transparent
huge pages (on request or always), the allocating calls' outputs lie in huge pages, read back from
/proc/self/smaps, and hold aten's bits (in a fresh process: in a long one, malloc may hand out a
freed block written before, which is left as it is), unless the process refuses them
(HARDSIGMOID_OPS_HUGE_PAGES=0); one call's peak memory is aten's; and where
the address space has no room for the output, the call fails as aten's does, with an error, and
the process goes on with nothing leaked. Each path forced, a refusing system and memory written
before: cpp_tests/fresh_pages_test.cpp."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

from hardsigmoid_testing.config import LIBRARY

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="huge pages and /proc/self/smaps are Linux's")

THP_MODE = pathlib.Path("/sys/kernel/mm/transparent_hugepage/enabled")
# 64 MiB outputs: above malloc's largest mmap threshold (32 MiB), so each is a fresh mapping.
OUTPUT_BYTES = 64 << 20


def _huge_pages_granted():
    try:
        mode = THP_MODE.read_text()
    except OSError:
        return False
    return "[madvise]" in mode or "[always]" in mode


# Each allocating call on 64 MiB outputs, in a fresh process (where malloc has no freed block that
# large to reuse, and takes its blocks above 128 KiB from new mappings, as it does from 32 MiB
# by default); prints, as JSON, per case: the KiB of huge pages in the output's mapping
# (/proc/self/smaps) and whether its bits are aten's.
HUGE_PAGES_OF_NEW_OUTPUTS = r"""
import json, sys
import torch
import torch.nn.functional as F
torch.ops.load_library(sys.argv[1])
ops = torch.ops.hardsigmoid_ops
BYTES = 64 << 20

def anon_huge_kib(address):
    inside = False
    for line in open("/proc/self/smaps"):
        first = line.split()[0]
        if "-" in first and not first.endswith(":"):
            low, high = (int(part, 16) for part in first.split("-"))
            inside = low <= address < high
        elif inside and first == "AnonHugePages:":
            return int(line.split()[1])

def bits(t):
    return t.view({1: torch.uint8, 2: torch.int16, 4: torch.int32}[t.element_size()])

report = {}
for dtype in (torch.float32, torch.bfloat16):
    n = BYTES // torch.empty((), dtype=dtype).element_size()
    x = torch.empty(n, dtype=dtype).uniform_(-4, 4)
    x[::7] = float("nan")
    grad = torch.empty(n, dtype=dtype).uniform_(-1, 1)
    for op, ours, aten in (("hardsigmoid", lambda: ops.hardsigmoid(x), lambda: F.hardsigmoid(x)),
                           ("hardsigmoid_backward", lambda: ops.hardsigmoid_backward(grad, x),
                            lambda: torch.ops.aten.hardsigmoid_backward(grad, x))):
        y = ours()
        same = bool(torch.equal(bits(y), bits(aten())))
        report[f"{op}-{dtype}"] = [anon_huge_kib(y.data_ptr()), same]
        del y
q = torch.quantize_per_tensor(torch.empty(BYTES).uniform_(-4, 4), 0.05, 128, torch.quint8)
y = ops.hardsigmoid(q)
report["hardsigmoid-quint8"] = [anon_huge_kib(y.data_ptr()),
                                bool(torch.equal(y.int_repr(), F.hardsigmoid(q).int_repr()))]
print(json.dumps(report))
"""


def _huge_pages_of_new_outputs(**environment):
    env = dict(os.environ, GLIBC_TUNABLES="glibc.malloc.mmap_threshold=131072", **environment)
    process = subprocess.run([sys.executable, "-c", HUGE_PAGES_OF_NEW_OUTPUTS, str(LIBRARY)],
                             env=env, capture_output=True, text=True, timeout=300)
    assert process.returncode == 0, process.stderr
    report = json.loads(process.stdout.splitlines()[-1])
    assert len(report) == 5, report
    return report


@pytest.mark.skipif(not _huge_pages_granted(),
                    reason="this system's transparent huge pages are off or absent")
def test_new_outputs_lie_in_huge_pages():
    for case, (huge_kib, atens_bits) in _huge_pages_of_new_outputs().items():
        # Most of the output (only its ends may lie outside whole huge pages).
        assert huge_kib >= OUTPUT_BYTES // 1024 // 2, (case, huge_kib)
        assert atens_bits, case


@pytest.mark.skipif(not THP_MODE.exists() or "[madvise]" not in THP_MODE.read_text(),
                    reason="huge pages come here without asking, or not at all")
def test_a_process_may_refuse_huge_pages():
    # Where they come only on request, HARDSIGMOID_OPS_HUGE_PAGES=0 asks for none.
    for case, (huge_kib, atens_bits) in _huge_pages_of_new_outputs(
            HARDSIGMOID_OPS_HUGE_PAGES="0").items():
        assert huge_kib == 0, (case, huge_kib)
        assert atens_bits, case


# One allocating call of 2^26 float32 elements in a fresh process, by `which`; prints the growth
# of the process's peak resident memory (VmHWM, KiB: this program's own, where ru_maxrss would
# carry the forking parent's peak across exec) over the call.
PEAK_OF_ONE_CALL = r"""
import sys
import torch
torch.ops.load_library(sys.argv[1])

def peak_kib():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])

x = torch.rand(1 << 26).mul_(8).sub_(4)  # in place: no temporary raises the peak before the call
small = torch.rand(1 << 10)
torch.ops.hardsigmoid_ops.hardsigmoid(small), torch.nn.functional.hardsigmoid(small)
before = peak_kib()
if sys.argv[2] == "ours":
    y = torch.ops.hardsigmoid_ops.hardsigmoid(x)
else:
    y = torch.nn.functional.hardsigmoid(x)
print(peak_kib() - before)
"""


def _peak_kib(which):
    process = subprocess.run([sys.executable, "-c", PEAK_OF_ONE_CALL, str(LIBRARY), which],
                             capture_output=True, text=True, timeout=300)
    assert process.returncode == 0, process.stderr
    return int(process.stdout.split()[-1])


def test_one_calls_peak_memory_is_atens():
    output_kib = (4 << 26) // 1024
    ours, aten = _peak_kib("ours"), _peak_kib("aten")
    # Each call's peak grows by its output; huge pages add none beyond it (the output's ends are
    # mapped in 4 KiB pages), within a few pages of the interpreter's own.
    assert output_kib <= aten <= output_kib + 4096, aten
    assert abs(ours - aten) <= 4096, (ours, aten)


# Where the address space leaves room for the input but not for the output: both calls fail with
# aten's allocator error, ours leaves the process's mappings as they were (nothing leaked; aten's
# call, the first to fail, may leave an arena malloc reserved on failing), and the process goes on
# to compute a small tensor. Prints a JSON report.
UNDER_A_MEMORY_LIMIT = r"""
import json, resource, sys
import torch
torch.ops.load_library(sys.argv[1])

def mapped_kib():
    for line in open("/proc/self/status"):
        if line.startswith("VmSize:"):
            return int(line.split()[1])

x = torch.rand(1 << 26) * 8 - 4
small = torch.rand(100_000) * 8 - 4
torch.ops.hardsigmoid_ops.hardsigmoid(small), torch.nn.functional.hardsigmoid(small)
before = mapped_kib()
# Room for 64 MiB more: a quarter of the 256 MiB output.
resource.setrlimit(resource.RLIMIT_AS, ((before + 65536) * 1024, resource.RLIM_INFINITY))
report = {}
for which, call in (("aten", torch.nn.functional.hardsigmoid),
                    ("ours", torch.ops.hardsigmoid_ops.hardsigmoid)):
    try:
        call(x)
        report[which] = "returned"
    except RuntimeError as error:
        report[which] = str(error).splitlines()[0]
    # What the failed call left mapped (malloc may reserve an arena at the first failure).
    report[which + "_mapped_growth_kib"] = mapped_kib() - before
    before = mapped_kib()
report["small_after"] = bool(torch.equal(torch.ops.hardsigmoid_ops.hardsigmoid(small),
                                         torch.nn.functional.hardsigmoid(small)))
print(json.dumps(report))
"""


def test_output_with_no_room_fails_as_atens():
    process = subprocess.run([sys.executable, "-c", UNDER_A_MEMORY_LIMIT, str(LIBRARY)],
                             capture_output=True, text=True, timeout=300)
    assert process.returncode == 0, process.stderr
    report = json.loads(process.stdout.splitlines()[-1])
    assert "can't allocate memory" in report["aten"], report
    assert report["ours"] == report["aten"], report
    assert report["ours_mapped_growth_kib"] <= 1024, report
    assert report["small_after"], report
