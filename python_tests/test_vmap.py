"""torch.func.vmap over the four ops: our batching rules against aten's op on the whole batch,
bit for bit, for batch dimensions anywhere, nested vmap and awkward layouts; functorch's
per-example fallback never runs (its warning, captured here: printed to stderr from C++ up to
torch 2.14, a Python UserWarning from torch 2.15)."""

import warnings

import pytest
import torch
import torch.nn.functional as F
from torch.func import vmap

from hardsigmoid_testing import FLOAT_DTYPES, OPS
from hardsigmoid_testing.checks import assert_identical
from hardsigmoid_testing.layouts import random_view

dtypes = pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: str(d).split(".")[1])

FALLBACK_WARNING = "There is a performance drop"

# Batches of 4 examples of 5 x 3, laid out as users' tensors are.
GEOMETRIES = {
    "contiguous": lambda: torch.empty(4, 5, 3, device="meta"),
    "transposed": lambda: torch.empty(3, 5, 4, device="meta").permute(2, 1, 0),
    "offset": lambda: torch.empty(61, device="meta")[1:].view(4, 5, 3),
    "step2": lambda: torch.empty(4, 5, 6, device="meta")[..., ::2],
    "channels_last": lambda: torch.empty(4, 2, 5, 3, device="meta",
                                         memory_format=torch.channels_last)[:, 0],
}


def fallback_warned(capfd, caught):
    """Whether functorch's slow-path warning was printed to stderr or raised as a Python warning
    (caught: the list of warnings.catch_warnings(record=True))."""
    return (FALLBACK_WARNING in capfd.readouterr().err
            or any(FALLBACK_WARNING in str(w.message) for w in caught))


