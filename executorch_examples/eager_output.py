"""Eager aten's output of the round trip's model (scaled_model.py) on the input export_model.py
wrote, computed by this Python's torch: on aarch64 under emulation, the reference run_pte's
output there must equal byte for byte.

    python eager_output.py OUTFILE_NAME DTYPE:DIR...

reads DIR/input.bin (raw DTYPE values of scaled_model.SHAPE) and writes DIR/OUTFILE_NAME for each
DIR, in one process (importing torch is the slow part under emulation)."""

import pathlib
import sys

import torch

from scaled_model import SHAPE, eager_aten_output

for argument in sys.argv[2:]:
    dtype_name, directory = argument.split(":", 1)
    directory = pathlib.Path(directory)
    raw = bytearray((directory / "input.bin").read_bytes())
    x = torch.frombuffer(raw, dtype=torch.uint8).view(getattr(torch, dtype_name)).reshape(SHAPE)
    out = eager_aten_output(x)
    (directory / sys.argv[1]).write_bytes(out.contiguous().view(torch.uint8).numpy().tobytes())
