#!/usr/bin/env bash
# The release wheels and sdist installed as a user of a package index installs them: DIST's files
# checked as an index checks an upload (twine check --strict), served as PEP 503 "simple" pages by
# a web server on 127.0.0.1 (scripts/release/local_index.sh), and installed with nothing but that
# index added to the one pip and uv already use (PyPI, which serves torch):
#
#   bash scripts/release/check_index_install.sh DIST [TORCH_VERSION...]   (default: every supported release)
#
# For each TORCH_VERSION, in a fresh virtual environment where that torch is installed first:
#   - `pip install --extra-index-url URL hardsigmoid_ops` installs, `pip freeze` is the same before
#     and after but for hardsigmoid_ops, scripts/release/check_wheel.py gives aten's bits with no compiler
#     reachable, and a C++ program built against the installed CMake package gives them too
#     (cpp_tests/downstream_package);
#   - the same with `uv pip install`, the package uninstalled in between.
# Then, in a fresh environment with no torch, pip and uv each bring a torch of the wheel's range,
# and the package works there. The sdist built by pip: beside the first TORCH_VERSION's torch
# with --no-build-isolation (torch kept), and with pip's build isolation in an environment with no
# torch (HARDSIGMOID_OPS_CHECK_SDIST_BUILDS=0 leaves both out: two CUDA builds, CI's time). Beside each release's torch, the stand-in for a torch without CUDA
# (PyPI serves none): check_cpu_stand_in below. Last, beside a torch outside the range (PyPI's
# torch 2.10.0, and a stand-in named torch 2.16.0, a release newer than the range,
# scripts/release/stand_in_wheel.py: pip and uv read only its metadata), the documented command that
# keeps torch (docs/install.md)
#   pip install --extra-index-url URL hardsigmoid_ops "torch==<installed version>"
# refuses before installing anything, and the plain command's plan (--dry-run) is recorded: it
# replaces torch with the newest release of the range.
# The x86-64 wheel is what this runs (this machine's); the aarch64 wheel is checked under
# emulation by scripts/release/check_wheel.sh. Logs in build-wheels/index-check.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$ROOT/scripts/downloads.sh"
source "$ROOT/scripts/torch_releases.sh"
source "$ROOT/scripts/release/local_index.sh"
DIST="$(realpath "$1")"
shift
versions=("$@")
((${#versions[@]})) || versions=("${SUPPORTED_TORCH_RELEASES[@]}")
WORK="${WHEEL_BUILD_DIR:-$ROOT/build-wheels}/index-check"
# The releases on either side of the supported range.
oldest="${SUPPORTED_TORCH_RELEASES[0]}"
newest="${SUPPORTED_TORCH_RELEASES[-1]}"
OLDER="${oldest%%.*}.$(( $(cut -d. -f2 <<<"$oldest") - 1 )).0"
NEWER="${newest%%.*}.$(( $(cut -d. -f2 <<<"$newest") + 1 )).0"
mkdir -p "$WORK"

# uv and twine at fixed versions, in a tools environment of their own.
TOOLS="$WORK/tools-venv"
tools_venv "$TOOLS" "uv==$UV_VERSION" twine==7.0.0
UV="$TOOLS/bin/uv"

echo "== twine check --strict"
"$TOOLS/bin/twine" check --strict "$DIST"/*.whl "$DIST"/*.tar.gz

echo "== the index"
serve_local_index "$DIST" "$WORK"
URL="$LOCAL_INDEX_URL"
echo "serving $DIST at $URL"

# A fresh environment (uv's, with pip in it): $1 its folder.
fresh_env() {
  rm -rf "$1"
  "$UV" venv -q --seed --python "$(command -v python3)" "$1"
}
freeze() { "$1/bin/python" -m pip freeze --all | grep -viE '^(hardsigmoid.ops|pip|setuptools|wheel)[= ]' || true; }
torch_of() { "$1/bin/python" -c 'import importlib.metadata as m; print(m.version("torch"))'; }

# check_wheel.py from outside the source tree, with nothing but the environment's programs on
# PATH; then the C++ program against the installed CMake package, the compiler back. $1 the
# environment, $2 a name for the logs; more arguments go to check_wheel.py, and then no C++
# program is built.
check_installed() {
  local env="$1" name="$2"
  shift 2
  mkdir -p "$WORK/elsewhere"
  cp "$ROOT/scripts/release/check_wheel.py" "$WORK/elsewhere/"
  (cd "$WORK/elsewhere" && env -i HOME="$HOME" PATH="$env/bin" "$env/bin/python" check_wheel.py \
    "$@" >"$WORK/check-$name.json") || { cat "$WORK/check-$name.json"; return 1; }
  grep -E '"(wheel_version|torch|library|comparisons_equal_to_aten)"' "$WORK/check-$name.json"
  (($# == 0)) || return 0
  local prefix
  prefix="$("$env/bin/python" -c 'import hardsigmoid_ops, torch
print(hardsigmoid_ops.cmake_prefix_path + ";" + torch.utils.cmake_prefix_path)')"
  if ! { cmake -S "$ROOT/cpp_tests/downstream_package" -B "$WORK/consumer-$name" -G Ninja \
    -DCMAKE_PREFIX_PATH="$prefix" && cmake --build "$WORK/consumer-$name"; } \
    >"$WORK/consumer-$name.log" 2>&1; then
    tail -30 "$WORK/consumer-$name.log"
    return 1
  fi
  "$WORK/consumer-$name/consumer"
}

# The install into an environment holding torch: torch unchanged, the package checked. $1 the
# environment, $2 the installer (pip or uv), $3 a name for the logs.
install_beside_torch() {
  local env="$1" installer="$2" name="$3" before after
  before="$(freeze "$env")"
  echo "-- $installer install hardsigmoid_ops, torch $(torch_of "$env") installed"
  if [[ "$installer" == pip ]]; then
    "$env/bin/python" -m pip install -q --extra-index-url "$URL" hardsigmoid_ops
  else
    "$UV" pip install -q --python "$env/bin/python" --extra-index-url "$URL" hardsigmoid_ops
  fi
  after="$(freeze "$env")"
  if [[ "$before" != "$after" ]]; then
    diff <(echo "$before") <(echo "$after") || true
    echo "$installer changed the environment beyond hardsigmoid_ops"
    return 1
  fi
  echo "pip freeze: the same before and after, but for hardsigmoid_ops"
  check_installed "$env" "$name"
}

# The stand-in for a torch without CUDA (no +cpu torch is on PyPI): the release's build without
# CUDA must need no CUDA library (its NEEDED entries, and none of its undefined symbols defined by
# torch's CUDA libraries and not by its CPU ones), and check_wheel.py --as-torch-without-cuda
# (torch.version.cuda None) must load it and get aten's bits from it. $1 the environment, $2 the
# torch version.
check_cpu_stand_in() {
  local env="$1" version="$2" site library needed cuda_only wanted overlap
  site="$("$env/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  library="$site/hardsigmoid_ops/releases/torch${version%.*}-cpu/lib/libhardsigmoid_ops.so"
  needed="$(readelf -d "$library" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | xargs)"
  if grep -qiE 'cuda|nvrtc|cublas|cudnn|nvidia' <<<"$needed"; then
    echo "the build without CUDA needs $needed"
    return 1
  fi
  symbols() { nm -D "--$1-only" "${@:2}" | awk 'NF {print $NF}' | sort -u; }
  cuda_only="$(comm -23 <(symbols defined "$site"/torch/lib/lib{torch_cuda,c10_cuda}.so) \
    <(symbols defined "$site"/torch/lib/lib{torch_cpu,c10,torch}.so))"
  wanted="$(symbols undefined "$library")"
  overlap="$(comm -12 <(echo "$cuda_only") <(echo "$wanted"))"
  if [[ -n "$overlap" ]]; then
    echo "the build without CUDA wants symbols of torch's CUDA libraries: $overlap"
    return 1
  fi
  echo "-- torch${version%.*}-cpu needs $needed; none of its $(wc -l <<<"$wanted") undefined" \
    "symbols is torch's CUDA libraries' alone"
  check_installed "$env" "$version-as-cpu" --as-torch-without-cuda
}

for version in "${versions[@]}"; do
  echo "== torch $version"
  env="$WORK/env-$version"
  fresh_env "$env"
  with_retries "$UV" pip install -q --python "$env/bin/python" "torch==$version"
  install_beside_torch "$env" pip "$version-pip"
  check_cpu_stand_in "$env" "$version"
  "$env/bin/python" -m pip uninstall -q -y hardsigmoid_ops
  install_beside_torch "$env" uv "$version-uv"
  rm -rf "$env"  # some 5 GB a release
done

echo "== no torch installed"
for installer in pip uv; do
  env="$WORK/env-no-torch-$installer"
  fresh_env "$env"
  if [[ "$installer" == pip ]]; then
    with_retries "$env/bin/python" -m pip install -q --extra-index-url "$URL" hardsigmoid_ops
  else
    with_retries "$UV" pip install -q --python "$env/bin/python" --extra-index-url "$URL" \
      hardsigmoid_ops
  fi
  echo "-- $installer brought torch $(torch_of "$env")"
  check_installed "$env" "no-torch-$installer"
  rm -rf "$env"  # some 5 GB
done

# The sdist, as pip builds it where no wheel serves a platform (docs/install.md, "From source"),
# with nvcc where the system has it (CUDA kernels for the default architecture): $1 the
# environment, $2 how (beside: pip's --no-build-isolation against the torch installed, which
# stays; isolated: pip's own build environment, whose torch must come from the supported range).
# The built package must require its build's torch release and pass `python -m hardsigmoid_ops`.
check_sdist() {
  # --no-cache-dir: pip reuses a wheel it built from the same sdist before, whatever torch it was
  # built against (docs/install.md).
  local env="$1" how="$2" before built options=(--no-cache-dir --no-binary hardsigmoid_ops)
  [[ "$how" == beside ]] && options+=(--no-build-isolation)
  before="$(freeze "$env")"
  echo "-- pip builds the sdist ($how), torch $(torch_of "$env" 2>/dev/null || echo none) installed"
  "$env/bin/python" -m pip install -q "${options[@]}" --extra-index-url "$URL" hardsigmoid_ops \
    >"$WORK/sdist-$how.log" 2>&1 || { tail -30 "$WORK/sdist-$how.log"; return 1; }
  if [[ "$how" == beside && "$(freeze "$env")" != "$before" ]]; then
    diff <(echo "$before") <(freeze "$env") || true
    echo "pip changed the environment beyond hardsigmoid_ops"
    return 1
  fi
  built="$("$env/bin/python" -c 'import hardsigmoid_ops, importlib.metadata as m
print(hardsigmoid_ops.build_info()["torch_version"], *m.requires("hardsigmoid_ops"))')"
  echo "   built against torch ${built%% *}, requires ${built#* }; the installed torch:" \
    "$(torch_of "$env")"
  [[ "${built#* }" == "torch==$(cut -d. -f1,2 <<<"${built%% *}").*" ]] ||
    { echo "the sdist's build requires ${built#* }"; return 1; }
  (cd "$WORK/elsewhere" && env -i HOME="$HOME" PATH="$env/bin" "$env/bin/python" -m \
    hardsigmoid_ops >"$WORK/sdist-$how-check.txt" 2>&1) ||
    { cat "$WORK/sdist-$how-check.txt"; return 1; }
  grep -iE "^(library|torch)" "$WORK/sdist-$how-check.txt" | head -3 || true
}

if [[ "${HARDSIGMOID_OPS_CHECK_SDIST_BUILDS:-1}" != 0 ]]; then
  echo "== the sdist"
  env="$WORK/env-sdist-beside"
  fresh_env "$env"
  with_retries "$UV" pip install -q --python "$env/bin/python" "torch==${versions[0]}" \
    "scikit-build-core==$(sed -n 's/^scikit-build-core==//p' "$ROOT/requirements.txt")"
  check_sdist "$env" beside
  rm -rf "$env"
  env="$WORK/env-sdist-isolated"
  fresh_env "$env"
  check_sdist "$env" isolated
  rm -rf "$env"
fi

# An installer's answer rather than the network's, for with_retries (scripts/downloads.sh): CMD...
# runs, its output in $1, and counts as answered where it succeeds or its output matches $2. pip
# downloads torch's wheels (hundreds of megabytes) while it resolves, before it refuses: a download
# cut there fails the command as a refusal does, and its log says "because" too. ANSWER_STATUS
# holds the command's exit status.
answered() {
  local log="$1" pattern="$2"
  shift 2
  ANSWER_STATUS=0
  "$@" >"$log" 2>&1 || ANSWER_STATUS=$?
  ((ANSWER_STATUS == 0)) || grep -qiE "$pattern" "$log"
}

echo "== a torch outside the range"
mkdir -p "$WORK/stand-ins"
"$TOOLS/bin/python" "$ROOT/scripts/release/stand_in_wheel.py" "$WORK/stand-ins" torch "$NEWER"
for outside in "$OLDER" "$NEWER"; do
  env="$WORK/env-outside-$outside"
  fresh_env "$env"
  if [[ "$outside" == "$OLDER" ]]; then
    with_retries "$UV" pip install -q --python "$env/bin/python" "torch==$outside"
  else
    "$env/bin/python" -m pip install -q --no-index --find-links "$WORK/stand-ins" "torch==$outside"
  fi
  before="$(freeze "$env")"
  for installer in pip uv; do
    log="$WORK/refusal-$outside-$installer.log"
    if [[ "$installer" == pip ]]; then
      refused=("$env/bin/python" -m pip install --extra-index-url "$URL" hardsigmoid_ops
        "torch==$outside")
      plain=("$env/bin/python" -m pip install --dry-run --extra-index-url "$URL" hardsigmoid_ops)
    else
      refused=("$UV" pip install --python "$env/bin/python" --extra-index-url "$URL"
        hardsigmoid_ops "torch==$outside")
      plain=("$UV" pip install --dry-run --python "$env/bin/python" --extra-index-url "$URL"
        hardsigmoid_ops)
    fi
    refusal="conflict|cannot install|unsatisfiable|no solution"
    with_retries answered "$log" "$refusal" "${refused[@]}" || { tail -20 "$log"; exit 1; }
    # A refusal: the installer failed, over torch's version (not a package the index lacks), and
    # installed nothing.
    if ((ANSWER_STATUS == 0)) || ! grep -qiE "$refusal" "$log" ||
      ! grep -qE "torch(==$outside|>=2)" "$log" ||
      "$env/bin/python" -m pip show -q hardsigmoid_ops >/dev/null 2>&1; then
      cat "$log"
      echo "$installer did not refuse hardsigmoid_ops over torch $outside (exit $ANSWER_STATUS)"
      exit 1
    fi
    [[ "$(freeze "$env")" == "$before" ]] || { echo "$installer changed the environment"; exit 1; }
    echo "-- $installer, torch $outside kept: refused, environment unchanged:"
    grep -iE "$refusal|because" "$log" | head -4
    plan="$WORK/plain-$outside-$installer.log"
    would="^Would install|^ [-+] torch=="
    with_retries answered "$plan" "$would" "${plain[@]}" || { tail -20 "$plan"; exit 1; }
    echo "   the plain command would (--dry-run):"
    if ! grep -E "$would" "$plan" | sed -E 's/^(Would install) .*(torch-[^ ]*).*/\1 \2 .../; s/^/     /'; then
      tail -20 "$plan"
      echo "$installer's dry run named no install (the log above)"
      exit 1
    fi
  done
  rm -rf "$env"
done
echo "-- every install from the index checked"
