"""The in-place op under autograd, as aten's hardsigmoid_ is (what F.hardsigmoid(x, inplace=True)
and nn.Hardsigmoid(inplace=True) do in training): recorded on a non-leaf and on a view of one
(through CopySlices), the values it overwrote saved, version counters bumped alike, aten's errors
for a leaf and for a saved tensor overwritten. Then compiled autograd and compiled training steps
with it."""

import pytest
import torch
import torch.nn.functional as F

from hardsigmoid_testing import FLOAT_DTYPES, OPS
from hardsigmoid_testing.checks import assert_identical
from hardsigmoid_testing.values import random_values

dtypes = pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: str(d).split(".")[1])


def aten_inplace(t):
    F.hardsigmoid(t, inplace=True)


INPLACE = {"ours": OPS.hardsigmoid_, "aten": aten_inplace}
FUNCTIONAL = {"ours": OPS.hardsigmoid, "aten": F.hardsigmoid}

# Where in a non-leaf y (8 x 6) the in-place op writes.
TARGETS = {
    "whole": lambda y: y,
    "rows": lambda y: y[2:5],
    "step2_columns": lambda y: y[:, ::2],
    "transposed": lambda y: y.t(),
    "element": lambda y: y[3, 4],
}


def _values(dtype, device, gen, shape=(8, 6)):
    return random_values(torch.Size(shape).numel(), dtype, gen).reshape(shape).to(device)


def _run(which, target, x, upstream):
    """y = x * 2, then the in-place op on `target` of y, then backward: what a user can see."""
    leaf = x.clone().requires_grad_()
    y = leaf * 2
    view = TARGETS[target](y)
    version = y._version
    INPLACE[which](view)
    seen = {
        "values": y.detach().clone(),
        "version_bump": y._version - version,
        "view_version_bump": view._version - version,
        "grad_fn": type(y.grad_fn).__name__ if target != "whole" else None,
        "requires_grad": view.requires_grad,
    }
    y.backward(upstream)
    seen["grad"] = leaf.grad
    return seen


@dtypes
@pytest.mark.parametrize("target", TARGETS)
def test_non_leaf_and_its_views(device, dtype, target, gen):
    x, upstream = _values(dtype, device, gen), _values(dtype, device, gen)
    ours, ref = _run("ours", target, x, upstream), _run("aten", target, x, upstream)
    assert_identical(ours["values"], ref["values"])
    assert_identical(ours["grad"], ref["grad"])
    for key in ("version_bump", "view_version_bump", "grad_fn", "requires_grad"):
        assert ours[key] == ref[key], key
    if target != "whole":
        assert ours["grad_fn"] == "CopySlices"


def test_recorded_node(device):
    y = torch.randn(5, device=device, requires_grad=True) * 1
    OPS.hardsigmoid_(y)
    assert y.grad_fn.name() == "HardsigmoidOpsBackward"
    assert y.requires_grad and not y.is_leaf


@dtypes
def test_double_backward_through_inplace(device, dtype, gen):
    x, g, upstream = (_values(dtype, device, gen) for _ in range(3))
    leaf, grad_out = x.clone().requires_grad_(), g.clone().requires_grad_()
    y = leaf * 1
    OPS.hardsigmoid_(y)
    (gx,) = torch.autograd.grad(y, leaf, grad_out, create_graph=True)
    second_g, = torch.autograd.grad(gx, grad_out, upstream)
    assert_identical(gx, torch.ops.aten.hardsigmoid_backward(g, x), inputs=x)
    assert_identical(second_g, torch.ops.aten.hardsigmoid_backward(upstream, x), inputs=x)


@pytest.mark.parametrize("which", INPLACE)
def test_leaf_and_view_of_leaf_errors_are_atens(device, which):
    leaf = torch.randn(4, 3, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in "
                                           "an in-place operation"):
        INPLACE[which](leaf)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being "
                                           "used in an in-place operation"):
        INPLACE[which](leaf[1:])
    # No grad mode: allowed.
    with torch.no_grad():
        INPLACE[which](leaf)


@pytest.mark.parametrize("which", INPLACE)
def test_view_created_in_no_grad_is_refused_as_atens(device, which):
    y = torch.randn(4, 3, device=device, requires_grad=True) * 1
    with torch.no_grad():
        view = y[1:]
    with pytest.raises(RuntimeError, match="no_grad mode"):
        INPLACE[which](view)


