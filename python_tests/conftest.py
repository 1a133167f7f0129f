"""Loads the library under test once for the whole suite and provides the shared fixtures.

The library and the random seed come from hardsigmoid_testing/config.py (environment variables
HARDSIGMOID_OPS_LIBRARY and HARDSIGMOID_OPS_SEED). The seed is printed in the report header and
next to every failure, so that any failure can be replayed.
"""

import zlib

import pytest
import torch

from hardsigmoid_testing.config import LIBRARY, SEED
from hardsigmoid_testing.reporting import cases_summary


def pytest_configure(config):
    if not LIBRARY.is_file():
        raise pytest.UsageError(
            f"hardsigmoid_ops library not found at {LIBRARY}. Build it (cmake -S . -B build && "
            "cmake --build build) or point HARDSIGMOID_OPS_LIBRARY at libhardsigmoid_ops.so."
        )
    torch.ops.load_library(str(LIBRARY))
    # The package too, as users import it: it registers the DTensor sharding and inductor's
    # fusion of the ops (on for the whole suite; the tests of the opaque kernels under
    # torch.compile switch it off around themselves).
    import hardsigmoid_ops  # noqa: F401
    config.addinivalue_line(
        "markers", "large: needs several GiB of memory and tens of seconds (-m 'not large' skips)"
    )


def pytest_report_header(config):
    return [
        f"hardsigmoid_ops library: {LIBRARY}",
        f"hardsigmoid_ops random seed: {SEED} (replay with HARDSIGMOID_OPS_SEED={SEED})",
    ]


def pytest_terminal_summary(terminalreporter):
    summary = cases_summary(terminalreporter.stats)
    if summary:
        terminalreporter.write_line(f"hardsigmoid_ops {summary} (seed {SEED})")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.failed:
        report.sections.append(("hardsigmoid_ops seed", f"replay with HARDSIGMOID_OPS_SEED={SEED}"))
    return report


@pytest.fixture(
    params=[
        "cpu",
        pytest.param(
            "cuda",
            marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device"),
        ),
    ]
)
def device(request):
    return request.param


@pytest.fixture
def gen(request):
    """A CPU generator seeded from the session seed and the test's own name, so that a single test
    replays identically whether it runs alone or within the whole suite."""
    test_name = f"{request.node.module.__name__}::{request.node.name}"
    request.node.user_properties.append(("hardsigmoid_ops_seed", SEED))
    return torch.Generator().manual_seed(SEED ^ zlib.crc32(test_name.encode()))


@pytest.fixture
def fused_compile():
    """A test compiling with the package's fusion on (the suite's default), from an empty dynamo
    cache; the fusion is on again afterwards, whatever the test switched."""
    import hardsigmoid_ops

    assert hardsigmoid_ops.compile_fusion_enabled()
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()
    hardsigmoid_ops.set_compile_fusion(True)
