"""Plots benchmarks/studies/cuda_ceiling.cu's CSV: GB/s by mechanism and size (a heatmap), and the
headline size's GB/s per mechanism with its spread and ncu's DRAM throughput (percent of peak).

    python plot_ceiling.py ceiling.csv ceiling_ncu.csv ceiling.png

ceiling_ncu.csv is ncu's `--csv --page raw` log of `cuda_ceiling --once` (one launch a mechanism,
each in an NVTX range of its name), or "-" for none. Beside the PNG goes ceiling_counters.csv:
one row a mechanism with the counters the notes reason from.
"""

import csv
import io
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COUNTERS = {
    "gpu__time_duration.sum": "ncu_time",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "dram_pct_of_peak",
    "dram__bytes_read.sum": "dram_read",
    "dram__bytes_write.sum": "dram_write",
    "lts__t_sectors_op_read.sum": "l2_read_sectors",
    "lts__t_sectors_op_write.sum": "l2_write_sectors",
    "lts__t_sector_hit_rate.pct": "l2_hit_pct",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "achieved_occupancy_pct",
    "dram__cycles_active.avg.pct_of_peak_sustained_elapsed": "dram_active_pct",
    "dram__cycles_active_read.avg.pct_of_peak_sustained_elapsed": "dram_active_read_pct",
    "dram__cycles_active_write.avg.pct_of_peak_sustained_elapsed": "dram_active_write_pct",
}
# Counters that add up over a mechanism's kernels (aten splits the headline tensor into four
# launches); the others are averaged, weighted by each kernel's time.
SUMMED = {"ncu_time", "dram_read", "dram_write", "l2_read_sectors", "l2_write_sectors"}


def read_timings(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def read_counters(path, names):
    """Kernel rows of ncu's raw CSV, keyed by the mechanism whose NVTX range launched them."""
    text = pathlib.Path(path).read_text()
    start = text.find('"ID"')
    if start < 0:
        raise SystemExit(f"{path}: no ncu CSV header")
    rows = list(csv.reader(io.StringIO(text[start:])))
    header, units, kernels = rows[0], rows[1], rows[2:]
    nvtx = [i for i, h in enumerate(header) if "Push/Pop" in h or "NVTX" in h.upper()]
    by_longest = sorted(names, key=len, reverse=True)
    launches = {}
    for row in kernels:
        if len(row) != len(header):
            continue
        where = " ".join(row[i] for i in nvtx)
        name = next((n for n in by_longest if f":{n}:" in where), None)
        if name is None:
            continue
        values = {}
        for metric, key in COUNTERS.items():
            if metric in header:
                i = header.index(metric)
                values[key] = float(row[i].replace(",", ""))
                values[key + "_unit"] = units[i]
        values["kernel"] = row[header.index("Kernel Name")].split("(")[0].replace("void ", "")
        launches.setdefault(name, []).append(values)
    result = {}
    for name, kernels_of in launches.items():
        weights = [k.get("ncu_time", 1.0) for k in kernels_of]
        merged = dict(kernels_of[0])
        merged["kernels"] = len(kernels_of)
        for key in COUNTERS.values():
            if key not in merged:
                continue
            column = [k[key] for k in kernels_of]
            merged[key] = (
                sum(column)
                if key in SUMMED
                else sum(v * w for v, w in zip(column, weights)) / sum(weights)
            )
        result[name] = merged
    return result


def write_counters(path, names, counters):
    keys = ["kernel", "kernels"] + list(COUNTERS.values())
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["mechanism"] + keys + ["units"])
        for name in names:
            c = counters.get(name)
            if c is None:
                continue
            units = ";".join(f"{k}={c.get(k + '_unit', '')}" for k in COUNTERS.values() if k in c)
            out.writerow([name] + [c.get(k, "") for k in keys] + [units])
    print(f"wrote {path}")


def main():
    timing_path, ncu_path, png_path = sys.argv[1:4]
    rows = read_timings(timing_path)
    names = list(dict.fromkeys(r["mechanism"] for r in rows))
    sizes = list(dict.fromkeys(r["size"] for r in rows))
    gbps = {(r["mechanism"], r["size"]): float(r["gb_per_s"]) for r in rows}
    counters = read_counters(ncu_path, names) if ncu_path != "-" else {}
    if counters:
        write_counters(pathlib.Path(png_path).with_name("ceiling_counters.csv"), names, counters)

    headline = sizes[-1]
    fig, (heat, bars) = plt.subplots(
        1, 2, figsize=(18, 0.34 * len(names) + 2.5), gridspec_kw={"width_ratios": [1.2, 1]}
    )
    grid = [[gbps.get((n, s), float("nan")) for s in sizes] for n in names]
    image = heat.imshow(grid, aspect="auto", cmap="viridis")
    heat.set_xticks(range(len(sizes)), [f"{s}\nfloat32" for s in sizes])
    heat.set_yticks(range(len(names)), names)
    for i, line in enumerate(grid):
        for j, value in enumerate(line):
            heat.text(j, i, f"{value:.0f}", ha="center", va="center", fontsize=7, color="white")
    heat.set_title("GB/s (bytes read + written, or one direction, / median time)")
    fig.colorbar(image, ax=heat, fraction=0.03)

    at_headline = [r for r in rows if r["size"] == headline]
    values = [float(r["gb_per_s"]) for r in at_headline]
    bytes_moved = [float(r["bytes_moved"]) for r in at_headline]
    low = [v - b / (float(r["max_ms"]) * 1e6) for v, b, r in zip(values, bytes_moved, at_headline)]
    high = [b / (float(r["min_ms"]) * 1e6) - v for v, b, r in zip(values, bytes_moved, at_headline)]
    colors = {"copy": "tab:blue", "hardsigmoid": "tab:red", "read": "tab:gray",
              "write": "tab:olive"}
    y = range(len(at_headline))
    bars.barh(y, values, xerr=[low, high], color=[colors[r["kind"]] for r in at_headline])
    bars.set_yticks(y, [r["mechanism"] for r in at_headline])
    bars.invert_yaxis()
    for i, r in enumerate(at_headline):
        c = counters.get(r["mechanism"])
        label = f"{values[i]:.0f}" + (f"  DRAM {c['dram_pct_of_peak']:.1f}%" if c else "")
        bars.text(values[i] + high[i] + 25, i, label, va="center", fontsize=7)
    clone = gbps.get(("clone", headline))
    if clone:
        bars.axvline(clone, color="k", linestyle=":", label=f"clone {clone:.0f} GB/s")
    bars.axvline(4800, color="k", linestyle="--", label="datasheet 4800 GB/s")
    bars.set_xlim(min(values) * 0.9, 5300)
    bars.legend(loc="lower right", fontsize=8)
    bars.set_title(f"{headline} float32: GB/s (median, min - max); ncu DRAM % of peak")
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)
    print(f"wrote {png_path}")


if __name__ == "__main__":
    main()
