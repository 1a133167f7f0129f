"""Turns cpu_benchmark's JSON (--benchmark_out_format=json) into a CSV and a PNG.

CSV: one row per case (dtype, variant, layout, threads, elements) with the median bytes per second
of ours, aten and memcpy (memcpy's contiguous copy of the same element count and dtype, the
bandwidth ceiling) and the ratios. PNG: throughput against size, one panel per dtype, thread count
and layout; a line per variant for ours (solid) and aten (dashed), memcpy dotted.
"""

import argparse
import csv
import json
import statistics
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402

DTYPES = ["float32", "bfloat16", "float16", "float64"]
VARIANTS = ["forward", "inplace", "out", "backward"]
COLUMNS = ["dtype", "variant", "layout", "threads", "elements", "ours_bytes_per_s",
           "aten_bytes_per_s", "memcpy_bytes_per_s", "ours_over_aten", "ours_over_memcpy"]


def parse_name(run_name):
    """dtype/variant/layout/at_threads:T/log2n:K/impl[/real_time] -> its fields."""
    parts = run_name.split("/")
    dtype, variant, layout, threads, log2n, impl = parts[:6]
    return {"dtype": dtype, "variant": variant, "layout": layout,
            "threads": int(threads.split(":")[1]), "elements": 2 ** int(log2n.split(":")[1]),
            "impl": impl}


def median_rates(benchmarks):
    """Median bytes/s per benchmark: of its repetitions when the JSON has them, else the
    'median' aggregate (a run with --benchmark_report_aggregates_only)."""
    samples = defaultdict(list)
    medians = {}
    for b in benchmarks:
        if "bytes_per_second" not in b or b.get("error_occurred"):
            continue
        name = b.get("run_name", b["name"])
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                medians[name] = b["bytes_per_second"]
        else:
            samples[name].append(b["bytes_per_second"])
    rates = {name: statistics.median(values) for name, values in samples.items()}
    for name, value in medians.items():
        rates.setdefault(name, value)
    return rates


def ratio(a, b):
    return a / b if a and b else None


def case_rows(rates):
    by_case = defaultdict(dict)
    memcpy = {}
    for name, rate in rates.items():
        f = parse_name(name)
        if f["impl"] == "memcpy":
            memcpy[(f["dtype"], f["threads"], f["elements"])] = rate
        else:
            key = (f["dtype"], f["variant"], f["layout"], f["threads"], f["elements"])
            by_case[key][f["impl"]] = rate
    rows = []
    for (dtype, variant, layout, threads, elements), impls in by_case.items():
        ours, aten = impls.get("ours"), impls.get("aten")
        copy = memcpy.get((dtype, threads, elements))
        rows.append({"dtype": dtype, "variant": variant, "layout": layout, "threads": threads,
                     "elements": elements, "ours_bytes_per_s": ours, "aten_bytes_per_s": aten,
                     "memcpy_bytes_per_s": copy, "ours_over_aten": ratio(ours, aten),
                     "ours_over_memcpy": ratio(ours, copy)})

    def order(r):
        return (DTYPES.index(r["dtype"]) if r["dtype"] in DTYPES else len(DTYPES),
                r["layout"], r["threads"],
                VARIANTS.index(r["variant"]) if r["variant"] in VARIANTS else len(VARIANTS),
                r["elements"])

    return sorted(rows, key=order), memcpy


def format_cell(column, value):
    if value is None:
        return ""
    if column.startswith("ours_over"):
        return f"{value:.4f}"
    if column.endswith("_bytes_per_s"):
        return f"{value:.0f}"
    return value


def write_csv(rows, path):
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        writer.writeheader()
        for r in rows:
            writer.writerow({k: format_cell(k, r[k]) for k in COLUMNS})


def plot(rows, memcpy, path):
    dtypes = [d for d in DTYPES if any(r["dtype"] == d for r in rows)]
    panels = sorted({(r["threads"], r["layout"]) for r in rows})
    fig, axes = plt.subplots(len(dtypes), len(panels), figsize=(5 * len(panels), 3.8 * len(dtypes)),
                             squeeze=False)
    colors = dict(zip(VARIANTS, plt.rcParams["axes.prop_cycle"].by_key()["color"]))
    for i, dtype in enumerate(dtypes):
        for j, (threads, layout) in enumerate(panels):
            ax = axes[i][j]
            for variant in VARIANTS:
                sel = [r for r in rows if (r["dtype"], r["threads"], r["layout"], r["variant"]) ==
                       (dtype, threads, layout, variant)]
                for impl, style in (("ours", "o-"), ("aten", "s--")):
                    points = [(r["elements"], r[f"{impl}_bytes_per_s"]) for r in sel
                              if r[f"{impl}_bytes_per_s"]]
                    if points:
                        ax.plot([p[0] for p in points], [p[1] / 1e9 for p in points], style,
                                color=colors[variant], markersize=4, label=f"{impl} {variant}")
            ceiling = sorted((n, rate) for (d, t, n), rate in memcpy.items()
                             if (d, t) == (dtype, threads))
            if ceiling:
                ax.plot([c[0] for c in ceiling], [c[1] / 1e9 for c in ceiling], "^:", color="black",
                        markersize=4, label="memcpy (contiguous)")
            ax.set_xscale("log", base=2)
            # Log: an L1-resident memcpy runs ten times faster than anything else at small sizes.
            ax.set_yscale("log", base=2)
            ax.yaxis.set_major_formatter(ticker.ScalarFormatter())
            ax.yaxis.set_minor_formatter(ticker.NullFormatter())
            ax.set_xlabel("elements")
            ax.set_ylabel("GB/s (bytes read + written)")
            ax.set_title(f"{dtype}, {threads} thread{'s' if threads > 1 else ''}, {layout}")
            ax.grid(True, alpha=0.3)
    legend = {}
    for ax in axes.flat:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            legend.setdefault(label, handle)
    fig.legend(legend.values(), legend.keys(), loc="lower center", ncol=5, fontsize="small")
    fig.tight_layout(rect=(0, 0.06 if len(dtypes) < 2 else 0.03, 1, 1))
    fig.savefig(path, dpi=110)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("json", help="cpu_benchmark --benchmark_out=... --benchmark_out_format=json")
    p.add_argument("csv")
    p.add_argument("png")
    args = p.parse_args()
    with open(args.json) as f:
        benchmarks = json.load(f)["benchmarks"]
    rows, memcpy = case_rows(median_rates(benchmarks))
    write_csv(rows, args.csv)
    plot(rows, memcpy, args.png)


if __name__ == "__main__":
    main()
