"""The ops on DTensor, through the hardsigmoid_ops package: two CPU ranks (gloo), and two GPUs
(NCCL) where there are two.

One launch of two ranks runs every case, since starting the processes costs more than all the
cases together; each rank sends back what it saw (the result's full tensor, its placements, the
collectives counted by CommDebugMode, or the error) and the tests check that against aten on the
full tensor, bit for bit, with the placements and communication each case expects.
"""

import dataclasses
import datetime
import os
import shutil
import time
import zlib

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import DTensor, Partial, Replicate, Shard, distribute_tensor
from torch.distributed.tensor.debug import CommDebugMode

import hardsigmoid_ops
from hardsigmoid_testing import FLOAT_DTYPES, OPS
from hardsigmoid_testing.checks import assert_identical
from hardsigmoid_testing.config import LIBRARY
from hardsigmoid_testing.values import random_values

WORLD_SIZE = 2
# Odd sizes: Shard(0) splits 4 + 3 rows, Shard(1) 3 + 2 columns.
SHAPE = (7, 5)
LAUNCH_TIMEOUT_S = 240
S0, S1, R, P = Shard(0), Shard(1), Replicate(), Partial()
ERROR = "error"


@dataclasses.dataclass(frozen=True)
class Case:
    """`op` on a `mesh`-shaped mesh with self placed as `placements`. `other` places the second
    tensor: grad_output of the backward op, out of the out op (self's placements when None; for
    "autograd", the gradient takes the result's placements). `expect` is the result's placements
    (or ERROR), `communicates` whether any collective runs."""

    op: str
    mesh: tuple
    placements: tuple
    other: tuple | None
    dtype: torch.dtype
    expect: object
    communicates: bool

    def __str__(self):
        def names(placements):
            return ",".join(str(p) for p in placements)

        other = f"-other:{names(self.other)}" if self.other is not None else ""
        mesh = "x".join(map(str, self.mesh))
        return f"{self.op}-mesh{mesh}-{names(self.placements)}{other}-{str(self.dtype)[6:]}"


def _reduced(placements):
    return tuple(R if p.is_partial() else p for p in placements)


def _grid_case(op, mesh, placements, dtype):
    """The expectations of a pointwise op with every tensor placed alike: Shard and Replicate are
    kept, with no communication; Partial is reduced to Replicate (a reduction over one rank needs
    no communication), except where the op writes into the Partial tensor, which is an error
    raised before any communication."""
    has_partial = any(p.is_partial() for p in placements)
    writes_partial = op in ("hardsigmoid_", "hardsigmoid_out") and has_partial
    expect = ERROR if writes_partial else _reduced(placements)
    reduces = any(p.is_partial() and size > 1 for p, size in zip(placements, mesh))
    return Case(op, mesh, placements, None, dtype, expect, reduces and not writes_partial)


OPS_UNDER_TEST = ("hardsigmoid", "hardsigmoid_", "hardsigmoid_out", "hardsigmoid_backward",
                  "autograd")
MESHES = {
    (2,): [(S0,), (S1,), (R,), (P,)],
    # Two-dimensional meshes of two ranks: one mesh dimension has a single rank.
    (2, 1): [(S0, S1), (R, S0), (S1, P), (P, R)],
    (1, 2): [(S0, S1), (R, S0), (S1, P), (P, R)],
}
CASES = [
    _grid_case(op, mesh, placements, dtype)
    for op in OPS_UNDER_TEST
    for mesh, placement_list in MESHES.items()
    for placements in placement_list
    for dtype in (FLOAT_DTYPES if mesh == (2,) else (torch.float32,))
] + [
    # Two tensors placed differently. The backward op takes the placements of the input with
    # more shards (grad_output on a tie), as DTensor's pointwise rule does: Replicate becomes
    # Shard locally, anything else communicates. The out op keeps out's placements.
    Case("hardsigmoid_backward", (2,), (R,), (S0,), torch.float32, (S0,), False),
    Case("hardsigmoid_backward", (2,), (S1,), (R,), torch.float32, (S1,), False),
    Case("hardsigmoid_backward", (2,), (S1,), (S0,), torch.float32, (S0,), True),
    Case("hardsigmoid_backward", (2,), (S0,), (P,), torch.float32, (S0,), True),
    Case("hardsigmoid_backward", (2,), (P,), (R,), torch.float32, (R,), True),
    Case("hardsigmoid_backward", (1, 2), (R, S1), (R, S0), torch.float32, (R, S0), True),
    Case("hardsigmoid_out", (2,), (R,), (S0,), torch.float32, (S0,), False),
    Case("hardsigmoid_out", (2,), (S0,), (S1,), torch.float32, (S1,), True),
    Case("hardsigmoid_out", (2,), (P,), (R,), torch.float32, (R,), True),
    Case("hardsigmoid_out", (2,), (S0,), (P,), torch.float32, ERROR, False),
    Case("hardsigmoid_out", (2, 1), (S0, R), (R, S1), torch.float32, (R, S1), True),
]