@pytest.mark.parametrize("which", INPLACE)
def test_overwriting_a_tensor_saved_for_backward_is_caught(device, which):
    # hardsigmoid saves its input; mul saves both factors. Overwriting either in place must make
    # backward refuse, rather than compute with changed values.
    leaf = torch.randn(5, device=device, requires_grad=True)
    x = leaf * 1
    y = FUNCTIONAL[which](x)
    INPLACE[which](x)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    h = FUNCTIONAL[which](leaf * 1)
    z = h * leaf
    INPLACE[which](h)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_the_inplace_node_keeps_its_own_copy(device, gen):
    # What hardsigmoid_ saves is the input before it was overwritten, not the tensor written:
    # writing that tensor again afterwards does not disturb the gradient.
    x, upstream = _values(torch.float64, device, gen), _values(torch.float64, device, gen)
    leaf = x.clone().requires_grad_()
    y = leaf * 1
    OPS.hardsigmoid_(y)
    z = y * 1
    leaf_ref = x.clone().requires_grad_()
    y_ref = leaf_ref * 1
    aten_inplace(y_ref)
    z_ref = y_ref * 1
    z.backward(upstream)
    z_ref.backward(upstream)
    assert_identical(leaf.grad, leaf_ref.grad)


class Net(torch.nn.Module):
    """Linear, then hardsigmoid in place, then Linear: nn.Hardsigmoid(inplace=True)'s use."""

    def __init__(self, inplace):
        super().__init__()
        self.first = torch.nn.Linear(16, 32)
        self.second = torch.nn.Linear(32, 4)
        self.inplace = inplace

    def forward(self, x):
        h = self.first(x)
        self.inplace(h)
        return self.second(h)


def _train_step(which, device, seed, compile_model=None):
    torch.manual_seed(seed)
    model = Net(INPLACE[which]).to(device=device, dtype=torch.float64)
    x = torch.randn(9, 16, device=device, dtype=torch.float64) * 3
    run = compile_model(model) if compile_model else model
    loss = run(x).square().sum()
    loss.backward()
    return loss.detach(), [p.grad for p in model.parameters()]


def _assert_same_step(ours, ref):
    assert_identical(ours[0], ref[0])
    for o, r in zip(ours[1], ref[1]):
        assert_identical(o, r)


def test_training_step_equals_atens(device):
    _assert_same_step(_train_step("ours", device, 3), _train_step("aten", device, 3))


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_compiled_training_step_with_inplace(device, dynamic, backend):
    """The step compiled whole (fullgraph): AOTAutograd functionalizes the in-place op and traces
    our backward nodes. aot_eager runs the traced graph as eager does: the step is eager aten's
    bit for bit. Inductor fuses our ops as it fuses aten's (compile_fusion.py): the step is the
    same step compiled with aten's op, bit for bit (which differs from eager: inductor's
    hardsigmoid_backward multiplies by 1/6 in float64, aten's CPU kernel by the float-rounded
    1/6)."""
    torch._dynamo.reset()

    def compile_model(model):
        return torch.compile(model, backend=backend, fullgraph=True, dynamic=dynamic)

    ours = _train_step("ours", device, 5, compile_model)
    if backend == "aot_eager":
        _assert_same_step(ours, _train_step("aten", device, 5))
    else:
        _assert_same_step(ours, _train_step("aten", device, 5, compile_model))


def test_compiled_autograd(device, gen):
    """torch._dynamo.compiled_autograd traces our backward nodes (the functional's, the in-place
    op's and the backward op's own, for double backward) into its graph, bit for bit eager
    aten's gradients."""
    from torch._dynamo import compiled_autograd

    x, g, upstream = (_values(torch.float64, device, gen) for _ in range(3))
    graphs = []

    def capture(graph, example_inputs):
        graphs.append(graph.code)
        return graph.forward

    def double_backward():
        leaf, grad_out = x.clone().requires_grad_(), g.clone().requires_grad_()
        y = OPS.hardsigmoid(leaf * 1)
        OPS.hardsigmoid_(y)
        (gx,) = torch.autograd.grad(y, leaf, grad_out, create_graph=True)
        second = (gx * upstream).sum()
        second.backward()
        return gx.detach(), grad_out.grad

    torch._dynamo.reset()
    with compiled_autograd._enable(torch.compile(backend=capture)):
        leaf = x.clone().requires_grad_()
        y = OPS.hardsigmoid(leaf * 1)
        OPS.hardsigmoid_(y)
        y.backward(upstream)
    assert graphs and any("HardsigmoidOpsBackward" in code for code in graphs), graphs
    expected = x.clone().requires_grad_()
    y_ref = F.hardsigmoid(expected * 1)
    aten_inplace(y_ref)
    y_ref.backward(upstream)
    assert_identical(leaf.grad, expected.grad)

    # Double backward: aten's hardsigmoid_backward has no derivative, so the reference is the
    # chain rule with aten's kernel: gx = hb(hb(g, h(x)), x), and its gradient in g is
    # hb(hb(upstream, x), h(x)).
    with compiled_autograd._enable(torch.compile(backend="eager")):
        gx, second_g = double_backward()
    hx, hb = F.hardsigmoid(x), torch.ops.aten.hardsigmoid_backward
    assert_identical(gx, hb(hb(g, hx), x), inputs=x)
    assert_identical(second_g, hb(hb(upstream, x), hx), inputs=x)
