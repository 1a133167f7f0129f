"""torch.compile: graphs written with our ops against the same graphs written with aten's, both
compiled (inductor, fullgraph), timed in turns in one run. Our graphs run twice: fused (the
package's default, compile_fusion.py) and opaque (set_compile_fusion(False)), each compiled
separately.

The cases: the op alone, with pointwise work before, after and around it, the in-place and out
ops, the backward op, a forward + backward, MobileNetV3's squeeze-excitation block, and whole
torchvision MobileNetV3-Large and -Small models (random weights, inference), stock against the
same model after hardsigmoid_ops.replace_hardsigmoid.

Per case: the median over repetitions of aten's time over ours (above 1: ours faster), with the
quartiles, and the median milliseconds of each, and of a plain copy of the first input (eager
clone) for scale, and of aten's graph compiled a second time (the control: another instance of
the same program, which inductor may serve from its caches, its kernels loaded, and on a GPU
autotuned, afresh). Every compiled graph is checked against aten's compiled graph first, as
close as aten's own runs are to each other; whether the fused one is bitwise equal is recorded
(and a difference printed where aten's graph repeats itself bitwise). cuDNN runs its
deterministic algorithms throughout, so that the convolutions repeat exactly (switching between
compiling and checking would change their output layouts).

    python benchmarks/compile_benchmark.py LIBRARY [--device cpu|cuda] [--csv PATH] [--cases ...]
                                           [--aten-first]
"""

import argparse
import contextlib
import copy
import csv
import statistics
import sys
import time

import torch
import torch.nn.functional as F

from compile_graphs import graphs

MODELS = ("mobilenet_v3_large", "mobilenet_v3_small")


def models(name, dtype, device):
    """The stock torchvision model (random weights, fixed seed, eval mode) and a copy with its
    nn.Hardsigmoid modules swapped for hardsigmoid_ops.nn.Hardsigmoid."""
    import torchvision

    import hardsigmoid_ops

    torch.manual_seed(0)
    stock = getattr(torchvision.models, name)(weights=None).eval().to(device, dtype)
    swapped = copy.deepcopy(stock)
    assert hardsigmoid_ops.replace_hardsigmoid(swapped) > 0
    return stock, swapped


def _grad_mode(name):
    """Models run as inference; a call in another grad mode than the compiling one would
    recompile (dynamo guards on it)."""
    return torch.no_grad() if name in MODELS else contextlib.nullcontext()