def _inputs(case, seed):
    """self and a second tensor (grad_output, out's initial values) of the case, from the test's
    seed and the case's name, as the gen fixture seeds a test's generator."""
    gen = torch.Generator().manual_seed(seed ^ zlib.crc32(f"{__name__}::{case}".encode()))
    numel = SHAPE[0] * SHAPE[1]
    return tuple(random_values(numel, case.dtype, gen).reshape(SHAPE) for _ in range(2))


# ---- what each rank runs ----------------------------------------------------------------------


def _place(full, mesh, placements):
    """A DTensor whose full tensor is `full`, bit for bit. A Partial mesh dimension holds `full` at
    its first coordinate and -0.0 elsewhere: x + (-0.0) is x for every x, -0.0 and NaN included,
    so the reduction gives back `full` exactly."""
    replicated = distribute_tensor(full.clone(), mesh, _reduced(placements))
    local = replicated.to_local()
    coordinate = mesh.get_coordinate()
    if any(p.is_partial() and coordinate[d] != 0 for d, p in enumerate(placements)):
        local = torch.full_like(local, -0.0)
    return DTensor.from_local(local, mesh, placements, run_check=False, shape=full.shape,
                              stride=full.stride())


def _run_case(case, mesh, self_full, other_full, device):
    """What this rank sees of `case`: a dict of plain values and CPU tensors."""
    other_placements = case.other if case.other is not None else case.placements
    self_full, other_full = self_full.to(device), other_full.to(device)
    x = _place(self_full, mesh, case.placements)
    seen = {"error": None, "returned": None, "grad": None, "grad_placements": None}
    comms = CommDebugMode()
    try:
        if case.op == "hardsigmoid":
            with comms:
                result = OPS.hardsigmoid(x)
        elif case.op == "hardsigmoid_backward":
            grad_output = _place(other_full, mesh, other_placements)
            with comms:
                result = OPS.hardsigmoid_backward(grad_output, x)
        elif case.op == "hardsigmoid_":
            with comms:
                seen["returned"] = OPS.hardsigmoid_(x)
            result = x
        elif case.op == "hardsigmoid_out":
            result = _place(other_full, mesh, other_placements)
            with comms:
                seen["returned"] = OPS.hardsigmoid_out(x, result)
        else:
            x.requires_grad_()
            with comms:
                result = OPS.hardsigmoid(x)
            grad_output = _place(other_full, mesh, result.placements)
            backward_comms = CommDebugMode()
            with backward_comms:
                result.backward(grad_output)
            seen["backward_collectives"] = backward_comms.get_total_counts()
            seen["grad_placements"] = x.grad.placements
            seen["grad"] = x.grad.full_tensor().cpu()
            result = result.detach()
        seen["placements"] = result.placements
        seen["result"] = result.full_tensor().cpu()
    except Exception as error:  # reported to the test, which decides whether it was expected
        seen["error"] = f"{type(error).__name__}: {error}"
    seen["collectives"] = comms.get_total_counts()
    seen["self_after"] = x.detach().full_tensor().cpu()
    return seen


