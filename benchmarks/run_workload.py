"""The main job: hardsigmoid on a real workload, its agreement with aten and its throughput.

On a GPU the workload is the one the library was built for: float32 [4096, 393216] (6.44 GB).
On the CPU a slice of it, [4096, 24576] (403 MB), to fit a small machine's memory and time.
Agreement is bitwise (NaN positions equal, every other element's bits equal). Times are medians
of several rounds, next to aten's hardsigmoid and a plain copy (clone) of the same bytes, which
bounds what a one-pass pointwise op can reach, and the library's call into an output written
before (hardsigmoid_out), which pays no new output's pages: the allocating call over it is
their cost. Every round times each of the three once, in a
rotating order, so that a drift of the machine touches all three alike.
"""

import argparse
import statistics
import time

import torch
import torch.nn.functional as F

DTYPES = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
          "bfloat16": torch.bfloat16}
INT_VIEW = {2: torch.int16, 4: torch.int32, 8: torch.int64}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--library", required=True, help="path to libhardsigmoid_ops.so")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--shape", type=int, nargs="+", help="default: by device, see above")
    p.add_argument("--dtype", default="float32", choices=DTYPES)
    p.add_argument("--repeats", type=int, default=None, help="timed rounds (default 20 GPU, 9 CPU)")
    return p.parse_args()


def mismatches(ours, ref):
    """Elements that differ: NaN against non-NaN, or different bits elsewhere."""
    nan_ours, nan_ref = ours.isnan(), ref.isnan()
    bits = INT_VIEW[ours.element_size()]
    differ = ours.view(bits).masked_fill(nan_ours, 0) != ref.view(bits).masked_fill(nan_ref, 0)
    return int((nan_ours != nan_ref).sum()) + int(differ.sum())


def seconds(fn, device):
    if device.type == "cuda":
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / 1e3
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def median_seconds_in_turns(fns, device, repeats):
    """Each function's median time over `repeats` rounds; a round times each once, the order
    rotating between rounds."""
    for fn in fns.values():
        fn()  # warm-up: first-call costs (allocation, library loading) stay out
    names = list(fns)
    times = {name: [] for name in names}
    for r in range(repeats):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            times[name].append(seconds(fns[name], device))
    return {name: statistics.median(t) for name, t in times.items()}


def main():
    args = parse_args()
    torch.ops.load_library(args.library)
    device = torch.device(args.device)
    shape = args.shape or ([4096, 393216] if device.type == "cuda" else [4096, 24576])
    repeats = args.repeats or (20 if device.type == "cuda" else 9)
    dtype = DTYPES[args.dtype]

    x = torch.rand(shape, dtype=dtype, device=device)
    ours_op = torch.ops.hardsigmoid_ops.hardsigmoid
    ours, ref = ours_op(x), F.hardsigmoid(x)
    bad = mismatches(ours, ref)
    del ours, ref

    moved = 2 * x.numel() * x.element_size()  # read once, written once
    written = torch.empty_like(x).fill_(0)  # an output written before: no new pages
    results = median_seconds_in_turns({
        "hardsigmoid_ops": lambda: ours_op(x),
        "aten": lambda: F.hardsigmoid(x),
        "copy": lambda: x.clone(),
        "ours into out": lambda: torch.ops.hardsigmoid_ops.hardsigmoid_out(x, written),
    }, device, repeats)
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else (
        f"CPU, {torch.get_num_threads()} threads")
    print(f"hardsigmoid {args.dtype} {list(shape)} ({x.numel():,} elements) on {name}")
    print(f"agreement with aten: {x.numel() - bad:,} of {x.numel():,} elements bitwise equal "
          f"({'OK' if bad == 0 else f'{bad:,} MISMATCHES'})")
    print(f"{'':16}{'median ms':>12}{'GB/s':>10}{'vs aten':>10}{'vs copy':>10}")
    for label, seconds in results.items():
        print(f"{label:16}{seconds * 1e3:12.3f}{moved / seconds / 1e9:10.1f}"
              f"{results['aten'] / seconds:10.3f}{results['copy'] / seconds:10.3f}")
    print("(vs aten, vs copy: their time over this row's; above 1 is faster)")
    print(f"the allocating call takes {results['hardsigmoid_ops'] / results['ours into out']:.2f}"
          " times the call into an output written before (the new output's pages, which the "
          "system zeroes)")
    if bad:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
