"""Plots compile_benchmark.py's CSVs: aten's compiled time over ours, fused and opaque, per case,
beside aten's over aten's second compile (the control: the spread between two compiles of one
graph), with the quartiles over repetitions as error bars; one panel a CSV (device)."""

import argparse
import csv
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("png")
    p.add_argument("csvs", nargs="+")
    args = p.parse_args()
    fig, axes = plt.subplots(1, len(args.csvs), figsize=(7 * len(args.csvs), 4.5), squeeze=False)
    for ax, path in zip(axes[0], args.csvs):
        with open(path) as f:
            rows = list(csv.DictReader(f))
        labels = [f"{r['case']}\n{r['dtype']}" for r in rows]
        positions = range(len(rows))
        for offset, key, label in ((-0.27, "fused", "fused (default)"),
                                   (0.0, "opaque", "opaque (fusion off)"),
                                   (0.27, "aten_again", "aten compiled again (control)")):
            medians = [float(r[f"aten_over_{key}"]) for r in rows]
            low = [m - float(r[f"aten_over_{key}_q1"]) for m, r in zip(medians, rows)]
            high = [float(r[f"aten_over_{key}_q3"]) - m for m, r in zip(medians, rows)]
            ax.bar([x + offset for x in positions], medians, width=0.27, yerr=[low, high],
                   capsize=2, label=label)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(list(positions))
        ax.set_xticklabels(labels, fontsize=7, rotation=45, ha="right")
        ax.set_ylabel("aten compiled time / ours (above 1: ours faster)")
        ax.set_title(f"torch.compile: {pathlib.Path(path).stem}")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.png, dpi=120)


if __name__ == "__main__":
    main()
