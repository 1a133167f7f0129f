"""Per-call host overhead from Python: torch.ops.hardsigmoid_ops.hardsigmoid against
F.hardsigmoid (and clone) on a 16-element tensor, where dispatching costs more than computing.
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


def main():
    library = sys.argv[1]
    device = sys.argv[2] if len(sys.argv) > 2 else "cpu"
    calls = int(sys.argv[3]) if len(sys.argv) > 3 else 20000
    torch.ops.load_library(library)
    functions = {"ours": torch.ops.hardsigmoid_ops.hardsigmoid, "aten": F.hardsigmoid,
                 "clone": torch.clone}
    x = torch.randn(16, device=device)
    assert torch.equal(functions["ours"](x), functions["aten"](x))
    for fn in functions.values():
        sample_us(fn, x, 1000, device)
    samples = {name: [] for name in functions}
    for _ in range(15):
        for name, fn in functions.items():
            samples[name].append(sample_us(fn, x, calls, device))
    medians = {name: statistics.median(values) for name, values in samples.items()}
    print(f"Python host overhead per call, {device}, 16 elements: ours {medians['ours']:.2f} us, "
          f"F.hardsigmoid {medians['aten']:.2f} us, clone {medians['clone']:.2f} us "
          f"(ours/aten {medians['ours'] / medians['aten']:.3f})")


if __name__ == "__main__":
    main()
