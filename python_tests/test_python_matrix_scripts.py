"""The Python matrix's scripts that can run outside a root. scripts/pythons/cell.sh's environment,
with a stand-in for uv that records each call and fails an install as told: the cell installs
torch alone for the wheel's check (--wheel-only), the test tools only for pytest, leaves out an
optional group that has no wheels for the Python, and fails, stamping nothing, when a group's
install fails for another reason (a network error). The stand-in fails the wheel's own install,
so each run stops there: what comes after it is the matrix's own run (docs/testing.md).
scripts/pythons/prune.sh, on a stand-in cache: what it removes and what it keeps."""

import os
import pathlib
import stat
import subprocess
import sys
import textwrap

import pytest
import torch

ROOT = pathlib.Path(__file__).resolve().parents[1]
CELL = ROOT / "scripts" / "pythons" / "cell.sh"
TORCH = torch.__version__.split("+")[0]
NO_WHEELS = ("No solution found when resolving dependencies:\n  Because onnxruntime==1.20 has no "
             "wheels with a matching Python ABI tag (e.g., `cp315`), we can conclude ...")
NETWORK = "error: Failed to fetch: `https://pypi.org/simple/onnx/`\n  Caused by: connection reset"

# Records its arguments; `uv venv` makes a folder whose python is this test's; `uv pip install`
# fails with $FAIL_MESSAGE where an argument contains $FAIL_ON, and always for a wheel.
FAKE_UV = textwrap.dedent("""\
    #!/usr/bin/env bash
    echo "$*" >>"$UV_CALLS"
    if [[ "$1" == venv ]]; then
      venv="${@: -1}"
      mkdir -p "$venv/bin"
      printf '#!/bin/sh\\nexec %s "$@"\\n' "$REAL_PYTHON" >"$venv/bin/python"
      chmod +x "$venv/bin/python"
      exit 0
    fi
    for arg in "$@"; do
      [[ "$arg" == *.whl ]] && { echo "no wheel install here" >&2; exit 1; }
      if [[ -n "$FAIL_ON" && "$arg" == *"$FAIL_ON"* ]]; then echo "$FAIL_MESSAGE" >&2; exit 1; fi
    done
    exit 0
""")


def run_cell(tmp_path, run_pytest, fail_on="", fail_message=""):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    uv = bin_dir / "uv"
    uv.write_text(FAKE_UV)
    uv.chmod(uv.stat().st_mode | stat.S_IEXEC)
    calls = tmp_path / "uv-calls.txt"
    calls.write_text("")
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "UV_CALLS": str(calls),
           "REAL_PYTHON": sys.executable, "FAIL_ON": fail_on,
           "FAIL_MESSAGE": fail_message, "CELL_VENVS": str(tmp_path / "venvs"),
           "CELL_OUT": str(out), "CELL_DIST": str(tmp_path)}
    result = subprocess.run(
        ["bash", str(CELL), "/usr/bin/python3.99", TORCH, "hardsigmoid_ops-0-py3-none-any.whl",
         str(run_pytest), "numpy>=1 pytest>=8", "test_load.py", "highest torchvision",
         "lowest-direct onnx>=1 onnxruntime>=1"],
        env=env, capture_output=True, text=True, timeout=300)
    venv = tmp_path / "venvs" / f"python3.99-torch{TORCH}"
    return result, calls.read_text().splitlines(), venv


def installs(calls):
    return [call for call in calls if call.startswith("pip install")]


def requirements(call):
    """The requirements an install names (not its options or paths)."""
    return [word for word in call.split() if not word.startswith("-") and "/" not in word]


def test_wheel_only_installs_torch_alone(tmp_path):
    result, calls, venv = run_cell(tmp_path, run_pytest=0)
    assert "== the wheel" in result.stdout, result.stdout + result.stderr
    assert [call.split()[-1] for call in installs(calls)][:1] == [f"torch=={TORCH}"]
    named = [word for call in installs(calls) for word in requirements(call)]
    test_tools = ("pytest", "numpy", "onnx", "torchvision")
    assert not any(word.startswith(test_tools) for word in named), calls
    assert (venv / ".torch-ready").read_text().strip() == TORCH
    assert not (venv / ".tools-ready").exists()


