"""torch.jit.script with its deprecation warning silenced (that warning only, only here)."""

import warnings

import torch


def script(module):
    # torch.jit.script is deprecated: torch 2.11 - 2.13 say so with a DeprecationWarning, 2.14 and
    # later with a FutureWarning (shown to users by default). It still scripts, and is what
    # TorchScript users call.
    with warnings.catch_warnings():
        for category in (DeprecationWarning, FutureWarning):
            warnings.filterwarnings("ignore", message=".*torch.jit.script.*deprecated",
                                    category=category)
        return torch.jit.script(module)
