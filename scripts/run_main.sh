#!/usr/bin/env bash
# The main job: set up, build, then run hardsigmoid on a real workload (the GPU's headline tensor
# when a GPU is present, a CPU-sized one otherwise) and print its agreement with aten and its
# throughput next to aten's and a copy's. Extra arguments go to benchmarks/run_workload.py.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
VENV="${HARDSIGMOID_OPS_VENV:-$ROOT/.venv}"

bash "$ROOT/scripts/setup.sh"
# The library alone: the workload needs nothing else (run_tests.sh builds the tests, examples and
# benchmarks in the same tree, configured alike, so that nothing built here is built again there).
BUILD_TARGETS=hardsigmoid_ops bash "$ROOT/scripts/build.sh"
"$VENV/bin/python" "$ROOT/benchmarks/run_workload.py" --library "$BUILD_DIR/libhardsigmoid_ops.so" "$@"
