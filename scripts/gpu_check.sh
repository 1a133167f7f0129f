#!/usr/bin/env bash
# The proof on a machine with a GPU: builds against that machine's torch, runs the whole pytest
# suite with CUDA (pytest-xdist, PYTEST_WORKERS processes; the fuzzing, and the multi-GPU and
# DTensor/NCCL tests where there are two GPUs, included) and every GoogleTest case in one
# process, the other CTest entries, and compute-sanitizer memcheck, racecheck and initcheck over
# the CUDA tests (the parts tests-python and tests-cpp, or both at once: tests), then
# the GPU benchmark (CSV and PNG), the torch.compile benchmark (CSV) and the host overhead of the C++ API and of Python calls (plain and
# recorded by autograd), and the ceiling study of a read-once write-once stream (timings, ncu's
# counters per mechanism, a PNG). Logs, CSV and PNG go to OUTDIR.
# Two parts outside `all`: `wheel` serves dist/ (built elsewhere: scripts/release/build_wheels.sh) as a
# package index on 127.0.0.1, installs the release wheel from it beside this machine's torch with
# `pip install hardsigmoid_ops` (pip freeze the same before and after), checks it against aten on
# CPU and GPU (scripts/release/check_wheel.py: the CUDA list must be torch's), prints build_info() and
# lists the loaded library's CUDA code with cuobjdump; `limits` builds the library once without this GPU's architecture
# (SASS for sm_80 only, no PTX) and once without CUDA, and runs test_build_limits.py and
# test_troubleshooting.py against each;
# `pages` runs the fresh-output study (benchmarks/studies/fresh_pages.cpp) on the host's CPU at
# 1 to 16 threads, as torch runs by default and with THP_MEM_ALLOC_ENABLE=1 (CSV each).
#
#   bash scripts/gpu_check.sh OUTDIR [tests-python|tests-cpp|tests|bench|ceiling|all|wheel|limits|
#                                     pages]
#   (default: all)
#
# TORCH_PYTHON picks the Python whose torch to build against and test with (default python3).
# PYTEST_WORKERS sets pytest's processes (default 14 in tests-python, 11 in tests and all, where
# the C++ part shares the cores); PYTEST_DIST pytest-xdist's scheduling (default worksteal).
# Where no GoogleTest is installed, put its sources in .deps/googletest. Each step's log ends in
# OUTDIR; a failed step is reported and the others still run; the exit status is non-zero if any
# step failed.
set -uo pipefail
OUTDIR="$(mkdir -p "$1" && cd "$1" && pwd)"
PART="${2:-all}"
case "$PART" in
  tests-python | tests-cpp | tests | bench | ceiling | all | wheel | limits | pages) ;;
  *)
    echo "gpu_check.sh: unknown part '$PART' (tests-python, tests-cpp, tests, bench, ceiling, all," \
      "wheel, limits, pages)" >&2
    exit 2
    ;;
esac
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export BUILD_DIR="${BUILD_DIR:-$ROOT/build-gpu}"
export TORCH_PYTHON="${TORCH_PYTHON:-python3}"
export HARDSIGMOID_OPS_LIBRARY="$BUILD_DIR/libhardsigmoid_ops.so"
status=0

step() {
  local name="$1"
  shift
  local start=$SECONDS
  echo "== $name: $*"
  if "$@" >"$OUTDIR/$name.log" 2>&1; then
    echo "   ok ($((SECONDS - start)) s)"
  else
    echo "   FAILED with status $? ($((SECONDS - start)) s)"
    status=1
  fi
  tail -n "${TAIL_LINES:-4}" "$OUTDIR/$name.log"
}

# Runs "$@" (steps) in the background, its report kept in OUTDIR/lane-NAME.txt; wait_lanes prints
# each lane's report and takes its status.
lanes=()
lane() {
  local name="$1"
  shift
  ("$@" >"$OUTDIR/lane-$name.txt" 2>&1; exit $status) &
  lanes+=("$name:$!")
}
wait_lanes() {
  local entry
  for entry in "${lanes[@]}"; do
    wait "${entry#*:}" || status=1
    cat "$OUTDIR/lane-${entry%%:*}.txt"
  done
  lanes=()
}

gtest_args=()
[[ -d "$ROOT/.deps/googletest" ]] &&
  gtest_args=(-DHARDSIGMOID_OPS_GTEST_SOURCE_DIR="$ROOT/.deps/googletest")

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv

