#!/usr/bin/env bash
# aten's bits on 64-bit ARM, proven under emulation: builds the library, its GoogleTest suite and
# the ExecuTorch kernel library for aarch64 (cmake/toolchains/aarch64-linux-gnu.cmake) against
# PyPI's aarch64 torch and executorch wheels, and runs them under qemu-aarch64, once under each of
# aten's aarch64 CPU capabilities: DEFAULT (NEON) and SVE256 (qemu's CPU with 256-bit SVE):
#   - every CPU GoogleTest case but the >2^31-element one (see below), against the aarch64 aten;
#   - a pytest selection that proves the bits (python_tests/aarch64_selection.txt);
#   - CTest's torchscript_round_trip: models scripted by the aarch64 torch, loaded and run by a C++
#     program (its int8 model made for qnnpack, the ARM engine);
#   - a .pte exported on this machine (the newest torch release's environment,
#     scripts/torch_versions.sh), run by run_pte built for aarch64, byte-equal to eager aten's
#     output computed by the aarch64 torch.
# Emulation proves bits, never speed: nothing here is timed as a claim.
#
#   bash scripts/aarch64_check.sh [setup|default|sve256|all]
# (setup: the packages, root and wheels only; default or sve256: that capability alone)
#
# Sets up a fresh Debian 12 x86-64 machine: Debian's qemu-user-static, binfmt-support,
# g++-aarch64-linux-gnu and mmdebstrap; an arm64 root with Python (its packages unpacked, nothing
# configured: no emulated package scripts); the aarch64 wheels installed into a folder beside it.
# These are cached in HARDSIGMOID_OPS_AARCH64_CACHE (default ~/.cache/hardsigmoid_ops/aarch64),
# keyed by the versions they hold, and reused. The build tree: build-aarch64 (AARCH64_BUILD_DIR).
# The >2^31-element GoogleTest case is left out: 8 GiB and some minutes natively, far longer
# emulated, and what it proves (64-bit indexing) is the same C++ on both architectures.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PART="${1:-all}"
CACHE="${HARDSIGMOID_OPS_AARCH64_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hardsigmoid_ops/aarch64}"
BUILD_DIR="${AARCH64_BUILD_DIR:-$ROOT/build-aarch64}"
source "$ROOT/scripts/downloads.sh"
source "$ROOT/scripts/torch_releases.sh"
NEWEST="${HARDSIGMOID_OPS_NEWEST_TORCH:-${SUPPORTED_TORCH_RELEASES[-1]}}"
phase() { echo "== $* (at $SECONDS s)"; }

# The pinned versions, from the files that pin them for x86-64.
pinned() { sed -n "s/^$1==\([^ ]*\).*/\1/p" "$ROOT/$2"; }
TORCH="$(pinned torch requirements.txt)"
EXECUTORCH="$(pinned executorch requirements-executorch.txt)"
TEST_TOOLS=()
for tool in pytest pytest-xdist numpy expecttest hypothesis; do
  TEST_TOOLS+=("$tool==$(pinned "$tool" requirements.txt)")
done

phase "setup: Debian packages"
debian_packages qemu-user-static binfmt-support g++-aarch64-linux-gnu mmdebstrap
bash "$ROOT/scripts/setup.sh" # cmake, ninja, the compiler cache, the pinned x86-64 environment
# aarch64 programs started directly (CTest's scripts run them so): the kernel hands them to
# qemu-aarch64 through binfmt_misc, which a container may not have mounted.
if [[ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]]; then
  mountpoint -q /proc/sys/fs/binfmt_misc ||
    as_root mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
  as_root update-binfmts --enable qemu-aarch64
fi

# The arm64 root: Python 3.11 and the C and C++ runtimes, Debian's packages unpacked
# (mmdebstrap's extract variant runs no package scripts, so nothing runs under emulation).
root_packages=(python3.11 libpython3.11-stdlib libstdc++6 libgomp1 zlib1g)
ARM_ROOT="$CACHE/root-bookworm-$(echo "${root_packages[*]}" | sha256sum | cut -c1-12)"
if [[ ! -x "$ARM_ROOT/usr/bin/python3.11" ]]; then
  phase "setup: the arm64 root"
  rm -rf "$ARM_ROOT"
  mkdir -p "$CACHE"
  # shellcheck disable=SC2317 # run by with_retries
  arm_root() {
    rm -rf "$ARM_ROOT.partial"
    mmdebstrap --quiet --variant=extract --arch=arm64 --aptopt='Acquire::Retries "5"' \
      --include="$(IFS=,; echo "${root_packages[*]}")" bookworm "$ARM_ROOT.partial"
  }
  with_retries arm_root
  mv "$ARM_ROOT.partial" "$ARM_ROOT"
