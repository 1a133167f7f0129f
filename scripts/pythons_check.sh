#!/usr/bin/env bash
# The release wheel on every CPython torch's wheels serve beyond this machine's 3.11: in Debian
# roots (trixie: 3.13; unstable: 3.14, 3.15, and 3.14 built with --disable-gil where Debian's
# source can be fetched), beside PyPI's torch for that Python, the oldest and the newest supported
# release where PyPI has the wheel (scripts/pythons/environment.sh's MATRIX): the wheel's check,
# `python -m hardsigmoid_ops` and the pytest modules of the Python entry points
# (scripts/pythons/check.sh). A table of the cells, with pytest's counts, ends the output and
# OUTDIR/summary.md.
#   bash scripts/pythons_check.sh [--wheel-only] WHEEL [PYTHON:TORCH...]
#     WHEEL: the x86-64 release wheel (scripts/release/build_wheels.sh)
#     --wheel-only: the wheel's check and `python -m hardsigmoid_ops`, no pytest (CI's part)
#   PYTHONS_OUT_DIR=DIR   where the logs go (default build-pythons)
# As root: mmdebstrap, chroot and the mounts need it.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/pythons/environment.sh"
if [[ $(id -u) -ne 0 ]]; then
  echo "pythons_check.sh: run as root (mmdebstrap, chroot and mount need it)" >&2
  exit 2
fi
export PYTHONS_PYTEST=1
if [[ "${1:-}" == --wheel-only ]]; then
  PYTHONS_PYTEST=0
  shift
fi
WHEEL="$(realpath "$1")"
shift
cells=("$@")
named=$((${#cells[@]} > 0))  # a cell asked for by name must run
for cell in "${cells[@]}"; do
  [[ "$cell" =~ ^3\.[0-9]+t?:[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
    { echo "pythons_check.sh: '$cell' is not PYTHON:TORCH (one wheel, then cells)" >&2; exit 2; }
done
if ((${#cells[@]} == 0)); then
  for pair in "${MATRIX[@]}"; do cells+=("${pair/ /:}"); done
fi
OUTDIR="${PYTHONS_OUT_DIR:-$ROOT/build-pythons}"
mkdir -p "$OUTDIR"
pythons=()
for cell in "${cells[@]}"; do pythons+=("${cell%%:*}"); done
phase "setup"
bash "$ROOT/scripts/pythons/setup.sh" "${pythons[@]}" || exit 1

status=0
summary="$OUTDIR/summary.md"
echo "| Python | torch | result | pytest passed / failed / skipped |" >"$summary"
echo "|---|---|---|---|" >>"$summary"
for cell in "${cells[@]}"; do
  python="${cell%%:*}" torch="${cell#*:}"
  phase "Python $python, torch $torch"
  start=$SECONDS
  bash "$ROOT/scripts/pythons/check.sh" "$OUTDIR" "$python" "$torch" "$WHEEL"
  code=$?
  case $code in
    0) result="passed" ;;
    3)
      result="not run: no such Python here"
      ((named)) && status=1
      ;;
    *) result="FAILED"; status=1 ;;
  esac
  counts="-"
  xml="$OUTDIR/$python-torch$torch/pytest.xml"
  if [[ "$PYTHONS_PYTEST" == 1 && -f "$xml" ]]; then
    counts="$(python3 "$ROOT/scripts/tools/junit_counts.py" "$xml" | head -1 | tr ' ' '/')"
  fi
  echo "| $python | $torch | $result ($((SECONDS - start)) s) | $counts |" >>"$summary"
done
cat "$summary"
exit $status
