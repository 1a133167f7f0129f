#!/usr/bin/env bash
# Runs every test: format check, build, GoogleTest (through CTest), pytest, then the GoogleTest
# CPU cases again built with AddressSanitizer and UndefinedBehaviorSanitizer. CUDA cases skip,
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

echo "== GoogleTest CPU cases under AddressSanitizer + UndefinedBehaviorSanitizer"
# Host code only (CUDA off): every CPU case in one process, then the comparisons again with each
# of the row loops aten's capability can select. A report aborts the run.
SANITIZE_DIR="${SANITIZE_BUILD_DIR:-$ROOT/build-sanitize}"
BUILD_DIR="$SANITIZE_DIR" BUILD_TARGETS=hardsigmoid_ops_tests bash "$ROOT/scripts/build.sh" \
  -DHARDSIGMOID_OPS_SANITIZE=ON -DHARDSIGMOID_OPS_WITH_CUDA=OFF
tests="$SANITIZE_DIR/cpp_tests/hardsigmoid_ops_tests"
"$tests" --gtest_brief=1 --gtest_filter='-*CUDA*'
for capability in avx2 default; do
  echo "-- ATEN_CPU_CAPABILITY=$capability"
  ATEN_CPU_CAPABILITY=$capability "$tests" --gtest_brief=1 \
    --gtest_filter='Cases/MatchesAten.*:Cases/EdgeValues.*:-*CUDA*'
done
