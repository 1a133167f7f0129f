"""The capability a run expects aten to run, where the run names one: ATEN_CPU_CAPABILITY, or
HARDSIGMOID_OPS_EXPECTED_CPU_CAPABILITY where aten is left to choose from the processor
(scripts/aarch64_check.sh, under each of aarch64's capabilities). A capability the processor
cannot run would fall back to DEFAULT silently, and the run would prove the wrong loops."""

import os

import pytest
import torch


@pytest.mark.parametrize("variable",
                         ["ATEN_CPU_CAPABILITY", "HARDSIGMOID_OPS_EXPECTED_CPU_CAPABILITY"])
def test_aten_runs_the_capability_the_run_names(variable):
    named = os.environ.get(variable)
    if not named:
        pytest.skip(f"{variable} is not set: aten runs its own choice")
    assert torch.backends.cpu.get_cpu_capability() == named.upper()
