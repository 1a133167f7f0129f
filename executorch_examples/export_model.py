"""Exports a model using hardsigmoid_ops to an ExecuTorch program, with the input and the output
eager aten computes for it, for run_pte (a C++ program with no libtorch) to run and match.

    python export_model.py LIBRARY OUTDIR [DTYPE]     (float32, float64, float16 or bfloat16)

writes OUTDIR/model.pte, OUTDIR/input.bin and OUTDIR/expected.bin (raw bytes). The model is
hardsigmoid(2 * x) on random values and the edge ones (scaled_model.py); the expected output is
the same model with aten's hardsigmoid, in eager.
"""

import pathlib
import sys

import torch
from executorch.exir import to_edge

import hardsigmoid_ops
from scaled_model import Scaled, eager_aten_output, make_input

library, outdir = sys.argv[1], pathlib.Path(sys.argv[2])
dtype = getattr(torch, sys.argv[3] if len(sys.argv) > 3 else "float32")
hardsigmoid_ops.load_library(library)

x = make_input(dtype)
program = to_edge(torch.export.export(Scaled(hardsigmoid_ops.nn.Hardsigmoid()), (x,)))
outdir.mkdir(parents=True, exist_ok=True)
(outdir / "model.pte").write_bytes(program.to_executorch().buffer)
(outdir / "input.bin").write_bytes(x.contiguous().view(torch.uint8).numpy().tobytes())
expected = eager_aten_output(x)
(outdir / "expected.bin").write_bytes(expected.contiguous().view(torch.uint8).numpy().tobytes())
print(f"exported {outdir / 'model.pte'}: hardsigmoid(2 * x), {dtype}, {list(x.shape)}")
