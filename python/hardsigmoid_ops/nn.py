"""The module: a drop-in for torch.nn.Hardsigmoid that runs the library's op, and the one-line swap
for a model's.

    model.features[3].block[2].scale_activation = hardsigmoid_ops.nn.Hardsigmoid()
    hardsigmoid_ops.replace_hardsigmoid(model)    # every nn.Hardsigmoid in the tree; the count

Hardsigmoid subclasses torch.nn.Hardsigmoid, so that code asking isinstance(m, nn.Hardsigmoid)
treats it as the module it replaces; only forward differs. Code matching the exact type does not:
torch.ao.quantization's module mappings, and torch.fx.symbolic_trace, which keeps only torch.nn's
own modules as leaves (it records the op call instead). It is scriptable (torch.jit.script) and
exportable (torch.export keeps the library's ops).
"""

import torch
from torch import Tensor

from . import functional

__all__ = ["Hardsigmoid", "replace_hardsigmoid"]


class Hardsigmoid(torch.nn.Hardsigmoid):
    """relu6(x + 3) / 6 elementwise through hardsigmoid_ops; `inplace` as nn.Hardsigmoid's."""

    def forward(self, input: Tensor) -> Tensor:
        # TorchScript can call torch.ops but not the functional module's bound callables, which
        # save eager calls a Python frame (torch.compile traces them too); it compiles only the
        # first branch here, since it evaluates is_scripting() while compiling.
        if torch.jit.is_scripting():
            if self.inplace:
                torch.ops.hardsigmoid_ops.hardsigmoid_(input)
                return input
            return torch.ops.hardsigmoid_ops.hardsigmoid(input)
        return functional.hardsigmoid(input, self.inplace)


def replace_hardsigmoid(module: torch.nn.Module) -> int:
    """Turns every torch.nn.Hardsigmoid in the module tree (the root included) into this package's
    Hardsigmoid, in place, and returns how many it turned. Each keeps its identity, `inplace`,
    hooks and attributes: only its class changes (ours adds no state). Subclasses of
    nn.Hardsigmoid other than ours are left alone: their forward is their own."""
    swapped = 0
    for child in module.modules():
        if type(child) is torch.nn.Hardsigmoid:
            child.__class__ = Hardsigmoid
            swapped += 1
    return swapped
