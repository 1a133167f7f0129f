#!/usr/bin/env bash
# Runs inside a root of the Python matrix (scripts/pythons/check.sh starts it there, with the
# source tree at /src, the wheel's folder at /dist and the cell's log folder at /out): the
# environment (made once), the wheel installed beside its torch, the checks, pytest.
#   bash /src/scripts/pythons/cell.sh PYTHON TORCH WHEEL_NAME RUN_PYTEST TOOLS MODULES [GROUP...]
#     (TOOLS, MODULES and each GROUP of optional tools: one word list each)
#   CELL_VENVS, CELL_OUT, CELL_DIST: the environments' folder (/opt/venvs), the log folder (/out)
#   and the wheel's (/dist), for a test of this script outside a root
set -uo pipefail
VENVS="${CELL_VENVS:-/opt/venvs}" OUT="${CELL_OUT:-/out}"
py="$1" torch="$2" wheel="${CELL_DIST:-/dist}/$3" run_pytest="$4"
read -ra tools <<<"$5"
read -ra modules <<<"$6"
shift 6
groups=("$@")
venv="$VENVS/$(basename "$py")-torch$torch"
# The environment in two layers, each made once and stamped when complete: torch alone (all the
# wheel's check and `python -m` use), then, for pytest only, the test tools and the optional
# groups. A layer whose install failed is not stamped, and is made again by the next run.
if [[ "$(cat "$venv/.torch-ready" 2>/dev/null)" != "$torch" ]]; then
  echo "== the environment: torch $torch"
  rm -rf "$venv"
  uv venv -q --seed --python "$py" "$venv" || exit 1
  uv pip install -q --python "$venv/bin/python" --only-binary :all: "torch==$torch" || exit 1
  echo "$torch" >"$venv/.torch-ready"
fi
tools_stamp="${tools[*]} | ${groups[*]}"
if [[ "$run_pytest" == 1 && "$(cat "$venv/.tools-ready" 2>/dev/null)" != "$tools_stamp" ]]; then
  echo "== the test tools, beside torch $torch"
  # torch is named with every install, so that nothing moves it.
  uv pip install -q --python "$venv/bin/python" --only-binary :all: --resolution lowest-direct \
    "torch==$torch" "${tools[@]}" || exit 1
  # A group with no wheels for this Python is left out: the modules that need it skip, saying so.
  # Any other failure (a download cut off, an index that did not answer) fails the cell, unstamped.
  for group in "${groups[@]}"; do
    read -ra group_tools <<<"$group"
    if ! uv pip install -q --python "$venv/bin/python" --only-binary :all: \
      --resolution "${group_tools[0]}" "torch==$torch" "${group_tools[@]:1}" \
      >"$OUT"/optional-install.log 2>&1; then
      if grep -qiE "has no wheels with a matching|no wheels (are )?available" \
        "$OUT"/optional-install.log; then
        echo "   not installed for this Python: ${group_tools[*]:1}:" \
          "$(grep -m1 -iE "has no wheels|no wheels" "$OUT"/optional-install.log)"
      else
        echo "cell.sh: installing ${group_tools[*]:1} failed, not for want of wheels:" >&2
        tail -20 "$OUT"/optional-install.log >&2
        exit 1
      fi
    fi
  done
  echo "$tools_stamp" >"$venv/.tools-ready"
fi
installed="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("torch"))')"
[[ "$installed" == "$torch" ]] ||
  { echo "cell.sh: the environment holds torch $installed, not $torch" >&2; exit 1; }
status=0
freeze() {
  "$venv/bin/python" -m pip freeze --all |
    grep -viE "^(hardsigmoid.ops|pip|setuptools|wheel)[= ]" || true
}
uv pip uninstall -q --python "$venv/bin/python" hardsigmoid_ops 2>/dev/null
freeze >"$OUT"/freeze-before.txt
echo "== the wheel, installed beside torch $torch"
uv pip install -q --python "$venv/bin/python" "$wheel" || exit 1
freeze >"$OUT"/freeze-after.txt
if cmp -s "$OUT"/freeze-before.txt "$OUT"/freeze-after.txt; then
  echo "   pip freeze unchanged but for the package ($(wc -l <"$OUT"/freeze-after.txt) lines)"
else
  echo "   FAILED: pip freeze changed"
  diff "$OUT"/freeze-before.txt "$OUT"/freeze-after.txt
  status=1
fi
echo "== check_wheel.py"
mkdir -p /tmp/elsewhere && cp /src/scripts/release/check_wheel.py /tmp/elsewhere/
(cd /tmp/elsewhere && "$venv/bin/python" check_wheel.py >"$OUT"/check-wheel.json) || status=1
grep -E "\"(torch|library|comparisons_equal_to_aten)\"" "$OUT"/check-wheel.json
echo "== python -m hardsigmoid_ops"
(cd /tmp/elsewhere && "$venv/bin/python" -m hardsigmoid_ops) >"$OUT"/python-m.txt 2>&1 || status=1
tail -4 "$OUT"/python-m.txt
[[ "$run_pytest" == 1 ]] || exit $status
library="$(cd /tmp/elsewhere && "$venv/bin/python" -c \
  'import hardsigmoid_ops; print(hardsigmoid_ops.build_info()["library"])')"
[[ -n "$library" ]] || { echo "cell.sh: the installed package loaded no library" >&2; exit 1; }
echo "== pytest, the entry points, against $library"
paths=()
for module in "${modules[@]}"; do
  [[ -f "/src/python_tests/$module" ]] || { echo "cell.sh: no python_tests/$module" >&2; exit 2; }
  paths+=("python_tests/$module")
done
# The installed package, not the source tree's: pytest.ini's pythonpath without python/.
(cd /src && HARDSIGMOID_OPS_LIBRARY="$library" "$venv/bin/python" -m pytest \
  -o pythonpath=benchmarks -p no:cacheprovider -q -rfEs -n "$(nproc)" --dist worksteal \
  --junitxml="$OUT"/pytest.xml "${paths[@]}") >"$OUT"/pytest.log 2>&1 || status=1
tail -1 "$OUT"/pytest.log
exit $status
