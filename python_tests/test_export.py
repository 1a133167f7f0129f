"""torch.export of a module using the three forward variants: the exported program keeps our ops
(functionalized), and runs equal to aten at sizes other than the one traced."""

import pytest
import torch
import torch.nn.functional as F

from hardsigmoid_testing import OPS
from hardsigmoid_testing.checks import assert_identical
from hardsigmoid_testing.values import random_values


class AllThree(torch.nn.Module):
    def forward(self, x):
        a = OPS.hardsigmoid(x)
        b = x * 2
        OPS.hardsigmoid_(b)
        c = torch.empty_like(x)
        OPS.hardsigmoid_out(x - 1, c)
        return a, b, c


def aten(x):
    c = torch.empty_like(x)
    torch._C._nn.hardsigmoid(x - 1, out=c)
    return F.hardsigmoid(x), F.hardsigmoid(x * 2), c


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=lambda d: str(d)[6:])
def test_export_dynamic(device, dtype, gen):
    rows = torch.export.Dim("rows")
    example = random_values(5 * 3, dtype, gen).to(device).view(5, 3)
    program = torch.export.export(AllThree(), (example,), dynamic_shapes=({0: rows},))
    targets = {str(node.target) for node in program.graph.nodes}
    assert {"hardsigmoid_ops.hardsigmoid.default", "hardsigmoid_ops.hardsigmoid_.default",
            "hardsigmoid_ops.hardsigmoid_out.default"} <= targets, targets
    for n in (5, 83):
        x = random_values(n * 3, dtype, gen).to(device).view(n, 3)
        for got, expected in zip(program.module()(x), aten(x)):
            assert_identical(got, expected, inputs=x)


def test_export_save_and_load(device, gen, tmp_path):
    """torch.export.save / load keeps our ops: the reloaded program runs equal to aten."""
    rows = torch.export.Dim("rows")
    example = random_values(5 * 3, torch.float32, gen).to(device).view(5, 3)
    program = torch.export.export(AllThree(), (example,), dynamic_shapes=({0: rows},))
    path = tmp_path / "all_three.pt2"
    torch.export.save(program, path)
    reloaded = torch.export.load(path)
    x = random_values(41 * 3, torch.float32, gen).to(device).view(41, 3)
    for got, expected in zip(reloaded.module()(x), aten(x)):
        assert_identical(got, expected, inputs=x)


class TrainableInPlace(torch.nn.Module):
    """A Linear whose parameters require grad, then the in-place op on its output: autograd
    records the in-place op while exporting (it used to refuse)."""

    def __init__(self, inplace):
        super().__init__()
        self.linear = torch.nn.Linear(3, 3)
        self.inplace = inplace

    def forward(self, x):
        h = self.linear(x)
        self.inplace(h)
        return h


def test_export_of_a_model_whose_parameters_require_grad(device, gen):
    torch.manual_seed(0)
    ours = TrainableInPlace(OPS.hardsigmoid_).to(device)
    reference = TrainableInPlace(lambda t: F.hardsigmoid(t, inplace=True)).to(device)
    reference.load_state_dict(ours.state_dict())
    assert all(p.requires_grad for p in ours.parameters())
    example = random_values(5 * 3, torch.float32, gen).to(device).view(5, 3)
    program = torch.export.export(ours, (example,))
    targets = {str(node.target) for node in program.graph.nodes}
    assert "hardsigmoid_ops.hardsigmoid_.default" in targets, targets
    x = random_values(5 * 3, torch.float32, gen).to(device).view(5, 3)
    with torch.no_grad():
        assert_identical(program.module()(x), reference(x), inputs=x)
