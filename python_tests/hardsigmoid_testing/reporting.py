"""How many randomly drawn cases the run checked, for the summary at the end of the run.

A test that loops over drawn cases records (device, count) in its user properties under
CASES_PROPERTY; conftest.py's terminal summary adds them up per device.
"""

import collections

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
