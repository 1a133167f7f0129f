"""The package from 8 threads at once, as a free-threaded Python (no GIL) runs it. Each test starts
a fresh Python (hardsigmoid_testing/package_threads.py), so that what the package does once
happens in those threads: its import (which Python's import lock serializes) and the library's
load with the binding of its functions and the registrations (which threads calling
load_library race for); then every op is called through every entry point (functional, in place,
out, backward, torch.ops, nn.Hardsigmoid, autograd) on shared and private inputs, and each result
must have the bits of aten's, computed before the threads start. In a free-threaded build the GIL
must have stayed off throughout: an import that turned it back on would make that claim false."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

from hardsigmoid_testing.config import LIBRARY, copy_package_without_library, package_parent

TESTING = pathlib.Path(__file__).resolve().parent
ROUNDS = 3


def run_threads(mode, seed, pythonpath):
    env = {k: v for k, v in os.environ.items() if k != "HARDSIGMOID_OPS_LIBRARY"}
    if mode == "import":
        env["HARDSIGMOID_OPS_LIBRARY"] = str(LIBRARY)
    env["PYTHONPATH"] = os.pathsep.join([str(TESTING), *pythonpath])
    result = subprocess.run(
        [sys.executable, "-m", "hardsigmoid_testing.package_threads", mode, str(LIBRARY),
         str(seed), str(ROUNDS)], env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    report = json.loads(result.stdout.splitlines()[-1])
    print(json.dumps(report))
    assert not report["errors"], "\n".join(report["errors"])
    assert not report["mismatches"], "\n".join(report["mismatches"][:20])
    # Every thread made every call: 8 shared and 8 own operands, 9 entry points, each round.
    assert (report["threads"], report["operands_per_thread"], report["entry_points"]) == (8, 16, 9)
    assert report["calls"] == report["threads"] * 16 * 9 * ROUNDS
    if report["free_threaded_build"]:
        assert report["gil_enabled_seen"] == [False], "the GIL was enabled in a free-threaded build"
    return report


def test_threads_import_the_package_and_call_every_op_at_once(seed):
    run_threads("import", seed, [str(package_parent())])


@pytest.mark.parametrize("attempt", range(4))
def test_threads_load_the_library_at_once(tmp_path, attempt, seed):
    """The package imported with no library to find (a copy of its Python files alone), then 8
    threads calling load_library(path) at once: each must return with the ops ready, none may
    see a half-done load (the ops registered but not yet recorded as loaded, and so refused as a
    second copy; registered but not bound). The library's dlopen pauses, letting the other
    threads run in the middle of the load as a free-threaded build does; four processes, since
    the rest is still a matter of timing."""
    copy = tmp_path / "site" / "hardsigmoid_ops"
    copy_package_without_library(copy)
    report = run_threads("load", seed + attempt, [str(copy.parent)])
    # The race was set up: nothing registered before the threads, and the load paused mid-way.
    assert not report["registered_before_the_threads"]
    assert report["paused_loads"] >= 1
