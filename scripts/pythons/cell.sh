#!/usr/bin/env bash
# Runs inside a root of the Python matrix (scripts/pythons/check.sh starts it there, with the
# source tree at /src, the wheel's folder at /dist and the cell's log folder at /out): the
# environment (made once), the wheel installed beside its torch, the checks, pytest.
#   bash /src/scripts/pythons/cell.sh PYTHON TORCH WHEEL_NAME RUN_PYTEST TOOLS MODULES [GROUP...]
#     (TOOLS, MODULES and each GROUP of optional tools: one word list each)
set -uo pipefail
py="$1" torch="$2" wheel="/dist/$3" run_pytest="$4"
read -ra tools <<<"$5"
read -ra modules <<<"$6"
shift 6
groups=("$@")
venv="/opt/venvs/$(basename "$py")-torch$torch"
stamp="$torch ${tools[*]} ${groups[*]}"
if [[ ! -f "$venv/.ready" || "$(cat "$venv/.ready")" != "$stamp" ]]; then
  echo "== the environment: torch $torch and the test tools"
  rm -rf "$venv"
  uv venv -q --seed --python "$py" "$venv" || exit 1
  uv pip install -q --python "$venv/bin/python" --only-binary :all: --resolution lowest-direct \
    "torch==$torch" "${tools[@]}" || exit 1
  # A group with no wheels for this Python is left out: the modules that need it skip, saying so.
  # torch is named again, so that no group moves it.
  for group in "${groups[@]}"; do
    read -ra group_tools <<<"$group"
    uv pip install -q --python "$venv/bin/python" --only-binary :all: \
      --resolution "${group_tools[0]}" "torch==$torch" "${group_tools[@]:1}" \
      >/out/optional-install.log 2>&1 ||
      echo "   not installed for this Python: ${group_tools[*]:1}:" \
        "$(grep -m1 -iE "no (wheels|solution)|error" /out/optional-install.log)"
  done
  echo "$stamp" >"$venv/.ready"
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
  --junitxml=/out/pytest.xml "${paths[@]}") >/out/pytest.log 2>&1 || status=1
tail -1 /out/pytest.log
exit $status
