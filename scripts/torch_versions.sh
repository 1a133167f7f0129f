#!/usr/bin/env bash
# Builds and tests the library against each torch release it supports (docs/torch_releases.md).
# Per release: a virtual environment of its own, the build (the CUDA sources compiled
# too where nvcc is found), the GoogleTest cases in one process, the other CTest entries, pytest
# (CUDA cases skip without a GPU), and the package's refusal of a library built against another
# release. Then a table, release by suite, of passed / failed / skipped with the skip reasons, and
# one of the seconds each phase took. pytest runs on every core (pytest-xdist; PYTEST_WORKERS=N).
# Each release's run starts with an empty inductor cache of its own.
#   bash scripts/torch_versions.sh [--environments] [VERSION...]   (default: every supported release)
#   PYTEST_ARGS='-k "matches_aten"' bash scripts/torch_versions.sh 2.15.0   (a subset of pytest)
# The pinned release (requirements.txt) uses the project's .venv (scripts/setup.sh); the others
# .venvs/torch-VERSION, created on first use (about 2.7 GB of wheels each). Build trees:
# build-torch-VERSION. Reports: build-torch-versions/ (summary.md, and each suite's JUnit XML and
# log). Exits non-zero when any suite of any release failed.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/compile_cache.sh"
source "$ROOT/scripts/downloads.sh"
OUT="${TORCH_VERSIONS_OUT:-$ROOT/build-torch-versions}"
PINNED="$(sed -n 's/^torch==//p' "$ROOT/requirements.txt")"
source "$ROOT/scripts/torch_releases.sh"
SUPPORTED=("${SUPPORTED_TORCH_RELEASES[@]}")
environments_only=0
[[ "${1:-}" == --environments ]] && environments_only=1 && shift
versions=("$@")
((${#versions[@]})) || versions=("${SUPPORTED[@]}")
mkdir -p "$OUT"

# The torchvision built for each release (the tests run its MobileNetV3).
torchvision_for() {
  case "$1" in
    2.11.*) echo 0.26.0 ;;
    2.12.*) echo 0.27.1 ;;
    2.13.*) echo 0.28.0 ;;
    2.14.*) echo 0.29.1 ;;
    2.15.*) echo 0.29.2 ;;  # torchvision's stable-ABI build, for torch 2.14 and later
    *) return 1 ;;
  esac
}

# Whether ExecuTorch (requirements-executorch.txt) runs with the release: its 1.5.1 runtime fails
# on every model with torch 2.11; with 2.15 it exports, lowers and runs (test_executorch.py).
executorch_runs_with() {
  case "$1" in
    2.15.*) return 0 ;;
    *) return 1 ;;
  esac
}

# The virtual environment of a release, created or completed when its requirements change:
# requirements.txt's test tools with this torch and its torchvision (not matplotlib: no plots),
# and ExecuTorch where it runs (installed without its dependencies: requirements-executorch.txt).
venv_for() {
  local version="$1" venv
  if [[ "$version" == "$PINNED" ]]; then
    bash "$ROOT/scripts/setup.sh" >&2 || return 1
    echo "$ROOT/.venv"
    return
  fi
  venv="$ROOT/.venvs/torch-$version"
  local requirements
  requirements="$(grep -vE '^(#|torch==|torchvision==|matplotlib==)' "$ROOT/requirements.txt" | grep .)
torch==$version
torchvision==$(torchvision_for "$version")"
  local executorch=""
  executorch_runs_with "$version" &&
    executorch="$(grep -vE '^#' "$ROOT/requirements-executorch.txt" | grep .)"
  local stamp="$venv/.requirements.sha256"
  if ! stamp_matches "$stamp" "$requirements$executorch"; then
    echo "torch_versions: installing torch $version into $venv" >&2
    [[ -x "$venv/bin/python" ]] || python3 -m venv "$venv" || return 1
    with_retries "$venv/bin/python" -m pip install -q --upgrade pip >&2 || return 1
    local packages
    mapfile -t packages <<<"$requirements"
    with_retries "$venv/bin/python" -m pip install -q "${packages[@]}" >&2 || return 1
    if [[ -n "$executorch" ]]; then
      mapfile -t packages <<<"$executorch"
      with_retries "$venv/bin/python" -m pip install -q --no-deps "${packages[@]}" >&2 || return 1
    fi
    write_stamp "$stamp" "$requirements$executorch"
  fi
  echo "$venv"
}

# --environments: only create (or complete) the releases' virtual environments (pip's output
# on stderr); CI does it for the newest release while the pinned one's tests run.
if ((environments_only)); then
  for version in "${versions[@]}"; do
    torchvision_for "$version" >/dev/null && venv_for "$version" >/dev/null || exit 1
  done
  exit 0
fi

# "passed failed skipped" from a JUnit XML file (CTest's and pytest's), and the skip reasons,
# counted, one "count × reason" a line.
junit_counts() { python3 "$ROOT/scripts/tools/junit_counts.py" "$1"; }

declare -A result seconds
record() {  # version suite "passed failed skipped" [reasons file]
  result["$1/$2"]="$3"
  seconds["$1/$2"]=$((SECONDS - phase_start))
  echo "-- torch $1, $2: $3 (${seconds[$1/$2]} s)"
  phase_start=$SECONDS
  if [[ -n "${4:-}" && -s "$4" ]]; then
    { echo "- torch $1, $2 skips:"; sed 's/^/  - /' "$4"; } >>"$OUT/skips.md"
  fi
}
: >"$OUT/skips.md"
status=0