fi

# The aarch64 wheels, installed from this machine by pip for the aarch64 platform. PyPI's aarch64
# torch is its CUDA build: its libraries need the nvidia wheels' (never used here).
read -ra platforms <<<"$(pip_platforms aarch64 | xargs)"
aarch64_pip() {
  local target="$1"
  shift
  rm -rf "$target"
  # shellcheck disable=SC2317 # run by with_retries
  install_into_partial() {
    rm -rf "$target.partial"
    "$ROOT/.venv/bin/python" -m pip install -q --target "$target.partial" --only-binary=:all: \
      --python-version 3.11 --implementation cp "${platforms[@]}" "$@"
  }
  with_retries install_into_partial "$@"
  mv "$target.partial" "$target"
}
SITE="$CACHE/site-torch-$TORCH-$(echo "${TEST_TOOLS[*]}" | sha256sum | cut -c1-12)"
if [[ ! -d "$SITE/torch" ]]; then
  phase "setup: aarch64 torch $TORCH and the test tools"
  aarch64_pip "$SITE" "torch==$TORCH" "${TEST_TOOLS[@]}"
fi
# ExecuTorch apart from torch's folder: its C++ runtime and CMake package only (its Python side
# runs with the newest torch release alone).
EXECUTORCH_SITE="$CACHE/executorch-$EXECUTORCH"
if [[ ! -d "$EXECUTORCH_SITE/executorch" ]]; then
  phase "setup: aarch64 executorch $EXECUTORCH"
  aarch64_pip "$EXECUTORCH_SITE" --no-deps "executorch==$EXECUTORCH"
fi

# The emulated Python, as a program CMake and the tests can be given.
export QEMU_LD_PREFIX="$ARM_ROOT"
PYTHON_AARCH64="$CACHE/python3-aarch64"
cat >"$PYTHON_AARCH64" <<EOF
#!/usr/bin/env bash
# Python 3.11 for aarch64 under qemu-aarch64, with torch $TORCH (scripts/aarch64_check.sh), or
# with the folders HARDSIGMOID_OPS_AARCH64_SITE names instead (scripts/check_wheel.sh).
export QEMU_LD_PREFIX="$ARM_ROOT"
export PYTHONPATH="\${HARDSIGMOID_OPS_AARCH64_SITE:-$SITE}\${PYTHONPATH:+:\$PYTHONPATH}"
exec "$ARM_ROOT/usr/bin/python3.11" "\$@"
EOF
chmod +x "$PYTHON_AARCH64"
[[ "$PART" == setup ]] && exit 0

phase "build for aarch64"
source "$ROOT/scripts/compile_cache.sh"
cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja \
  -DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/toolchains/aarch64-linux-gnu.cmake" \
  -DCMAKE_PREFIX_PATH="$SITE/torch/share/cmake" \
  -DHARDSIGMOID_OPS_PYTHON="$PYTHON_AARCH64" \
  -DHARDSIGMOID_OPS_GTEST_SOURCE_DIR=/usr/src/googletest \
  -Dexecutorch_DIR="$EXECUTORCH_SITE/executorch/lib/cmake/executorch" \
  -DHARDSIGMOID_OPS_WITH_EXECUTORCH=ON -DHARDSIGMOID_OPS_BUILD_STUDIES=OFF >"$CACHE/configure.log" 2>&1 ||
  { cat "$CACHE/configure.log"; exit 1; }
cmake --build "$BUILD_DIR" --parallel "$(nproc)" --target hardsigmoid_ops hardsigmoid_ops_tests \
  hardsigmoid_ops_executorch hardsigmoid_ops_executorch_tests run_pte run_torchscript_models

# The .pte programs, exported on this machine by the newest torch release's environment (the one
# ExecuTorch's Python side runs with) and the library built for it: scripts/torch_versions.sh's,
# created here where CI's run has not made them already.
phase "ExecuTorch programs exported on this machine (torch $NEWEST)"
newest_python="$ROOT/.venvs/torch-$NEWEST/bin/python"
newest_library="$ROOT/build-torch-$NEWEST/libhardsigmoid_ops.so"
[[ -x "$newest_python" ]] || bash "$ROOT/scripts/torch_versions.sh" --environments "$NEWEST"
if [[ ! -f "$newest_library" ]]; then
  HARDSIGMOID_OPS_VENV="$ROOT/.venvs/torch-$NEWEST" BUILD_DIR="$ROOT/build-torch-$NEWEST" \
    BUILD_TARGETS=hardsigmoid_ops bash "$ROOT/scripts/build.sh" -DHARDSIGMOID_OPS_BUILD_TESTS=OFF \
    -DHARDSIGMOID_OPS_BUILD_EXAMPLES=OFF >"$CACHE/newest-build.log" 2>&1 ||
    { tail -30 "$CACHE/newest-build.log"; exit 1; }
