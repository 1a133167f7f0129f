#!/usr/bin/env bash
# The aarch64 release wheel checked under emulation, as a user on a Grace machine installs it:
# served from a local package index (local_index.sh), and installed with pip and then with uv into
# a virtual environment of the emulated arm64 root's Python 3.11 that holds the aarch64 torch of
# each release asked for (default: the pinned one; scripts/aarch64_check.sh's root and cache) with
# its dependencies. Per release and installer: nothing installed but the package (torch and the
# rest as they were); check_wheel.py from outside the source tree, which must load that
# release's CUDA library (PyPI's aarch64 torch is a CUDA build) and give aten's bits, and with no
# GPU here, torch's own error for a CUDA tensor. Per release: every symbol the libraries leave
# undefined is defined by that torch, its CUDA runtime or the C and C++ runtimes, and a C++
# program built against the installed CMake package runs. qemu-user of bookworm-backports runs
# Python with torch, for every release: bookworm's 7.2 crashes in torch 2.13 - 2.15's import; the
# installers start the environment's Python through binfmt_misc.
# The x86-64 wheel is installed from a package index and checked by
# scripts/release/check_index_install.sh.
#   bash scripts/release/check_wheel.sh WHEEL [TORCH_VERSION...] [-- CHECK_WHEEL_ARGS...]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../aarch64/environment.sh"
source "$ROOT/scripts/release/aarch64_cuda_toolkit.sh"
wheel="$(realpath "$1")"
shift
pinned="$TORCH"
torch_versions=()
while (($#)) && [[ "$1" != -- ]]; do
  torch_versions+=("$1")
  shift
done
(($#)) && shift
((${#torch_versions[@]})) || torch_versions=("$pinned")
name="$(basename "$wheel")"
version="$(cut -d- -f2 <<<"$name")"
build="${WHEEL_BUILD_DIR:-$ROOT/build-wheels}"
work="$build/check-${name%.whl}"
rm -rf "$work"
mkdir -p "$work/elsewhere"
cp "$ROOT/scripts/release/check_wheel.py" "$work/elsewhere/"
links="$work/links"
mkdir -p "$links"
cp "$wheel" "$links/"
echo "== check $name"
[[ "$name" == *_aarch64.whl ]] || { echo "check_wheel.sh: $name is not an aarch64 wheel" >&2; exit 2; }

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
python3 -m zipfile -e "$wheel" "$work/unpacked"
source "$ROOT/scripts/release/local_index.sh"
serve_local_index "$links" "$work"
# uv in a folder of its own, kept across runs (the check's folder is made afresh).
tools_venv "$build/check-tools-venv" "uv==$UV_VERSION"
UV="$build/check-tools-venv/bin/uv"

# The environment of one release: the emulated Python's venv, its site-packages holding the
# release's aarch64 torch and dependencies (hard links to the cached install: nothing is
# downloaded again) and pip. $1 its folder, $2 the torch site.
aarch64_env() {
  local env="$1" site="$2" packages
  rm -rf "$env"
  "$PYTHON_AARCH64" -m venv --without-pip "$env"
  packages="$env/lib/python3.11/site-packages"
  cp -al "$site"/. "$packages"/
  cp -al "$ROOT"/.venv/lib/python3*/site-packages/pip "$ROOT"/.venv/lib/python3*/site-packages/pip-*.dist-info \
    "$packages"/
}
installed() { (cd "$1/lib/python3.11/site-packages" && find . -maxdepth 1 -name "*.dist-info" | sort); }
# Every symbol the release's libraries leave undefined is defined by that torch's libraries, the
# CUDA runtime its wheel brings (nvidia-cuda-runtime; for the -cuda library alone) or the C and
# C++ runtimes: the link a Grace machine's loader makes, made here by name. $1 the torch's site,
# $2 its version.
undefined_symbols_check() {
  local site="$1" release variant library providers=() runtimes=() missing count
  release="$(cut -d. -f1,2 <<<"$2")"
  for library in libc.so.6 libm.so.6 libstdc++.so.6 libgcc_s.so.1 libgomp.so.1; do
    runtimes+=("$(find "$ARM_ROOT"/lib "$ARM_ROOT"/usr/lib -name "$library" | head -1)")
  done
  for variant in cpu cuda; do
    library="$work/unpacked/hardsigmoid_ops/releases/torch$release-$variant/lib/libhardsigmoid_ops.so"
    [[ -f "$library" ]] || { echo "the wheel holds no $library"; exit 1; }
    providers=("$site"/torch/lib/*.so* "${runtimes[@]}")
    [[ "$variant" == cpu ]] || providers+=("$site"/nvidia/cu*/lib/libcudart.so.*)
    count="$(aarch64-linux-gnu-nm -D --undefined-only "$library" | grep -c ' U ')"
    missing="$(comm -23 \
      <(aarch64-linux-gnu-nm -D --undefined-only "$library" | awk '$1 == "U" {print $2}' |
        sed 's/@.*//' | sort -u) \
      <(for provider in "${providers[@]}"; do aarch64-linux-gnu-nm -D --defined-only "$provider"; done |
        awk '{print $3}' | sed 's/@.*//' | sort -u))"
    if [[ -n "$missing" || "$count" == 0 ]]; then
      echo "$library: undefined, and defined by none of ${providers[*]}:"
      echo "$missing" | head -20
      exit 1
    fi
    echo "-- torch$release-$variant: every undefined symbol ($count) defined by torch $2's" \
      "libraries$([[ "$variant" == cpu ]] || echo ", its CUDA runtime") or the C and C++ runtimes"
  done
}

# A C++ program against the installed package's CMake package (find_package(HardsigmoidOps)),
# cross-built as a user on Grace builds it natively, and run under qemu. torch's CMake wants a
# CUDA toolkit for its CUDA build: the one the aarch64 CUDA library was built with. $1 the
# torch's site, $2 its version.
cpp_consumer_check() {
  local site="$1" build="$work/consumer-$2" toolkit
  local package="$work/env-$2/lib/python3.11/site-packages/hardsigmoid_ops"
  toolkit="$(aarch64_cuda_toolkit "$CACHE")" || exit 1
  if ! { HARDSIGMOID_OPS_AARCH64_CUDA_TOOLKIT="$toolkit" cmake -S "$ROOT/cpp_tests/downstream_package" \
    -B "$build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/toolchains/aarch64-linux-gnu.cmake" \
    -DCMAKE_PREFIX_PATH="$package;$site/torch/share/cmake" &&
    cmake --build "$build"; } >"$build.log" 2>&1; then
    tail -30 "$build.log"
    exit 1
  fi
  # find_package gave the CUDA torch its release's CUDA library.
  local linked
  linked="$(aarch64-linux-gnu-readelf -d "$build/consumer" | grep -oE 'releases/torch[^/]+' |
    sort -u || true)"
  if [[ "$linked" != "releases/torch$(cut -d. -f1,2 <<<"$2")-cuda" ]]; then
    echo "the C++ program links '$linked', not the CUDA library of torch $2"
    exit 1
  fi
  echo "   the C++ program, cross-built against the CUDA torch, links $linked"
  "$QEMU_BACKPORTS" -L "$ARM_ROOT" "$build/consumer"
}

for torch_version in "${torch_versions[@]}"; do
  # The release's aarch64 torch with its dependencies: the pinned release's is aarch64_check.sh's.
  sites=("$CACHE"/site-torch-"$torch_version"-*)
  if [[ -d "${sites[0]}/torch" ]]; then
    site="${sites[0]}"
  else
    site="$CACHE/check-site-torch-$torch_version"
    [[ -d "$site/torch" ]] || with_retries aarch64_install "$site" "torch==$torch_version" numpy
  fi
  undefined_symbols_check "$site" "$torch_version"
  env="$work/env-$torch_version"
  aarch64_env "$env" "$site"
  before="$(installed "$env")"
  for installer in pip uv; do
    if [[ "$installer" == pip ]]; then
      "$env/bin/python" -m pip install -q --extra-index-url "$LOCAL_INDEX_URL" hardsigmoid_ops
    else
      "$UV" pip uninstall -q --python "$env/bin/python" hardsigmoid_ops
      "$UV" pip install -q --python "$env/bin/python" --extra-index-url "$LOCAL_INDEX_URL" \
        hardsigmoid_ops
    fi
    added="$(comm -13 <(echo "$before") <(installed "$env"))"
    if [[ "$(comm -23 <(echo "$before") <(installed "$env"))" != "" ||
      "$added" != "./hardsigmoid_ops-$version.dist-info" ]]; then
      diff <(echo "$before") <(installed "$env") || true
      echo "$installer changed the environment beyond hardsigmoid_ops"
      exit 1
    fi
    echo "-- $installer install hardsigmoid_ops from the index beside torch $torch_version:" \
      "only the package added"
    (cd "$work/elsewhere" && QEMU_CPU=max "$QEMU_BACKPORTS" "$env/bin/python" check_wheel.py "$@" |
      tee "$work/check-$torch_version-$installer.json")
  done
  # The library without CUDA, for an aarch64 torch without CUDA (PyPI serves none for 2.11 -
  # 2.15): the stand-in, this torch with torch.version.cuda None, must load it and get its bits.
  echo "-- the stand-in for a torch without CUDA (torch.version.cuda None):"
  (cd "$work/elsewhere" && QEMU_CPU=max "$QEMU_BACKPORTS" "$env/bin/python" check_wheel.py \
    --as-torch-without-cuda "$@" | tee "$work/check-$torch_version-without-cuda.json" |
    grep -E '"(library|comparisons_equal_to_aten)"')
  cpp_consumer_check "$site" "$torch_version"
  echo "-- $name: installed for aarch64 CPython 3.11, checked with torch $torch_version under" \
    "$("$QEMU_BACKPORTS" --version | head -1) (DEFAULT)"
done
