#!/usr/bin/env bash
# Installs a release wheel as a user would and checks it (scripts/check_wheel.py), then builds a
# C++ program against the installed package's CMake package and runs it.
#   bash scripts/check_wheel.sh WHEEL [--torch-cuda-list]
# x86-64: a fresh virtual environment with the wheel's torch release (from pip's index or cache),
# then the one documented command, which must take the wheel and leave torch as it is:
#   pip install hardsigmoid_ops --find-links DIR "torch==<the installed torch's version>"
# (--no-index here: nothing else may be fetched). check_wheel.py runs from outside the source tree
# with no compiler, CMake or nvcc on PATH; the C++ program (cpp_tests/downstream_package) is then
# built with them back.
# aarch64: pip installs the wheel for aarch64 CPython 3.11 into a folder, and the emulated arm64
# root's Python runs check_wheel.py under qemu's default processor (aten's DEFAULT capability)
# with that release's aarch64 torch (scripts/aarch64_check.sh's root and cache).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/downloads.sh"
wheel="$(realpath "$1")"
shift
name="$(basename "$wheel")"
version="$(cut -d- -f2 <<<"$name")"        # 0.1.0+torch2.11
release="${version##*+torch}"              # 2.11
work="${WHEEL_BUILD_DIR:-$ROOT/build-wheels}/check-${name%.whl}"
rm -rf "$work"
mkdir -p "$work/elsewhere"
cp "$ROOT/scripts/check_wheel.py" "$work/elsewhere/"
links="$work/links"
mkdir -p "$links"
cp "$wheel" "$links/"
echo "== check $name"

if [[ "$name" == *_aarch64.whl ]]; then
  cache="${HARDSIGMOID_OPS_AARCH64_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hardsigmoid_ops/aarch64}"
  bash "$ROOT/scripts/aarch64_check.sh" setup >"$work/aarch64-setup.log" 2>&1 ||
    { tail -20 "$work/aarch64-setup.log"; exit 1; }
  platforms=(--platform manylinux2014_aarch64 --platform linux_aarch64)
  for v in $(seq 17 39); do platforms+=(--platform "manylinux_2_${v}_aarch64"); done
  aarch64_install() {  # TARGET ARGS...
    local target="$1"
    shift
    rm -rf "$target"
    "$ROOT/.venv/bin/python" -m pip install -q --target "$target" --only-binary=:all: \
      --python-version 3.11 --implementation cp "${platforms[@]}" "$@"
  }
  # The release's aarch64 torch with its dependencies (the pinned release's is aarch64_check.sh's).
  torch_version="$(sed -n 's/^torch==//p' "$ROOT/requirements.txt")"
  if [[ "$torch_version" != "$release".* ]]; then
    torch_version="$("$ROOT/.venv/bin/python" -m pip index versions torch 2>/dev/null |
      grep -oE "$release\.[0-9]+" | sort -V | tail -1)"
  fi
  site="$cache/check-site-torch-$torch_version"
  [[ -d "$site/torch" ]] || with_retries aarch64_install "$site" "torch==$torch_version" numpy
  # pip accepts the wheel's tags for aarch64 CPython 3.11 (its torch requirement is checked by
  # check_wheel.py against the torch beside it).
  aarch64_install "$work/site" --no-deps --no-index --find-links "$links" "hardsigmoid_ops==$version"
  cd "$work/elsewhere"
  QEMU_CPU=max HARDSIGMOID_OPS_AARCH64_SITE="$work/site:$site" "$cache/python3-aarch64" \
    check_wheel.py "$@" | tee "$work/check.json"
  echo "-- $name: installed for aarch64 CPython 3.11, checked under qemu (DEFAULT)"
  exit 0
fi

venv="$work/venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
torch_version="$(sed -n 's/^torch==//p' "$ROOT/requirements.txt")"
[[ "$torch_version" == "$release".* ]] || torch_version="$release.*"
with_retries "$venv/bin/python" -m pip install -q "torch==$torch_version"
# The installed distribution's version (PyPI's 2.12.1 reports torch.__version__ 2.12.1+cu130).
installed="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("torch"))')"
echo "torch $installed installed; the documented command:"
set -x
"$venv/bin/python" -m pip install --no-index hardsigmoid_ops --find-links "$links" "torch==$installed"
set +x
after="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("torch"))')"
[[ "$after" == "$installed" ]] || { echo "pip changed torch from $installed to $after"; exit 1; }

# No compiler, CMake or nvcc: PATH holds the environment's programs alone.
cd "$work/elsewhere"
for program in gcc g++ cc c++ cmake nvcc; do
  if PATH="$venv/bin" command -v "$program" >/dev/null; then
    echo "$program is reachable"
    exit 1
  fi
done
env -u PYTHONPATH -u HARDSIGMOID_OPS_LIBRARY -u CUDA_HOME PATH="$venv/bin" \
  "$venv/bin/python" check_wheel.py "$@" | tee "$work/check.json"

# A C++ program against the installed CMake package, the compiler back.
prefix="$("$venv/bin/python" -c 'import hardsigmoid_ops, torch
print(hardsigmoid_ops.cmake_prefix_path + ";" + torch.utils.cmake_prefix_path)')"
cmake -S "$ROOT/cpp_tests/downstream_package" -B "$work/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" >"$work/consumer-configure.log" 2>&1 ||
  { cat "$work/consumer-configure.log"; exit 1; }
cmake --build "$work/consumer" >"$work/consumer-build.log" 2>&1 ||
  { tail -30 "$work/consumer-build.log"; exit 1; }
"$work/consumer/consumer"
echo "-- $name: installed with torch $installed, checked with no compiler on PATH, and from C++"