def _rank_main(rank, backend, device, store_port, cases, inputs, results_dir):
    # Each rank loads the library and the package, as a user's program does.
    hardsigmoid_ops.load_library(str(LIBRARY))
    if device == "cuda":
        torch.cuda.set_device(rank)
    store = dist.TCPStore("127.0.0.1", store_port, is_master=False,
                          timeout=datetime.timedelta(seconds=60))
    # A collective one rank never joins fails after this long, instead of hanging the suite.
    dist.init_process_group(backend, store=store, rank=rank, world_size=WORLD_SIZE,
                            timeout=datetime.timedelta(seconds=60))
    try:
        # Every rank creates the meshes (and their process groups) in the same order.
        meshes = {shape: init_device_mesh(device, shape) for shape in dict.fromkeys(
            case.mesh for case in cases)}
        seen = {str(case): _run_case(case, meshes[case.mesh], *inputs[str(case)], device)
                for case in cases}
    finally:
        dist.destroy_process_group()
    torch.save(seen, os.path.join(results_dir, f"rank{rank}.pt"))


# ---- the launch and the checks ------------------------------------------------------------------


def _launch(backend, device, cases, seed, results_dir):
    """Runs `cases`, drawn from `seed`, on two new processes; returns {case name: [what rank 0
    saw, rank 1]}."""
    # The store lives here, on a port the system picks, so that no port can be taken meanwhile.
    store = dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False)
    inputs = {str(case): _inputs(case, seed) for case in cases}
    context = mp.start_processes(
        _rank_main, args=(backend, device, store.port, cases, inputs, str(results_dir)),
        nprocs=WORLD_SIZE, join=False, start_method="spawn")
    deadline = time.monotonic() + LAUNCH_TIMEOUT_S
    while not context.join(timeout=max(deadline - time.monotonic(), 0)):
        if time.monotonic() >= deadline:
            for process in context.processes:
                process.kill()
            pytest.fail(f"the {backend} ranks did not finish within {LAUNCH_TIMEOUT_S} s")
    # Written by the ranks just now; they hold placements, which weights_only would refuse.
    ranks = [torch.load(results_dir / f"rank{rank}.pt", weights_only=False)
             for rank in range(WORLD_SIZE)]
    return {name: [seen[name] for seen in ranks] for name in ranks[0]}


def _reference(case, device, seed):
    """aten on the full tensors, on the device the ranks ran on (its result there is the
    contract): the op's result, and for autograd the gradient."""
    self_full, other_full = (t.to(device) for t in _inputs(case, seed))
    if case.op == "hardsigmoid_backward":
        return torch.ops.aten.hardsigmoid_backward(other_full, self_full).cpu(), None
    result = torch.ops.aten.hardsigmoid(self_full).cpu()
    if case.op == "autograd":
        return result, torch.ops.aten.hardsigmoid_backward(other_full, self_full).cpu()
    return result, None


def _check(case, seen_by_ranks, device, seed):
    # The reference is aten's op on the whole tensor, the results each rank's on its shard: rows
    # that end elsewhere put aten's scalar tail (and its NaN) elsewhere, so NaN compares as NaN.
    expected, expected_grad = _reference(case, device, seed)
    self_full = _inputs(case, seed)[0]
    for rank, seen in enumerate(seen_by_ranks):
        where = f"{case}, rank {rank}"
        if case.expect == ERROR:
            assert seen["error"] is not None and "Partial" in seen["error"], where
            assert seen["collectives"] == 0, f"{where}: communicated before raising"
            # Reading a Partial(sum) input back adds its shards: a signaling NaN returns quieted.
            assert_identical(seen["self_after"], self_full, nan_bits=False)
            continue
        assert seen["error"] is None, f"{where}: {seen['error']}"
        assert seen["placements"] == case.expect, where
        assert_identical(seen["result"], expected, self_full, nan_bits=False)
        if case.communicates:
            assert seen["collectives"] > 0, f"{where}: expected a redistribution"
        else:
            assert seen["collectives"] == 0, f"{where}: communicated"
        if case.op in ("hardsigmoid_", "hardsigmoid_out"):
            assert seen["returned"] is None, where
        if case.op != "hardsigmoid_":
            assert_identical(seen["self_after"], self_full, nan_bits=False)
        if case.op == "autograd":
            assert seen["grad_placements"] == case.expect, where
            assert_identical(seen["grad"], expected_grad, self_full, nan_bits=False)
            if not case.communicates:
                assert seen["backward_collectives"] == 0, f"{where}: backward communicated"


