"""HARDSIGMOID_OPS_BYTE_LOOKUP through the loaded library: the 8-bit quantized table's lookup a run
names (ops/cpu/quantized/byte_lookup_choice.cpp), read once per process, so each case runs in a
process of its own.
A named lookup gives aten's codes; an unknown name fails every non-empty 8-bit call with a message
naming the variable and the lookups this processor runs, and leaves qint32 and empty tensors
alone. The lookups themselves, each forced, are proven against aten in C++
(cpp_tests/byte_lookups_test.cpp, Quantized.EveryByteLookupGivesAtensCodes)."""

import json
import os
import subprocess
import sys

from hardsigmoid_testing.config import LIBRARY

# Prints, as JSON: whether every quint8 and qint8 code of a large and a small input gives aten's
# codes (or the error the op raised), and whether qint32 and an empty quint8 tensor still work.
RUN_UNDER_THE_NAMED_LOOKUP = r"""
import json, sys
import torch
import torch.nn.functional as F
torch.ops.load_library(sys.argv[1])
report = {}
for dtype, low in ((torch.quint8, 0), (torch.qint8, -128)):
    for numel in (2 ** 15 + 3, 1500):
        codes = torch.randint(low, low + 256, (numel,), dtype=torch.int32)
        codes[:256] = torch.arange(low, low + 256)
        q = torch._make_per_tensor_quantized_tensor(codes.to(torch.int8 if low else torch.uint8),
                                                    0.03, 5)
        key = f"{dtype}-{numel}"
        try:
            ours = torch.ops.hardsigmoid_ops.hardsigmoid(q)
            report[key] = bool(torch.equal(ours.int_repr(), F.hardsigmoid(q).int_repr()))
        except RuntimeError as error:
            report[key] = str(error).splitlines()[0]
q32 = torch.quantize_per_tensor(torch.randn(40000), 1e-3, 0, torch.qint32)
report["qint32"] = bool(torch.equal(torch.ops.hardsigmoid_ops.hardsigmoid(q32).int_repr(),
                                    F.hardsigmoid(q32).int_repr()))
empty = torch.quantize_per_tensor(torch.randn(0), 0.1, 3, torch.quint8)
report["empty"] = torch.ops.hardsigmoid_ops.hardsigmoid(empty).numel() == 0
print(json.dumps(report))
"""


def _run_under(value):
    env = dict(os.environ, HARDSIGMOID_OPS_BYTE_LOOKUP=value)
    process = subprocess.run([sys.executable, "-c", RUN_UNDER_THE_NAMED_LOOKUP, str(LIBRARY)],
                             env=env, capture_output=True, text=True, timeout=300)
    assert process.returncode == 0, process.stderr
    return json.loads(process.stdout.splitlines()[-1])


def test_named_lookup_gives_atens_codes():
    # The byte loop: every processor runs it.
    report = _run_under("bytes")
    assert all(value is True for value in report.values()), report


def test_unknown_lookup_is_refused_by_name():
    report = _run_under("avx3")
    for key, value in report.items():
        if key in ("qint32", "empty"):
            assert value is True, report
        else:
            assert isinstance(value, str), report
            assert "HARDSIGMOID_OPS_BYTE_LOOKUP=avx3: no lookup of that name" in value, value
            assert "bytes" in value, value
