#!/usr/bin/env bash
# Every test that draws random input, run under many consecutive seeds, to find a test whose draw
# can break its own premise before CI's fresh seed does (not part of CI: some hours on two cores at
# 200 seeds; bash reads this file as it runs, so edit it only between runs). Each part's log and a
# summary table go to $SWEEP_DIR (default build/seed-sweep); a failure's log line names its seed
# and the command that replays it.
#
#   bash scripts/seed_sweep.sh [SEEDS] [FIRST]     (default 200 seeds from 1)
#
# The parts, each under seeds FIRST .. FIRST + SEEDS - 1 unless said:
#   cpp         every CPU GoogleTest case but the >2^31-element ones, in SHARDS shards at once
#               (default: one a core; HARDSIGMOID_TEST_SEED_SWEEP, one process a shard), the
#               comparisons' multi-threaded size at 2^17 (four of aten's grains, still split
#               between threads: HARDSIGMOID_OPS_TEST_LARGE_NUMEL, for pytest too);
#   cpp-avx2, cpp-default   the CPU capability reruns' cases (cpp_tests/CMakeLists.txt) under aten's
#               AVX2 and DEFAULT (where this processor has more): the quantized, edge-value and
#               capability cases under every seed, the MatchesAten comparisons under
#               CAPABILITY_SEEDS (default 40: their draws are the cpp part's, seed for seed, and
#               under DEFAULT they take some 10 s a seed);
#   cpp-large   the >2^31-element CPU case under LARGE_SEEDS seeds (default 3: minutes each);
#   pytest      every module that draws, but those below, in one session
#               (HARDSIGMOID_OPS_SEED_SWEEP), on every core, without its tests that compile,
#               export or start processes;
#   pytest-values  the modules that compare drawn values with aten's at the large size and
#               nothing else of the draw (test_matches_aten, test_opcheck, test_thread_split), under
#               VALUES_SEEDS seeds (default 50: some 60 s a seed on two cores);
#   pytest-slow the modules that compile, export or start processes per test, and the other
#               modules' tests that do, under SLOW_SEEDS seeds (default 5);
#   pytest-large the tests of several GiB (pytest's 'large' mark), under LARGE_SEEDS seeds;
#   threads     the package under racing threads (test_package_threads, test_package_races: fresh
#               Pythons, the GIL switching every microsecond, the races' windows held open), under
#               THREADS_SEEDS seeds (default 50: some 35 s a seed on two cores);
#   formulas    scripts/tools/quantized_formula_agreement.py: how often aten's two quantized
#               formulas disagree on a draw, under each capability (FORMULA_DRAWS, default 20000).
# SWEEP_PARTS="cpp pytest" runs only the parts named. Expects the build of scripts/run_tests.sh
# (BUILD_DIR, default build/).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
VENV="${HARDSIGMOID_OPS_VENV:-$ROOT/.venv}"
SWEEP_DIR="${SWEEP_DIR:-$BUILD_DIR/seed-sweep}"
SEEDS="${1:-200}"
FIRST="${2:-1}"
LARGE_SEEDS="${LARGE_SEEDS:-3}"
SLOW_SEEDS="${SLOW_SEEDS:-5}"
VALUES_SEEDS="${VALUES_SEEDS:-50}"
CAPABILITY_SEEDS="${CAPABILITY_SEEDS:-40}"
THREADS_SEEDS="${THREADS_SEEDS:-50}"
SHARDS="${SWEEP_SHARDS:-$(nproc)}"
FORMULA_DRAWS="${FORMULA_DRAWS:-20000}"
ALL_PARTS="cpp cpp-avx2 cpp-default cpp-large pytest pytest-values pytest-slow pytest-large"
ALL_PARTS+=" threads formulas"
PARTS="${SWEEP_PARTS:-$ALL_PARTS}"
TESTS="$BUILD_DIR/cpp_tests/hardsigmoid_ops_tests"
mkdir -p "$SWEEP_DIR"
export HARDSIGMOID_OPS_LIBRARY="$BUILD_DIR/libhardsigmoid_ops.so"
export HARDSIGMOID_OPS_TEST_LARGE_NUMEL=$((1 << 17))
phase() { echo "== $* (at $SECONDS s)"; }
wants() { [[ " $PARTS " == *" $1 "* ]]; }

