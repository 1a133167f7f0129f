"""Plots achieved bandwidth against size (the graph-replay sweep) from gpu_benchmark.py's CSV."""

import argparse
import csv

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("csv")
    p.add_argument("png")
    args = p.parse_args()
    with open(args.csv) as f:
        rows = [r for r in csv.DictReader(f) if r["case"].startswith("sweep")]
    dtypes = sorted({r["dtype"] for r in rows})
    fig, axes = plt.subplots(1, len(dtypes), figsize=(6 * len(dtypes), 4.5), squeeze=False)
    for ax, dtype in zip(axes[0], dtypes):
        sel = sorted((r for r in rows if r["dtype"] == dtype), key=lambda r: int(r["numel"]))
        sizes = [int(r["numel"]) for r in sel]
        for key, label, style in (("ours_GBps", "hardsigmoid_ops", "o-"),
                                  ("aten_GBps", "aten hardsigmoid", "s--"),
                                  ("copy_GBps", "copy (clone)", "^:")):
            ax.plot(sizes, [float(r[key]) for r in sel], style, label=label)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("elements")
        ax.set_ylabel("GB/s (read + write)")
        ax.set_title(f"{dtype}: kernel time by CUDA-graph replay")
        ax.grid(True, alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(args.png, dpi=120)


if __name__ == "__main__":
    main()
