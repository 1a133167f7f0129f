"""ONNX Runtime: torchvision's MobileNetV3 exported with the library's op (after
hardsigmoid_ops.replace_hardsigmoid) against the stock model, both exported by the same exporter
and run by ONNX Runtime's CPU provider in one process, in turns. Since both exports hold ONNX's
own HardSigmoid, the two models are the same graph and the ratio should be 1 within the spread.

Per model and exporter: the ONNX node types of the swapped export (counted), whether the two
exports' node lists are equal, the median milliseconds of each and the stock model's time over
the swapped model's, with its quartiles.

    python benchmarks/onnx_benchmark.py LIBRARY [--repeats N] [--csv PATH]
"""

import argparse
import collections
import copy
import csv
import io
import pathlib
import statistics
import sys
import time

import onnx
import onnxruntime
import torch
import torchvision

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))
import hardsigmoid_ops  # noqa: E402


def export(model, x, exporter):
    if exporter == "default":
        return torch.onnx.export(model, (x,), verbose=False).model_proto
    buffer = io.BytesIO()
    torch.onnx.export(model, (x,), buffer, dynamo=False)
    return onnx.load_from_string(buffer.getvalue())


def session(proto):
    options = onnxruntime.SessionOptions()
    return onnxruntime.InferenceSession(proto.SerializeToString(), options,
                                        providers=["CPUExecutionProvider"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("library")
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--csv")
    args = parser.parse_args()
    hardsigmoid_ops.load_library(args.library)
    rows = []
    for name in ("mobilenet_v3_small", "mobilenet_v3_large"):
        torch.manual_seed(0)
        stock = getattr(torchvision.models, name)(weights=None).eval().requires_grad_(False)
        swapped = copy.deepcopy(stock)
        hardsigmoid_ops.replace_hardsigmoid(swapped)
        x = torch.randn(1, 3, 224, 224)
        for exporter in ("default", "torchscript"):
            protos = {"stock": export(stock, x, exporter), "swapped": export(swapped, x, exporter)}
            nodes = {k: [n.op_type for n in p.graph.node] for k, p in protos.items()}
            sessions = {k: session(p) for k, p in protos.items()}
            feed = {k: {s.get_inputs()[0].name: x.numpy()} for k, s in sessions.items()}
            times = {k: [] for k in sessions}
            for _ in range(3):  # warm-up
                for k, s in sessions.items():
                    s.run(None, feed[k])
            for _ in range(args.repeats):
                for k, s in sessions.items():
                    start = time.perf_counter()
                    s.run(None, feed[k])
                    times[k].append(time.perf_counter() - start)
            ratios = [a / b for a, b in zip(times["stock"], times["swapped"])]
            q1, median, q3 = statistics.quantiles(ratios, n=4)
            counts = collections.Counter(nodes["swapped"])
            row = {"model": name, "exporter": exporter,
                   "same_nodes": nodes["swapped"] == nodes["stock"],
                   "swapped_ms": 1e3 * statistics.median(times["swapped"]),
                   "stock_ms": 1e3 * statistics.median(times["stock"]),
                   "stock_over_swapped": median, "q1": q1, "q3": q3,
                   "nodes": " ".join(f"{op}:{n}" for op, n in sorted(counts.items()))}
            rows.append(row)
            print(f"{name} {exporter}: {len(nodes['swapped'])} nodes ({row['nodes']}); same node "
                  f"list as stock: {row['same_nodes']}; swapped {row['swapped_ms']:.3f} ms, stock "
                  f"{row['stock_ms']:.3f} ms, stock/swapped {median:.3f} [{q1:.3f}, {q3:.3f}]",
                  flush=True)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
