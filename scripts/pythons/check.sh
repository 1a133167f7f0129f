#!/usr/bin/env bash
# One cell of the Python matrix (scripts/pythons_check.sh): in the root that holds Python PY
# (cell.sh, run there), an
# environment of PyPI's torch TORCH and the test tools (made once, by uv, from a cache in the
# root), the release wheel installed beside them (pip freeze the same before and after but for the
# package), then the wheel's check (scripts/release/check_wheel.py: aten's bits for every op, dtype and
# layout, quantized), `python -m hardsigmoid_ops`, and the pytest modules of the Python entry
# points against the installed package (not with PYTHONS_PYTEST=0). Logs and the pytest report go
# to OUTDIR/PY-torchTORCH.
#   bash scripts/pythons/check.sh OUTDIR PY TORCH WHEEL
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/environment.sh"
OUTDIR="$(mkdir -p "$1" && cd "$1" && pwd)"
PY="$2" TORCH="$3" WHEEL="$(realpath "$4")"
CELL="$PY-torch$TORCH"
rm -rf "${OUTDIR:?}/$CELL"  # no earlier run's report read as this one's
mkdir -p "$OUTDIR/$CELL"
root="$(root_of "$PY")" || exit 2
python="$(python_of "$PY")"
[[ -x "$root$python" ]] || { echo "$CELL: not run: no $python in $root" | tee "$OUTDIR/$CELL/result.txt"; exit 3; }

# The test tools at the versions requirements.txt pins where they have a wheel for this Python,
# else the oldest release after the pin that has one (uv's lowest resolution, wheels only).
tools=()
for tool in numpy pytest pytest-xdist expecttest hypothesis; do tools+=("$tool>=$(pinned "$tool")"); done
# The tools some modules need and skip without, saying so; each group ("RESOLUTION TOOL...",
# uv's resolution strategy first) installed beside the cell's torch where it has wheels for this
# Python (ONNX Runtime has none for 3.15): torchvision's models, its newest release that takes
# this torch (torchvision's requirement on torch is a lower bound: its lowest would be another
# release's), and the ONNX tools as the test tools above.
onnx_tools=()
for tool in onnx onnxscript onnxruntime; do onnx_tools+=("$tool>=$(pinned "$tool")"); done
optional=("highest torchvision" "lowest-direct ${onnx_tools[*]}")

# The pytest modules of the Python entry points: eager calls and the package's API, autograd and
# torch.func, TorchScript, torch.compile (fused and opaque), export, DTensor on CPU ranks, ONNX,
# threads.
MODULES=(test_load.py test_package_api.py test_matches_aten.py test_autograd.py
  test_inplace_autograd.py test_forward_ad.py test_func_transforms.py test_vmap.py
  test_torchscript.py test_compile.py test_compile_fusion.py test_export.py test_dtensor.py
  test_onnx_export.py test_concurrency.py test_package_threads.py)

DIST="$(dirname "$WHEEL")" OUT_MOUNT="$OUTDIR/$CELL" in_root "$root" \
  bash /src/scripts/pythons/cell.sh "$python" "$TORCH" "$(basename "$WHEEL")" \
  "${PYTHONS_PYTEST:-1}" "${tools[*]}" "${MODULES[*]}" "${optional[@]}" 2>&1 | tee "$OUTDIR/$CELL/run.log"
status=${PIPESTATUS[0]}
echo "$CELL: $([[ $status == 0 ]] && echo passed || echo FAILED)" | tee "$OUTDIR/$CELL/result.txt"
exit "$status"