if [[ "$PART" == wheel ]]; then
  # dist/ (the release wheels, built elsewhere: scripts/release/build_wheels.sh) served as a package index
  # on 127.0.0.1, and a virtual environment that sees this machine's torch: `pip install
  # hardsigmoid_ops` from that index alone (this machine reaches no other) must keep that torch
  # and load the library of its release and CUDA. torch's site joins through a .pth file, since
  # --system-site-packages alone reaches the base interpreter's, not a virtual environment's.
  source "$ROOT/scripts/release/local_index.sh"
  install_and_check() {
    local venv="${TMPDIR:-/tmp}/hardsigmoid-ops-wheel" site library
    site="$("$TORCH_PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" &&
      rm -rf "$venv" "$venv-index" && mkdir -p "$venv-index" &&
      serve_local_index "$ROOT/dist" "$venv-index" &&
      echo "dist/: $(cd "$ROOT/dist" && echo *)" &&
      "$TORCH_PYTHON" -m venv --system-site-packages "$venv" &&
      "$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' |
      (read -r own && echo "$site" >"$own/torch_site.pth") &&
      "$venv/bin/python" -m pip freeze --all >"$OUTDIR/wheel-freeze-before.txt" &&
      "$venv/bin/python" -m pip install --index-url "$LOCAL_INDEX_URL" hardsigmoid_ops &&
      "$venv/bin/python" -m pip freeze --all | grep -v '^hardsigmoid.ops==' \
        >"$OUTDIR/wheel-freeze-after.txt" &&
      diff "$OUTDIR/wheel-freeze-before.txt" "$OUTDIR/wheel-freeze-after.txt" &&
      echo "pip freeze: the same before and after but for hardsigmoid_ops" &&
      (cd "$venv" && env -u HARDSIGMOID_OPS_LIBRARY "$venv/bin/python" \
        "$ROOT/scripts/release/check_wheel.py" --torch-cuda-list) &&
      library="$(cd "$venv" && env -u HARDSIGMOID_OPS_LIBRARY "$venv/bin/python" -c \
        'import hardsigmoid_ops, json; info = hardsigmoid_ops.build_info()
print(json.dumps(info, indent=1), file=__import__("sys").stderr); print(info["library"])')" &&
      echo "loaded: $library" &&
      cuobjdump --list-elf "$library" && cuobjdump --list-ptx "$library"
  }
  TAIL_LINES=80 step wheel install_and_check
  exit $status
fi
if [[ "$PART" == limits ]]; then
  # NAME CMAKE-ARGS...: the library alone, built so, and against it test_build_limits.py and
  # test_troubleshooting.py (whose GPU entries quote the messages such libraries print).
  limits() {
    local name="$1"
    shift
    BUILD_DIR="$ROOT/build-gpu-$name" BUILD_TARGETS=hardsigmoid_ops bash "$ROOT/scripts/build.sh" \
      -DHARDSIGMOID_OPS_BUILD_TESTS=OFF -DHARDSIGMOID_OPS_BUILD_EXAMPLES=OFF "$@" &&
      HARDSIGMOID_OPS_LIBRARY="$ROOT/build-gpu-$name/libhardsigmoid_ops.so" "$TORCH_PYTHON" -m \
        pytest "$ROOT/python_tests/test_build_limits.py" "$ROOT/python_tests/test_troubleshooting.py" \
        -v -rfEs -p no:cacheprovider
  }
  TAIL_LINES=30 step limits-sm80-only limits sm80 -DTORCH_CUDA_ARCH_LIST=8.0
  TAIL_LINES=30 step limits-no-cuda limits nocuda -DHARDSIGMOID_OPS_WITH_CUDA=OFF
  exit $status
fi

if [[ "$PART" == pages ]]; then
  # The library and the study alone; the machine's transparent huge pages and CPU recorded beside.
  pages() {
    local exe="$BUILD_DIR/benchmarks/fresh_pages" threads="${PAGES_THREADS:-1,2,4,8,16}"
    BUILD_TARGETS="hardsigmoid_ops fresh_pages" bash "$ROOT/scripts/build.sh" "${gtest_args[@]}" &&
      grep -H . /sys/kernel/mm/transparent_hugepage/{enabled,defrag} && uname -r &&
      lscpu | grep -E "Model name|^CPU\(s\)|Thread|NUMA node\(s\)" &&
      "$exe" "$threads" "${PAGES_ROUNDS:-5}" >"$OUTDIR/fresh_pages.csv" &&
      THP_MEM_ALLOC_ENABLE=1 "$exe" "$threads" "${PAGES_ROUNDS:-5}" >"$OUTDIR/fresh_pages_thp.csv"
  }
  TAIL_LINES=30 step pages pages
  exit $status
fi

step build bash "$ROOT/scripts/build.sh" "${gtest_args[@]}"