def test_pytest_adds_the_tools_once(tmp_path):
    result, calls, venv = run_cell(tmp_path, run_pytest=1)
    assert "== the wheel" in result.stdout, result.stdout + result.stderr
    assert any("pytest>=8" in requirements(call) for call in installs(calls))
    assert (venv / ".tools-ready").is_file()
    _, calls, _ = run_cell(tmp_path, run_pytest=1)  # stamped: nothing installed again
    assert installs(calls) == [installs(calls)[-1]] and installs(calls)[-1].endswith(".whl")


def test_a_group_without_wheels_is_left_out(tmp_path):
    result, calls, venv = run_cell(tmp_path, 1, fail_on="onnxruntime", fail_message=NO_WHEELS)
    assert "not installed for this Python: onnx>=1 onnxruntime>=1" in result.stdout
    assert "== the wheel" in result.stdout
    assert (venv / ".tools-ready").is_file()


@pytest.mark.parametrize("failing", ["onnxruntime", "torchvision"])
def test_a_group_failing_otherwise_fails_the_cell_unstamped(tmp_path, failing):
    result, calls, venv = run_cell(tmp_path, 1, fail_on=failing, fail_message=NETWORK)
    assert result.returncode == 1
    assert "not for want of wheels" in result.stderr and "connection reset" in result.stderr
    assert "== the wheel" not in result.stdout
    assert not (venv / ".tools-ready").exists()
    # The next run installs the tools again, and goes on once the index answers.
    result, calls, venv = run_cell(tmp_path, 1)
    assert any("pytest>=8" in requirements(call) for call in installs(calls))
    assert "== the wheel" in result.stdout and (venv / ".tools-ready").is_file()


PRUNE = ROOT / "scripts" / "pythons" / "prune.sh"


def cache_layout(cache):
    """A stand-in cache: the current roots (their names as environment.sh computes them) with an
    environment of a matrix cell and one of no cell each, a root of an older key, a half-made
    root."""
    names = subprocess.run(
        ["bash", "-c", f"source {ROOT}/scripts/pythons/environment.sh; "
         "echo $TRIXIE_ROOT; echo $SID_ROOT; echo ${MATRIX[0]}"],
        env={**os.environ, "HARDSIGMOID_OPS_PYTHONS_CACHE": str(cache)}, capture_output=True,
        text=True, check=True).stdout.split("\n")
    trixie, sid = pathlib.Path(names[0]), pathlib.Path(names[1])
    python, torch_version = names[2].split()
    kept = trixie / "opt" / "venvs" / f"python{python}-torch{torch_version}"
    stale = [trixie / "opt" / "venvs" / "python3.13-torch2.9.0", sid / "opt" / "venvs" / "old",
             cache / "root-trixie-000000000000", cache / "root-sid-000000000000.partial"]
    for folder in [kept, *stale]:
        folder.mkdir(parents=True)
        (folder / "file").write_text("x" * 1000)
    return kept, stale


def prune(cache, *args):
    return subprocess.run(["bash", str(PRUNE), *args], capture_output=True, text=True,
                          env={**os.environ, "HARDSIGMOID_OPS_PYTHONS_CACHE": str(cache)})


def test_prune_keeps_the_matrix_and_removes_the_rest(tmp_path):
    cache = tmp_path / "pythons"
    kept, stale = cache_layout(cache)
    result = prune(cache)
    assert result.returncode == 0, result.stderr
    assert kept.is_dir() and not any(folder.exists() for folder in stale), result.stdout
    assert result.stdout.splitlines()[0].startswith(f"prune: {cache}: ")
    assert result.stdout.splitlines()[-1].startswith("prune: ")
    assert prune(cache, "--everything").returncode == 2  # an unknown option removes nothing
    assert kept.is_dir()
    assert prune(cache, "--all").returncode == 0 and not cache.exists()
