#!/usr/bin/env bash
# The aarch64 proof's runs (scripts/aarch64_check.sh, after build.sh), under each of aten's aarch64
# CPU capabilities, or the one named:
#   bash scripts/aarch64/run.sh [default|sve256|all]
# QEMU_CPU gives the emulated processor 512-bit SVE (aten runs DEFAULT, NEON) or 256-bit SVE (aten
# runs SVE256), and aten chooses by itself: asked for sve256 by ATEN_CPU_CAPABILITY, aten 2.11 in a
# C++ program reports it unavailable without asking the kernel for the vector length (it chooses
# SVE256 by itself there, and honours the variable in Python). HARDSIGMOID_OPS_EXPECTED_CPU_CAPABILITY
# names the one it must choose, and the tests check that it did (CpuCapability.LoopsFollowAten,
# test_cpu_capability.py). Exits non-zero if any run failed; every run is made.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/environment.sh"
PART="${1:-all}"

export HARDSIGMOID_OPS_LIBRARY="$BUILD_DIR/libhardsigmoid_ops.so"
# Sized by what emulation proves, bits: the comparisons' multi-threaded size one element past
# aten's grain (32768) instead of 2^20, which aten still splits into two ranges, one a thread, the
# first ending mid-vector (at 2^17 the 132 GoogleTest cases of that size took 551 s under SVE256,
# whose instructions qemu emulates one helper call at a time, and at 2^16 still 228 s of the
# sharded run's 324); the cases sized for the page system 4 MiB outputs instead of 64 MiB (under
# qemu-user the pages are the host's own; cpp_tests/fresh_pages_test.cpp's case_bytes: at 64 MiB
# they took some 900 s of that run); test_thread_split.py's sizes that split as others do are
# left out (hardsigmoid_testing/config.py's EMULATED).
export HARDSIGMOID_OPS_TEST_LARGE_NUMEL=$((32768 + 1))
export HARDSIGMOID_OPS_TEST_EMULATED=1
# What an emulated process cannot do: compile (no aarch64 compiler inside the root for inductor),
# export through the compiler, hold more than 2^31 elements in a useful time.
not_here="not compile and not export and not 2_31"
mapfile -t selection < <(grep -v '^#' "$ROOT/python_tests/aarch64_selection.txt")
failed=0
# qemu-aarch64's default processor, "max", has 512-bit SVE.
declare -A qemu_cpu=([default]="max" [sve256]="max,sve256=on")

# Every CPU GoogleTest case, in one shard a core (GoogleTest's own sharding) run at once: an
# emulated process spends most of its time on one thread, and this is the lane's longest step.
# Each shard's output follows; fails if any shard failed. $1: the capability, for the logs' names.
googletest_shards() {
  local shards shard status=0 pids=()
  shards="$(nproc)"
  for ((shard = 0; shard < shards; ++shard)); do
    GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$shard \
      "$BUILD_DIR/cpp_tests/hardsigmoid_ops_tests" --gtest_brief=1 \
      --gtest_filter='-*CUDA*:LargeTensor.*' >"$BUILD_DIR/gtest-$1-shard$shard.log" 2>&1 &
    pids+=($!)
  done
  for shard in "${!pids[@]}"; do
    wait "${pids[$shard]}" || status=1
    cat "$BUILD_DIR/gtest-$1-shard$shard.log"
  done
  return $status
}
capabilities=(default sve256)
[[ "$PART" == default || "$PART" == sve256 ]] && capabilities=("$PART")
for capability in "${capabilities[@]}"; do
  export QEMU_CPU="${qemu_cpu[$capability]}" HARDSIGMOID_OPS_EXPECTED_CPU_CAPABILITY="$capability"
  phase "$capability: GoogleTest, every CPU case, $(nproc) shards at once"
  googletest_shards "$capability" || failed=1
  phase "$capability: pytest (python_tests/aarch64_selection.txt)"
  (cd "$ROOT" && "$PYTHON_AARCH64" -m pytest "${selection[@]}" -q -p no:cacheprovider -rfEs \
    -n "$(nproc)" -k "$not_here" --junitxml="$BUILD_DIR/pytest-$capability.xml") || failed=1
  phase "$capability: TorchScript from Python to C++"
  ctest --test-dir "$BUILD_DIR" -R '^torchscript_round_trip$' --output-on-failure || failed=1
  phase "$capability: the ExecuTorch kernel on ExecuTorch's tensors, and run_pte"
  "$BUILD_DIR/cpp_tests/hardsigmoid_ops_executorch_tests" --gtest_brief=1 || failed=1
  pairs=()
  for dtype in "${EXECUTORCH_DTYPES[@]}"; do pairs+=("$dtype:$EXECUTORCH_PROGRAMS/$dtype"); done
  (cd "$ROOT/executorch_examples" &&
    "$PYTHON_AARCH64" eager_output.py "expected-aarch64-$capability.bin" "${pairs[@]}") || failed=1
  for dtype in "${EXECUTORCH_DTYPES[@]}"; do
    program="$EXECUTORCH_PROGRAMS/$dtype"
    "$BUILD_DIR/executorch_examples/run_pte" "$program/model.pte" "$program/input.bin" \
      "$program/output-aarch64-$capability.bin" || failed=1
    if cmp "$program/output-aarch64-$capability.bin" "$program/expected-aarch64-$capability.bin"; then
      echo "$capability $dtype: run_pte's output on aarch64 is eager aten's there, byte for byte"
    else
      failed=1
    fi
  done
done
phase "done"
exit $failed
