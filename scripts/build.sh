#!/usr/bin/env bash
# Configures and builds the library, its tests and examples into build/ (or $BUILD_DIR) against
# the libtorch inside the virtual environment's torch. Extra arguments go to CMake, e.g.
#   bash scripts/build.sh -DHARDSIGMOID_OPS_WITH_CUDA=OFF
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${HARDSIGMOID_OPS_VENV:-$ROOT/.venv}"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
# The Python whose torch provides libtorch: the venv's, or another (TORCH_PYTHON=python3).
TORCH_PYTHON="${TORCH_PYTHON:-$VENV/bin/python}"
TORCH_PREFIX="$("$TORCH_PYTHON" -c 'import torch; print(torch.utils.cmake_prefix_path)')"

cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_PREFIX_PATH="$TORCH_PREFIX" \
  -DHARDSIGMOID_OPS_PYTHON="$(command -v "$TORCH_PYTHON")" "$@"
# BUILD_TARGETS (space-separated) builds only those targets.
cmake --build "$BUILD_DIR" --parallel "${BUILD_JOBS:-$(nproc)}" ${BUILD_TARGETS:+--target $BUILD_TARGETS}
