"""Every variant equals aten's hardsigmoid on the same device, bit for bit, over dtypes, odd sizes
and memory layouts, and writes nothing but its output."""

import itertools

import pytest
import torch
import torch.nn.functional as F

from hardsigmoid_testing import FLOAT_DTYPES, OPS
from hardsigmoid_testing.checks import assert_identical, assert_only_view_written, assert_unchanged
from hardsigmoid_testing.config import LARGE_NUMEL
from hardsigmoid_testing.layouts import (
    LAYOUTS,
    READ_ONLY_LAYOUTS,
    is_dense,
    random_view,
    same_view,
    sentinel_view,
    significant_strides,
)
from hardsigmoid_testing.values import edge_values

# Odd sizes: around vector widths and thread grain boundaries, empty, and one large enough for
# several threads' worth of work (at::internal::GRAIN_SIZE is 32768).
SIZES = [0, 1, 7, 83, 4097, LARGE_NUMEL]


def _shape_cases(writable):
    cases = [pytest.param("zero_dim", 1, id="zero_dim")]
    for layout in LAYOUTS:
        if layout == "zero_dim" or (writable and layout in READ_ONLY_LAYOUTS):
            continue
        cases += [pytest.param(layout, n, id=f"{layout}-{n}") for n in SIZES]
    return cases


dtypes = pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: str(d).split(".")[1])
any_layout = pytest.mark.parametrize("layout,n", _shape_cases(writable=False))
writable_layout = pytest.mark.parametrize("layout,n", _shape_cases(writable=True))


def _input(layout, n, dtype, device, gen):
    return random_view(LAYOUTS[layout](n), dtype, device, gen)


def _output_for(x, layout, dtype, device):
    """A sentinel-filled out for `x`: `x`'s layout when writable, contiguous otherwise."""
    template = torch.empty(x.shape, device="meta") if layout in READ_ONLY_LAYOUTS else x
    return sentinel_view(template, dtype, device)


@dtypes
@any_layout
def test_functional(device, dtype, layout, n, gen):
    buffer, x = _input(layout, n, dtype, device, gen)
    before = buffer.clone()
    ours = OPS.hardsigmoid(x)
    ref = F.hardsigmoid(x)
    assert_identical(ours, ref, inputs=x)
    if is_dense(x):
        assert significant_strides(ours) == significant_strides(ref)
    assert_unchanged(before, buffer)


@dtypes
@writable_layout
def test_inplace(device, dtype, layout, n, gen):
    buffer, x = _input(layout, n, dtype, device, gen)
    ref_buffer = buffer.clone()
    ref_x = same_view(ref_buffer, x)
    inputs = x.clone()
    version = x._version
    assert OPS.hardsigmoid_(x) is None
    F.hardsigmoid(ref_x, inplace=True)
    assert_identical(x, ref_x, inputs=inputs)
    assert_only_view_written(buffer, x)
    assert_identical(buffer, ref_buffer)
    assert x._version > version


@dtypes
@any_layout
def test_out(device, dtype, layout, n, gen):
    buffer, x = _input(layout, n, dtype, device, gen)
    before = buffer.clone()
    out_buffer, out = _output_for(x, layout, dtype, device)
    ref_out_buffer = out_buffer.clone()
    ref_out = same_view(ref_out_buffer, out)
    OPS.hardsigmoid_out(x, out)
    torch._C._nn.hardsigmoid(x, out=ref_out)
    assert_identical(out, ref_out, inputs=x)
    assert_only_view_written(out_buffer, out)
    assert_identical(out_buffer, ref_out_buffer)
    assert_unchanged(before, buffer)


@dtypes
@writable_layout
def test_out_is_self(device, dtype, layout, n, gen):
    buffer, x = _input(layout, n, dtype, device, gen)
    ref_buffer = buffer.clone()
    ref_x = same_view(ref_buffer, x)
    inputs = x.clone()
    OPS.hardsigmoid_out(x, x)
    torch._C._nn.hardsigmoid(ref_x, out=ref_x)
    assert_identical(x, ref_x, inputs=inputs)
    assert_only_view_written(buffer, x)


@dtypes
@any_layout
def test_backward(device, dtype, layout, n, gen):
    grad_buffer, grad = _input(layout, n, dtype, device, gen)
    buffer, x = _input(layout, n, dtype, device, gen)
    before = (grad_buffer.clone(), buffer.clone())
    ours = OPS.hardsigmoid_backward(grad, x)
    ref = torch.ops.aten.hardsigmoid_backward(grad, x)
    assert_identical(ours, ref, inputs=x)
    if is_dense(x):
        assert significant_strides(ours) == significant_strides(ref)
    assert_unchanged(before[0], grad_buffer)
    assert_unchanged(before[1], buffer)


# Strides are compared for dense inputs only, where DESIGN.md promises empty_like's layout.


# Every edge value at once (random placement may miss some at small sizes), and for the backward
# every (grad_output, self) pair of edge values.


