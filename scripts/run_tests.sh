#!/usr/bin/env bash
# Runs every test: format check, build, GoogleTest (through CTest), pytest. CUDA cases skip,
# visibly, on a machine without a GPU.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
VENV="${HARDSIGMOID_OPS_VENV:-$ROOT/.venv}"

bash "$ROOT/scripts/setup.sh"
bash "$ROOT/scripts/check_format.sh"
bash "$ROOT/scripts/build.sh"

echo "== GoogleTest (CTest)"
ctest --test-dir "$BUILD_DIR" --parallel "$(nproc)" --output-on-failure

echo "== pytest"
export HARDSIGMOID_OPS_LIBRARY="$BUILD_DIR/libhardsigmoid_ops.so"
cd "$ROOT"
"$VENV/bin/python" -m pytest python_tests -rs -q
