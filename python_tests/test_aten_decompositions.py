"""hardsigmoid_ops.aten_decompositions(): an exported program that uses any of the four ops, every
form of calling them (the ops, the package's functions, the module, in-place included, a model
after replace_hardsigmoid), lowered with the table is the program exported from the same model
with aten's op, node for node, and computes aten's bits; merged with torch.export's default table
it lowers to core aten exactly as aten's model does. Without the table torch.export keeps ours."""

import copy

import pytest
import torch
import torch.nn.functional as F

import hardsigmoid_ops
from hardsigmoid_testing import FLOAT_DTYPES, OPS
from hardsigmoid_testing.checks import assert_identical
from hardsigmoid_testing.forms import FORMS, Block
from hardsigmoid_testing.values import edge_values, random_values

aten = torch.ops.aten


def _blocks(form, device, dtype):
    """(ours, aten's): the same weights; no parameter requires grad (aten's out= op refuses one
    that does)."""
    ours, atens = FORMS[form]
    torch.manual_seed(0)
    block = Block(atens).to(device, dtype).requires_grad_(False)
    swapped = copy.deepcopy(block)
    swapped.gate = ours
    return swapped, block


def _our_nodes(program):
    """The nodes that call one of the library's ops, or wrap one (auto_functionalized)."""
    return [node for node in program.graph.nodes if node.op == "call_function" and any(
        str(target).startswith("hardsigmoid_ops.") for target in (node.target, *node.args))]


def _export(model, x, dynamic):
    shapes = ({0: torch.export.Dim("batch")},) if dynamic else None
    return torch.export.export(model, (x,), dynamic_shapes=shapes)


def _core_aten_table():
    table = torch.export.default_decompositions()
    table.update(hardsigmoid_ops.aten_decompositions())
    return table


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("form", FORMS)
def test_lowered_program_is_atens(device, form, dynamic, gen):
    ours, atens = _blocks(form, device, torch.float32)
    x = random_values(2 * 3 * 6 * 6, torch.float32, gen).to(device).view(2, 3, 6, 6)
    exported = _export(ours, x, dynamic)
    assert _our_nodes(exported), "torch.export keeps the library's ops by default"
    lowered = exported.run_decompositions(hardsigmoid_ops.aten_decompositions())
    expected = _export(atens, x, dynamic).run_decompositions({})
    assert not _our_nodes(lowered)
    assert lowered.graph_module.code == expected.graph_module.code
    for batch in (2, 5) if dynamic else (2,):
        images = random_values(batch * 3 * 6 * 6, torch.float32, gen).to(device)
        images = images.view(batch, 3, 6, 6)
        assert_identical(lowered.module()(images), atens(images), inputs=images)


@pytest.mark.parametrize("form", FORMS)
def test_merged_with_the_default_table_lowers_to_atens_core_aten(device, form, gen):
    ours, atens = _blocks(form, device, torch.float32)
    x = random_values(2 * 3 * 6 * 6, torch.float32, gen).to(device).view(2, 3, 6, 6)
    exported = _export(ours, x, False)
    assert _our_nodes(exported.run_decompositions()), (
        "torch.export's default table keeps the library's ops")
    lowered = exported.run_decompositions(_core_aten_table())
    expected = _export(atens, x, False).run_decompositions()
    assert not _our_nodes(lowered)
    assert lowered.graph_module.code == expected.graph_module.code
    # Core aten's decomposition of hardsigmoid is not eager aten's arithmetic (NaN payloads):
    # the two programs' results, which are the same program's.
    assert_identical(lowered.module()(x), expected.module()(x), inputs=x)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: str(d)[6:])
@pytest.mark.parametrize("op", ["hardsigmoid", "hardsigmoid_", "hardsigmoid_out",
                                "hardsigmoid_backward"])
def test_every_op_alone_gives_atens_bits(device, op, dtype, gen):
    """The op alone on edge values (NaN, ±inf, ±0, ±3, subnormals) and random ones, lowered."""
    x = torch.cat([edge_values(dtype), random_values(4096, dtype, gen)]).to(device)
    grad = random_values(x.numel(), dtype, gen).to(device)

    class Alone(torch.nn.Module):
        def forward(self, x, grad):
            if op == "hardsigmoid_":
                y = x.clone()
                OPS.hardsigmoid_(y)
                return y
            if op == "hardsigmoid_out":
                out = torch.empty_like(x)
                OPS.hardsigmoid_out(x, out)
                return out
            if op == "hardsigmoid_backward":
                return OPS.hardsigmoid_backward(grad, x)
            return OPS.hardsigmoid(x)

    lowered = torch.export.export(Alone(), (x, grad)).run_decompositions(
        hardsigmoid_ops.aten_decompositions())
    assert not _our_nodes(lowered)
    expected = (aten.hardsigmoid_backward(grad, x) if op == "hardsigmoid_backward"
                else F.hardsigmoid(x))
    assert_identical(lowered.module()(x, grad), expected, inputs=x)


def test_the_table_lowers_with_compile_fusion_off(device, gen):
    """The fusion switch is inductor's; the table lowers the mutating ops whatever its state."""
    ours, atens = _blocks("inplace_op", device, torch.float32)
    x = random_values(2 * 3 * 6 * 6, torch.float32, gen).to(device).view(2, 3, 6, 6)
    hardsigmoid_ops.set_compile_fusion(False)
    try:
        lowered = _export(ours, x, False).run_decompositions(
            hardsigmoid_ops.aten_decompositions())
    finally:
        hardsigmoid_ops.set_compile_fusion(True)
    assert not _our_nodes(lowered)
    assert lowered.graph_module.code == _export(atens, x, False).run_decompositions(
        {}).graph_module.code


def test_the_table_is_a_new_dict_of_the_four_ops():
    table = hardsigmoid_ops.aten_decompositions()
    assert set(table) == {OPS.hardsigmoid.default, OPS.hardsigmoid_.default,
                          OPS.hardsigmoid_out.default, OPS.hardsigmoid_backward.default}
    table.clear()
    assert len(hardsigmoid_ops.aten_decompositions()) == 4


def test_mobilenet_v3_lowers_to_the_stock_program(gen):
    """MobileNetV3-Large (-Small has the same module kinds: it would lower the same blocks)."""
    torchvision = pytest.importorskip("torchvision", reason="torchvision is in requirements.txt")
    torch.manual_seed(0)
    stock = torchvision.models.mobilenet_v3_large(weights=None).eval()
    swapped = copy.deepcopy(stock)
    assert hardsigmoid_ops.replace_hardsigmoid(swapped) > 0
    images = torch.randn(2, 3, 64, 64, generator=gen)
    lowered = torch.export.export(swapped, (images,)).run_decompositions(_core_aten_table())
    expected = torch.export.export(stock, (images,)).run_decompositions()
    assert not _our_nodes(lowered)
    assert lowered.graph_module.code == expected.graph_module.code
    assert_identical(lowered.module()(images), expected.module()(images))
