"""Autograd through the C++ registration: numerically right (gradcheck, gradgradcheck in float64),
first-order gradients bit for bit aten's in every dtype, second order bit for bit the derivative
formula evaluated by aten's kernel."""

import pytest
import torch
import torch.nn.functional as F

from hardsigmoid_testing import FLOAT_DTYPES, OPS
from hardsigmoid_testing.checks import assert_identical
from hardsigmoid_testing.layouts import random_view
from hardsigmoid_testing.values import random_values

dtypes = pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: str(d).split(".")[1])

GEOMETRIES = {
    "contiguous": lambda: torch.empty(4, 5, device="meta"),
    "transposed": lambda: torch.empty(5, 4, device="meta").t(),
    "step2": lambda: torch.empty(4, 10, device="meta")[:, ::2],
    "zero_dim": lambda: torch.empty((), device="meta"),
}


def _away_from_kinks(geometry, device, gen):
    """float64 leaf in (-5, 5), at least 0.01 from ±3: finite differences (eps 1e-6) never straddle
    a kink, where the derivative jumps."""
    x = torch.rand(GEOMETRIES[geometry]().shape, generator=gen, dtype=torch.float64) * 10 - 5
    near = (x.abs() - 3).abs() < 0.01
    x = torch.where(near, x * 0.9, x)
    # Placed in the geometry's strided view, so that gradients flow through non-contiguous inputs.
    return random_view(GEOMETRIES[geometry](), torch.float64, device, gen)[1].copy_(x).detach()


@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_gradcheck_functional(device, geometry, gen):
    x = _away_from_kinks(geometry, device, gen).requires_grad_()
    assert torch.autograd.gradcheck(OPS.hardsigmoid, (x,))
    assert torch.autograd.gradgradcheck(OPS.hardsigmoid, (x,))


@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_gradcheck_backward_op(device, geometry, gen):
    grad = _away_from_kinks(geometry, device, gen).requires_grad_()
    x = _away_from_kinks(geometry, device, gen).requires_grad_()
    assert torch.autograd.gradcheck(OPS.hardsigmoid_backward, (grad, x))
    assert torch.autograd.gradgradcheck(OPS.hardsigmoid_backward, (grad, x))


def _leaf(values):
    return values.detach().clone().requires_grad_()


@dtypes
@pytest.mark.parametrize("n", [1, 83, 4097])
def test_gradient_equals_aten(device, dtype, n, gen):
    # Edge values included: the mask at exactly ±3, NaN and inf inputs must be aten's too.
    values = random_values(n, dtype, gen).to(device)
    grad_out = random_values(n, dtype, gen).to(device)
    grads = {}
    for name, fn in {"ours": OPS.hardsigmoid, "aten": F.hardsigmoid}.items():
        x = _leaf(values)
        (grads[name],) = torch.autograd.grad(fn(x), x, grad_out)
    assert_identical(grads["ours"], grads["aten"], inputs=values)


# aten's hardsigmoid_backward has no derivative (torch 2.11: "derivative for
# aten::hardsigmoid_backward is not implemented"), so aten's autograd cannot be the reference for
# second order. The reference is the formula DESIGN.md gives, evaluated by aten's kernel:
# d/d grad_output = hardsigmoid_backward(upstream, self), d/d self = 0 (+0 everywhere).


@dtypes
@pytest.mark.parametrize("n", [1, 83, 4097])
def test_second_order_gradient(device, dtype, n, gen):
    values = random_values(n, dtype, gen).to(device)
    grad_out = random_values(n, dtype, gen).to(device)
    upstream = random_values(n, dtype, gen).to(device)
    x = _leaf(values)
    g = _leaf(grad_out)
    (grad_x,) = torch.autograd.grad(OPS.hardsigmoid(x), x, g, create_graph=True)
    second_g, second_x = torch.autograd.grad(grad_x, (g, x), upstream)
    assert_identical(second_g, torch.ops.aten.hardsigmoid_backward(upstream, values), inputs=values)
    assert_identical(second_x, torch.zeros_like(values))


@dtypes
def test_backward_op_gradients(device, dtype, gen):
    values = random_values(257, dtype, gen).to(device)
    grad_out = random_values(257, dtype, gen).to(device)
    upstream = random_values(257, dtype, gen).to(device)
    g, x = _leaf(grad_out), _leaf(values)
    grad_g, grad_x = torch.autograd.grad(OPS.hardsigmoid_backward(g, x), (g, x), upstream)
    assert_identical(grad_g, torch.ops.aten.hardsigmoid_backward(upstream, values), inputs=values)
    assert_identical(grad_x, torch.zeros_like(values))


def test_grad_fn_is_recorded(device):
    x = torch.randn(3, device=device, requires_grad=True)
    assert OPS.hardsigmoid(x).requires_grad
    assert OPS.hardsigmoid_backward(torch.ones(3, device=device), x).requires_grad
    with torch.no_grad():
        assert not OPS.hardsigmoid(x).requires_grad


def test_input_modified_after_forward_is_detected(device):
    # The forward saves its input; an in-place change to it (ours bumps the version counter) must
    # make backward refuse, as it does for aten ops, rather than use the changed values.
    base = torch.randn(5, device=device, requires_grad=True)
    x = base * 1
    y = OPS.hardsigmoid(x)
    with torch.no_grad():
        OPS.hardsigmoid_(x)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
