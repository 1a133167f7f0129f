"""TorchScript: modules calling each variant script, save, load and run (the path a C++ program
loading a saved model takes), and equal aten."""

import pytest
import torch
import torch.nn.functional as F

from hardsigmoid_testing import FLOAT_DTYPES
from hardsigmoid_testing.checks import assert_identical
from hardsigmoid_testing.torchscript import script
from hardsigmoid_testing.values import random_values


class Functional(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.hardsigmoid_ops.hardsigmoid(x) * 2


class InPlace(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x - 1
        torch.ops.hardsigmoid_ops.hardsigmoid_(y)
        return y


class Out(torch.nn.Module):
    def forward(self, x: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
        torch.ops.hardsigmoid_ops.hardsigmoid_out(x, out)
        return out


class AllThree(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = torch.ops.hardsigmoid_ops.hardsigmoid(x)
        b = x - 1
        torch.ops.hardsigmoid_ops.hardsigmoid_(b)
        c = torch.empty_like(a)
        torch.ops.hardsigmoid_ops.hardsigmoid_out(x + 1, c)
        return torch.stack([a, b, c])


def _aten_functional(x):
    return F.hardsigmoid(x) * 2


def _aten_inplace(x):
    return F.hardsigmoid(x - 1, inplace=True)


def _aten_all_three(x):
    c = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    torch._C._nn.hardsigmoid(x + 1, out=c)
    return torch.stack([F.hardsigmoid(x), F.hardsigmoid(x - 1, inplace=True), c])


# variant -> (module, the op calls its saved graph must contain, the same computed with aten)
MODULES = {
    "functional": (Functional, ["hardsigmoid"], _aten_functional),
    "inplace": (InPlace, ["hardsigmoid_"], _aten_inplace),
    "out": (Out, ["hardsigmoid_out"], None),
    "all_three": (AllThree, ["hardsigmoid", "hardsigmoid_", "hardsigmoid_out"], _aten_all_three),
}


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: str(d).split(".")[1])
@pytest.mark.parametrize("variant", MODULES)
def test_script_save_load_run(device, dtype, variant, tmp_path, gen):
    module_class, op_names, aten = MODULES[variant]
    path = tmp_path / f"{variant}.pt"
    torch.jit.save(script(module_class()), str(path))
    loaded = torch.jit.load(str(path), map_location=device)
    # The saved program calls our ops by name (they were neither inlined nor replaced).
    for name in op_names:
        assert f"hardsigmoid_ops::{name}(" in str(loaded.graph)

    x = random_values(1031, dtype, gen).to(device).view(1031, 1).expand(1031, 3)
    before = x.clone()
    if variant == "out":
        out = torch.full(x.shape, 42.0, dtype=dtype, device=device)
        got = loaded(x, out)
        assert got.data_ptr() == out.data_ptr()
        ref = torch.empty_like(out)
        torch._C._nn.hardsigmoid(x, out=ref)
    else:
        got = loaded(x)
        ref = aten(x)
    assert_identical(got, ref, inputs=x)
    assert_identical(x, before)
