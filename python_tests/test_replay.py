"""A failure's replay line replays it. A test module that fails on three draws in four (a draw of
its gen fixture and one of torch's default generator) runs under this suite's conftest, swept over
eight seeds (HARDSIGMOID_OPS_SEED_SWEEP); the command printed beside a failure, run as printed,
fails again on the same drawn values, and the one printed for a seed that passed (run by the same
rule) passes on the same values."""

import os
import re
import shutil
import subprocess
import sys

from hardsigmoid_testing.config import LIBRARY, REPO_ROOT

INJECTED = '''
import torch


def test_draw(gen):
    from_gen = torch.rand(1, generator=gen).item()
    from_default = torch.rand(1).item()
    print(f"drawn {from_gen!r} {from_default!r}")
    assert from_gen < 0.5 and from_default < 0.5
'''


def _tree(tmp_path):
    """The suite's conftest and helpers beside the injected module, in a tree of its own."""
    shutil.copy(REPO_ROOT / "python_tests" / "conftest.py", tmp_path)
    shutil.copytree(REPO_ROOT / "python_tests" / "hardsigmoid_testing",
                    tmp_path / "hardsigmoid_testing")
    (tmp_path / "pytest.ini").write_text(f"[pytest]\npythonpath = {REPO_ROOT / 'python'}\n")
    (tmp_path / "test_injected.py").write_text(INJECTED)


def _run(command, tmp_path, **environment):
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARDSIGMOID_OPS_SEED")}
    env.update(environment, HARDSIGMOID_OPS_LIBRARY=str(LIBRARY),
               PATH=f"{os.path.dirname(sys.executable)}{os.pathsep}{env.get('PATH', '')}")
    return subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)


def _runs(output):
    """{test id: (drawn values, replay command or None)} from a run's -rA -s output."""
    found = {}
    for match in re.finditer(r"test_injected\.py::(test_draw\S*) drawn (\S+) (\S+)", output):
        found[match[1]] = ((match[2], match[3]), None)
    for block in re.split(r"\n_{3,} (?=test_draw)", output)[1:]:
        name = block.split(" ", 1)[0]
        replay = re.search(r"-+ hardsigmoid_ops replay -+\n(.+)", block)
        if replay and name in found:
            found[name] = (found[name][0], replay[1])
    return found


def _replay_of_a_pass(failing_replay, seed):
    """The command the same rule prints for `seed` (a test that passed prints none)."""
    return re.sub(r"HARDSIGMOID_OPS_SEED=\d+", f"HARDSIGMOID_OPS_SEED={seed}", failing_replay)


def test_a_failure_replays_from_its_printed_line(tmp_path):
    _tree(tmp_path)
    swept = _run([sys.executable, "-m", "pytest", "test_injected.py", "-p", "no:cacheprovider",
                  "-s", "-v", "-rA"], tmp_path, HARDSIGMOID_OPS_SEED_SWEEP="1:8")
    runs = _runs(swept.stdout)
    assert len(runs) == 8, swept.stdout[-3000:]
    failed = {name: run for name, run in runs.items()
              if f"FAILED test_injected.py::{name}" in swept.stdout}
    passed = {name: run for name, run in runs.items() if name not in failed}
    assert failed, f"no seed of eight failed (chance 1 in 10^5):\n{swept.stdout[-3000:]}"
    name, (drawn, replay) = next(iter(failed.items()))
    assert replay is not None, f"{name} failed without a replay line:\n{swept.stdout[-3000:]}"
    assert "HARDSIGMOID_OPS_SEED=" in replay and "sweep" not in replay, replay

    again = _run(["bash", "-c", replay], tmp_path)
    assert again.returncode == 1, again.stdout[-3000:]
    assert f"drawn {drawn[0]} {drawn[1]}" in again.stdout, (drawn, again.stdout[-3000:])

    if passed:  # three in four runs of this test have one
        name, (drawn, _) = next(iter(passed.items()))
        seed = re.search(r"sweep(\d+)", name)[1]
        again = _run(["bash", "-c", _replay_of_a_pass(replay, seed) + " -s"], tmp_path)
        assert again.returncode == 0, again.stdout[-3000:]
        assert f"drawn {drawn[0]} {drawn[1]}" in again.stdout, (drawn, again.stdout[-3000:])