fi
programs="$BUILD_DIR/executorch_programs"
dtypes=(float32 float64 float16 bfloat16)
for dtype in "${dtypes[@]}"; do
  PYTHONPATH="$ROOT/python" HARDSIGMOID_OPS_LIBRARY="$newest_library" "$newest_python" \
    "$ROOT/executorch_examples/export_model.py" \
    "$newest_library" "$programs/$dtype" "$dtype"
done

# Under each capability: QEMU_CPU gives the emulated processor 512-bit SVE (aten runs DEFAULT,
# NEON) or 256-bit SVE (aten runs SVE256), and aten chooses by itself: asked for sve256 by
# ATEN_CPU_CAPABILITY, aten 2.11 in a C++ program reports it unavailable without asking the
# kernel for the vector length (it chooses SVE256 by itself there, and honours the variable in
# Python). HARDSIGMOID_OPS_EXPECTED_CPU_CAPABILITY names the one it must choose, and the tests
# check that it did (CpuCapability.LoopsFollowAten, test_cpu_capability.py).
export HARDSIGMOID_OPS_LIBRARY="$BUILD_DIR/libhardsigmoid_ops.so"
# The comparisons' multi-threaded size: 2^17 elements instead of 2^20 (four of aten's grains, two
# threads' ranges), or the run would take 98 % of its time there.
export HARDSIGMOID_OPS_TEST_LARGE_NUMEL=$((1 << 17))
# What an emulated process cannot do: compile (no aarch64 compiler inside the root for inductor),
# export through the compiler, hold more than 2^31 elements in a useful time.
not_here="not compile and not export and not 2_31"
mapfile -t selection < <(grep -v '^#' "$ROOT/python_tests/aarch64_selection.txt")
failed=0
# qemu-aarch64's default processor, "max", has 512-bit SVE.
declare -A qemu_cpu=([default]="max" [sve256]="max,sve256=on")
capabilities=(default sve256)
[[ "$PART" == default || "$PART" == sve256 ]] && capabilities=("$PART")
for capability in "${capabilities[@]}"; do
  export QEMU_CPU="${qemu_cpu[$capability]}" HARDSIGMOID_OPS_EXPECTED_CPU_CAPABILITY="$capability"
  phase "$capability: GoogleTest, every CPU case"
  "$BUILD_DIR/cpp_tests/hardsigmoid_ops_tests" --gtest_brief=1 \
    --gtest_filter='-*CUDA*:LargeTensor.*' || failed=1
  phase "$capability: pytest (python_tests/aarch64_selection.txt)"
  (cd "$ROOT" && "$PYTHON_AARCH64" -m pytest "${selection[@]}" -q -p no:cacheprovider -rfEs \
    -n "$(nproc)" -k "$not_here" --junitxml="$BUILD_DIR/pytest-$capability.xml") || failed=1
  phase "$capability: TorchScript from Python to C++"
  ctest --test-dir "$BUILD_DIR" -R '^torchscript_round_trip$' --output-on-failure || failed=1
  phase "$capability: the ExecuTorch kernel on ExecuTorch's tensors, and run_pte"
  "$BUILD_DIR/cpp_tests/hardsigmoid_ops_executorch_tests" --gtest_brief=1 || failed=1
  pairs=()
  for dtype in "${dtypes[@]}"; do pairs+=("$dtype:$programs/$dtype"); done
  (cd "$ROOT/executorch_examples" &&
    "$PYTHON_AARCH64" eager_output.py "expected-aarch64-$capability.bin" "${pairs[@]}") || failed=1
  for dtype in "${dtypes[@]}"; do
    "$BUILD_DIR/executorch_examples/run_pte" "$programs/$dtype/model.pte" \
      "$programs/$dtype/input.bin" "$programs/$dtype/output-aarch64-$capability.bin" || failed=1
    if cmp "$programs/$dtype/output-aarch64-$capability.bin" \
      "$programs/$dtype/expected-aarch64-$capability.bin"; then
      echo "$capability $dtype: run_pte's output on aarch64 is eager aten's there, byte for byte"
    else
      failed=1
    fi
  done
done
phase "done"
exit $failed
