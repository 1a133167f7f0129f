#!/usr/bin/env bash
# Installs the library from BUILD_DIR into WORKDIR/prefix, builds this consumer project against
# the installed package, and runs it.
# Usage: build_and_run.sh BUILD_DIR WORKDIR TORCH_CMAKE_PREFIX
set -euo pipefail
build_dir="$1" workdir="$2" torch_prefix="$3"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rm -rf "$workdir"
cmake --install "$build_dir" --prefix "$workdir/prefix" >/dev/null
cmake -S "$here" -B "$workdir/build" -G Ninja -DCMAKE_PREFIX_PATH="$workdir/prefix;$torch_prefix" \
  >"$workdir/configure.log" 2>&1 || { cat "$workdir/configure.log"; exit 1; }
cmake --build "$workdir/build"
"$workdir/build/consumer"
