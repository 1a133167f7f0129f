"""torch.onnx.export of a model using the ops, with both exporters (the default, torch.export-based,
and dynamo=False, TorchScript-based), nothing asked of the user but `import hardsigmoid_ops`: the
ONNX model is the one exported from the same model with aten's hardsigmoid (nodes, attributes,
order, initializers and types; names aside), so it holds ONNX's own HardSigmoid and no custom
domain; ONNX Runtime's outputs for it are bitwise those for aten's model, and within float32
rounding of eager aten. Where aten's model fails to export (the backward op and the out= form
under the TorchScript-based exporter), ours fails the same way. Static and dynamic batch; every
form of calling the ops; float16; torchvision's MobileNetV3 after replace_hardsigmoid."""

import copy
import io
import os
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F

import hardsigmoid_ops
from hardsigmoid_testing import OPS
from hardsigmoid_testing.checks import assert_identical
from hardsigmoid_testing.config import package_parent
from hardsigmoid_testing.forms import FORMS, Alone, Block
from hardsigmoid_testing.values import edge_values

# requirements.txt installs all three; a Python that ONNX Runtime has no wheel for goes without.
onnx = pytest.importorskip("onnx", reason="onnx is not installed (no ONNX tools for this Python)")
pytest.importorskip("onnxscript", reason="onnxscript, the default exporter's, is not installed")
onnxruntime = pytest.importorskip(
    "onnxruntime", reason="onnxruntime is not installed (it has no wheel for every Python)")

aten = torch.ops.aten
EXPORTERS = ("default", "torchscript")


def _pair(model, ours):
    """(ours, aten's): model (aten's) and a copy with its gate replaced; no parameter requires
    grad (aten's out= op refuses one that does)."""
    model = model.eval().requires_grad_(False)
    swapped = copy.deepcopy(model)
    swapped.gate = ours
    return swapped, model


def _export(model, x, exporter, dynamic):
    """The ONNX ModelProto, the batch dimension dynamic or not."""
    if exporter == "default":
        shapes = ({0: torch.export.Dim("batch")},) if dynamic else None
        return torch.onnx.export(model, (x,), dynamic_shapes=shapes, verbose=False).model_proto
    buffer = io.BytesIO()
    torch.onnx.export(model, (x,), buffer, dynamo=False, input_names=["x"],
                      dynamic_axes={"x": {0: "batch"}} if dynamic else None)
    return onnx.load_from_string(buffer.getvalue())


def _normalized(model):
    """The model with every value named by its order of appearance: nodes (type, domain,
    attributes, inputs, outputs), the graph's inputs, outputs and initializers, the opsets."""
    graph, names = model.graph, {}

    def name(value):
        if value and value not in names:
            names[value] = f"v{len(names)}"
        return names.get(value, "")

    def attribute(a):
        value = onnx.helper.get_attribute_value(a)
        if isinstance(value, onnx.TensorProto):
            value = (value.data_type, tuple(value.dims),
                     onnx.numpy_helper.to_array(value).tobytes())
        return a.name, repr(value)

    inputs = [(name(i.name), i.type.SerializeToString()) for i in graph.input]
    initializers = sorted((name(t.name), t.data_type, tuple(t.dims),
                           onnx.numpy_helper.to_array(t).tobytes()) for t in graph.initializer)
    nodes = [(n.op_type, n.domain, sorted(attribute(a) for a in n.attribute),
              [name(i) for i in n.input], [name(o) for o in n.output]) for n in graph.node]
    outputs = [(name(o.name), o.type.SerializeToString()) for o in graph.output]
    opsets = sorted((o.domain, o.version) for o in model.opset_import)
    return {"inputs": inputs, "initializers": initializers, "nodes": nodes, "outputs": outputs,
            "opsets": opsets}


def _run(model, x):
    session = onnxruntime.InferenceSession(model.SerializeToString(),
                                           providers=["CPUExecutionProvider"])
    (result,) = session.run(None, {session.get_inputs()[0].name: x.numpy()})
    return torch.from_numpy(result)


