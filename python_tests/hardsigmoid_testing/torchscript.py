"""torch.jit.script with its deprecation warning silenced (that warning only, only here)."""

import warnings

import torch


def script(module):
    # torch.jit.script is deprecated in torch 2.11; it is still what TorchScript users call.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*torch.jit.script.*deprecated",
                                category=DeprecationWarning)
        return torch.jit.script(module)
