"""docs/quickstart.md's commands, run as written where they are cheap: the library-only CMake
configure (on a machine without GoogleTest), and `python -m hardsigmoid_ops`, the check it gives,
for a CMake build's user (the pip user's run is test_pip_install.py's). Its Python example runs
in test_docs_examples.py."""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest
import torch

from hardsigmoid_testing.config import LIBRARY, REPO_ROOT
from hardsigmoid_testing.doc_blocks import blocks
from hardsigmoid_testing.no_cuda_toolkit import without_cuda_toolkit

PAGE = REPO_ROOT / "docs" / "quickstart.md"


def _shell_lines(starting):
    lines = [line for language, body in blocks(PAGE) if language == "bash"
             for line in body.splitlines() if line.startswith(starting)]
    assert len(lines) == 1, f"quickstart.md: one command starting {starting!r}, found {lines}"
    return lines[0]


def _environment(**variables):
    """This test's Python first on PATH (the page's `python`), the source tree's package on
    PYTHONPATH as the page says."""
    env = dict(os.environ, **variables)
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT / "python"), env.get("PYTHONPATH", "")])
    return env


def test_library_only_configure_needs_no_googletest(tmp_path):
    command = _shell_lines("cmake -S . -B build ")
    # Into a directory of the test's own, GoogleTest hidden as on a machine without it.
    command = command.replace(" -B build ", f" -B {tmp_path / 'build'} ", 1)
    result = subprocess.run(["bash", "-c", command + " -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON"],
                            cwd=REPO_ROOT, env=_environment(), capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "Build files have been written" in result.stdout


def test_library_only_configure_needs_no_cuda_toolkit(tmp_path):
    """PyPI's torch is a CUDA build, whose CMake stops where it finds no CUDA toolkit; a build
    without CUDA kernels takes none of it, so the quick start's configure works without nvcc."""
    command = _shell_lines("cmake -S . -B build ").replace(" -B build ",
                                                           f" -B {tmp_path / 'build'} ", 1)
    result = without_cuda_toolkit(command, tmp_path, REPO_ROOT, _environment())
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "CUDA kernels: OFF" in result.stdout


def _check(cwd, env):
    command = _shell_lines("python -m hardsigmoid_ops")
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


def _rows(printed):
    return dict(re.split(r"\s{2,}", line, maxsplit=1) for line in printed.splitlines())


def test_check_reports_the_library_and_its_calls(tmp_path):
    result = _check(tmp_path, _environment(HARDSIGMOID_OPS_LIBRARY=str(LIBRARY)))
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    rows = _rows(result.stdout)
    record = json.loads((LIBRARY.parent / "hardsigmoid_ops_build.json").read_text())
    assert rows["library"] == os.path.realpath(LIBRARY)
    assert rows["torch"].startswith(torch.__version__)
    assert rows["CPU"].endswith(f"aten's capability {torch.backends.cpu.get_cpu_capability()}")
    code = record.get("cuda_sass", []) + [f"{p} (PTX)" for p in record.get("cuda_ptx", [])]
    assert rows["CUDA code"] == (" ".join(code) or "none")
    assert rows["call on cpu"] == "equal to aten's"
    for index in range(torch.cuda.device_count()):
        assert rows[f"call on cuda:{index}"].endswith("equal to aten's"), rows


def test_check_fails_without_a_library(tmp_path):
    # The package alone, away from a source tree's build/, with no library named.
    shutil.copytree(REPO_ROOT / "python" / "hardsigmoid_ops", tmp_path / "hardsigmoid_ops")
    env = {k: v for k, v in os.environ.items() if k != "HARDSIGMOID_OPS_LIBRARY"}
    env["PYTHONPATH"] = str(tmp_path)
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", "")])
    result = _check(tmp_path, env)
    assert result.returncode == 1
    assert "no library loaded" in result.stdout


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
def test_check_names_each_gpu(tmp_path):
    rows = _rows(_check(tmp_path, _environment(HARDSIGMOID_OPS_LIBRARY=str(LIBRARY))).stdout)
    for index in range(torch.cuda.device_count()):
        major, minor = torch.cuda.get_device_capability(index)
        assert f"{torch.cuda.get_device_name(index)}, sm_{major}{minor}:" in \
            rows[f"call on cuda:{index}"]
