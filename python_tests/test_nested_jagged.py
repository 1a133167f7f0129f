"""Jagged nested tensors (layout=torch.jagged): each op does what aten's does on the same input.
The functional op and the backward op give aten's values (bit for bit, NaN bits included) and
offsets; autograd through the functional op gives aten's gradients; under torch.compile the
results and gradients are compiled aten's; the in-place and out ops, and a call that aten's
refuses, raise the exception aten's raises; with grad mode on and under inference mode."""

import pytest
import torch
import torch.nn.functional as F

from hardsigmoid_testing import FLOAT_DTYPES, OPS
from hardsigmoid_testing.checks import assert_identical
from hardsigmoid_testing.values import random_values

aten = torch.ops.aten
pytestmark = pytest.mark.filterwarnings(
    "ignore:The PyTorch API of nested tensors is in prototype stage:UserWarning")


def _jagged(dtype, gen, lengths=(3, 1, 4), width=5, like=None):
    """A jagged nested tensor of random and edge values (with like's offsets if given)."""
    if like is not None:
        values = random_values(like.values().numel(), dtype, gen).reshape(like.values().shape)
        return torch.nested.nested_tensor_from_jagged(values, like.offsets())
    rows = random_values(sum(lengths) * width, dtype, gen).reshape(sum(lengths), width)
    return torch.nested.nested_tensor(list(rows.split(list(lengths))), layout=torch.jagged)


def _assert_same_jagged(ours, atens):
    assert ours.is_nested and ours.layout == torch.jagged
    assert torch.equal(ours.offsets(), atens.offsets())
    assert_identical(ours.values(), atens.values())


def _outcome(call):
    try:
        return call(), None
    except Exception as error:  # the exception class is compared with aten's
        return None, error


# Each call: (ours, aten's), on (x, other jagged with x's offsets, a dense tensor).
CALLS = {
    "functional": (lambda x, g, d: OPS.hardsigmoid(x), lambda x, g, d: F.hardsigmoid(x)),
    "backward": (lambda x, g, d: OPS.hardsigmoid_backward(g, x),
                 lambda x, g, d: aten.hardsigmoid_backward(g, x)),
    "backward_dense_grad": (lambda x, g, d: OPS.hardsigmoid_backward(d, x),
                            lambda x, g, d: aten.hardsigmoid_backward(d, x)),
    "inplace": (lambda x, g, d: (lambda t: (OPS.hardsigmoid_(t), t)[1])(x.clone()),
                lambda x, g, d: (lambda t: (F.hardsigmoid(t, inplace=True), t)[1])(x.clone())),
    "out": (lambda x, g, d: OPS.hardsigmoid_out(x, g.clone()),
            lambda x, g, d: torch._C._nn.hardsigmoid(x, out=g.clone())),
    "out_dense": (lambda x, g, d: OPS.hardsigmoid_out(x, torch.empty(5)),
                  lambda x, g, d: torch._C._nn.hardsigmoid(x, out=torch.empty(5))),
}


@pytest.mark.parametrize("inference", [False, True], ids=["grad_mode", "inference_mode"])
@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: str(d)[6:])
def test_each_op_does_what_atens_does(call, dtype, inference, gen):
    x = _jagged(dtype, gen)
    g = _jagged(dtype, gen, like=x)
    dense = random_values(5, dtype, gen)
    ours, atens = CALLS[call]
    with torch.inference_mode(inference):
        (got, error), (want, atens_error) = _outcome(lambda: ours(x, g, dense)), _outcome(
            lambda: atens(x, g, dense))
    if atens_error is not None:
        assert error is not None and type(error) is type(atens_error), (error, atens_error)
        return
    assert error is None, error
    _assert_same_jagged(got, want)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: str(d)[6:])
def test_autograd_gives_atens_gradients(dtype, gen):
    x = _jagged(dtype, gen)
    grad = _jagged(dtype, gen, like=x)
    ours_x, atens_x = x.detach().requires_grad_(), x.detach().requires_grad_()
    (ours,) = torch.autograd.grad(OPS.hardsigmoid(ours_x), ours_x, grad)
    (atens,) = torch.autograd.grad(F.hardsigmoid(atens_x), atens_x, grad)
    _assert_same_jagged(ours, atens)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=lambda d: str(d)[6:])
def test_compiled_equals_compiled_aten(dtype, gen):
    x = _jagged(dtype, gen)
    results = {}
    for name, gate in (("ours", OPS.hardsigmoid), ("aten", F.hardsigmoid)):
        torch._dynamo.reset()
        leaf = x.detach().requires_grad_()
        y = torch.compile(lambda t: gate(t) * 2, fullgraph=True)(leaf)
        (grad,) = torch.autograd.grad(y, leaf, torch.ones_like(y))
        results[name] = (y.detach(), grad)
    for ours, atens in zip(results["ours"], results["aten"]):
        _assert_same_jagged(ours, atens)
