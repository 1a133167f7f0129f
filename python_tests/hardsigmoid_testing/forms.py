"""Every form of calling the ops in a model, each with aten's equivalent, and the block the
exporter and lowering tests put them in (test_aten_decompositions.py, test_onnx_export.py,
test_executorch.py)."""

import torch
import torch.nn.functional as F

import hardsigmoid_ops

from . import OPS

aten = torch.ops.aten


def _out(op):
    def call(x):
        out = torch.empty_like(x)
        op(x, out)
        return out

    return call


def _atens_out(x, out):
    torch._C._nn.hardsigmoid(x, out=out)


# Each form: (ours, aten's equivalent), as the gate of Block.
FORMS = {
    "op": (OPS.hardsigmoid, aten.hardsigmoid),
    "function": (hardsigmoid_ops.hardsigmoid, F.hardsigmoid),
    "module": (hardsigmoid_ops.nn.Hardsigmoid(), torch.nn.Hardsigmoid()),
    "inplace_op": (lambda x: (OPS.hardsigmoid_(x), x)[1], aten.hardsigmoid_),
    "inplace_function": (lambda x: hardsigmoid_ops.hardsigmoid(x, inplace=True),
                         lambda x: F.hardsigmoid(x, inplace=True)),
    "inplace_module": (hardsigmoid_ops.nn.Hardsigmoid(inplace=True),
                       torch.nn.Hardsigmoid(inplace=True)),
    "out_op": (_out(OPS.hardsigmoid_out), _out(_atens_out)),
    "out_function": (_out(hardsigmoid_ops.hardsigmoid_out), _out(_atens_out)),
    "backward_op": (lambda x: OPS.hardsigmoid_backward(x * 2, x),
                    lambda x: aten.hardsigmoid_backward(x * 2, x)),
}


class Alone(torch.nn.Module):
    """The gate alone."""

    def __init__(self, gate):
        super().__init__()
        self.gate = gate

    def forward(self, x):
        return self.gate(x)


class Block(torch.nn.Module):
    """A convolution, then x * gate(x + 1): the gate's input is an intermediate, as in
    MobileNetV3's squeeze-excitation, and the in-place forms overwrite it."""

    def __init__(self, gate):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)
        self.gate = gate

    def forward(self, x):
        y = self.conv(x)
        return y * self.gate(y + 1)
