"""CPU speed of this tree's library against another revision's and aten, in one process per size.

benchmarks/compare_revision.sh builds the two libraries (the other one's op namespace renamed
to `hardsigmoid_ops_rev`, so that both load into one process) and runs this script. For every
size it starts one process, which loads both libraries and, per dtype and thread count, times in
turns, round after round (the order rotating each round):

- `out`:        hardsigmoid_out into a preallocated tensor (this tree, the revision, aten),
                beside `out.copy_(x)`, the floor of a call that reads one tensor and writes one;
- `functional`: hardsigmoid(x), which allocates its output and so pays that memory's page
                faults (this tree, the revision, aten), beside `x.clone()` as the copy: the floor
                of a call that must allocate and fill a new tensor;
- `inplace`:    hardsigmoid_(scratch) on a scratch restored from x by `scratch.copy_(x)` in the
                same call (this tree, the revision, aten), beside that restore alone as the copy:
                the in-place time less the copy's is the op's own;
- `backward`:   hardsigmoid_backward(g, x), allocating (with --ops backward).

The floating dtypes run `out` and `functional` unless --ops says otherwise. The per-tensor
quantized dtypes (quint8, qint8, qint32, only when --dtypes names them) run `functional` and
`inplace` and no other op (QUANTIZED_OPS says why).

Every callable's result is compared with aten's bit for bit first: for a floating dtype with NaN,
±inf, ±0, ±3 and a subnormal in the input (an older revision whose NaN bits are not aten's passes
with a note if its values are), for a quantized one by its codes, scale, zero point and dtype.
A round times each callable over enough calls to last --min-time seconds and keeps the
time per call; the table reports medians over the rounds and, for each ratio, its spread (the
lowest and highest of the per-round ratios). A ratio above 1 means this tree is faster.

  python benchmarks/compare_revision.py --current build/libhardsigmoid_ops.so \
      --other build-rev/5b4a253/libhardsigmoid_ops.so --other-name 5b4a253
"""

import argparse
import json
import statistics
import subprocess
import sys
import time

OPS = ("out", "functional", "inplace", "backward")
DTYPES = ("bfloat16", "float16", "float32", "float64")
QUANTIZED_DTYPES = ("quint8", "qint8", "qint32")
FLOATING_OPS = ("out", "functional")
# The library's quantized out op is its functional op followed by a copy into out, for aten's
# semantics (out takes the output's scale and zero point): it would time nothing that the
# functional row and a copy do not. There is no quantized backward: aten's has no quantized
# kernel, and the library's refuses a quantized argument.
QUANTIZED_OPS = ("functional", "inplace")

# Scale and zero point of a quantized input. The 8-bit types spread their 256 codes over
# [-4, 4], so that the input reaches both clamps (at -3 and 3) and the linear part between;
# qint32 takes steps of 1e-6, close to a float input's fineness, and its codes (below 2^24)
# convert to float exactly.
INPUT_QUANTIZATION = {
    "quint8": (8 / 255, 128),
    "qint8": (8 / 255, 0),
    "qint32": (1e-6, 0),
}


def edge_values(torch, dtype):
    values = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 3.0, -3.0]
    values.append(torch.finfo(dtype).tiny / 2)  # a subnormal (0 in no dtype here)
    return torch.tensor(values, dtype=dtype)


def make_quantized_input(torch, dtype_name, numel):
    """Float values uniform in [-4, 4], quantized per tensor (no edge values: none is a code)."""
    scale, zero_point = INPUT_QUANTIZATION[dtype_name]
    values = torch.empty(numel, dtype=torch.float32).uniform_(-4, 4)
    return torch.quantize_per_tensor(values, scale, zero_point, getattr(torch, dtype_name))


def make_input(torch, dtype, numel):
    x = torch.randn(numel, dtype=torch.float32).mul_(4).to(dtype)
    edges = edge_values(torch, dtype)
    x[: edges.numel()] = edges
    return x


