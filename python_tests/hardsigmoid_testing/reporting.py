"""What the run reports of its random draws: how many drawn cases it checked, for the summary at
the end of the run, and the command that replays a test's draw.

A test that loops over drawn cases records (device, count) in its user properties under
CASES_PROPERTY; conftest.py's terminal summary adds them up per device.
"""

import collections
import re

import torch

from .config import LIBRARY

CASES_PROPERTY = "hardsigmoid_ops_cases"


def cases_summary(stats):
    """A line such as "random cases checked: 2000 on cpu, 2000 on cuda", or None when no test
    recorded any. `stats` is the terminal reporter's reports by outcome."""
    counts = collections.Counter()
    for reports in stats.values():
        for report in reports:
            if getattr(report, "when", None) != "call":
                continue  # setup and teardown reports carry the same properties
            for name, value in report.user_properties:
                if name == CASES_PROPERTY:
                    device, count = value
                    counts[device] += count
    if not counts:
        return None
    return "random cases checked: " + ", ".join(f"{n} on {d}" for d, n in counts.items())


def without_sweep(name):
    """A test's name or node id without the seed a sweep added to its parameters
    (HARDSIGMOID_OPS_SEED_SWEEP): the name the test has when it runs alone."""
    name = re.sub(r"\[sweep\d+\]", "", name)
    return re.sub(r"-sweep\d+(?=[-\]])|(?<=\[)sweep\d+-", "", name)


def replay_command(nodeid, seed, environment=""):
    """The command that reruns the test `nodeid` alone with the draw it had under `seed`, on the
    same library and under aten's CPU capability of this process (a test that walks the quantized
    engines names the engine in its parameters or its message)."""
    capability = torch.backends.cpu.get_cpu_capability().lower()
    return (f"HARDSIGMOID_OPS_LIBRARY={LIBRARY} HARDSIGMOID_OPS_SEED={seed} "
            f"ATEN_CPU_CAPABILITY={capability} {environment}"
            f"python -m pytest '{without_sweep(nodeid)}'")