# The pytest modules that compile, export or start processes in most tests: the slow part.
SLOW_MODULES=(test_aten_decompositions.py test_compile.py test_compile_fusion.py
  test_deterministic_compilation.py test_dtensor.py test_dtensor_compile.py test_export.py
  test_models.py test_quantized_models.py test_onnx_export.py test_executorch.py
  test_valid_edge_cases.py test_fresh_pages.py)
# The modules of the package under threads: the threads part alone runs them.
THREADS_MODULES=(test_package_threads.py test_package_races.py)
# The modules whose draws are values compared with aten's at the large size, and nothing else.
VALUES_MODULES=(test_matches_aten.py test_opcheck.py test_thread_split.py)
# The modules with no random draw (paths, builds, documents, the package's files, subprocesses).
UNDRAWN_MODULES=(test_build_limits.py test_cpp_commands.py test_cpu_capability.py
  test_docs_examples.py test_load.py test_pip_install.py test_quickstart.py
  test_round_trip_commands.py test_troubleshooting.py test_replay.py test_multi_gpu.py
  test_byte_lookup_choice.py)
# The tests that compile or export, and those of the other modules that start a Python process.
COMPILES="compile or export or mobilenet or before_the_library_is_loaded or under_other_paths"

# One GoogleTest process under the sweep: $1 the log's name, the rest gtest's arguments.
gtest_sweep() {
  local name="$1" seeds="$2"
  shift 2
  HARDSIGMOID_TEST_SEED_SWEEP="$FIRST" "$TESTS" --gtest_repeat="$seeds" --gtest_brief=1 "$@" \
    >"$SWEEP_DIR/$name.log" 2>&1
}

# Prints "part seeds cases failures" and each failure's test and replay line, from a GoogleTest
# log of the sweep: $1 the part, $2 the seeds, $3 the cases a seed ran, then the logs.
gtest_summary() {
  local part="$1" seeds="$2" cases="$3"
  shift 3
  local failures
  failures="$(cat "$@" | grep -c '^\[  FAILED  \] [^ ]*\.[^ ]* (' || true)"
  echo "$part | $seeds | $cases | $failures"
  cat "$@" | grep -E '^\[  FAILED  \] [^ ]+ \(|rerun: ' | sort -u | sed 's/^/    /'
}

cases_of() { "$TESTS" --gtest_list_tests "$@" | grep -c '^  '; }

summary="$SWEEP_DIR/summary.txt"
echo "part | seeds | cases a seed | failures (from seed $FIRST)" >"$summary"

if wants cpp; then
  phase "cpp: every CPU case, $SEEDS seeds, $SHARDS shards"
  filter='-*CUDA*:LargeTensor.*'
  for ((shard = 0; shard < SHARDS; ++shard)); do
    GTEST_TOTAL_SHARDS=$SHARDS GTEST_SHARD_INDEX=$shard gtest_sweep "cpp-shard$shard" "$SEEDS" \
      --gtest_filter="$filter" &
  done
  wait
  gtest_summary cpp "$SEEDS" "$(cases_of --gtest_filter="$filter")" "$SWEEP_DIR"/cpp-shard*.log \
    >>"$summary"
fi

# The capability reruns' cases: $1 the part, $2 the capability.
capability_sweep() {
  local filter='Cases/EdgeValues.*_CPU:CpuCapability.*:Quantized.*'
  ATEN_CPU_CAPABILITY=$2 gtest_sweep "$1" "$SEEDS" --gtest_filter="$filter"
  ATEN_CPU_CAPABILITY=$2 gtest_sweep "$1-matches-aten" "$CAPABILITY_SEEDS" \
    --gtest_filter='Cases/MatchesAten.*_CPU'
}
if wants cpp-avx2 || wants cpp-default; then
  phase "cpp-avx2, cpp-default: the capability reruns' cases, at once"
  for capability in avx2 default; do
    wants "cpp-$capability" && capability_sweep "cpp-$capability" "$capability" &
  done
  wait
  for capability in avx2 default; do
    wants "cpp-$capability" || continue
    gtest_summary "cpp-$capability" "$SEEDS" \
      "$(cases_of --gtest_filter='Cases/EdgeValues.*_CPU:CpuCapability.*:Quantized.*')" \
      "$SWEEP_DIR/cpp-$capability.log"
    gtest_summary "cpp-$capability MatchesAten" "$CAPABILITY_SEEDS" \
      "$(cases_of --gtest_filter='Cases/MatchesAten.*_CPU')" \
      "$SWEEP_DIR/cpp-$capability-matches-aten.log"
  done >>"$summary"
