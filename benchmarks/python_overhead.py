"""Per-call host overhead from Python: torch.ops.hardsigmoid_ops ("ours") and the package's typed
function hardsigmoid_ops.hardsigmoid ("package") against F.hardsigmoid on a 16-element tensor,
where dispatching costs more than computing. The calls a user makes:

  plain            the functional op on a tensor that requires no grad (clone timed beside it)
  recorded         the functional op on a leaf that requires grad: autograd records a node
  recorded_inplace the in-place op on a non-leaf (t * 1) that requires grad: the input saved,
                   the node recorded (the multiplication is in both sides' time)
  module           hardsigmoid_ops.nn.Hardsigmoid() against nn.Hardsigmoid(), no grad

Prints the medians of alternating samples, so that drift touches both alike.

    python benchmarks/python_overhead.py LIBRARY [cpu|cuda] [calls]
"""

import statistics
import sys
import time

import torch
import torch.nn.functional as F


def sample_us(fn, x, calls, device):
    if device == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn(x)
    if device == "cuda":
        torch.cuda.synchronize()
    return (time.perf_counter() - start) / calls * 1e6


def cases(device):
    import hardsigmoid_ops

    ops = torch.ops.hardsigmoid_ops
    package = hardsigmoid_ops.hardsigmoid
    x = torch.randn(16, device=device)
    leaf = x.clone().requires_grad_()
    return {
        "plain": (x, {"ours": ops.hardsigmoid, "package": package, "aten": F.hardsigmoid,
                      "clone": torch.clone}),
        "recorded": (leaf, {"ours": ops.hardsigmoid, "package": package, "aten": F.hardsigmoid}),
        "recorded_inplace": (leaf, {"ours": lambda t: ops.hardsigmoid_(t * 1),
                                    "package": lambda t: package(t * 1, inplace=True),
                                    "aten": lambda t: F.hardsigmoid(t * 1, inplace=True)}),
        "module": (x, {"package": hardsigmoid_ops.nn.Hardsigmoid(),
                       "aten": torch.nn.Hardsigmoid()}),
    }


def main():
    library = sys.argv[1]
    device = sys.argv[2] if len(sys.argv) > 2 else "cpu"
    calls = int(sys.argv[3]) if len(sys.argv) > 3 else 20000
    torch.ops.load_library(library)
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1] / "python"))
    for case, (x, functions) in cases(device).items():
        assert torch.equal(torch.ops.hardsigmoid_ops.hardsigmoid(x), F.hardsigmoid(x))
        for fn in functions.values():
            sample_us(fn, x, 1000, device)
        samples = {name: [] for name in functions}
        for _ in range(15):
            for name, fn in functions.items():
                samples[name].append(sample_us(fn, x, calls, device))
        medians = {name: statistics.median(values) for name, values in samples.items()}
        shown = ", ".join(f"{name} {value:.2f} us" for name, value in medians.items())
        ratios = ", ".join(f"{name}/aten {medians[name] / medians['aten']:.3f}"
                           for name in ("ours", "package") if name in medians)
        print(f"Python host overhead per call, {device}, 16 elements, {case}: {shown} ({ratios})")


if __name__ == "__main__":
    main()
