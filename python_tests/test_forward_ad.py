"""Forward-mode AD (torch.autograd.forward_ad dual numbers) through all four ops, against aten
bit for bit where aten has a formula, and gradcheck / gradgradcheck with every forward and
batched check on."""

import pytest
import torch
import torch.autograd.forward_ad as fwAD
import torch.nn.functional as F

from hardsigmoid_testing import FLOAT_DTYPES, OPS
from hardsigmoid_testing.checks import assert_identical
from hardsigmoid_testing.values import random_values

dtypes = pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: str(d).split(".")[1])


def _values(dtype, device, gen, n=97):
    return random_values(n, dtype, gen).to(device)


@dtypes
def test_functional_tangent(device, dtype, gen):
    x, t = _values(dtype, device, gen), _values(dtype, device, gen)
    with fwAD.dual_level():
        ours = fwAD.unpack_dual(OPS.hardsigmoid(fwAD.make_dual(x, t)))
        ref = fwAD.unpack_dual(F.hardsigmoid(fwAD.make_dual(x, t)))
    assert_identical(ours.primal, ref.primal, inputs=x)
    assert_identical(ours.tangent, ref.tangent, inputs=x)


@dtypes
@pytest.mark.parametrize("view", [False, True], ids=["tensor", "view"])
def test_inplace_updates_the_tangent_in_place(device, dtype, view, gen):
    x, t = _values(dtype, device, gen), _values(dtype, device, gen)
    results = {}
    for name, inplace in {"ours": OPS.hardsigmoid_,
                          "aten": lambda v: F.hardsigmoid(v, inplace=True)}.items():
        with fwAD.dual_level():
            dual = fwAD.make_dual(x.clone(), t.clone())
            tangent_before = fwAD.unpack_dual(dual).tangent
            target = dual[10:50] if view else dual
            inplace(target)
            unpacked = fwAD.unpack_dual(dual)
            # The tangent object is the one the dual had: updated, not replaced.
            assert unpacked.tangent.data_ptr() == tangent_before.data_ptr()
            results[name] = (unpacked.primal.clone(), unpacked.tangent.clone())
    for ours, ref in zip(results["ours"], results["aten"]):
        assert_identical(ours, ref, inputs=x)


@dtypes
def test_out_tangent_follows_self(device, dtype, gen):
    x, t = _values(dtype, device, gen), _values(dtype, device, gen)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, t)
        out = torch.empty_like(x)
        OPS.hardsigmoid_out(dual, out)
        unpacked = fwAD.unpack_dual(out)
        expected = fwAD.unpack_dual(F.hardsigmoid(dual))
        assert_identical(unpacked.primal, expected.primal, inputs=x)
        assert_identical(unpacked.tangent, expected.tangent, inputs=x)
        # Into an out that has a tangent of its own, from a self that has none: out's values no
        # longer depend on what it held, so its tangent becomes zero.
        out = fwAD.make_dual(torch.empty_like(x), torch.ones_like(x))
        OPS.hardsigmoid_out(x, out)
        assert_identical(fwAD.unpack_dual(out).tangent, torch.zeros_like(x))


def test_out_into_self_reads_the_tangent_first(device, gen):
    x, t = _values(torch.float64, device, gen), _values(torch.float64, device, gen)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x.clone(), t.clone())
        OPS.hardsigmoid_out(dual, dual)
        ours = fwAD.unpack_dual(dual)
        ref = fwAD.unpack_dual(F.hardsigmoid(fwAD.make_dual(x, t)))
    assert_identical(ours.primal, ref.primal, inputs=x)
    assert_identical(ours.tangent, ref.tangent, inputs=x)


@dtypes
def test_backward_op_tangent_is_linear_in_grad_output(device, dtype, gen):
    # aten's hardsigmoid_backward has no forward-AD formula: the reference is the formula, with
    # aten's kernel.
    g, x, g_t, x_t = (_values(dtype, device, gen) for _ in range(4))
    with fwAD.dual_level():
        both = fwAD.unpack_dual(OPS.hardsigmoid_backward(fwAD.make_dual(g, g_t),
                                                         fwAD.make_dual(x, x_t)))
        only_self = fwAD.unpack_dual(OPS.hardsigmoid_backward(g, fwAD.make_dual(x, x_t)))
        with pytest.raises(NotImplementedError, match="hardsigmoid_backward"):
            torch.ops.aten.hardsigmoid_backward(fwAD.make_dual(g, g_t), x)
    assert_identical(both.primal, torch.ops.aten.hardsigmoid_backward(g, x), inputs=x)
    assert_identical(both.tangent, torch.ops.aten.hardsigmoid_backward(g_t, x), inputs=x)
    assert only_self.tangent is None  # zero: self's tangent contributes nothing


# gradcheck in float64, away from the kinks at ±3 where finite differences straddle a jump.
def _smooth_leaf(device, gen, shape=(4, 5)):
    x = torch.rand(shape, generator=gen, dtype=torch.float64) * 10 - 5
    x = torch.where(((x.abs() - 3).abs() < 0.01), x * 0.9, x)
    return x.to(device).requires_grad_()


def _inplace_on_a_copy(x):
    y = x * 1
    OPS.hardsigmoid_(y)
    return y


GRADCHECK_FUNCTIONS = {
    "functional": lambda x, g: OPS.hardsigmoid(x),
    "inplace": lambda x, g: _inplace_on_a_copy(x),
    "backward": lambda x, g: OPS.hardsigmoid_backward(g, x),
}


@pytest.mark.parametrize("function", GRADCHECK_FUNCTIONS)
def test_gradcheck_with_forward_and_batched_checks(device, function, gen):
    x, g = _smooth_leaf(device, gen), _smooth_leaf(device, gen)
    f = GRADCHECK_FUNCTIONS[function]
    assert torch.autograd.gradcheck(f, (x, g), check_forward_ad=True, check_batched_grad=True,
                                    check_batched_forward_grad=True)
    assert torch.autograd.gradgradcheck(f, (x, g), check_rev_over_rev=True,
                                        check_batched_grad=True)
    # Forward over reverse. The backward op's gradient in self is a zeros tensor that requires no
    # grad, which gradcheck drops from the outputs it differentiates numerically but not from
    # those it differentiates in forward mode, mismatching them: self is held constant there
    # (its second derivative, zero, is checked in reverse mode above).
    if function == "backward":
        x.requires_grad_(False)
    assert torch.autograd.gradgradcheck(f, (x, g), check_fwd_over_rev=True,
                                        check_rev_over_rev=False, check_undefined_grad=False)


def test_jacfwd_of_out(device, gen):
    # The out op refuses reverse mode, as aten's out= functions do (gradcheck needs it), but has a
    # tangent: its forward Jacobian, tangents batched by vmap, is aten's functional one.
    x = torch.rand(4, 5, generator=gen, dtype=torch.float64).to(device) * 10 - 5

    def into_out(v):
        out = torch.empty_like(v)
        OPS.hardsigmoid_out(v, out)
        return out

    assert_identical(torch.func.jacfwd(into_out)(x), torch.func.jacfwd(F.hardsigmoid)(x))
