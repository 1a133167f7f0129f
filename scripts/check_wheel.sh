#!/usr/bin/env bash
# Installs a release wheel as a user would and checks it (scripts/check_wheel.py), then builds a
# C++ program against the installed package's CMake package and runs it.
#   bash scripts/check_wheel.sh WHEEL [--torch-cuda-list]
# x86-64: a fresh virtual environment with the newest patch of the wheel's torch release (from
# pip's index or cache). pip must refuse, before installing anything, a torch of another release
# (a stand-in wheel named torch 2.10.0); then the one documented command must take the wheel and
# leave torch as it is:
#   python -m pip install --no-index --find-links DIR hardsigmoid_ops "torch==<installed torch>"
# check_wheel.py runs from outside the source tree in an environment holding nothing but the
# virtual environment's programs on PATH (no compiler, CMake or nvcc, no PYTHONPATH or library
# path of this machine's); the C++ program (cpp_tests/downstream_package) is then built with the
# compiler back.
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
  read -ra platforms <<<"$(pip_platforms aarch64 | xargs)"
  aarch64_install() {  # TARGET ARGS...
    local target="$1"
    shift
    rm -rf "$target"
    "$ROOT/.venv/bin/python" -m pip install -q --target "$target" --only-binary=:all: \
      --python-version 3.11 --implementation cp "${platforms[@]}" "$@"
  }
  # The release's aarch64 torch with its dependencies: the pinned release's is aarch64_check.sh's,
  # another's the newest patch of its release.
  pinned="$(sed -n 's/^torch==//p' "$ROOT/requirements.txt")"
  sites=("$cache"/site-torch-"$pinned"-*)
  if [[ "$pinned" == "$release".* && -d "${sites[0]}/torch" ]]; then
    site="${sites[0]}"
  else
    torch_version="$("$ROOT/.venv/bin/python" -m pip index versions torch 2>/dev/null |
      grep -oE "\b${release//./\\.}\.[0-9]+\b" | sort -V | tail -1)" || true
    [[ -n "$torch_version" ]] || { echo "no torch $release.* on the index"; exit 1; }
    site="$cache/check-site-torch-$torch_version"
    [[ -d "$site/torch" ]] || with_retries aarch64_install "$site" "torch==$torch_version" numpy
  fi
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
with_retries "$venv/bin/python" -m pip install -q "torch==$release.*"
# The installed distribution's version (PyPI's 2.12.1 reports torch.__version__ 2.12.1+cu130).
installed="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("torch"))')"
echo "torch $installed installed"

# The refusal: a stand-in wheel named torch 2.10.0 (a release no wheel serves) beside the wheel.
mkdir -p "$work/stand-in"
"$venv/bin/python" "$ROOT/scripts/tools/stand_in_wheel.py" "$work/stand-in" torch 2.10.0
if "$venv/bin/python" -m pip install --dry-run --no-index --find-links "$links" \
  --find-links "$work/stand-in" hardsigmoid_ops "torch==2.10.0" >"$work/refusal.log" 2>&1; then
  cat "$work/refusal.log"
  echo "pip would install $name beside torch 2.10.0"
  exit 1
fi
grep -E "conflicting dependencies|ResolutionImpossible" "$work/refusal.log"
echo "pip refused torch 2.10.0 for $name"

echo "the documented command:"
set -x
"$venv/bin/python" -m pip install --no-index --find-links "$links" hardsigmoid_ops "torch==$installed"
set +x
after="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("torch"))')"
[[ "$after" == "$installed" ]] || { echo "pip changed torch from $installed to $after"; exit 1; }

cd "$work/elsewhere"
env -i HOME="$HOME" PATH="$venv/bin" "$venv/bin/python" check_wheel.py "$@" | tee "$work/check.json"

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