def inputs(name, dtype, device, numel):
    if name in MODELS:
        # Batch 64 at 224 x 224 on a GPU, as the model is served; a batch of 4 on CPU.
        batch = 64 if device == "cuda" else 4
        return torch.randn(batch, 3, 224, 224, device=device).to(dtype), None
    if name == "se_block":
        channels, side = 96, 28
        batch = max(1, numel // (channels * side * side))
        x = torch.randn(batch, channels, side, side, device=device).to(dtype) * 4
        weight = torch.randn(channels, channels, 1, 1, device=device).to(dtype) / channels
        return x, weight
    x = torch.randn(numel, device=device).to(dtype) * 4
    s = torch.randn(numel, device=device).to(dtype)
    if name == "forward_backward":
        x.requires_grad_()
        s.requires_grad_()
    return x, s


def with_backward(fn, upstream):
    """fn's forward, then the gradients of both inputs."""
    def run(x, s):
        return torch.autograd.grad(fn(x, s), (x, s), upstream)
    return run


def implementations(name, dtype, device):
    """Our function for the case and aten's, each taking (x, s)."""
    if name in MODELS:
        stock, swapped = models(name, dtype, device)
        return (lambda x, s: swapped(x)), (lambda x, s: stock(x))
    ops = torch.ops.hardsigmoid_ops
    ours = graphs(ops.hardsigmoid, ops.hardsigmoid_, ops.hardsigmoid_out, ops.hardsigmoid_backward)
    aten = graphs(F.hardsigmoid, lambda t: F.hardsigmoid(t, inplace=True),
                  lambda x, out: torch._C._nn.hardsigmoid(x, out=out),
                  torch.ops.aten.hardsigmoid_backward)
    return ours[name], aten[name]


def timer(device):
    if device == "cuda":
        def run(fn, args, calls):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(calls):
                fn(*args)
            end.record()
            torch.cuda.synchronize()
            return start.elapsed_time(end) / calls
    else:
        def run(fn, args, calls):
            start = time.perf_counter()
            for _ in range(calls):
                fn(*args)
            return (time.perf_counter() - start) * 1e3 / calls
    return run


def measure(functions, args, device, repetitions, calls):
    """{name: [ms per call, one per repetition]}, the functions timed in turns, the first of
    each turn rotating."""
    run = timer(device)
    names = list(functions)
    for name in names:
        run(functions[name], args, 2)
    samples = {name: [] for name in names}
    for rep in range(repetitions):
        order = names[rep % len(names):] + names[:rep % len(names)]
        for name in order:
            samples[name].append(run(functions[name], args, calls))
    return samples


def _inductor_backend():
    from torch._inductor.compile_fx import compile_fx

    def backend(graph, example_inputs):
        return compile_fx(graph, example_inputs)

    return backend


def quartiles(values):
    q = statistics.quantiles(values, n=4)
    return q[0], statistics.median(values), q[2]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("library")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--csv")
    parser.add_argument("--repetitions", type=int, default=15)
    parser.add_argument("--cases", nargs="*", help="only these case names (default: all)")
    parser.add_argument("--aten-first", action="store_true",
                        help="compile aten's graphs before ours (default: ours first)")
    args = parser.parse_args()
    torch.ops.load_library(args.library)
    torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = True, False
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1] / "python"))
    import hardsigmoid_ops

    numel = 2 ** 26 if args.device == "cuda" else 2 ** 22
    cases = [(torch.float32, name) for name in graphs(*[None] * 4)]
    cases += [(torch.bfloat16, "alone"), (torch.bfloat16, "both"),
              (torch.bfloat16, "se_block")]
    cases += [(torch.float32, name) for name in MODELS]
    if args.cases:
        cases = [(dtype, name) for dtype, name in cases if name in args.cases]
    rows = []
    for dtype, name in cases:
        x, s = inputs(name, dtype, args.device, numel)
        upstream = torch.randn_like(x)
        ours, aten = implementations(name, dtype, args.device)
        torch._dynamo.reset()
        compiled = {}
        # aten_again: aten's graph compiled a second time, the control. Inductor autotunes each
        # compile on the device (kernel configs, reduction splits), so two compiles of one graph
        # may differ in time and, through reduction order, in bits: aten over aten_again is the
        # spread any ratio here carries.
        # On CPU the order of compiling matters: a graph compiled later in a case ran up to 12 %
        # faster than the same code compiled earlier (docs/performance.md); --aten-first
        # reverses it.
        variants = [("fused", True, ours), ("opaque", False, ours),
                    ("aten", True, aten), ("aten_again", True, aten)]
        if args.aten_first:
            variants = variants[2:] + variants[:2]
        for label, fusion, fn in variants:
            hardsigmoid_ops.set_compile_fusion(fusion)
            # A backend object of its own: dynamo guards on the backend, so the fused and the
            # opaque compilation of the same function are separate entries of its cache.
            fn = torch.compile(fn, fullgraph=True, backend=_inductor_backend())
            if name == "forward_backward":
                fn = with_backward(fn, upstream)
            with _grad_mode(name):
                fn(x, s)  # compiled now, under this switch state
            compiled[label] = fn
        hardsigmoid_ops.set_compile_fusion(True)
        with _grad_mode(name):
            results = {label: compiled[label](x, s) for label in compiled}
            results["aten_rerun"] = compiled["aten"](x, s)
        if name != "forward_backward":
            results = {k: (v,) for k, v in results.items()}

        def same(a, b):
            return all(torch.equal(u, v) for u, v in zip(results[a], results[b]))

        # Bitwise where aten's graph repeats itself, from one call to the next and across
        # compiles; else as close as aten's runs are to each other.
        runs_repeat, compiles_repeat = same("aten", "aten_rerun"), same("aten", "aten_again")
        repeatable = runs_repeat and compiles_repeat
        fused_equal = same("fused", "aten")
        if repeatable and not fused_equal:
            worst = max((g - e).abs().max().item()
                        for g, e in zip(results["fused"], results["aten"]))
            print(f"MISMATCH {name} {dtype}: fused differs from aten's graph, which repeats; "
                  f"largest difference {worst:g}", flush=True)
        for label in ("fused", "opaque"):
            for got, expected in zip(results[label], results["aten"]):
                torch.testing.assert_close(got, expected, rtol=1e-2, atol=1e-3)
        bytes_per_call = x.numel() * x.element_size()
        calls = max(1, int(2e9 / bytes_per_call)) if args.device == "cuda" else 3
        if name in MODELS:
            calls = 10 if args.device == "cuda" else 1
        timed = dict(compiled, copy=lambda x, s: x.clone())
        with _grad_mode(name):
            samples = measure(timed, (x, s), args.device, args.repetitions, calls)
        row = {"device": args.device, "dtype": str(dtype).split(".")[1], "case": name,
               "numel": x.numel(), "repetitions": args.repetitions}
        row["aten_runs_repeat"], row["aten_compiles_repeat"] = runs_repeat, compiles_repeat
        row["fused_bitwise_equal"] = fused_equal
        for label in ("fused", "opaque", "aten_again"):
            ratios = [a / o for a, o in zip(samples["aten"], samples[label])]
            q1, median, q3 = quartiles(ratios)
            row[f"aten_over_{label}"] = round(median, 4)
            row[f"aten_over_{label}_q1"] = round(q1, 4)
            row[f"aten_over_{label}_q3"] = round(q3, 4)
        for label in timed:
            row[f"{label}_ms"] = round(statistics.median(samples[label]), 4)
        rows.append(row)
        print(f"{row['dtype']:9} {name:12} aten/fused {row['aten_over_fused']:.3f} "
              f"[{row['aten_over_fused_q1']:.3f}, {row['aten_over_fused_q3']:.3f}]  "
              f"aten/opaque {row['aten_over_opaque']:.3f}  "
              f"aten/aten_again {row['aten_over_aten_again']:.3f} "
              f"[{row['aten_over_aten_again_q1']:.3f}, {row['aten_over_aten_again_q3']:.3f}]  "
              f"fused {'bitwise' if fused_equal else 'close'} (aten repeats: runs "
              f"{runs_repeat}, compiles {compiles_repeat})  "
              f"ms: fused {row['fused_ms']:.3f} opaque {row['opaque_ms']:.3f} "
              f"aten {row['aten_ms']:.3f} copy {row['copy_ms']:.3f}", flush=True)
        if args.csv:  # rewritten after every case, so that a run cut short keeps its rows
            with open(args.csv, "w", newline="") as f:
                writer = csv.DictWriter(f, fieldnames=list(rows[0]))
                writer.writeheader()
                writer.writerows(rows)


if __name__ == "__main__":
    main()
