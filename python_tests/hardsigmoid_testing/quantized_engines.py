"""The quantized engines (torch.backends.quantized.engine) a test runs under."""

import contextlib

import torch

# Those this torch supports ("none" aside).
SUPPORTED = [e for e in torch.backends.quantized.supported_engines if e != "none"]


@contextlib.contextmanager
def quantized_engine(name):
    """The engine set to `name` inside, the one before restored after, whatever is raised."""
    before = torch.backends.quantized.engine
    torch.backends.quantized.engine = name
    try:
        yield name
    finally:
        torch.backends.quantized.engine = before
