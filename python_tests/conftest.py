"""Loads the library under test once for the whole suite and provides the shared fixtures.

The library and the random seed come from hardsigmoid_testing/config.py (environment variables
HARDSIGMOID_OPS_LIBRARY and HARDSIGMOID_OPS_SEED; HARDSIGMOID_OPS_SEED_SWEEP runs every test under
many seeds). The seed is printed in the report header, and next to every failure the command that
replays it, so that any failure can be replayed from the log alone.

Under pytest-xdist (-n N) every worker process runs this file too: the workers take the
controller's seed and share the run's inductor cache. What the workers must not
do at once (the pip build, the tests of several GiB) waits on a lock of the run
(hardsigmoid_testing/run_wide.py); the ports the distributed tests listen on are the system's
choice, or none.
"""

import os
import zlib

import pytest
import torch
import torch.utils.deterministic

from hardsigmoid_testing.config import LIBRARY, SEED, SWEEP_SEEDS
from hardsigmoid_testing.reporting import cases_summary, replay_command, without_sweep

SEED_KEY = pytest.StashKey[int]()


def _the_same_run_in_every_worker():
    """The controller's seed for every worker (the workers it starts inherit its environment; one
    seed replays the whole run) and compilations that do not depend on timings. The workers share
    the run's inductor cache: inductor writes an entry to a file of its process's own and renames
    it into place, and compiles a kernel under a file lock, so that a kernel one worker compiled is
    the other's too."""
    os.environ["HARDSIGMOID_OPS_SEED"] = str(SEED)
    # The tests compare a graph compiled with our ops against the same graph compiled with aten's,
    # bit for bit. Inductor otherwise times candidates on the device where the choice changes the
    # numerics (a reduction's block sizes, padding a matmul): on a GPU shared by several workers
    # the two compilations could choose differently. Its deterministic mode chooses without timing.
    # Set through torch's own switch, not inductor's flag alone: torch ties the flag to
    # torch.use_deterministic_algorithms, and Dynamo, restoring that switch at the end of every
    # frame it converts, writes the switch's value into the flag. The flag set alone held for the
    # first forward graph compiled in each process only (a backward graph, compiled later, and
    # every graph after it ran with the flag off), so that a test comparing two generated programs
    # failed when it was the first to compile (the CUDA code records the mode). warn_only: an aten
    # op with no deterministic kernel warns instead of failing the test; uninitialized memory
    # stays unfilled as users see it, and cuBLAS gets the workspace setting its deterministic mode
    # needs (before its first handle). The library's ops and aten's hardsigmoid have one kernel
    # in either mode; aten's other ops take their deterministic kernels where they have two.
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.utils.deterministic.fill_uninitialized_memory = False
    torch.use_deterministic_algorithms(True, warn_only=True)


def _no_compiler_probe_per_process():
    """Inductor checks, in each process where it first compiles for the CPU, that the compiler
    builds every instruction set the processor reports, by loading a program built for each into
    a new Python process that imports torch: tens of seconds in every worker and in every process a
    test starts (the docs' examples, the pip-installed package, the environment switch).
    TORCHINDUCTOR_VEC_ISA_OK=1, inductor's own setting, takes the processor's report for the base
    sets instead (the same sets are chosen; a compiler that could not build one would fail the
    first compilation, loudly). Set here, it reaches the processes the tests start; a value in the
    environment is kept."""
    os.environ.setdefault("TORCHINDUCTOR_VEC_ISA_OK", "1")
    if os.environ["TORCHINDUCTOR_VEC_ISA_OK"] == "1":
        torch._inductor.config.cpp.vec_isa_ok = True


def pytest_configure(config):
    _the_same_run_in_every_worker()
    _no_compiler_probe_per_process()
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


# The modules whose tests take tens of seconds each (a pip build, whole models compiled, several
# processes started, 2^31 elements) run first. Under pytest-xdist's worksteal scheduling (the
# scripts' choice) the first workers' shares begin with them, and a worker that runs out takes
# tests from the end of another's share: the run ends on short tests, not on one worker finishing
# a long one alone. (Its default, load, would hand them all to the first worker in one batch.)
LONG_MODULES = ("test_pip_install.py", "test_models.py", "test_valid_edge_cases.py",
                "test_docs_examples.py", "test_dtensor.py", "test_compile_fusion.py",
                "test_quantized_models.py")


def pytest_collection_modifyitems(config, items):
    # HARDSIGMOID_OPS_TEST_ORDER=reverse runs every test in the reverse order (the long modules
    # still first): a test that passes only after another, or only alone, shows up.
    if os.environ.get("HARDSIGMOID_OPS_TEST_ORDER") == "reverse":
        items.reverse()
    items.sort(key=lambda item: item.path.name not in LONG_MODULES)  # stable: the order kept


def _seeds_line():
    if SWEEP_SEEDS:
        return f"seeds {SWEEP_SEEDS[0]} to {SWEEP_SEEDS[-1]}, each test under each"
    return f"seed {SEED}"


def pytest_report_header(config):
    return [
        f"hardsigmoid_ops library: {LIBRARY}",
        f"hardsigmoid_ops random {_seeds_line()} (a failure prints the command that replays it)",
        f"aten's CPU capability: {torch.backends.cpu.get_cpu_capability()}",
    ]


def pytest_terminal_summary(terminalreporter):
    summary = cases_summary(terminalreporter.stats)
    if summary:
        terminalreporter.write_line(f"hardsigmoid_ops {summary} ({_seeds_line()})")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.failed:
        seed = item.stash.get(SEED_KEY, SEED)
        report.sections.append(("hardsigmoid_ops replay", replay_command(item.nodeid, seed)))
    return report


def pytest_generate_tests(metafunc):
    """Under HARDSIGMOID_OPS_SEED_SWEEP every test runs once per seed of the sweep."""
    if SWEEP_SEEDS and "seed" in metafunc.fixturenames:
        metafunc.parametrize("seed", SWEEP_SEEDS, indirect=True,
                             ids=[f"sweep{s}" for s in SWEEP_SEEDS])


def _test_name(node):
    """The test's name as the seeds derive from it: the same alone, in the whole suite or swept."""
    return f"{node.module.__name__}::{without_sweep(node.name)}"


@pytest.fixture(autouse=True)
def seed(request):
    """The seed of this test's random draws: the run's (HARDSIGMOID_OPS_SEED, or a fresh one), or
    under a sweep the sweep's seed for this run of the test. torch's default generator is seeded
    from it and the test's name too, so that a draw with no generator of its own (torch.randn(3))
    is fresh in every run and replays with the seed."""
    value = getattr(request, "param", SEED)
    request.node.stash[SEED_KEY] = value
    torch.manual_seed(value ^ zlib.crc32(_test_name(request.node).encode()))
    return value


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
def gen(request, seed):
    """A CPU generator seeded from the test's seed and its own name, so that a single test replays
    identically whether it runs alone, within the whole suite or in a sweep."""
    request.node.user_properties.append(("hardsigmoid_ops_seed", seed))
    return torch.Generator().manual_seed(seed ^ zlib.crc32(_test_name(request.node).encode()))


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
