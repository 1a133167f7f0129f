#!/usr/bin/env bash
# Builds and runs the CPU benchmark (benchmarks/cpu_benchmark.cpp: ours against aten and memcpy),
# then writes cpu_benchmark.json, .csv, .png and summary.md to OUTDIR. Run it on a quiet machine:
# the two-thread cases need both cores. About 15 minutes on two cores.
#   bash scripts/cpu_benchmark.sh OUTDIR [cpu_benchmark flags, e.g. --benchmark_filter=^float32/]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${HARDSIGMOID_OPS_VENV:-$ROOT/.venv}"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
OUTDIR="${1:?usage: cpu_benchmark.sh OUTDIR [cpu_benchmark flags]}"
shift
mkdir -p "$OUTDIR"

bash "$ROOT/scripts/build.sh"
# Eleven repetitions of at least 50 ms (ours and aten's together), the medians reported. The
# JSON keeps every repetition, the console only the aggregates.
"$BUILD_DIR/benchmarks/cpu_benchmark" --benchmark_repetitions=11 --benchmark_min_time=0.05 \
  --benchmark_display_aggregates_only=true \
  --benchmark_out="$OUTDIR/cpu_benchmark.json" --benchmark_out_format=json "$@"
"$VENV/bin/python" "$ROOT/benchmarks/plot_cpu.py" "$OUTDIR/cpu_benchmark.json" \
  "$OUTDIR/cpu_benchmark.csv" "$OUTDIR/cpu_benchmark.png" | tee "$OUTDIR/summary.md"
echo "cpu_benchmark: results in $OUTDIR"
