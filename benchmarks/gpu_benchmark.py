"""GPU benchmark: hardsigmoid_ops against aten's hardsigmoid and a plain copy, in one run.

Every case times ours, aten (F.hardsigmoid or its in-place / out form) and a copy (clone) of the
same tensor with CUDA events: warm-up, then the median of --repeats runs, the three taking turns
within each repetition. Large cases time single calls. The size sweep times kernels by CUDA-graph
replay (one graph of many calls over a pool of inputs several times the L2, so no call reads what
the previous one left in L2). Host overhead is timed separately, on a 16-element tensor, for
Python's torch.ops. Bandwidth counts each element read once and written once (3 tensors for
backward). Writes a CSV; prints a table.
"""

import argparse
import csv
import statistics

import torch
import torch.nn.functional as F

FIELDS = ["case", "dtype", "numel", "method", "ours_ms", "aten_ms", "copy_ms", "ours_GBps",
          "aten_GBps", "copy_GBps", "aten_over_ours", "copy_over_ours", "ours_over_copy_bw"]
SHORT = {torch.float32: "float32", torch.float64: "float64", torch.float16: "float16",
         torch.bfloat16: "bfloat16"}


def interleaved_median_ms(fns, repeats, warmup=3):
    """Median event time of each fn, the fns taking turns within every repetition: a drift of the
    clocks or of the memory system during the case then touches every column alike."""
    for fn in fns:
        for _ in range(warmup):
            fn()
    times = [[] for _ in fns]
    for _ in range(repeats):
        for fn, samples in zip(fns, times):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end))
    return [statistics.median(samples) for samples in times]


