#!/usr/bin/env bash
# One cell of the Python matrix (scripts/pythons_check.sh): in the root that holds Python PY, an
# environment of PyPI's torch TORCH and the test tools (made once, by uv, from a cache in the
# root), the release wheel installed beside them (pip freeze the same before and after but for the
# package), then the wheel's check (scripts/check_wheel.py: aten's bits for every op, dtype and
# layout, quantized), `python -m hardsigmoid_ops`, and the pytest modules of the Python entry
# points against the installed package (not with PYTHONS_PYTEST=0). Logs and the pytest report go
# to OUTDIR/PY-torchTORCH.
#   bash scripts/pythons/check.sh OUTDIR PY TORCH WHEEL
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/environment.sh"
OUTDIR="$(mkdir -p "$1" && cd "$1" && pwd)"
PY="$2" TORCH="$3" WHEEL="$(realpath "$4")"
CELL="$PY-torch$TORCH"
mkdir -p "$OUTDIR/$CELL"
root="$(root_of "$PY")" || exit 2
python="$(python_of "$PY")"
[[ -x "$root$python" ]] || { echo "$CELL: not run: no $python in $root" | tee "$OUTDIR/$CELL/result.txt"; exit 3; }

# The test tools at the versions requirements.txt pins where they have a wheel for this Python,
# else the oldest release after the pin that has one (uv's lowest resolution, wheels only).
pinned() { sed -n "s/^$1==\([^ ]*\).*/\1/p" "$ROOT/requirements.txt"; }
tools=()
for tool in numpy pytest pytest-xdist expecttest hypothesis; do tools+=("$tool>=$(pinned "$tool")"); done
onnx_tools=()
for tool in onnx onnxscript onnxruntime; do onnx_tools+=("$tool>=$(pinned "$tool")"); done

# The pytest modules of the Python entry points: eager calls and the package's API, autograd and
# torch.func, TorchScript, torch.compile (fused and opaque), export, DTensor on CPU ranks, ONNX,
# threads.
MODULES=(test_load.py test_package_api.py test_matches_aten.py test_autograd.py
  test_inplace_autograd.py test_forward_ad.py test_func_transforms.py test_vmap.py
  test_torchscript.py test_compile.py test_compile_fusion.py test_export.py test_dtensor.py
  test_onnx_export.py test_concurrency.py test_package_threads.py)

DIST="$(dirname "$WHEEL")" OUT_MOUNT="$OUTDIR/$CELL" in_root "$root" bash -uo pipefail -c '
  py="$1" torch="$2" wheel="/dist/$3" run_pytest="$4"
  shift 4
  read -ra tools <<<"$1"; read -ra onnx_tools <<<"$2"; read -ra modules <<<"$3"
  venv="/opt/venvs/$(basename "$py")-torch$torch"
  stamp="$torch ${tools[*]} ${onnx_tools[*]}"
  if [[ ! -f "$venv/.ready" || "$(cat "$venv/.ready")" != "$stamp" ]]; then
    echo "== the environment: torch $torch and the test tools"
    rm -rf "$venv"
    uv venv -q --seed --python "$py" "$venv" || exit 1
    uv pip install -q --python "$venv/bin/python" --only-binary :all: --resolution lowest-direct \
      "torch==$torch" "${tools[@]}" || exit 1
    # ONNX Runtime has no wheel for every Python: without it the ONNX module skips, saying so.
    uv pip install -q --python "$venv/bin/python" --only-binary :all: --resolution lowest-direct \
      "${onnx_tools[@]}" >/out/onnx-install.log 2>&1 ||
      echo "   no ONNX tools for this Python: $(grep -m1 -iE "no (wheels|solution)|error" /out/onnx-install.log)"
    echo "$stamp" >"$venv/.ready"
  fi
  status=0
  freeze() { "$venv/bin/python" -m pip freeze --all | grep -viE "^(hardsigmoid.ops|pip|setuptools|wheel)[= ]" || true; }
  uv pip uninstall -q --python "$venv/bin/python" hardsigmoid_ops 2>/dev/null
  freeze >/out/freeze-before.txt
  echo "== the wheel, installed beside torch $torch"
  uv pip install -q --python "$venv/bin/python" "$wheel" || exit 1
  freeze >/out/freeze-after.txt
  if cmp -s /out/freeze-before.txt /out/freeze-after.txt; then
    echo "   pip freeze unchanged but for the package ($(wc -l </out/freeze-after.txt) lines)"
  else
    echo "   FAILED: pip freeze changed"; diff /out/freeze-before.txt /out/freeze-after.txt; status=1
  fi
  echo "== check_wheel.py"
  mkdir -p /tmp/elsewhere && cp /src/scripts/check_wheel.py /tmp/elsewhere/
  (cd /tmp/elsewhere && "$venv/bin/python" check_wheel.py >/out/check-wheel.json) || status=1
  grep -E "\"(torch|library|comparisons_equal_to_aten)\"" /out/check-wheel.json
  echo "== python -m hardsigmoid_ops"
  (cd /tmp/elsewhere && "$venv/bin/python" -m hardsigmoid_ops) >/out/python-m.txt 2>&1 || status=1
  tail -4 /out/python-m.txt
  [[ "$run_pytest" == 1 ]] || exit $status
  library="$(cd /tmp/elsewhere && "$venv/bin/python" -c "import hardsigmoid_ops; print(hardsigmoid_ops.build_info()[\"library\"])")"
  echo "== pytest, the entry points, against $library"
  paths=()
  for module in "${modules[@]}"; do [[ -f "/src/python_tests/$module" ]] && paths+=("python_tests/$module"); done
  # The installed package, not the source tree'"'"'s: pytest.ini'"'"'s pythonpath without python/.
  (cd /src && HARDSIGMOID_OPS_LIBRARY="$library" "$venv/bin/python" -m pytest -o pythonpath=benchmarks \
    -p no:cacheprovider -q -rfEs -n "$(nproc)" --dist worksteal --junitxml=/out/pytest.xml \
    "${paths[@]}") >/out/pytest.log 2>&1 || status=1
  tail -1 /out/pytest.log
  exit $status
' _ "$python" "$TORCH" "$(basename "$WHEEL")" "${PYTHONS_PYTEST:-1}" "${tools[*]}" "${onnx_tools[*]}" "${MODULES[*]}" \
  2>&1 | tee "$OUTDIR/$CELL/run.log"
status=${PIPESTATUS[0]}
echo "$CELL: $([[ $status == 0 ]] && echo passed || echo FAILED)" | tee "$OUTDIR/$CELL/result.txt"
exit "$status"