fi

if wants cpp-large; then
  phase "cpp-large: the >2^31-element CPU case, $LARGE_SEEDS seeds"
  gtest_sweep cpp-large "$LARGE_SEEDS" --gtest_filter='LargeTensor.*_CPU'
  gtest_summary cpp-large "$LARGE_SEEDS" 1 "$SWEEP_DIR/cpp-large.log" >>"$summary"
fi

# One pytest session under the sweep: $1 the log's name, $2 the seeds, the rest pytest's
# arguments. Prints its summary line.
pytest_sweep() {
  local name="$1" seeds="$2"
  shift 2
  (cd "$ROOT" && HARDSIGMOID_OPS_SEED_SWEEP="$FIRST:$seeds" "$VENV/bin/python" -m pytest "$@" \
    -q -p no:cacheprovider -rf -n "$(nproc)" --dist worksteal \
    --junitxml="$SWEEP_DIR/$name.xml" >"$SWEEP_DIR/$name.log" 2>&1)
  local counts
  { read -r passed failed skipped && cat >/dev/null; } < <("$VENV/bin/python" \
    "$ROOT/scripts/tools/junit_counts.py" "$SWEEP_DIR/$name.xml")
  counts="$((passed + failed + skipped)) runs: $passed passed, $skipped skipped"
  echo "$name | $seeds | $counts | $failed"
  grep -E '^FAILED |hardsigmoid_ops replay|HARDSIGMOID_OPS_SEED=' "$SWEEP_DIR/$name.log" |
    sort -u | sed 's/^/    /'
}

modules_but() {
  local module skip
  for module in "$ROOT"/python_tests/test_*.py; do
    module="$(basename "$module")"
    for skip in "$@"; do [[ "$module" == "$skip" ]] && continue 2; done
    echo "python_tests/$module"
  done
}

if wants pytest; then
  phase "pytest: the modules that draw, $SEEDS seeds"
  mapfile -t modules < <(modules_but "${SLOW_MODULES[@]}" "${VALUES_MODULES[@]}" \
    "${UNDRAWN_MODULES[@]}" "${THREADS_MODULES[@]}")
  pytest_sweep pytest "$SEEDS" "${modules[@]}" -m 'not large' -k "not ($COMPILES)" >>"$summary"
fi

if wants pytest-values; then
  phase "pytest-values: drawn values at the large size, $VALUES_SEEDS seeds"
  pytest_sweep pytest-values "$VALUES_SEEDS" "${VALUES_MODULES[@]/#/python_tests/}" \
    -m 'not large' -k "not ($COMPILES)" >>"$summary"
fi

if wants pytest-slow; then
  phase "pytest-slow: what compiles, exports or starts processes, $SLOW_SEEDS seeds"
  mapfile -t modules < <(modules_but "${SLOW_MODULES[@]}" "${UNDRAWN_MODULES[@]}" \
    "${THREADS_MODULES[@]}")
  pytest_sweep pytest-slow "$SLOW_SEEDS" "${modules[@]}" -m 'not large' -k "$COMPILES" \
    >>"$summary"
  pytest_sweep pytest-slow-modules "$SLOW_SEEDS" "${SLOW_MODULES[@]/#/python_tests/}" \
    -m 'not large' >>"$summary"
fi

if wants pytest-large; then
  phase "pytest-large: the tests of several GiB, $LARGE_SEEDS seeds"
  pytest_sweep pytest-large "$LARGE_SEEDS" python_tests -m large >>"$summary"
fi

if wants threads; then
  phase "threads: the package under racing threads, $THREADS_SEEDS seeds"
  pytest_sweep threads "$THREADS_SEEDS" "${THREADS_MODULES[@]/#/python_tests/}" >>"$summary"
fi

if wants formulas; then
  phase "formulas: aten's two quantized formulas, $FORMULA_DRAWS draws a capability"
  for capability in avx512 avx2 default; do
    ATEN_CPU_CAPABILITY=$capability "$VENV/bin/python" \
      "$ROOT/scripts/tools/quantized_formula_agreement.py" "$FORMULA_DRAWS" "$FIRST"
  done >"$SWEEP_DIR/formulas.log" 2>&1
  sed 's/^/    /' "$SWEEP_DIR/formulas.log" >>"$summary"
fi

phase "done"
cat "$summary"
! grep -qE '\| [1-9][0-9]*$' "$summary"