@pytest.fixture(scope="module")
def gloo_launches():
    """The gloo ranks' results by seed: one launch runs every case (one per seed under a sweep)."""
    return {}


@pytest.fixture
def gloo_results(seed, gloo_launches, tmp_path_factory):
    if seed not in gloo_launches:
        gloo_launches[seed] = _launch("gloo", "cpu", CASES, seed, tmp_path_factory.mktemp("gloo"))
    return gloo_launches[seed]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_gloo(case, gloo_results, seed):
    _check(case, gloo_results[str(case)], "cpu", seed)


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs 2 CUDA devices")
def test_nccl(tmp_path, seed):
    results = _launch("nccl", "cuda", CASES, seed, tmp_path)
    failures = []
    for case in CASES:
        try:
            _check(case, results[str(case)], "cuda", seed)
        except AssertionError as failure:
            failures.append(f"{case}: {failure}")
    assert not failures, f"{len(failures)} of {len(CASES)} cases failed:\n" + "\n".join(failures)


# ---- loading -----------------------------------------------------------------------------------


def test_loading_again_is_harmless():
    loaded = set(torch.ops.loaded_libraries)
    hardsigmoid_ops.load_library(str(LIBRARY))
    hardsigmoid_ops.load_library(str(LIBRARY))
    assert set(torch.ops.loaded_libraries) == loaded
    assert os.path.realpath(LIBRARY) in {os.path.realpath(p) for p in loaded}


def test_a_second_copy_is_refused(tmp_path):
    # Its registrations would collide with those already made.
    copy = tmp_path / LIBRARY.name
    shutil.copy(LIBRARY, copy)
    with pytest.raises(RuntimeError, match="already registered"):
        hardsigmoid_ops.load_library(str(copy))
    assert str(copy) not in torch.ops.loaded_libraries


def test_a_missing_library_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere.so"):
        hardsigmoid_ops.load_library(str(tmp_path / "nowhere.so"))


def _dtensor_example():
    import importlib.util

    from hardsigmoid_testing.config import REPO_ROOT

    path = REPO_ROOT / "distributed_examples" / "dtensor_example.py"
    spec = importlib.util.spec_from_file_location("dtensor_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return path, module


@pytest.mark.parametrize("gpus, expected", [(0, ("cpu", "gloo")), (1, ("cpu", "gloo")),
                                            (2, ("cuda", "nccl")), (3, ("cuda", "nccl"))])
def test_example_picks_a_backend_for_its_device(monkeypatch, gpus, expected):
    """Two ranks: NCCL only when each has a GPU of its own, gloo on CPU ranks otherwise (one GPU
    for two ranks is the case that had no CPU backend)."""
    _, example = _dtensor_example()
    monkeypatch.setattr(torch.cuda, "is_available", lambda: gpus > 0)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: gpus)
    assert example.device_and_backend(WORLD_SIZE) == expected


# "visible" runs with the machine's GPUs; "none" hides them, so the CPU path runs on a GPU
# machine too.
@pytest.mark.parametrize("gpus", ["visible", "none"])
def test_docs_example_under_torchrun(gpus):
    """distributed_examples/dtensor_example.py, docs/distributed.md's example, as the guide runs
    it: two ranks started by torchrun (NCCL on two GPUs where there are two, else gloo on the
    CPU)."""
    import subprocess
    import sys

    from hardsigmoid_testing.config import package_parent

    example, _ = _dtensor_example()
    env = dict(os.environ, HARDSIGMOID_OPS_LIBRARY=str(LIBRARY),
               PYTHONPATH=os.pathsep.join([str(package_parent()),
                                           os.environ.get("PYTHONPATH", "")]))
    visible = torch.cuda.device_count()
    if gpus == "none":
        env["CUDA_VISIBLE_DEVICES"] = ""
        visible = 0
    result = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node",
         str(WORLD_SIZE), str(example)],
        env=env, capture_output=True, text=True, timeout=LAUNCH_TIMEOUT_S)
    assert result.returncode == 0, result.stderr[-4000:]
    expected = "cuda (nccl)" if visible >= WORLD_SIZE else "cpu (gloo)"
    assert f"{WORLD_SIZE} ranks on {expected}" in result.stdout, result.stdout
    assert "equal to aten" in result.stdout