def same_bits(torch, a, b):
    if a.is_quantized or b.is_quantized:
        # Equal codes mean other values under another scale or zero point.
        return (
            a.is_quantized and b.is_quantized and a.dtype == b.dtype and a.shape == b.shape
            and a.q_scale() == b.q_scale() and a.q_zero_point() == b.q_zero_point()
            and torch.equal(a.int_repr(), b.int_repr())
        )
    views = {2: torch.int16, 4: torch.int32, 8: torch.int64}
    return a.shape == b.shape and torch.equal(
        a.view(views[a.element_size()]), b.view(views[b.element_size()])
    )


def callables(torch, op, x, g, out):
    """name -> zero-argument callable, for one op: this tree, the revision, aten (and the copy).

    out is the out op's destination and the in-place op's scratch."""
    ours = torch.ops.hardsigmoid_ops
    rev = torch.ops.hardsigmoid_ops_rev
    aten = torch.ops.aten
    if op == "out":
        return {
            "current": lambda: ours.hardsigmoid_out(x, out),
            "revision": lambda: rev.hardsigmoid_out(x, out),
            "aten": lambda: aten.hardsigmoid.out(x, out=out),
            "copy": lambda: out.copy_(x),
        }
    if op == "functional":
        return {
            "current": lambda: ours.hardsigmoid(x),
            "revision": lambda: rev.hardsigmoid(x),
            "aten": lambda: aten.hardsigmoid(x),
            "copy": lambda: x.clone(),
        }
    if op == "inplace":
        # Every call restores the scratch from x first, so that each acts on x's values (not on
        # the previous result) and, for a quantized x, under x's scale and zero point: the
        # quantized in-place op gives its tensor the output's, and copy_ copies the quantizer too.
        return {
            "current": lambda: ours.hardsigmoid_(out.copy_(x)),
            "revision": lambda: rev.hardsigmoid_(out.copy_(x)),
            "aten": lambda: aten.hardsigmoid_(out.copy_(x)),
            "copy": lambda: out.copy_(x),
        }
    return {
        "current": lambda: ours.hardsigmoid_backward(g, x),
        "revision": lambda: rev.hardsigmoid_backward(g, x),
        "aten": lambda: aten.hardsigmoid_backward(g, x),
    }


def check(torch, op, fns, x, g, out):
    """Each callable's result against aten's, bit for bit (the copy against the input)."""
    if op in ("out", "functional", "inplace"):
        reference = torch.ops.aten.hardsigmoid(x)
    else:
        reference = torch.ops.aten.hardsigmoid_backward(g, x)
    for name, fn in fns.items():
        if op == "out":
            out.fill_(float("nan"))
            fn()
            result = out
        elif op == "inplace":
            fn()
            result = out
        else:
            result = fn()
        expected = x if name == "copy" else reference
        if same_bits(torch, result, expected):
            continue
        # An older revision may predate aten's NaN bits: it must still give aten's values.
        if name == "revision" and not x.is_quantized and torch.equal(
            result.isnan(), expected.isnan()
        ) and torch.equal(result.nan_to_num(0.0), expected.nan_to_num(0.0)):
            print(f"compare_revision: the revision's {op} {x.dtype} NaN bits are not aten's",
                  file=sys.stderr)
            continue
        raise SystemExit(f"compare_revision: {name} {op} {x.dtype} differs from aten's")


def time_per_call(fn, min_time):
    """Seconds per call over at least min_time (whole calls; one warm-up call before)."""
    fn()
    calls = 0
    start = time.perf_counter()
    while True:
        fn()
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_time:
            return elapsed / calls


