"""The model of the ExecuTorch round trip, hardsigmoid(2 * x), and its input: random values and
the edge ones (NaN, +-inf, +-0, +-3, subnormals). Shared by export_model.py (which exports it
with the library's op) and eager_output.py (aten's op in eager on the machine that runs the
program, as on aarch64 under emulation, where ExecuTorch's Python side does not run)."""

import torch

SHAPE = (8, 3, 17, 19)


class Scaled(torch.nn.Module):
    def __init__(self, gate):
        super().__init__()
        self.gate = gate

    def forward(self, x):
        return self.gate(x * 2)


def make_input(dtype):
    x = torch.randn(SHAPE).mul(4).to(dtype)
    edges = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 3.0, -3.0, 2.9, -2.9,
             torch.finfo(dtype).tiny / 2, -torch.finfo(dtype).tiny / 2]
    x.view(-1)[: len(edges)] = torch.tensor(edges, dtype=torch.float64).to(dtype)
    return x


def eager_aten_output(x):
    return Scaled(torch.nn.Hardsigmoid())(x)