@pytest.fixture(autouse=True)
def no_fallback(capfd):
    """Every test here: no warning about functorch's slow path, on stderr or in Python."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    assert not fallback_warned(capfd, caught)


def _batch(geometry, dtype, device, gen):
    template = {**GEOMETRIES, **READ_ONLY_GEOMETRIES}[geometry]()
    return random_view(template, dtype, device, gen)[1]


# An op with no batching rule, for the test below. It lives as long as the process: an op whose
# library is freed while torch.ops still knows it breaks torch's later decomposition tables
# (inductor's import then fails with "'CustomDecompTable' object is not a mapping").
_NO_RULE_LIBRARY = torch.library.Library("hardsigmoid_ops_vmap_test", "FRAGMENT")
_NO_RULE_LIBRARY.define("no_batching_rule(Tensor x) -> Tensor")
_NO_RULE_LIBRARY.impl("no_batching_rule", lambda x: x * 2, "CompositeExplicitAutograd")


def test_the_fallback_warning_is_seen_when_it_happens(capfd):
    # The fixture's check can fail: an op with no batching rule warns.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vmap(torch.ops.hardsigmoid_ops_vmap_test.no_batching_rule)(torch.randn(2, 3))
    assert fallback_warned(capfd, caught)


# Read-only layouts: valid inputs of the functional ops, never written.
READ_ONLY_GEOMETRIES = {
    "expanded": lambda: torch.empty(1, 5, 3, device="meta").expand(4, 5, 3),
    "expanded_examples": lambda: torch.empty(4, 1, 3, device="meta").expand(4, 5, 3),
}


@dtypes
@pytest.mark.parametrize("geometry", [*GEOMETRIES, *READ_ONLY_GEOMETRIES])
@pytest.mark.parametrize("in_dim", [0, 1, -1])
def test_functional(device, dtype, geometry, in_dim, gen):
    x = _batch(geometry, dtype, device, gen).movedim(0, in_dim)
    ours = vmap(OPS.hardsigmoid, in_dims=in_dim, out_dims=in_dim)(x)
    assert_identical(ours, F.hardsigmoid(x), inputs=x)


@dtypes
def test_nested(device, dtype, gen):
    x = _batch("transposed", dtype, device, gen)
    ours = vmap(vmap(OPS.hardsigmoid, in_dims=1), in_dims=2)(x)
    assert_identical(ours, F.hardsigmoid(x).permute(2, 1, 0), inputs=x.permute(2, 1, 0))


@dtypes
@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_inplace(device, dtype, geometry, gen):
    x = _batch(geometry, dtype, device, gen)
    expected = F.hardsigmoid(x)

    def write(v):
        OPS.hardsigmoid_(v)
        return v

    returned = vmap(write, in_dims=1, out_dims=1)(x)
    assert_identical(x, expected)
    assert returned.data_ptr() == x.data_ptr()


def test_inplace_on_a_tensor_the_vmap_does_not_batch(device, gen):
    x = _batch("contiguous", torch.float32, device, gen)
    captured = x[0].clone()
    expected = F.hardsigmoid(captured)

    def write_captured(v):
        OPS.hardsigmoid_(captured)
        return v * 1

    vmap(write_captured)(x[:1])
    assert_identical(captured, expected)


def _write_out(self, out):
    OPS.hardsigmoid_out(self, out)
    return out


@dtypes
@pytest.mark.parametrize("geometry", GEOMETRIES)
@pytest.mark.parametrize("in_dims", [(0, 0), (2, 1), (None, 0)], ids=["both0", "mixed", "out"])
def test_out(device, dtype, geometry, in_dims, gen):
    x = _batch(geometry, dtype, device, gen)
    out = torch.full_like(x, 42.0).movedim(0, in_dims[1])
    self = x.movedim(0, in_dims[0]) if in_dims[0] is not None else x[1]
    vmap(_write_out, in_dims=in_dims, out_dims=in_dims[1])(self, out)
    expected = F.hardsigmoid(x if in_dims[0] is not None else x[1].expand_as(x))
    assert_identical(out.movedim(in_dims[1], 0), expected)


def test_out_is_self(device, gen):
    x = _batch("step2", torch.float64, device, gen)
    expected = F.hardsigmoid(x)
    vmap(lambda v: _write_out(v, v))(x)
    assert_identical(x, expected)


def test_out_not_batched_while_self_is_refused(device, gen):
    x = _batch("contiguous", torch.float32, device, gen)
    out = torch.full((5, 3), 42.0, device=device)
    with pytest.raises(RuntimeError, match="self is batched but out is not"):
        vmap(_write_out, in_dims=(0, None))(x, out)
    assert (out == 42.0).all()


def test_out_shape_mismatch_names_the_example_shapes(device, gen):
    out = torch.empty(4, 5, 3, device=device)
    with pytest.raises(RuntimeError, match=r"out has shape \[5, 3\] but self has shape \[3\]"):
        vmap(_write_out, in_dims=(None, 0))(torch.randn(3, device=device), out)


@dtypes
@pytest.mark.parametrize("in_dims", [(0, 0), (0, 2), (None, 1), (1, None)])
@pytest.mark.parametrize("geometry", ["transposed", "expanded"])
def test_backward_op(device, dtype, in_dims, geometry, gen):
    grad, x = (_batch(geometry, dtype, device, gen) for _ in range(2))
    grad_arg = grad.movedim(0, in_dims[0]) if in_dims[0] is not None else grad[0]
    x_arg = x.movedim(0, in_dims[1]) if in_dims[1] is not None else x[0]
    ours = vmap(OPS.hardsigmoid_backward, in_dims=in_dims)(grad_arg, x_arg)
    expected = torch.ops.aten.hardsigmoid_backward(
        grad if in_dims[0] is not None else grad[0].expand_as(x),
        x if in_dims[1] is not None else x[0].expand_as(grad))
    assert_identical(ours, expected)


def test_backward_op_nested(device, gen):
    grad, x = (_batch("contiguous", torch.float64, device, gen) for _ in range(2))
    ours = vmap(vmap(OPS.hardsigmoid_backward, in_dims=(0, None)), in_dims=(None, 0))(grad[:, 0],
                                                                                      x[:, 0])
    # ours[i, j] = backward(grad[j], x[i])
    expected = torch.ops.aten.hardsigmoid_backward(grad[:, 0].unsqueeze(0).expand(4, 4, 3),
                                                   x[:, 0].unsqueeze(1).expand(4, 4, 3))
    assert_identical(ours, expected)


def test_zero_dim_examples(device, gen):
    x = _batch("contiguous", torch.float32, device, gen).flatten()
    assert_identical(vmap(OPS.hardsigmoid)(x), F.hardsigmoid(x))
    assert_identical(vmap(OPS.hardsigmoid_backward)(x, x.flip(0)),
                     torch.ops.aten.hardsigmoid_backward(x, x.flip(0)))


def test_unsupported_dtype_is_named_under_vmap(device):
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        vmap(OPS.hardsigmoid)(torch.ones(3, 2, dtype=torch.long, device=device))
