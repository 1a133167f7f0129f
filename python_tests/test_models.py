"""A real model: torchvision's MobileNetV3-Large and -Small (nn.Hardsigmoid in every
squeeze-excitation block), stock against a copy after hardsigmoid_ops.replace_hardsigmoid. Random
weights from a fixed seed (nothing is downloaded). Bit for bit: eager inference, one training
step's gradients (same dropout masks), the scripted and the exported swapped model; compiled, the
Large one (the Small one's blocks are the same kinds).
On CUDA, cuDNN runs its deterministic algorithms, so that the convolutions repeat exactly."""

import copy

import pytest
import torch

import hardsigmoid_ops
from hardsigmoid_testing.checks import assert_identical
from hardsigmoid_testing.torchscript import script

torchvision = pytest.importorskip("torchvision", reason="torchvision is in requirements.txt")

MODELS = ("mobilenet_v3_large", "mobilenet_v3_small")
# MobileNetV3 halves the image five times; 64 x 64 keeps every stage and the CPU run short.
BATCH, SIDE = 2, 64


@pytest.fixture(autouse=True)
def deterministic_cudnn():
    with torch.backends.cudnn.flags(enabled=True, deterministic=True, benchmark=False):
        yield


def _models(name, device):
    """(stock, swapped, how many modules were swapped), with equal weights."""
    torch.manual_seed(0)
    stock = getattr(torchvision.models, name)(weights=None).to(device)
    swapped = copy.deepcopy(stock)
    count = hardsigmoid_ops.replace_hardsigmoid(swapped)
    return stock, swapped, count


def _images(device, gen):
    return torch.randn(BATCH, 3, SIDE, SIDE, generator=gen).to(device)


def _assert_same_outputs(got, expected, images):
    assert got.shape == (images.shape[0], 1000)
    assert_identical(got, expected)


models = pytest.mark.parametrize("name", MODELS)


@models
def test_every_hardsigmoid_is_swapped(name):
    stock, swapped, count = _models(name, "cpu")
    stock_count = sum(type(m) is torch.nn.Hardsigmoid for m in stock.modules())
    assert count == stock_count > 0
    assert not any(type(m) is torch.nn.Hardsigmoid for m in swapped.modules())
    assert sum(type(m) is hardsigmoid_ops.nn.Hardsigmoid for m in swapped.modules()) == count
    assert hardsigmoid_ops.replace_hardsigmoid(swapped) == 0


@models
def test_eager_inference_equals_stock(device, name, gen):
    stock, swapped, _ = _models(name, device)
    images = _images(device, gen)
    with torch.no_grad():
        _assert_same_outputs(swapped.eval()(images), stock.eval()(images), images)


@models
def test_training_step_gradients_equal_stock(device, name, gen):
    stock, swapped, _ = _models(name, device)
    images = _images(device, gen)
    labels = torch.randint(0, 1000, (BATCH,), generator=gen).to(device)
    grads = []
    for model in (stock, swapped):
        model.train()
        # The same dropout mask for both: the same seed right before each forward.
        torch.manual_seed(1)
        loss = torch.nn.functional.cross_entropy(model(images), labels)
        loss.backward()
        grads.append({n: p.grad for n, p in model.named_parameters()})
    assert grads[0].keys() == grads[1].keys()
    for n in grads[0]:
        assert_identical(grads[1][n], grads[0][n])


@models
def test_scripted_swapped_model_equals_stock(device, name, gen):
    stock, swapped, _ = _models(name, device)
    scripted = script(swapped.eval())
    assert "hardsigmoid_ops::hardsigmoid(" in str(scripted.inlined_graph)
    images = _images(device, gen)
    with torch.no_grad():
        _assert_same_outputs(scripted(images), stock.eval()(images), images)


@models
def test_exported_swapped_model_equals_stock(device, name, gen):
    stock, swapped, _ = _models(name, device)
    images = _images(device, gen)
    program = torch.export.export(swapped.eval(), (images,))
    targets = {str(node.target) for node in program.graph.nodes}
    assert "hardsigmoid_ops.hardsigmoid.default" in targets
    with torch.no_grad():
        _assert_same_outputs(program.module()(images), stock.eval()(images), images)


# One model compiled: the two have the same module kinds (the same squeeze-excitation block around
# each hardsigmoid), so that the second sends the same graph pattern down the same fusion again,
# tens of seconds a device and a release; the eager, training, scripted and exported tests take
# both.
def test_compiled_swapped_model_equals_compiled_stock(device, gen, fused_compile):
    stock, swapped, _ = _models("mobilenet_v3_large", device)
    images = _images(device, gen)
    with torch.no_grad():
        expected = torch.compile(stock.eval())(images)
        torch._dynamo.reset()
        got = torch.compile(swapped.eval())(images)
    _assert_same_outputs(got, expected, images)