@dtypes
def test_edge_values_forward(device, dtype):
    x = edge_values(dtype).to(device)
    ref = F.hardsigmoid(x)
    assert_identical(OPS.hardsigmoid(x), ref, inputs=x)
    out = torch.full_like(x, 42)
    OPS.hardsigmoid_out(x, out)
    assert_identical(out, ref, inputs=x)
    y = x.clone()
    OPS.hardsigmoid_(y)
    assert_identical(y, ref, inputs=x)


@dtypes
def test_edge_values_backward(device, dtype):
    edges = edge_values(dtype).to(device)
    grad = edges[:, None].expand(-1, edges.numel()).contiguous()
    x = edges[None, :].expand(edges.numel(), -1).contiguous()
    assert_identical(
        OPS.hardsigmoid_backward(grad, x), torch.ops.aten.hardsigmoid_backward(grad, x), inputs=x
    )


# Operands of one shape in different layouts: the kernels must walk each with its own strides.
MIXED = {
    "contiguous": lambda: torch.empty(5, 7, device="meta"),
    "transposed": lambda: torch.empty(7, 5, device="meta").t(),
    "step2": lambda: torch.empty(5, 14, device="meta")[:, ::2],
    "offset": lambda: torch.empty(36, device="meta")[1:].view(5, 7),
    "expanded": lambda: torch.empty(1, 7, device="meta").expand(5, 7),
}
MIXED_PAIRS = [(a, b) for a in MIXED for b in MIXED if a != b]


@dtypes
@pytest.mark.parametrize("grad_layout,self_layout", MIXED_PAIRS)
def test_backward_mixed_layouts(device, dtype, grad_layout, self_layout, gen):
    _, grad = random_view(MIXED[grad_layout](), dtype, device, gen)
    _, x = random_view(MIXED[self_layout](), dtype, device, gen)
    ours = OPS.hardsigmoid_backward(grad, x)
    ref = torch.ops.aten.hardsigmoid_backward(grad, x)
    assert_identical(ours, ref, inputs=x)
    if is_dense(grad) and is_dense(x):
        assert significant_strides(ours) == significant_strides(ref)


def _dense_layouts(shape):
    """Every dense layout of `shape`: each order of its dimensions, and each size-1 dimension's
    stride (which addresses nothing) 0, 1 or 35 as well as the order's own."""
    for order in itertools.permutations(range(len(shape))):
        strides, step = [0] * len(shape), 1
        for dim in order:
            strides[dim], step = step, step * shape[dim]
        ones = [d for d, size in enumerate(shape) if size == 1]
        for values in itertools.product((None, 0, 1, 35), repeat=len(ones)):
            chosen = list(strides)
            for dim, value in zip(ones, values):
                chosen[dim] = chosen[dim] if value is None else value
            yield tuple(chosen)


@pytest.mark.parametrize("shape", [(5, 6, 1, 1), (1, 4, 1, 3)], ids=str)
def test_backward_layout_of_dense_operands_with_size_one_dimensions(device, shape, gen):
    """aten's TensorIterator orders grad_input's dimensions by grad_output's strides, deferring to
    self's where one of them is 0: a size-1 dimension can reorder the others. Every pair of the
    shape's dense layouts."""
    layouts = sorted(set(_dense_layouts(shape)))

    def tensor(strides, values):
        return torch.empty_strided(shape, strides, device=device).copy_(values)

    grad_values = torch.randn(shape, generator=gen).to(device)
    self_values = torch.empty(shape).uniform_(-4, 4, generator=gen).to(device)
    for grad_strides in layouts:
        grad = tensor(grad_strides, grad_values)
        for self_strides in layouts:
            x = tensor(self_strides, self_values)
            ours = OPS.hardsigmoid_backward(grad, x)
            ref = torch.ops.aten.hardsigmoid_backward(grad, x)
            assert significant_strides(ours) == significant_strides(ref), (
                f"grad_output strides {grad_strides}, self strides {self_strides}: "
                f"ours {ours.stride()}, aten's {ref.stride()}")
            assert_identical(ours, ref, inputs=x)


@dtypes
@pytest.mark.parametrize(
    "self_layout,out_layout", [(a, b) for a, b in MIXED_PAIRS if b not in READ_ONLY_LAYOUTS]
)
def test_out_mixed_layouts(device, dtype, self_layout, out_layout, gen):
    _, x = random_view(MIXED[self_layout](), dtype, device, gen)
    out_buffer, out = sentinel_view(MIXED[out_layout](), dtype, device)
    ref_out_buffer = out_buffer.clone()
    ref_out = same_view(ref_out_buffer, out)
    OPS.hardsigmoid_out(x, out)
    torch._C._nn.hardsigmoid(x, out=ref_out)
    assert_identical(out_buffer, ref_out_buffer)
    assert_only_view_written(out_buffer, out)
    assert out.stride() == ref_out.stride()  # out= keeps the out it was given
