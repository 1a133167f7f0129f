#!/usr/bin/env bash
# The aarch64 proof's build (scripts/aarch64_check.sh, after setup.sh): the library, its GoogleTest
# suite, the ExecuTorch kernel library and the C++ runners, cross-compiled
# (cmake/toolchains/aarch64-linux-gnu.cmake) against the aarch64 torch and executorch; then the
# .pte programs run_pte will run, exported on this machine by the newest torch release's
# environment (the one ExecuTorch's Python side runs with) and the library built for it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/environment.sh"

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

# The newest release's environment and library: scripts/torch_versions.sh's, created here where
# CI's run has not made them already.
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
for dtype in "${EXECUTORCH_DTYPES[@]}"; do
  PYTHONPATH="$ROOT/python" HARDSIGMOID_OPS_LIBRARY="$newest_library" "$newest_python" \
    "$ROOT/executorch_examples/export_model.py" \
    "$newest_library" "$EXECUTORCH_PROGRAMS/$dtype" "$dtype"
done
