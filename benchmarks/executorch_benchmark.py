"""ExecuTorch: programs lowered from models using the library's op (its ExecuTorch kernel,
hardsigmoid_ops::hardsigmoid.out) against the same models with aten's op (lowered by to_edge to
add, clamp, clamp and div), both run by ExecuTorch's Python runtime in one process, in turns.

The cases: the op alone on float32 tensors of 2^14 to 2^22 elements, with ExecuTorch's own
neg (one read and one write per element, the copy's stand-in) beside them for scale, and
torchvision's MobileNetV3-Small and -Large (random weights, one 224 x 224 image), stock against
the same model after hardsigmoid_ops.replace_hardsigmoid.

Per case: the median milliseconds of each program over repetitions, and aten's program's time
over ours (above 1: ours faster), with the quartiles of that ratio.

    python benchmarks/executorch_benchmark.py LIBRARY [--csv PATH] [--repeats N]
"""

import argparse
import copy
import csv
import pathlib
import statistics
import sys
import time

import torch

# The package of this source tree, whatever is installed.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))
import hardsigmoid_ops  # noqa: E402


class OnePass(torch.nn.Module):
    """A unary op of ExecuTorch's own kernels: one read and one write of every element (a clone
    is not a kernel call in an ExecuTorch program)."""

    def forward(self, x):
        return torch.neg(x)


def method(model, x):
    from executorch.exir import to_edge
    from executorch.runtime import Runtime

    buffer = to_edge(torch.export.export(model.eval(), (x,))).to_executorch().buffer
    loaded = Runtime.get().load_program(buffer)
    run = loaded.load_method("forward")
    run.keep_alive = (buffer, loaded)  # the runtime reads the program from the caller's buffer
    return run


def seconds(run, x):
    start = time.perf_counter()
    run.execute([x])
    return time.perf_counter() - start


def cases():
    for exponent in (14, 16, 18, 20, 22):
        x = torch.randn(1 << exponent) * 4
        yield (f"op alone, 2^{exponent} float32",
               torch.nn.Sequential(hardsigmoid_ops.nn.Hardsigmoid()),
               torch.nn.Sequential(torch.nn.Hardsigmoid()), OnePass(), x)
    import torchvision

    for name in ("mobilenet_v3_small", "mobilenet_v3_large"):
        torch.manual_seed(0)
        stock = getattr(torchvision.models, name)(weights=None)
        swapped = copy.deepcopy(stock)
        hardsigmoid_ops.replace_hardsigmoid(swapped)
        yield name, swapped, stock, None, torch.randn(1, 3, 224, 224)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("library")
    parser.add_argument("--csv")
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    hardsigmoid_ops.load_library(args.library)
    rows = []
    for name, ours, atens, control, x in cases():
        runs = {"ours": method(ours, x), "aten": method(atens, x)}
        if control is not None:
            runs["neg"] = method(control, x)
        for run in runs.values():  # warm-up
            run.execute([x])
        times = {key: [] for key in runs}
        for _ in range(args.repeats):
            for key, run in runs.items():
                times[key].append(seconds(run, x))
        ratios = sorted(a / o for a, o in zip(times["aten"], times["ours"]))
        q1, median, q3 = statistics.quantiles(ratios, n=4)
        row = {"case": name, "ours_ms": 1e3 * statistics.median(times["ours"]),
               "aten_ms": 1e3 * statistics.median(times["aten"]),
               "neg_ms": 1e3 * statistics.median(times["neg"]) if "neg" in times else "",
               "aten_over_ours": median, "q1": q1, "q3": q3}
        rows.append(row)
        neg_ms = f"{row['neg_ms']:.4f}" if row["neg_ms"] != "" else "-"
        print(f"{name:28s} ours {row['ours_ms']:.4f} ms  aten {row['aten_ms']:.4f} ms  "
              f"neg {neg_ms} ms  aten/ours {median:.2f} [{q1:.2f}, {q3:.2f}]", flush=True)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
