"""Every torch.func transform over our ops, against the same transform over aten's, bit for bit
(NaN, ±inf, ±3 and their neighbours among the inputs), in every dtype, on every device.

Where aten cannot be the reference it is said why: aten's hardsigmoid_backward has neither a
derivative nor a forward-AD formula, so the second-order transforms (hessian, jacfwd of jacrev)
fail on aten's op; ours are checked against the formula, and reverse-over-reverse against
forward-over-reverse."""

import pytest
import torch
import torch.nn.functional as F
from torch.func import grad, hessian, jacfwd, jacrev, jvp, vjp, vmap

from hardsigmoid_testing import FLOAT_DTYPES, OPS
from hardsigmoid_testing.checks import assert_identical
from hardsigmoid_testing.values import random_values

dtypes = pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: str(d).split(".")[1])

SHAPE = (6, 7)


def aten_inplace(t):
    F.hardsigmoid(t, inplace=True)


# (ours, aten): hardsigmoid as a function of one tensor, each way a user writes it.
FUNCTIONS = {
    "functional": (OPS.hardsigmoid, F.hardsigmoid),
    # The in-place op on an intermediate, as nn.Hardsigmoid(inplace=True) runs in a model.
    "inplace": (lambda x: _written_in_place(x, OPS.hardsigmoid_),
                lambda x: _written_in_place(x, aten_inplace)),
}


def _written_in_place(x, inplace):
    y = x * 1
    inplace(y)
    return y


def _values(dtype, device, gen, shape=SHAPE):
    return random_values(torch.Size(shape).numel(), dtype, gen).reshape(shape).to(device)


def _both(function, transform, *args):
    """The transform of our function and of aten's, applied to args."""
    ours, aten = FUNCTIONS[function]
    return transform(ours)(*args), transform(aten)(*args)


def _assert_all_identical(ours, ref, inputs=None):
    if isinstance(ref, torch.Tensor):
        assert_identical(ours, ref, inputs)
        return
    assert len(ours) == len(ref)
    for o, r in zip(ours, ref):
        _assert_all_identical(o, r, inputs)


@dtypes
@pytest.mark.parametrize("function", FUNCTIONS)
def test_grad(device, dtype, function, gen):
    x, weights = _values(dtype, device, gen), _values(dtype, device, gen)

    def transform(f):
        return grad(lambda v: (f(v) * weights).sum())

    ours, ref = _both(function, transform, x)
    assert_identical(ours, ref, inputs=x)


@dtypes
@pytest.mark.parametrize("function", FUNCTIONS)
def test_vjp(device, dtype, function, gen):
    x, cotangent = _values(dtype, device, gen), _values(dtype, device, gen)
    ours, aten = FUNCTIONS[function]
    ours_out, ours_fn = vjp(ours, x)
    ref_out, ref_fn = vjp(aten, x)
    assert_identical(ours_out, ref_out, inputs=x)
    assert_identical(ours_fn(cotangent)[0], ref_fn(cotangent)[0], inputs=x)


@dtypes
@pytest.mark.parametrize("function", FUNCTIONS)
def test_jvp(device, dtype, function, gen):
    x, tangent = _values(dtype, device, gen), _values(dtype, device, gen)
    ours, ref = _both(function, lambda f: lambda p, t: jvp(f, (p,), (t,)), x, tangent)
    _assert_all_identical(ours, ref, inputs=x)


@dtypes
@pytest.mark.parametrize("function", FUNCTIONS)
@pytest.mark.parametrize("jacobian", [jacrev, jacfwd], ids=["jacrev", "jacfwd"])
def test_jacobian(device, dtype, function, jacobian, gen):
    x = _values(dtype, device, gen, shape=(3, 5))
    ours, ref = _both(function, jacobian, x)
    assert ours.shape == (3, 5, 3, 5)
    assert_identical(ours, ref)


@dtypes
@pytest.mark.parametrize("function", FUNCTIONS)
def test_vmap_of_grad(device, dtype, function, gen):
    x, weights = _values(dtype, device, gen), _values(dtype, device, gen)

    def transform(f):
        return vmap(grad(lambda v, w: (f(v) * w).sum()))

    ours, ref = _both(function, transform, x, weights)
    assert_identical(ours, ref, inputs=x)


@dtypes
@pytest.mark.parametrize("function", FUNCTIONS)
def test_vmap_of_jvp(device, dtype, function, gen):
    # Primals batched along their columns, tangents along their rows.
    x, tangent = _values(dtype, device, gen), _values(dtype, device, gen, shape=SHAPE[::-1])
    ours, ref = _both(function, lambda f: vmap(lambda p, t: jvp(f, (p,), (t,)), in_dims=(1, 0)),
                      x, tangent)
    _assert_all_identical(ours, ref)


