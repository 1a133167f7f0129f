"""Helpers shared by the test files: input values, strided layouts, bitwise comparisons."""

import torch

# The ops under test; conftest.py has loaded the library before any test module is imported.
OPS = torch.ops.hardsigmoid_ops

FLOAT_DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
