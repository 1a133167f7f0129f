"""The fresh-output study's two runs (benchmarks/studies/fresh_pages.cpp: as torch runs by default,
and with THP_MEM_ALLOC_ENABLE=1) as one markdown table: per case, size and thread count, the
library's allocating call (the rule) over its call into an output written before (out=), aten's
allocating call over ours in each run, and the pages alone over out= (float32's rows).

    python fresh_pages_table.py DEFAULT.csv THP_ALLOC.csv [log2 sizes, default 22 24 26]
"""

import csv
import sys


def load(path):
    with open(path) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    return {(r["dtype"], r["op"], int(r["log2"]), int(r["threads"]), r["way"]): float(r["ms"])
            for r in rows}


def main(default_csv, thp_csv, sizes):
    default, thp = load(default_csv), load(thp_csv)
    cases = sorted({(d, op) for d, op, *_ in default if op != "pages"},
                   key=lambda c: ("float32 bfloat16 quint8".split().index(c[0]), c[1] != "forward"))
    threads = sorted({t for _, _, _, t, _ in default})
    print("| case | threads | " + " | ".join(
        f"2^{s}: out= ms, ours/out=, aten/ours, with the variable" for s in sizes) + " |")
    print("|---|---|" + "---|" * len(sizes))
    for dtype, op in cases:
        for t in threads:
            cells = []
            for s in sizes:
                key = (dtype, op, s, t)
                out, ours, aten = (default[key + (w,)] for w in ("out", "rule", "aten"))
                ours_thp, aten_thp = thp[key + ("rule",)], thp[key + ("aten",)]
                cells.append(f"{out:.2f}, {ours / out:.2f}, {aten / ours:.2f}, "
                             f"{aten_thp / ours_thp:.2f}")
            print(f"| {dtype} {op} | {t} | " + " | ".join(cells) + " |")
    print()
    print("| threads | " + " | ".join(f"2^{s}: pages/out=, fill_/out=" for s in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    for t in threads:
        cells = []
        for s in sizes:
            key = ("float32", "pages", s, t)
            out, pages, fill = (default[key + (w,)] for w in ("out", "rule", "aten"))
            cells.append(f"{pages / out:.2f}, {fill / out:.2f}")
        print(f"| {t} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], [int(s) for s in sys.argv[3:]] or [22, 24, 26])
