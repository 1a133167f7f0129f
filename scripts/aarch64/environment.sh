# shellcheck shell=bash
# Sourced by the parts of the aarch64 proof (setup.sh, build.sh, run.sh; scripts/aarch64_check.sh
# runs them in turn): where each thing lives, computed alike by every part, and nothing done.
#   CACHE            HARDSIGMOID_OPS_AARCH64_CACHE (default ~/.cache/hardsigmoid_ops/aarch64): the
#                    arm64 root and the aarch64 wheels, keyed by the versions they hold
#   BUILD_DIR        AARCH64_BUILD_DIR (default build-aarch64): the aarch64 build tree
#   ARM_ROOT         the arm64 root (Debian's packages of ROOT_PACKAGES, unpacked)
#   SITE             the aarch64 torch and the test tools, pinned as for x86-64
#   EXECUTORCH_SITE  the aarch64 executorch wheel (its C++ runtime and CMake package)
#   QEMU_BACKPORTS   qemu-aarch64 of bookworm-backports, for the torch releases bookworm's fails
#   PYTHON_AARCH64   the emulated Python, a program CMake and the tests can be given
#   NEWEST           the newest supported torch release (HARDSIGMOID_OPS_NEWEST_TORCH), whose
#                    environment exports the ExecuTorch programs
#   EXECUTORCH_PROGRAMS, EXECUTORCH_DTYPES  those programs' folder in the build tree, one per dtype
# shellcheck disable=SC2034  # read by the parts that source this file
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE="${HARDSIGMOID_OPS_AARCH64_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hardsigmoid_ops/aarch64}"
BUILD_DIR="${AARCH64_BUILD_DIR:-$ROOT/build-aarch64}"
source "$ROOT/scripts/downloads.sh"
source "$ROOT/scripts/torch_releases.sh"
NEWEST="${HARDSIGMOID_OPS_NEWEST_TORCH:-${SUPPORTED_TORCH_RELEASES[-1]}}"
phase() { echo "== $* (at $SECONDS s)"; }

# The pinned versions, from the files that pin them for x86-64.
TORCH="$(pinned torch)"
EXECUTORCH="$(pinned executorch "$ROOT/requirements-executorch.txt")"
TEST_TOOLS=()
for tool in pytest pytest-xdist numpy expecttest hypothesis; do
  TEST_TOOLS+=("$tool==$(pinned "$tool")")
done

# The arm64 root: Python 3.11 and the C and C++ runtimes.
ROOT_PACKAGES=(python3.11 libpython3.11-stdlib libstdc++6 libgomp1 zlib1g)
ARM_ROOT="$CACHE/root-bookworm-$(echo "${ROOT_PACKAGES[*]}" | sha256sum | cut -c1-12)"
SITE="$CACHE/site-torch-$TORCH-$(echo "${TEST_TOOLS[*]}" | sha256sum | cut -c1-12)"
EXECUTORCH_SITE="$CACHE/executorch-$EXECUTORCH"
# qemu-user of Debian's bookworm-backports (10.0), unpacked apart from the system's bookworm
# qemu-user 7.2: torch 2.13 - 2.15's aarch64 import crashes under 7.2.
QEMU_BACKPORTS="$CACHE/qemu-bookworm-backports/usr/bin/qemu-aarch64"
PYTHON_AARCH64="$CACHE/python3-aarch64"
EXECUTORCH_PROGRAMS="$BUILD_DIR/executorch_programs"
EXECUTORCH_DTYPES=(float32 float64 float16 bfloat16)
# aarch64 programs started directly (CTest's scripts run them so) find their loader and libraries
# in the root.
export QEMU_LD_PREFIX="$ARM_ROOT"
