"""Turns cpu_benchmark's JSON (--benchmark_out_format=json) into a CSV, a PNG and a summary.

CSV: one row per case (dtype, variant, layout, threads, elements) with the median bytes per second
of ours, aten and memcpy (memcpy's contiguous copy of the same element count and dtype, the
bandwidth ceiling), the median over repetitions of ours/aten (each repetition's ratio is of ours
and aten's timed in turns) with its quartiles, and ours/memcpy. PNG: throughput against size, one
panel per dtype, thread count and layout that has cases (the quantized dtypes: contiguous only);
a line per variant for ours (solid) and aten (dashed), memcpy dotted. Summary (markdown, on
standard output): ours/aten, ours/memcpy and aten/memcpy per dtype, layout and thread count, and
the cases below their target.
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

DTYPES = ["float32", "bfloat16", "float16", "float64", "quint8", "qint8", "qint32"]
VARIANTS = ["forward", "inplace", "out", "backward"]
COUNTERS = ["ours_bytes_per_s", "aten_bytes_per_s", "ours_over_aten", "memcpy_bytes_per_s"]
COLUMNS = ["dtype", "variant", "layout", "threads", "elements", "ours_bytes_per_s",
           "aten_bytes_per_s", "memcpy_bytes_per_s", "ours_over_aten", "ours_over_aten_q1",
           "ours_over_aten_q3", "ours_over_memcpy", "repetitions"]


def parse_name(run_name):
    """dtype/variant/layout/at_threads:T/log2n:K[/manual_time] -> its fields."""
    dtype, variant, layout, threads, log2n = run_name.split("/")[:5]
    return {"dtype": dtype, "variant": variant, "layout": layout,
            "threads": int(threads.split(":")[1]), "elements": 2 ** int(log2n.split(":")[1])}


def target(row):
    """The ours/aten the CPU issue asks of a case: 1.00 for contiguous data from 2^14 elements,
    0.95 below (where per-call overhead dominates) and for strided data."""
    return 1.0 if row["layout"] == "contiguous" and row["elements"] >= 2 ** 14 else 0.95


def counter_samples(benchmarks):
    """Per benchmark, each counter's values over its repetitions; a JSON written with
    --benchmark_report_aggregates_only has only the 'median' aggregate, taken as one sample."""
    samples = defaultdict(lambda: defaultdict(list))
    medians = defaultdict(dict)
    for b in benchmarks:
        if b.get("error_occurred"):
            continue
        name = b.get("run_name", b["name"])
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                medians[name] = {k: b[k] for k in COUNTERS if k in b}
        else:
            for k in COUNTERS:
                if k in b:
                    samples[name][k].append(b[k])
    for name, values in medians.items():
        if name not in samples:
            samples[name] = {k: [v] for k, v in values.items()}
    return samples


def quartiles(values):
    if len(values) < 2:
        return values[0], values[0]
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[2]


def ratio(a, b):
    return a / b if a and b else None


def case_rows(samples):
    memcpy = {}
    rows = []
    for name, counters in samples.items():
        f = parse_name(name)
        if f["variant"] == "copy":
            memcpy[(f["dtype"], f["threads"], f["elements"])] = statistics.median(
                counters["memcpy_bytes_per_s"])
            continue
        ratios = counters["ours_over_aten"]
        q1, q3 = quartiles(ratios)
        rows.append({**f, "ours_bytes_per_s": statistics.median(counters["ours_bytes_per_s"]),
                     "aten_bytes_per_s": statistics.median(counters["aten_bytes_per_s"]),
                     "ours_over_aten": statistics.median(ratios), "ours_over_aten_q1": q1,
                     "ours_over_aten_q3": q3, "repetitions": len(ratios)})
    for r in rows:
        r["memcpy_bytes_per_s"] = memcpy.get((r["dtype"], r["threads"], r["elements"]))
        r["ours_over_memcpy"] = ratio(r["ours_bytes_per_s"], r["memcpy_bytes_per_s"])
        r["aten_over_memcpy"] = ratio(r["aten_bytes_per_s"], r["memcpy_bytes_per_s"])

    def order(r):
        return (DTYPES.index(r["dtype"]) if r["dtype"] in DTYPES else len(DTYPES),
                r["layout"], r["threads"],
                VARIANTS.index(r["variant"]) if r["variant"] in VARIANTS else len(VARIANTS),
                r["elements"])

    return sorted(rows, key=order), memcpy


def median_or_blank(values):
    """The median of the values that are known (a ratio to a memcpy that did not run is None)."""
    known = [v for v in values if v is not None]
    return f"{statistics.median(known):.3f}" if known else ""


def summary(rows):
    """Markdown: per dtype, layout and thread count, the median, lowest and highest ours/aten of
    its cases, the median ours/memcpy and aten/memcpy, how many have a median below target, and
    how many have even their upper quartile below it (ours behind in at least three quarters of
    the repetitions); then those cases."""
    groups = defaultdict(list)
    for r in rows:
        groups[(r["dtype"], r["layout"], r["threads"])].append(r)
    lines = ["| dtype | layout | threads | cases | median ours/aten | lowest | highest "
             "| median ours/memcpy | median aten/memcpy "
             "| median below target | upper quartile below target |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    clearly_below = []
    for (dtype, layout, threads), group in groups.items():
        ratios = [r["ours_over_aten"] for r in group]
        below = [r for r in group if r["ours_over_aten"] < target(r)]
        clear = [r for r in group if r["ours_over_aten_q3"] < target(r)]
        clearly_below += clear
        lines.append(f"| {dtype} | {layout} | {threads} | {len(group)} "
                     f"| {statistics.median(ratios):.3f} | {min(ratios):.3f} "
                     f"| {max(ratios):.3f} "
                     f"| {median_or_blank([r['ours_over_memcpy'] for r in group])} "
                     f"| {median_or_blank([r['aten_over_memcpy'] for r in group])} "
                     f"| {len(below)} | {len(clear)} |")
    below_all = [r for r in rows if r["ours_over_aten"] < target(r)]
    lines.append("")
    lines.append(f"{len(below_all)} of {len(rows)} cases have a median below target; "
                 f"{len(clearly_below)} have their upper quartile below it"
                 + (":" if clearly_below else "."))
    for r in clearly_below:
        lines.append(f"- {r['dtype']} {r['variant']} {r['layout']} {r['threads']}T "
                     f"2^{r['elements'].bit_length() - 1}: {r['ours_over_aten']:.3f} "
                     f"(quartiles {r['ours_over_aten_q1']:.3f} – {r['ours_over_aten_q3']:.3f})")
    return "\n".join(lines)


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
            # The quantized dtypes have no strided cases: no empty panel with only memcpy's line.
            if not any((r["dtype"], r["threads"], r["layout"]) == (dtype, threads, layout)
                       for r in rows):
                ax.set_visible(False)
                continue
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
    rows, memcpy = case_rows(counter_samples(benchmarks))
    write_csv(rows, args.csv)
    plot(rows, memcpy, args.png)
    print(summary(rows))


if __name__ == "__main__":
    main()