def _assert_exports_as_atens(ours, atens, x, exporter, dynamic, runs):
    """Ours exports as aten's model does, or fails as it does; the ONNX models run alike."""
    try:
        expected = _export(atens, x, exporter, dynamic)
    except Exception as failure:  # aten's model does not export: ours must not either
        with pytest.raises(type(failure)):
            _export(ours, x, exporter, dynamic)
        return None
    got = _export(ours, x, exporter, dynamic)
    assert _normalized(got) == _normalized(expected)
    assert all(node.domain == "" for node in got.graph.node)
    for images in runs:
        result = _run(got, images)
        assert_identical(result, _run(expected, images), inputs=images)
        torch.testing.assert_close(result, atens(images))
    return got


def _images(batch, gen, dtype=torch.float32):
    return torch.randn(batch, 3, 8, 8, generator=gen, dtype=dtype)


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("exporter", EXPORTERS)
def test_block_exports_as_atens(exporter, form, dynamic, gen):
    torch.manual_seed(0)
    ours, atens = _pair(Block(FORMS[form][1]), FORMS[form][0])
    runs = [_images(2, gen)] + ([_images(5, gen)] if dynamic else [])
    got = _assert_exports_as_atens(ours, atens, _images(2, gen), exporter, dynamic, runs)
    if got is not None and "backward" not in form:
        assert "HardSigmoid" in [node.op_type for node in got.graph.node]


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_the_op_alone_on_edge_values(exporter):
    """NaN, ±inf, ±0, ±3, subnormals: ONNX Runtime's HardSigmoid computes alpha * x + beta, not
    aten's arithmetic, so its bits are compared with those for aten's model only."""
    ours, atens = _pair(Alone(F.hardsigmoid), OPS.hardsigmoid)
    x = edge_values(torch.float32)
    got, expected = _export(ours, x, exporter, False), _export(atens, x, exporter, False)
    assert _normalized(got) == _normalized(expected)
    assert_identical(_run(got, x), _run(expected, x), inputs=x)


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_float16_model_as_atens(exporter, gen):
    """A float16 model: whatever aten's export and ONNX Runtime do with aten's, ours does."""
    torch.manual_seed(0)
    ours, atens = _pair(Block(F.hardsigmoid).half(), OPS.hardsigmoid)
    x = _images(2, gen, torch.float16)
    try:
        expected = _export(atens, x, exporter, False)
    except Exception as failure:
        with pytest.raises(type(failure)):
            _export(ours, x, exporter, False)
        return
    got = _export(ours, x, exporter, False)
    assert _normalized(got) == _normalized(expected)
    try:
        expected_result = _run(expected, x)
    except Exception as failure:  # ONNX Runtime has no kernel aten's model needs
        with pytest.raises(type(failure)):
            _run(got, x)
        return
    assert_identical(_run(got, x), expected_result, inputs=x)


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_mobilenet_v3_exports_as_the_stock_model(exporter, gen):
    """MobileNetV3-Large (-Small has the same module kinds: it would export the same blocks)."""
    torchvision = pytest.importorskip("torchvision", reason="torchvision is in requirements.txt")
    torch.manual_seed(0)
    stock = torchvision.models.mobilenet_v3_large(weights=None).eval().requires_grad_(False)
    swapped = copy.deepcopy(stock)
    assert hardsigmoid_ops.replace_hardsigmoid(swapped) > 0
    images = torch.randn(2, 3, 64, 64, generator=gen)
    got, expected = (_export(model, images, exporter, True) for model in (swapped, stock))
    assert _normalized(got) == _normalized(expected)
    assert "HardSigmoid" in {node.op_type for node in got.graph.node}
    more = torch.randn(3, 3, 64, 64, generator=gen)  # another batch size
    result = _run(got, more)
    assert_identical(result, _run(expected, more), inputs=more)
    torch.testing.assert_close(result, stock(more))


def test_importing_the_package_imports_no_exporter():
    """The exporters are extended when torch imports them (torch.onnx.export), not before: the
    package's import costs nothing for them."""
    code = ("import sys, torch, hardsigmoid_ops; "
            "assert hardsigmoid_ops.compile_fusion_enabled(); "
            "print(sorted(m for m in sys.modules if m.startswith('torch.onnx')))")
    env = {**os.environ, "PYTHONPATH": str(package_parent())}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                            text=True, check=True)
    assert result.stdout.strip() == "[]", result.stdout
