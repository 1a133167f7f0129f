"""docs/cpp.md's commands for a C++ program of one's own, as written: the library installed as a
CMake package under $HOME, the tree's consumer (cpp_tests/downstream_package) copied as my_project/,
configured against it and torch, built and run. The library is this run's build (its build
directory in place of the page's `build`; building it is the quick start's configure, run in
test_quickstart.py). And the limit cpp.md states: without a CUDA toolkit, PyPI's CUDA torch
stops the program's configure."""

import os
import subprocess
import sys

import pytest

from hardsigmoid_testing.config import LIBRARY, REPO_ROOT
from hardsigmoid_testing.doc_blocks import blocks
from hardsigmoid_testing.no_cuda_toolkit import without_cuda_toolkit

PAGE = REPO_ROOT / "docs" / "cpp.md"
BUILD = LIBRARY.parent


def _lines(starting):
    return [line for language, body in blocks(PAGE) if language == "bash"
            for line in body.splitlines() if line.startswith(starting)]


@pytest.fixture
def home(tmp_path):
    """A home with the library installed by the page's command, and the project beside it."""
    if not (BUILD / "cmake_install.cmake").is_file():
        pytest.skip(f"{LIBRARY} is not in a CMake build directory")
    install, = _lines("cmake --install build ")
    env = dict(os.environ, HOME=str(tmp_path))
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", "")])
    result = subprocess.run(["bash", "-c", install.replace(" build ", f" {BUILD} ", 1)],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    copy, = _lines("cp -r cpp_tests/")
    result = subprocess.run(["bash", "-c", copy.replace("cpp_tests/", f"{REPO_ROOT}/cpp_tests/")],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return tmp_path, env


def test_program_of_ones_own_builds_and_runs(home):
    where, env = home
    commands = _lines("cmake -S my_project ") + _lines("cmake --build my_project/") + \
        _lines("my_project/build/")
    assert len(commands) == 3, commands
    for command in commands:
        result = subprocess.run(["bash", "-c", command], cwd=where, env=env, capture_output=True,
                                text=True, timeout=900)
        assert result.returncode == 0, (command, result.stdout[-3000:], result.stderr[-3000:])


def test_program_configure_needs_a_cuda_toolkit_with_cudas_torch(home):
    import torch

    if torch.version.cuda is None:
        pytest.skip("torch is not a CUDA build")
    where, env = home
    configure, = _lines("cmake -S my_project ")
    configure = f"cd {where} && export HOME={where} && {configure}"
    result = without_cuda_toolkit(configure, where, where, env)
    assert result.returncode != 0
    assert "Your installed Caffe2 version uses CUDA but I cannot find the CUDA libraries" in \
        " ".join((result.stdout + result.stderr).split())