# The proof in two parts, each within one eight-minute device call on a 16-core H200 machine
# (docs/testing.md gives their times); `tests` runs both at once, where a call may run longer.
# tests-python: the whole pytest suite on PYTEST_WORKERS processes (failures and skip reasons
# listed, JUnit XML kept).
# tests-cpp, five lanes at once sharing the GPU: every GoogleTest case in one process (one
# CUDA context, not one per case); the CTest entries that are not GoogleTest cases (the
# per-capability CPU reruns, the round trips, the installed package, the benchmark's smoke test;
# four at a time);
# the CUDA cases under each compute-sanitizer tool, in one process per test executable (memcheck
# takes every case, racecheck and initcheck leave out the 4 GiB tensor above 2^31 elements, to
# bound the run's time: memcheck covers it).
sanitize() {
  local tool="$1" filter="$2" failed=0
  for exe in "$BUILD_DIR"/cpp_tests/*_tests; do
    compute-sanitizer --tool "$tool" --error-exitcode 1 "$exe" --gtest_brief=1 \
      --gtest_filter="$filter" || failed=1
  done
  return "$failed"
}
python_part() {
  TAIL_LINES=40 step pytest "$TORCH_PYTHON" -m pytest "$ROOT/python_tests" -rfEs -q \
    -p no:cacheprovider -n "${PYTEST_WORKERS:-$1}" --dist "${PYTEST_DIST:-worksteal}" \
    --durations=15 --junitxml="$OUTDIR/pytest.xml"
}
cpp_part() {
  lane gtest step gtest "$BUILD_DIR/cpp_tests/hardsigmoid_ops_tests" --gtest_brief=1 \
    --gtest_output="xml:$OUTDIR/gtest.xml"
  lane ctest step ctest ctest --test-dir "$BUILD_DIR" --output-on-failure --parallel 4 \
    --label-exclude googletest --output-junit "$OUTDIR/ctest.xml"
  lane memcheck step memcheck sanitize memcheck '*CUDA*'
  lane racecheck step racecheck sanitize racecheck '*CUDA*:-LargeTensor.*'
  lane initcheck step initcheck sanitize initcheck '*CUDA*:-LargeTensor.*'
}
case "$PART" in
  tests-python) python_part 14 ;;
  tests-cpp) cpp_part && wait_lanes ;;
  tests | all) lane python python_part 11 && cpp_part && wait_lanes ;;
esac

if [[ "$PART" == bench || "$PART" == all ]]; then
  bench() {
    "$BUILD_DIR/benchmarks/api_overhead" cuda 20000 &&
      "$TORCH_PYTHON" "$ROOT/benchmarks/python_overhead.py" "$HARDSIGMOID_OPS_LIBRARY" cuda &&
      "$TORCH_PYTHON" "$ROOT/benchmarks/gpu_benchmark.py" --library "$HARDSIGMOID_OPS_LIBRARY" \
        --csv "$OUTDIR/gpu_benchmark.csv" &&
      "$TORCH_PYTHON" "$ROOT/benchmarks/plot_gpu.py" "$OUTDIR/gpu_benchmark.csv" \
        "$OUTDIR/gpu_benchmark.png" &&
      "$TORCH_PYTHON" "$ROOT/benchmarks/compile_benchmark.py" "$HARDSIGMOID_OPS_LIBRARY" \
        --device cuda --csv "$OUTDIR/compile_benchmark_cuda.csv"
  }
  TAIL_LINES=60 step benchmark bench
fi
if [[ "$PART" == ceiling || "$PART" == all ]]; then
  # Every mechanism timed at every size, then each launched once at the headline size under ncu
  # (clocks left as they run, so that the counters describe the timed runs), then the plot.
  metrics=(
    gpu__time_duration.sum
    dram__throughput.avg.pct_of_peak_sustained_elapsed
    dram__bytes_read.sum dram__bytes_write.sum
    lts__t_sectors_op_read.sum lts__t_sectors_op_write.sum lts__t_sector_hit_rate.pct
    sm__warps_active.avg.pct_of_peak_sustained_active
    dram__cycles_active.avg.pct_of_peak_sustained_elapsed
    dram__cycles_active_read.avg.pct_of_peak_sustained_elapsed
    dram__cycles_active_write.avg.pct_of_peak_sustained_elapsed
  )
  # The study's program (benchmarks/studies/cuda_ceiling.cu) is built beside the benchmarks'.
  ceiling() {
    local exe="$BUILD_DIR/benchmarks/cuda_ceiling"
    "$exe" --csv "$OUTDIR/ceiling.csv" &&
      ncu --profile-from-start off --nvtx --clock-control none --csv --page raw \
        --metrics "$(IFS=,; echo "${metrics[*]}")" --log-file "$OUTDIR/ceiling_ncu.csv" \
        "$exe" --once &&
      "$TORCH_PYTHON" "$ROOT/benchmarks/studies/plot_ceiling.py" "$OUTDIR/ceiling.csv" \
        "$OUTDIR/ceiling_ncu.csv" "$OUTDIR/ceiling.png"
  }
  TAIL_LINES=60 step ceiling ceiling
fi
exit $status
