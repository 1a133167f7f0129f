#!/usr/bin/env bash
# Runs every test: format check, build, every GoogleTest case in one process, the other CTest
# entries, pytest on every core (pytest-xdist), then the GoogleTest CPU cases again built with
# AddressSanitizer and UndefinedBehaviorSanitizer. CUDA cases skip, visibly, on a machine without
# a GPU. Each phase's line gives the seconds the run had taken when it began.
#   PYTEST_WORKERS=N   pytest's processes (default: the number of cores; 0 runs it in this one)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
VENV="${HARDSIGMOID_OPS_VENV:-$ROOT/.venv}"
phase() { echo "== $* (at $SECONDS s)"; }

phase "setup"
bash "$ROOT/scripts/setup.sh"
source "$ROOT/scripts/compile_cache.sh"
phase "format check"
bash "$ROOT/scripts/check_format.sh"
phase "build"
bash "$ROOT/scripts/build.sh"

# The cases in one process: CTest would start one per case (its way for a developer running
# `ctest -R`), each loading libtorch again, minutes in all.
phase "GoogleTest, every case in one process"
"$BUILD_DIR/cpp_tests/hardsigmoid_ops_tests" --gtest_brief=1
phase "CTest, the entries that are not GoogleTest cases"
ctest --test-dir "$BUILD_DIR" --parallel "$(nproc)" --output-on-failure --label-exclude googletest

phase "pytest"
export HARDSIGMOID_OPS_LIBRARY="$BUILD_DIR/libhardsigmoid_ops.so"
cd "$ROOT"
"$VENV/bin/python" -m pytest python_tests -rfEs -q -n "${PYTEST_WORKERS:-$(nproc)}"

phase "GoogleTest CPU cases under AddressSanitizer + UndefinedBehaviorSanitizer"
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
phase "done"
