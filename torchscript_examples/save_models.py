"""Saves TorchScript models that use hardsigmoid_ops, for the C++ loader (run_models.cpp).

The inference model is a small convolution block gated by hardsigmoid, with an in-place
hardsigmoid on an intermediate; the training model is two convolutions with an in-place
hardsigmoid between them (nn.Hardsigmoid(inplace=True)'s place in MobileNetV3), trained one step
from C++; the int8 model is a convolution gated by hardsigmoid on quantized tensors, quantized
by eager mode quantization with the qconfig of the architecture's engine (x86 on x86-64, qnnpack
on ARM). Eight files are written to OUTDIR:
  gate_scripted.pt   torch.jit.script of the model calling torch.ops.hardsigmoid_ops
  gate_traced.pt     torch.jit.trace of the same model (same weights)
  gate_aten.pt       the same model and weights with aten's hardsigmoid: the reference
  block_scripted.pt  torch.jit.script of the training model calling torch.ops.hardsigmoid_ops
  block_aten.pt      the same model and weights with aten's in-place hardsigmoid
  int8_scripted.pt   torch.jit.script of the int8 model calling torch.ops.hardsigmoid_ops
  int8_aten.pt       the same int8 model (weights, calibration) with aten's hardsigmoid
  int8_engine.txt    the quantized engine the int8 models were made for, which the loader sets
Usage: python save_models.py LIBRARY OUTDIR
"""

import pathlib
import platform
import sys
import warnings

import torch
import torch.nn.functional as F


class Gate(torch.nn.Module):
    """conv -> hardsigmoid gate; the gate's input is also squashed in place."""

    def __init__(self, use_ops: bool):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.use_ops = use_ops

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.conv(x)
        if self.use_ops:
            gate = torch.ops.hardsigmoid_ops.hardsigmoid(h)
            torch.ops.hardsigmoid_ops.hardsigmoid_(h)
        else:
            gate = F.hardsigmoid(h)
            h = F.hardsigmoid(h, inplace=True)
        return h * gate + x.mean(dim=1, keepdim=True)


class Block(torch.nn.Module):
    """conv -> hardsigmoid in place -> conv: the in-place op on a non-leaf, recorded by autograd."""

    def __init__(self, use_ops: bool):
        super().__init__()
        self.first = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.second = torch.nn.Conv2d(8, 4, 1)
        self.use_ops = use_ops

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.first(x)
        if self.use_ops:
            torch.ops.hardsigmoid_ops.hardsigmoid_(h)
        else:
            h = F.hardsigmoid(h, inplace=True)
        return self.second(h)


class Int8Gate(torch.nn.Module):
    """quantize -> conv -> hardsigmoid of the quantized result -> dequantize."""

    def __init__(self, use_ops: bool):
        super().__init__()
        self.quant = torch.ao.quantization.QuantStub()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.dequant = torch.ao.quantization.DeQuantStub()
        self.use_ops = use_ops

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.conv(self.quant(x))
        if self.use_ops:
            h = torch.ops.hardsigmoid_ops.hardsigmoid(h)
        else:
            h = F.hardsigmoid(h)
        return self.dequant(h)


def int8_engine() -> str:
    """The quantized engine of this architecture: x86 on x86-64, qnnpack on ARM.

    The aarch64 torch also lists x86 and reports it as its default engine, but lacks that
    engine's convolution prepack: a model converted for x86 fails there.
    """
    return "qnnpack" if platform.machine().lower() in ("aarch64", "arm64") else "x86"


def int8(model, calibration, engine):
    """The model quantized in eager mode with the engine's default qconfig."""
    model.eval()
    model.qconfig = torch.ao.quantization.get_default_qconfig(engine)
    torch.ao.quantization.prepare(model, inplace=True)
    with torch.no_grad():
        model(calibration)
    return torch.ao.quantization.convert(model, inplace=True)


def main():
    library, outdir = sys.argv[1], pathlib.Path(sys.argv[2])
    torch.ops.load_library(library)
    outdir.mkdir(parents=True, exist_ok=True)
    ours, aten = Gate(use_ops=True).eval(), Gate(use_ops=False).eval()
    aten.load_state_dict(ours.state_dict())
    example = torch.randn(2, 3, 16, 16)
    with warnings.catch_warnings():
        # torch 2.11 deprecates TorchScript; the saved models are what is being shown here.
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        torch.jit.save(torch.jit.script(ours), outdir / "gate_scripted.pt")
        torch.jit.save(torch.jit.script(aten), outdir / "gate_aten.pt")
        with torch.no_grad():
            torch.jit.save(torch.jit.trace(ours, example), outdir / "gate_traced.pt")
        block, block_aten = Block(use_ops=True), Block(use_ops=False)
        block_aten.load_state_dict(block.state_dict())
        torch.jit.save(torch.jit.script(block), outdir / "block_scripted.pt")
        torch.jit.save(torch.jit.script(block_aten), outdir / "block_aten.pt")
        # The quantization API's deprecation and observer warnings are torch's, not the models'.
        warnings.filterwarnings("ignore", category=UserWarning)
        int8_ours, int8_aten = Int8Gate(use_ops=True), Int8Gate(use_ops=False)
        int8_aten.load_state_dict(int8_ours.state_dict())
        calibration = torch.randn(8, 3, 16, 16) * 2
        engine = int8_engine()
        torch.backends.quantized.engine = engine
        for model, name in ((int8_ours, "int8_scripted.pt"), (int8_aten, "int8_aten.pt")):
            torch.jit.save(torch.jit.script(int8(model, calibration, engine)), outdir / name)
        (outdir / "int8_engine.txt").write_text(engine + "\n")
    print(f"saved gate_scripted.pt, gate_traced.pt, gate_aten.pt, block_scripted.pt, "
          f"block_aten.pt, int8_scripted.pt, int8_aten.pt ({engine}), int8_engine.txt in {outdir}")


if __name__ == "__main__":
    main()
