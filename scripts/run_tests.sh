#!/usr/bin/env bash
# Runs every test: format check, build, every GoogleTest case in one process, the other CTest
# entries, pytest on every core (pytest-xdist), then the GoogleTest CPU cases again built with
# AddressSanitizer and UndefinedBehaviorSanitizer, with CTest's reruns under aten's other CPU
# capabilities (there, not in the main build). CUDA cases skip, visibly, on a machine without
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
# Inductor's cache: the run's own, empty at its start (an entry an earlier run left could be served
# where the package's lowering has changed since: the entry's key does not cover the package).
export TORCHINDUCTOR_CACHE_DIR="$BUILD_DIR/inductor-cache"
rm -rf "$TORCHINDUCTOR_CACHE_DIR"
phase "format check"
bash "$ROOT/scripts/check_format.sh"
phase "build"
# Not the studies (benchmarks/studies/, docs/performance_history.md): no test runs them;
# scripts/gpu_check.sh builds them where they are measured.
bash "$ROOT/scripts/build.sh" -DHARDSIGMOID_OPS_BUILD_STUDIES=OFF

# Runs each "name:function" at once, the function's output in $1/name.log; then prints each log
# and fails if any failed.
at_once() {
  local dir="$1" entry failed=0
  shift
  local runs=()
  for entry in "$@"; do
    "${entry#*:}" >"$dir/${entry%%:*}.log" 2>&1 &
    runs+=("${entry%%:*}:$!")
  done
  for entry in "${runs[@]}"; do
    wait "${entry#*:}" || failed=1
    echo "-- ${entry%%:*}"
    cat "$dir/${entry%%:*}.log"
  done
  ((failed == 0))
}

# The cases in one process: CTest would start one per case (its way for a developer running
# `ctest -R`), each loading libtorch again, minutes in all. Beside it, the CTest entries that are
# not GoogleTest cases (round trips through separate programs: a TorchScript model saved and run
# from C++, an AOTInductor package compiled and loaded, an installed consumer configured and
# built, the CPU benchmark's smoke run), whose compiler and CMake runs fill the gaps of the cases' single-threaded stretches;
# not the reruns under aten's other CPU capabilities: they run in the sanitizer build, below.
googletest_cases() { "$BUILD_DIR/cpp_tests/hardsigmoid_ops_tests" --gtest_brief=1; }
other_ctest_entries() {
  ctest --test-dir "$BUILD_DIR" --parallel "$(nproc)" --output-on-failure \
    --label-exclude 'googletest|cpu_capability'
}
phase "GoogleTest, every case in one process, and the other CTest entries beside it"
at_once "$BUILD_DIR" googletest:googletest_cases ctest:other_ctest_entries

phase "pytest"
export HARDSIGMOID_OPS_LIBRARY="$BUILD_DIR/libhardsigmoid_ops.so"
cd "$ROOT"
"$VENV/bin/python" -m pytest python_tests -rfEs -q --durations=15 --junitxml="$BUILD_DIR/pytest.xml" \
  -n "${PYTEST_WORKERS:-$(nproc)}" --dist worksteal

phase "GoogleTest CPU cases under AddressSanitizer + UndefinedBehaviorSanitizer"
# The library's host code (CUDA off): every CPU case in one process (the row loops of this
# processor's best capability, aten's choice) and, at the same time, CTest's reruns of the
# comparisons under each of the other capabilities aten can select (the cpu_capability entries),
# each in a process of its own (most cases run on one thread: the processes keep both cores busy).
# A report aborts its process; each run's output follows, and the phase fails if any failed.
# The comparisons' multi-threaded size 2^17 here, not 2^20: still four of aten's grains, split
# between the threads as at 2^20, and what a sanitizer checks (each access, each range's ends) is
# the same at both; the every-case process took 150 s at 2^20 and 94 s at 2^17 on a 2-core Xeon
# (the capability reruns' time is elsewhere: about 120 s each at either size).
export HARDSIGMOID_OPS_TEST_LARGE_NUMEL="${HARDSIGMOID_OPS_TEST_LARGE_NUMEL:-$((1 << 17))}"
SANITIZE_DIR="${SANITIZE_BUILD_DIR:-$ROOT/build-sanitize}"
BUILD_DIR="$SANITIZE_DIR" BUILD_TARGETS=hardsigmoid_ops_tests bash "$ROOT/scripts/build.sh" \
  -DHARDSIGMOID_OPS_SANITIZE=ON -DHARDSIGMOID_OPS_WITH_CUDA=OFF
sanitized_cpu_cases() {
  "$SANITIZE_DIR/cpp_tests/hardsigmoid_ops_tests" --gtest_brief=1 --gtest_filter='-*CUDA*'
}
capability_reruns() {
  ctest --test-dir "$SANITIZE_DIR" --label-regex cpu_capability --parallel "$(nproc)" \
    --output-on-failure
}
at_once "$SANITIZE_DIR" every-case:sanitized_cpu_cases capabilities:capability_reruns
phase "done"
