"""The library loads, and registers exactly the ops, schemas, tags and kernels of DESIGN.md."""

import os

import pytest
import torch

from hardsigmoid_testing import OPS
from hardsigmoid_testing.config import LIBRARY

# DESIGN.md, "The operator contract".
SCHEMAS = {
    "hardsigmoid": "hardsigmoid_ops::hardsigmoid(Tensor self) -> Tensor",
    "hardsigmoid_": "hardsigmoid_ops::hardsigmoid_(Tensor(a!) self) -> ()",
    "hardsigmoid_out": "hardsigmoid_ops::hardsigmoid_out(Tensor self, Tensor(a!) out) -> ()",
    "hardsigmoid_backward": (
        "hardsigmoid_ops::hardsigmoid_backward(Tensor grad_output, Tensor self) -> Tensor"
    ),
}
# The functional op's out overload, for runtimes that look an op's out variant up by schema
# (ExecuTorch): the out op under that schema, one kernel for every dispatch key.
OUT_OVERLOAD = "hardsigmoid_ops::hardsigmoid.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"
TAGS = {
    "hardsigmoid": {torch.Tag.pt2_compliant_tag, torch.Tag.pointwise},
    "hardsigmoid_": {torch.Tag.pt2_compliant_tag},
    "hardsigmoid_out": {torch.Tag.pt2_compliant_tag},
    "hardsigmoid_backward": {torch.Tag.pt2_compliant_tag},
}


def test_library_is_the_one_configured():
    loaded = {os.path.realpath(path) for path in torch.ops.loaded_libraries}
    assert os.path.realpath(LIBRARY) in loaded


def test_loading_again_is_harmless():
    # A second load must not re-run the registrations (which would fail as duplicates).
    torch.ops.load_library(str(LIBRARY))
    assert torch.ops.hardsigmoid_ops.hardsigmoid.default._schema is not None


def test_namespace_has_exactly_the_four_ops_and_the_out_overload():
    registered = {
        name.split("::")[1]
        for name in torch._C._dispatch_get_all_op_names()
        if name.startswith("hardsigmoid_ops::")
    }
    assert registered == set(SCHEMAS) | {"hardsigmoid.out"}


@pytest.mark.parametrize("name", SCHEMAS)
def test_schema(name):
    packet = getattr(OPS, name)
    assert sorted(packet.overloads()) == (["default", "out"] if name == "hardsigmoid"
                                          else ["default"])
    assert str(packet.default._schema) == SCHEMAS[name]


def test_out_overload_is_the_out_op():
    assert str(OPS.hardsigmoid.out._schema) == OUT_OVERLOAD
    assert set(OPS.hardsigmoid.out.tags) == set()
    assert torch._C._dispatch_has_kernel_for_dispatch_key("hardsigmoid_ops::hardsigmoid.out",
                                                          "CompositeImplicitAutograd")
    x = torch.randn(5, 7)
    out = torch.full_like(x, float("nan"))
    assert OPS.hardsigmoid.out(x, out=out) is out
    torch.testing.assert_close(out, torch.nn.functional.hardsigmoid(x), rtol=0, atol=0)
    with pytest.raises(RuntimeError, match="hardsigmoid_out: out has dtype"):
        OPS.hardsigmoid.out(x, out=torch.empty_like(x, dtype=torch.float64))


@pytest.mark.parametrize("name", SCHEMAS)
def test_tags(name):
    assert set(getattr(OPS, name).default.tags) == TAGS[name]


@pytest.mark.parametrize("name", SCHEMAS)
@pytest.mark.parametrize("key", ["CPU", "Meta", "Autograd", "CUDA"])
def test_kernel_registered(name, key):
    if key == "CUDA" and not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    assert torch._C._dispatch_has_kernel_for_dispatch_key(f"hardsigmoid_ops::{name}", key)