def graph_median_ms(make_call, inputs, repeats):
    """Per-call kernel time: replays of a graph that calls make_call(x) once for each x."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for x in inputs[:2]:  # warm-up outside capture: lazy initialisation, occupancy queries
            make_call(x)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for x in inputs:
            make_call(x)
    return interleaved_median_ms((graph.replay,), repeats)[0] / len(inputs)


class Runner:
    def __init__(self, repeats):
        self.repeats = repeats
        self.rows = []
        self.l2_bytes = torch.cuda.get_device_properties(0).L2_cache_size
        self.ops = torch.ops.hardsigmoid_ops

    def record(self, case, dtype, numel, method, ours, aten, copy, tensors_moved=2):
        moved = tensors_moved * numel * torch.tensor([], dtype=dtype).element_size()

        def gbps(ms):
            return moved / (ms * 1e-3) / 1e9

        row = dict(case=case, dtype=SHORT[dtype], numel=numel, method=method, ours_ms=ours,
                   aten_ms=aten, copy_ms=copy, ours_GBps=gbps(ours), aten_GBps=gbps(aten),
                   copy_GBps=gbps(copy), aten_over_ours=aten / ours, copy_over_ours=copy / ours,
                   ours_over_copy_bw=gbps(ours) / gbps(copy))
        self.rows.append(row)
        print(f"{case:34} {SHORT[dtype]:9} {numel:>13,} {method:6} ours {ours:9.4f} ms "
              f"aten {aten:9.4f} copy {copy:9.4f} | ours {row['ours_GBps']:7.0f} GB/s "
              f"aten/ours {row['aten_over_ours']:.3f} copy/ours {row['copy_over_ours']:.3f}",
              flush=True)

    def events(self, case, x, ours, aten, copy=None, tensors_moved=2):
        copy = copy or (lambda: x.clone())
        times = interleaved_median_ms((ours, aten, copy), self.repeats)
        self.record(case, x.dtype, x.numel(), "events", *times, tensors_moved=tensors_moved)

    def sweep(self, dtype, log2_sizes):
        for log2 in log2_sizes:
            numel = 1 << log2
            bytes_each = numel * torch.tensor([], dtype=dtype).element_size()
            count = max(4, min(8192, -(-3 * self.l2_bytes // bytes_each)))
            inputs = [torch.randn(numel, device="cuda", dtype=dtype) * 4 for _ in range(count)]
            times = [graph_median_ms(call, inputs, self.repeats)
                     for call in (self.ops.hardsigmoid, F.hardsigmoid, torch.clone)]
            self.record(f"sweep 2^{log2}", dtype, numel, "graph", *times)
            del inputs
            torch.cuda.empty_cache()

    def host_overhead(self, calls=20000):
        """Per-call wall time of many back-to-back calls on 16 elements: host-bound."""
        import time
        x = torch.randn(16, device="cuda")
        results = {}
        for name, fn in (("ours", self.ops.hardsigmoid), ("aten", F.hardsigmoid),
                         ("copy", torch.clone)):
            for _ in range(100):
                fn(x)
            samples = []
            for _ in range(5):
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                for _ in range(calls):
                    fn(x)
                torch.cuda.synchronize()
                samples.append((time.perf_counter() - t0) / calls * 1e6)
            results[name] = statistics.median(samples)
        print(f"host overhead per call, Python, 16 elements: ours {results['ours']:.2f} us, "
              f"aten {results['aten']:.2f} us, clone {results['copy']:.2f} us "
              f"(ours/aten {results['ours'] / results['aten']:.3f})", flush=True)
        self.rows.append(dict(case="host overhead python (ms/call)", dtype="float32", numel=16,
                              method="wall", ours_ms=results["ours"] / 1e3,
                              aten_ms=results["aten"] / 1e3, copy_ms=results["copy"] / 1e3))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--library", required=True)
    p.add_argument("--csv", required=True)
    p.add_argument("--repeats", type=int, default=30)
    p.add_argument("--quick", action="store_true",
                   help="the headline and the tensor above 2^31 elements only")
    args = p.parse_args()
    torch.ops.load_library(args.library)
    run = Runner(args.repeats)
    ops = run.ops
    rows, cols = 4096, 393216
    print(f"{torch.cuda.get_device_name()} | L2 {run.l2_bytes >> 20} MiB | "
          f"torch {torch.__version__}")

    # The headline: the original workload, from rand and from randn * 4.
    x = torch.rand(rows, cols, device="cuda")
    run.events("headline rand", x, lambda: ops.hardsigmoid(x), lambda: F.hardsigmoid(x))
    x = torch.randn(rows, cols, device="cuda") * 4
    run.events("headline randn*4", x, lambda: ops.hardsigmoid(x), lambda: F.hardsigmoid(x))
    if args.quick:
        del x
        run_above_2_31(run)
        return write(run.rows, args.csv)

    # Variants and layouts of the headline tensor.
    out = torch.empty_like(x)
    run.events("out", x, lambda: ops.hardsigmoid_out(x, out),
               lambda: torch._C._nn.hardsigmoid(x, out=out))
    run.events("in-place", x, lambda: ops.hardsigmoid_(x), lambda: F.hardsigmoid(x, inplace=True))
    g = torch.randn_like(x)
    run.events("backward", x, lambda: ops.hardsigmoid_backward(g, x),
               lambda: torch.ops.aten.hardsigmoid_backward(g, x), tensors_moved=3)
    del g, out
    xt = x.t()
    run.events("transposed", xt, lambda: ops.hardsigmoid(xt), lambda: F.hardsigmoid(xt))
    del x, xt
    torch.cuda.empty_cache()
    base = torch.randn(rows, 2 * cols, device="cuda") * 4
    xs = base[:, ::2]
    run.events("step-2 slice", xs, lambda: ops.hardsigmoid(xs), lambda: F.hardsigmoid(xs))
    del base, xs
    torch.cuda.empty_cache()
    base = torch.randn(rows * cols + 1, device="cuda") * 4
    xm = base[1:]
    run.events("misaligned (offset 1)", xm, lambda: ops.hardsigmoid(xm), lambda: F.hardsigmoid(xm))
    run.events("misaligned in-place", xm, lambda: ops.hardsigmoid_(xm),
               lambda: F.hardsigmoid(xm, inplace=True))
    del base, xm
    torch.cuda.empty_cache()

    # Other dtypes at the headline's element count.
    for dtype in (torch.bfloat16, torch.float16, torch.float64):
        x = (torch.randn(rows, cols, device="cuda") * 4).to(dtype)
        run.events("headline shape", x, lambda: ops.hardsigmoid(x), lambda: F.hardsigmoid(x))
        del x
        torch.cuda.empty_cache()

    run_above_2_31(run)

    # Kernel time across sizes, by graph replay.
    for dtype in (torch.float32, torch.bfloat16):
        run.sweep(dtype, range(12, 31, 2))
    run.host_overhead()
    write(run.rows, args.csv)


def run_above_2_31(run):
    """A float16 tensor of more than 2^31 elements: 64-bit indexing."""
    x = (torch.randn((1 << 31) + (1 << 20), device="cuda") * 4).half()
    run.events("above 2^31 elements", x, lambda: run.ops.hardsigmoid(x), lambda: F.hardsigmoid(x))
    del x
    torch.cuda.empty_cache()


def write(rows, path):
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v)
                             for k, v in row.items()})


if __name__ == "__main__":
    main()
