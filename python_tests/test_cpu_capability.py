"""ATEN_CPU_CAPABILITY, where a run sets it (scripts/aarch64_check.sh, under each of aarch64's
capabilities), is what aten runs: a capability the processor cannot run would fall back to
DEFAULT silently, and the run would prove the wrong loops."""

import os

import pytest
import torch


def test_aten_runs_the_requested_capability():
    requested = os.environ.get("ATEN_CPU_CAPABILITY")
    if not requested:
        pytest.skip("no ATEN_CPU_CAPABILITY requested: aten runs its own choice")
    assert torch.backends.cpu.get_cpu_capability() == requested.upper()
