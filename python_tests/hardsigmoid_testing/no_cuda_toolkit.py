"""A command run as on a machine without the CUDA toolkit, on one that has it (tests of what a
build or a consumer's configure does there)."""

import os
import shutil
import subprocess

import pytest


def without_cuda_toolkit(command, tmp_path, cwd, env):
    """`command` in a mount namespace where the CUDA toolkit is hidden (an empty folder over its
    root, and every nvcc on PATH made a non-executable file), as on a machine without one."""
    if subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode != 0:
        pytest.skip("hiding the CUDA toolkit needs a mount namespace (unshare -m): not allowed")
    nvccs = {shutil.which("nvcc", path=d) for d in os.environ.get("PATH", "").split(os.pathsep)}
    nvccs.discard(None)
    hide = []
    if nvccs:
        root = os.path.dirname(os.path.dirname(os.path.realpath(sorted(nvccs)[0])))
        (tmp_path / "empty").mkdir()
        hide.append(f"mount --bind {tmp_path / 'empty'} {root}")
        # An nvcc reached through a link into the toolkit (/usr/local/cuda -> cuda-13.0) is gone
        # once the toolkit's root is covered: only those outside it are covered one by one.
        hide += [f"mount --bind /dev/null {n}" for n in sorted(nvccs)
                 if not os.path.realpath(n).startswith(root + os.sep)]
    return subprocess.run(["unshare", "-m", "bash", "-c", " && ".join([*hide, command])],
                          cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)