def run_size(args):
    """One process: every dtype, thread count and op at 2^log2n elements; JSON lines out."""
    import torch

    torch.ops.load_library(args.current)
    torch.ops.load_library(args.other)
    (log2n,) = args.log2n
    numel = 1 << log2n
    for dtype_name in args.dtypes:
        if dtype_name in QUANTIZED_DTYPES:
            x = make_quantized_input(torch, dtype_name, numel)
            g = None  # no quantized backward
            ops = [op for op in args.ops or QUANTIZED_OPS if op in QUANTIZED_OPS]
        else:
            dtype = getattr(torch, dtype_name)
            x = make_input(torch, dtype, numel)
            g = make_input(torch, dtype, numel)
            ops = args.ops or FLOATING_OPS
        out = torch.empty_like(x)  # for a quantized x, quantized as x is
        for threads in args.threads:
            torch.set_num_threads(threads)
            for op in ops:
                fns = callables(torch, op, x, g, out)
                check(torch, op, fns, x, g, out)
                names = list(fns)
                times = {name: [] for name in names}
                for r in range(args.rounds):
                    order = names[r % len(names) :] + names[: r % len(names)]
                    for name in order:
                        times[name].append(time_per_call(fns[name], args.min_time))
                print(
                    json.dumps(
                        {"dtype": dtype_name, "op": op, "threads": threads,
                         "log2n": log2n, "times": times}
                    ),
                    flush=True,
                )


def ratio_cell(times, slower, faster):
    """slower's time over faster's: the median's ratio, and the spread of per-round ratios."""
    per_round = [a / b for a, b in zip(times[slower], times[faster])]
    median = statistics.median(times[slower]) / statistics.median(times[faster])
    return f"{median:.3f} ({min(per_round):.2f} - {max(per_round):.2f})"


def table(rows, other_name):
    header = [
        "dtype", "op", "threads", "log2n", "current ms", f"{other_name} ms", "aten ms",
        "copy ms", f"current vs {other_name}", "current vs aten", "current vs copy",
    ]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        t = row["times"]
        ms = {k: f"{statistics.median(v) * 1e3:.3f}" for k, v in t.items()}
        lines.append(
            "| "
            + " | ".join(
                [
                    row["dtype"], row["op"], str(row["threads"]), str(row["log2n"]),
                    ms["current"], ms["revision"], ms["aten"], ms.get("copy", ""),
                    ratio_cell(t, "revision", "current"),
                    ratio_cell(t, "aten", "current"),
                    ratio_cell(t, "copy", "current") if "copy" in t else "",
                ]
            )
            + " |"
        )
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--current", required=True, help="this tree's libhardsigmoid_ops.so")
    parser.add_argument("--other", required=True, help="the revision's, namespace renamed")
    parser.add_argument("--other-name", default="revision", help="the revision, for the table")
    parser.add_argument("--log2n", type=int, nargs="+", default=[16, 20, 23, 24, 25])
    parser.add_argument("--dtypes", nargs="+", choices=DTYPES + QUANTIZED_DTYPES,
                        default=list(DTYPES), help="quantized ones only when named")
    parser.add_argument("--ops", nargs="+", choices=OPS,
                        help="default: out and functional for a floating dtype, functional and "
                        "inplace for a quantized one (which runs no other op)")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--min-time", type=float, default=0.2, help="seconds a callable a round")
    parser.add_argument("--json", help="also write every round's times here (JSON lines)")
    parser.add_argument("--one-size", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one_size:
        run_size(args)
        return
    rows = []
    for log2n in args.log2n:
        command = [sys.executable, __file__, "--one-size", "--current", args.current,
                   "--other", args.other, "--log2n", str(log2n), "--dtypes", *args.dtypes,
                   *(["--ops", *args.ops] if args.ops else []),
                   "--threads", *map(str, args.threads),
                   "--rounds", str(args.rounds), "--min-time", str(args.min_time)]
        result = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True)
        rows += [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
        print(f"compare_revision: 2^{log2n} done", file=sys.stderr, flush=True)
    rows.sort(key=lambda r: ((DTYPES + QUANTIZED_DTYPES).index(r["dtype"]), OPS.index(r["op"]),
                             r["threads"], r["log2n"]))
    if args.json:
        with open(args.json, "w") as f:
            f.writelines(json.dumps(row) + "\n" for row in rows)
    print(table(rows, args.other_name))


if __name__ == "__main__":
    main()