# Records a suite from its JUnit XML file ($3.xml), or that it did not run ($3.log says why).
suite_counts() {  # version suite path-without-extension
  if [[ -f "$3.xml" ]]; then
    junit_counts "$3.xml" >"$3.counts"
    tail -n +2 "$3.counts" >"$3.skips"
    record "$1" "$2" "$(head -1 "$3.counts")" "$3.skips"
  else
    record "$1" "$2" "did not run ($3.log)"
  fi
}

for version in "${versions[@]}"; do
  echo "== torch $version"
  phase_start=$SECONDS
  log="$OUT/torch-$version"
  build="$ROOT/build-torch-$version"
  rm -rf "$log"-*
  export TORCHINDUCTOR_CACHE_DIR="$log-inductor-cache"
  if ! torchvision_for "$version" >/dev/null; then
    echo "torch_versions: $version is not a supported release (${SUPPORTED[*]})" >&2
    record "$version" build "not supported"
    status=1
    continue
  fi
  if ! venv="$(venv_for "$version" 2>"$log-setup.log")"; then
    tail -5 "$log-setup.log"
    record "$version" build "environment failed ($log-setup.log)"
    status=1
    continue
  fi
  # Not the studies: no test runs them (scripts/gpu_check.sh builds them where they are measured).
  if ! HARDSIGMOID_OPS_VENV="$venv" BUILD_DIR="$build" bash "$ROOT/scripts/build.sh" \
    -DHARDSIGMOID_OPS_BUILD_STUDIES=OFF >"$log-build.log" 2>&1; then
    tail -20 "$log-build.log"
    record "$version" build "failed ($log-build.log)"
    status=1
    continue
  fi
  # Warnings from the project's own sources (torch's headers' are not ours to fix).
  own_warnings="$(grep -E "^($ROOT/)?(ops|registration|cpp_tests|benchmarks|torchscript_examples|export_examples|executorch_kernels|executorch_examples)/[^:]*:[0-9]+:[0-9]+: warning" "$log-build.log" | sort -u | wc -l)"
  record "$version" build "built, $own_warnings warnings of its own"
  [[ "$own_warnings" == 0 ]] || status=1

  # The GoogleTest cases in one process (CTest would start one per case: minutes of loading
  # libtorch), then CTest for the rest (the per-capability reruns, the TorchScript, AOTI and
  # installed-package round trips, the benchmark smoke test).
  "$build/cpp_tests/hardsigmoid_ops_tests" --gtest_brief=1 --gtest_output="xml:$log-gtest.xml" \
    >"$log-gtest.log" 2>&1 || status=1
  suite_counts "$version" GoogleTest "$log-gtest"
  ctest --test-dir "$build" --parallel "$(nproc)" --label-exclude googletest \
    --output-junit "$log-ctest.xml" >"$log-ctest.log" 2>&1 || status=1
  suite_counts "$version" CTest "$log-ctest"

  (
    cd "$ROOT" && export HARDSIGMOID_OPS_LIBRARY="$build/libhardsigmoid_ops.so" &&
      args="$(python3 "$ROOT/scripts/tools/shell_words.py" "${PYTEST_ARGS:-}")" &&
      extra=() && { [[ -z "$args" ]] || mapfile -t extra <<<"$args"; } &&
      "$venv/bin/python" -m pytest python_tests -q -rfEs -p no:cacheprovider --durations=15 \
        -n "${PYTEST_WORKERS:-$(nproc)}" --dist worksteal --junitxml="$log-pytest.xml" \
        "${extra[@]}"
  ) >"$log-pytest.log" 2>&1 || status=1
  suite_counts "$version" pytest "$log-pytest"

  # The library just built, named to the package in the pinned release's Python (or, for the
  # pinned release, in the first other one set up): importing the package must refuse it by name,
  # not fail in the dynamic loader.
  other_python="$ROOT/.venv/bin/python"
  if [[ "$version" == "$PINNED" ]]; then
    other_python=""
    for v in "${SUPPORTED[@]}"; do
      [[ "$v" != "$PINNED" && -x "$ROOT/.venvs/torch-$v/bin/python" ]] && {
        other_python="$ROOT/.venvs/torch-$v/bin/python"
        break
      }
    done
  fi
  if [[ -z "$other_python" || ! -x "$other_python" ]]; then
    record "$version" refusal "skipped: no other release set up to load it in"
  elif (cd "$ROOT" && PYTHONPATH="$ROOT/python" HARDSIGMOID_OPS_LIBRARY="$build/libhardsigmoid_ops.so" \
    "$other_python" "$ROOT/scripts/tools/check_refusal.py" "$version" >"$log-refusal.log" 2>&1
  ); then
    record "$version" refusal "passed (loaded in torch $("$other_python" -c 'import torch; print(torch.__version__)' 2>/dev/null))"
  else
    record "$version" refusal "failed ($log-refusal.log)"
    status=1
  fi
done

{
  echo "| torch | build | GoogleTest | CTest, the rest | pytest | refusal in another torch |"
  echo "|---|---|---|---|---|---|"
  for version in "${versions[@]}"; do
    echo "| $version | ${result[$version/build]:-} | ${result[$version/GoogleTest]:-not run} | ${result[$version/CTest]:-not run} | ${result[$version/pytest]:-not run} | ${result[$version/refusal]:-not run} |"
  done
  echo
  echo "Counts are passed / failed / skipped."
  echo
  echo "| torch | seconds: setup and build | GoogleTest | CTest, the rest | pytest | refusal |"
  echo "|---|---|---|---|---|---|"
  for version in "${versions[@]}"; do
    echo "| $version | ${seconds[$version/build]:-} | ${seconds[$version/GoogleTest]:-} | ${seconds[$version/CTest]:-} | ${seconds[$version/pytest]:-} | ${seconds[$version/refusal]:-} |"
  done
  echo
  cat "$OUT/skips.md"
} >"$OUT/summary.md"
cat "$OUT/summary.md"
exit "$status"
