#!/usr/bin/env bash
# Same-run CPU comparison of this tree's library against another git revision's, and aten:
# builds both (CPU kernels only, no tests or examples), the revision in a directory of its own,
# then runs benchmarks/compare_revision.py, which loads both into one process per size and prints
# one table of ratios. Run it on a quiet machine: the two-thread cases need both cores.
#
#   bash benchmarks/compare_revision.sh REV [compare_revision.py flags, e.g. --log2n 23 24 25]
#
# The revision's sources are exported from git (git archive) into build-rev/<commit>/src, and
# its operator namespace renamed there to hardsigmoid_ops_rev (TORCH_LIBRARY blocks and the
# "hardsigmoid_ops::" names it looks up), so that its library and this tree's register side by
# side. This tree is built as it is on disk, uncommitted changes included, into
# build-rev/current. A table and every round's times go to build-rev/<commit>/compare.{md,jsonl}.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${HARDSIGMOID_OPS_VENV:-$ROOT/.venv}"
REV="${1:?usage: compare_revision.sh REV [compare_revision.py flags]}"
shift
COMMIT="$(git -C "$ROOT" rev-parse --short "$REV^{commit}")"
WORK="$ROOT/build-rev"
OTHER="$WORK/$COMMIT"
CMAKE_FLAGS=(-DHARDSIGMOID_OPS_WITH_CUDA=OFF -DHARDSIGMOID_OPS_BUILD_TESTS=OFF)

# -DHARDSIGMOID_OPS_BUILD_EXAMPLES exists only from some revisions on: unknown to an older one,
# it is ignored (CMake warns that it was not used).
build_library() {
  local source="$1" build="$2"
  cmake -S "$source" -B "$build" -G Ninja -Wno-dev \
    -DCMAKE_PREFIX_PATH="$("$VENV/bin/python" -c 'import torch; print(torch.utils.cmake_prefix_path)')" \
    "${CMAKE_FLAGS[@]}" -DHARDSIGMOID_OPS_BUILD_EXAMPLES=OFF >"$build.configure.log"
  cmake --build "$build" --parallel "$(nproc)" --target hardsigmoid_ops
}

mkdir -p "$OTHER"
if [[ ! -d "$OTHER/src" ]]; then
  mkdir -p "$OTHER/src"
  git -C "$ROOT" archive "$COMMIT" | tar -x -C "$OTHER/src"
  grep -rlE 'TORCH_LIBRARY|"hardsigmoid_ops::' "$OTHER/src/ops" "$OTHER/src/registration" |
    xargs sed -i -E \
      -e 's/TORCH_LIBRARY(_IMPL|_FRAGMENT)?\(hardsigmoid_ops,/TORCH_LIBRARY\1(hardsigmoid_ops_rev,/' \
      -e 's/"hardsigmoid_ops::/"hardsigmoid_ops_rev::/g'
fi
echo "compare_revision: building $COMMIT"
build_library "$OTHER/src" "$OTHER/build"
echo "compare_revision: building the current tree"
build_library "$ROOT" "$WORK/current"

"$VENV/bin/python" "$ROOT/benchmarks/compare_revision.py" \
  --current "$WORK/current/libhardsigmoid_ops.so" --other "$OTHER/build/libhardsigmoid_ops.so" \
  --other-name "$COMMIT" --json "$OTHER/compare.jsonl" "$@" | tee "$OTHER/compare.md"
