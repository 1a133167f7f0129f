"""The int8 MobileNetV3 as users build it: torchvision's quantizable MobileNetV3-Large through eager
mode quantization (fuse_model, the engine's default qconfig, prepare, calibration, convert), once
stock and once with hardsigmoid_ops.replace_hardsigmoid done first. Same seeds, same calibration
batches: the converted models' outputs are equal bit for bit, under the x86 engine and under
QNNPACK (where aten's op takes its QNNPACK path), and the swapped model's hardsigmoid modules
really run on quantized tensors."""

import pytest
import torch

import hardsigmoid_ops
from hardsigmoid_testing.checks import assert_identical
from hardsigmoid_testing.quantized_engines import SUPPORTED, quantized_engine

quantization_models = pytest.importorskip("torchvision.models.quantization",
                                          reason="torchvision is in requirements.txt")

# MobileNetV3 halves the image five times; 64 x 64 keeps every stage and the run short.
BATCH, SIDE = 2, 64
ENGINES = [e for e in ("x86", "qnnpack") if e in SUPPORTED]


# torch 2.11 warns that eager mode quantization is deprecated (it still works, and torchvision's
# quantizable models are built for it); torchvision's inverted residual blocks without a residual
# connection carry an adding FloatFunctional that is never called, so convert warns that its
# observer never ran; the default qconfig's observers warn of reduce_range. Both models meet all
# three.
pytestmark = [
    pytest.mark.filterwarnings("ignore:.*torch.ao.quantization is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:must run observer before calling calculate_qparams"),
    pytest.mark.filterwarnings("ignore:Please use quant_min and quant_max"),
]


@pytest.fixture(params=ENGINES)
def engine(request):
    with quantized_engine(request.param):
        yield request.param


def _int8_model(engine, calibration, swap):
    """(the converted model, how many modules replace_hardsigmoid swapped)."""
    torch.manual_seed(0)
    model = quantization_models.mobilenet_v3_large(weights=None, quantize=False).eval()
    swapped = hardsigmoid_ops.replace_hardsigmoid(model) if swap else 0
    model.fuse_model()
    model.qconfig = torch.ao.quantization.get_default_qconfig(engine)
    torch.ao.quantization.prepare(model, inplace=True)
    with torch.no_grad():
        for batch in calibration:
            model(batch)
    torch.ao.quantization.convert(model, inplace=True)
    return model, swapped


def test_int8_mobilenet_v3_large_equals_stock(engine, gen):
    calibration = [torch.randn(BATCH, 3, SIDE, SIDE, generator=gen) for _ in range(2)]
    images = torch.randn(BATCH, 3, SIDE, SIDE, generator=gen)
    stock, _ = _int8_model(engine, calibration, swap=False)
    ours, swapped = _int8_model(engine, calibration, swap=True)
    stock_count = sum(type(m) is torch.nn.Hardsigmoid for m in stock.modules())
    ours_modules = [m for m in ours.modules() if isinstance(m, hardsigmoid_ops.nn.Hardsigmoid)]
    assert swapped == stock_count == len(ours_modules) == 8  # one per squeeze-excitation block

    seen = []
    for module in ours_modules:
        module.register_forward_hook(lambda m, inputs, output: seen.append(
            (inputs[0].is_quantized, output.is_quantized, output.q_scale())))
    with torch.no_grad():
        expected, got = stock(images), ours(images)
    assert seen == [(True, True, 1 / 256)] * len(ours_modules)
    assert got.shape == (BATCH, 1000)
    assert_identical(got, expected)