@dtypes
def test_grad_of_the_backward_op(device, dtype, gen):
    # Linear in grad_output: its gradient there is hardsigmoid_backward(upstream, self) (aten's own
    # kernel evaluates the reference); zero in self.
    grad_output, x, upstream = (_values(dtype, device, gen) for _ in range(3))
    g_grad, x_grad = grad(lambda g, v: (OPS.hardsigmoid_backward(g, v) * upstream).sum(),
                          argnums=(0, 1))(grad_output, x)
    assert_identical(g_grad, torch.ops.aten.hardsigmoid_backward(upstream, x), inputs=x)
    assert_identical(x_grad, torch.zeros_like(x))


@dtypes
def test_jvp_of_the_backward_op(device, dtype, gen):
    grad_output, x, g_tangent, x_tangent = (_values(dtype, device, gen) for _ in range(4))
    out, tangent = jvp(OPS.hardsigmoid_backward, (grad_output, x), (g_tangent, x_tangent))
    assert_identical(out, torch.ops.aten.hardsigmoid_backward(grad_output, x), inputs=x)
    assert_identical(tangent, torch.ops.aten.hardsigmoid_backward(g_tangent, x), inputs=x)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_hessian(device, function, gen):
    """hardsigmoid is piecewise linear: every second derivative is zero (aten's hessian fails:
    its hardsigmoid_backward has no forward-AD formula). Of h(x)^2 it is 2 h'(x)^2 on the
    diagonal; reverse-over-reverse and forward-over-reverse agree bit for bit."""
    ours, aten = FUNCTIONS[function]
    x = _values(torch.float64, device, gen, shape=(9,))
    weights = _values(torch.float64, device, gen, shape=(9,))

    def weighted(v):
        return (ours(v) * weights).sum()

    assert_identical(hessian(weighted)(x), torch.zeros(9, 9, dtype=torch.float64, device=device))
    with pytest.raises(NotImplementedError, match="hardsigmoid_backward"):
        hessian(lambda v: (aten(v) * weights).sum())(x)

    def squared(v):
        return (ours(v) ** 2).sum()

    forward_over_reverse = hessian(squared)(x)
    assert_identical(jacrev(jacrev(squared))(x), forward_over_reverse)
    slope = torch.ops.aten.hardsigmoid_backward(torch.ones_like(x), x)
    expected = torch.diag(2 * slope * slope)
    finite = ~torch.isnan(x)
    torch.testing.assert_close(forward_over_reverse[finite][:, finite],
                               expected[finite][:, finite], rtol=1e-15, atol=0)


def test_jacobians_of_a_nan_free_batch_match_finite_differences(device, gen):
    # A sanity check independent of aten: the Jacobian is diagonal with h'(x) (1/6 inside
    # (-3, 3), 0 outside).
    x = torch.rand(8, generator=gen, dtype=torch.float64).to(device) * 10 - 5
    jacobian = jacrev(OPS.hardsigmoid)(x)
    inside = (x > -3) & (x < 3)
    expected = torch.diag(torch.where(inside, 1 / 6, 0.0).to(torch.float64))
    torch.testing.assert_close(jacobian, expected, rtol=1e-15, atol=0)


CAPTURED = "attempted to call in-place operation .* that would mutate a captured Tensor"


@pytest.mark.parametrize("which", ["ours", "aten", "ours_out"])
@pytest.mark.parametrize("transform", ["grad", "vjp", "jvp", "vmap_of_grad"])
def test_writing_a_captured_tensor_is_refused(device, which, transform, gen):
    """Inside a grad or jvp transform, a tensor captured from outside must not be written: its
    values would change under a backward that saved them. aten's in-place op is refused by
    functorch; ours (and our out op, into a captured out) with the same message, and nothing is
    written."""
    x, captured = _values(torch.float32, device, gen), _values(torch.float32, device, gen)
    before = captured.clone()

    def write(v):
        if which == "ours":
            OPS.hardsigmoid_(captured)
        elif which == "aten":
            aten_inplace(captured)
        else:
            OPS.hardsigmoid_out(v, captured)
        return (v * captured).sum()

    with pytest.raises(RuntimeError, match=CAPTURED):
        if transform == "grad":
            grad(write)(x)
        elif transform == "vjp":
            vjp(write, x)
        elif transform == "jvp":
            jvp(write, (x,), (torch.ones_like(x),))
        else:
            vmap(grad(write))(x)
    assert_identical(captured, before)
