"""Exports a model that uses hardsigmoid_ops, for the C++ AOTInductor loader (run_aoti_package.cpp).

Writes to OUTDIR:
  gate.pt2        torch.export.save of the ExportedProgram (dynamic batch size)
  gate_aoti.pt2   the same program compiled ahead of time (torch._inductor.aoti_compile_and_package)
                  for DEVICE (cpu or cuda; default cpu)
  io.pt           an input and the output of the same model built with aten's hardsigmoid on
                  DEVICE, both stored on the CPU, for the C++ program to compare with
Usage: python export_model.py LIBRARY OUTDIR [DEVICE]
"""

import pathlib
import sys
import warnings

import torch
import torch.nn.functional as F


class Gate(torch.nn.Module):
    """A hardsigmoid gate, with an in-place hardsigmoid on an intermediate. The arithmetic around
    the ops rounds the same compiled or not (a scaling by 2 is exact, so a fused multiply-add of
    x * 2 + 1 rounds as the two steps do; one product), so that the package's output can be
    compared with the eager aten model bit for bit on either device."""

    def __init__(self, use_ops: bool):
        super().__init__()
        self.use_ops = use_ops

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x * 2 + 1
        if self.use_ops:
            gate = torch.ops.hardsigmoid_ops.hardsigmoid(h)
            torch.ops.hardsigmoid_ops.hardsigmoid_(h)
        else:
            gate = F.hardsigmoid(h)
            h = F.hardsigmoid(h)
        return h * gate


class Tensors(torch.nn.Module):
    """Named tensors in a file that C++ reads with torch::jit::load."""

    def __init__(self, **tensors):
        super().__init__()
        for name, tensor in tensors.items():
            self.register_buffer(name, tensor)


def build(library, device):
    torch.ops.load_library(library)
    # No parameters and an input that needs no gradient: the in-place hardsigmoid_ is never one
    # that autograd would have to record.
    ours = Gate(use_ops=True).eval()
    aten = Gate(use_ops=False).eval()
    batch = torch.export.Dim("batch", min=2, max=1024)
    program = torch.export.export(ours, (torch.randn(8, 16, device=device),),
                                  dynamic_shapes={"x": {0: batch}})
    return ours, aten, program


def main():
    library, outdir = sys.argv[1], pathlib.Path(sys.argv[2])
    device = sys.argv[3] if len(sys.argv) > 3 else "cpu"
    outdir.mkdir(parents=True, exist_ok=True)
    _, aten, program = build(library, device)
    torch.export.save(program, outdir / "gate.pt2")
    torch._inductor.aoti_compile_and_package(program, package_path=str(outdir / "gate_aoti.pt2"))
    x = torch.randn(37, 16) * 3
    with torch.no_grad(), warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        expected = aten(x.to(device)).cpu()
        torch.jit.save(torch.jit.script(Tensors(input=x, expected=expected)), outdir / "io.pt")
    print(f"saved gate.pt2, gate_aoti.pt2 ({device}) and io.pt in {outdir}")


if __name__ == "__main__":
    main()
