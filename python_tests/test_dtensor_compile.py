"""DTensor under torch.compile with the package's fusion on: the graph traced through DTensor's
sharding of our ops compiles to the same results as the graph written with aten's, bit for bit,
forward and backward, the in-place op included. One CPU rank (gloo) in this process: compiling
through DTensor is what is checked here; the sharding itself on two ranks is test_dtensor.py's."""

import pytest
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import Replicate, Shard, distribute_tensor

from hardsigmoid_testing import FLOAT_DTYPES, OPS
from hardsigmoid_testing.checks import assert_identical
from hardsigmoid_testing.values import random_values

pytestmark = [
    pytest.mark.skipif(not dist.is_available(), reason="torch built without distributed"),
    pytest.mark.usefixtures("fused_compile"),
]


@pytest.fixture(scope="module")
def mesh():
    # One rank: an in-process store, so no port is asked for (another process could take it).
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    yield init_device_mesh("cpu", (1,))
    dist.destroy_process_group()


def ours(x, s):
    t = x * 2
    OPS.hardsigmoid_(t)
    return OPS.hardsigmoid(s + 1) * t


def aten(x, s):
    t = x * 2
    F.hardsigmoid(t, inplace=True)
    return F.hardsigmoid(s + 1) * t


@pytest.mark.parametrize("placement", [Shard(0), Replicate()], ids=["shard0", "replicate"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: str(d).split(".")[1])
def test_compiled_dtensor_graph_equals_compiled_aten(mesh, placement, dtype, gen):
    """Ours compiled on DTensors against aten's compiled on the plain tensors (on one rank, the
    full tensors): aten's in-place op and aten.hardsigmoid_backward have no DTensor sharding
    strategy in torch 2.11, so aten's graph cannot run on DTensors at all."""
    plain = [random_values(6 * 5, dtype, gen).reshape(6, 5) for _ in range(3)]

    def run(fn, tensors):
        x, s, upstream = tensors
        x, s = x.requires_grad_(), s.requires_grad_()
        torch._dynamo.reset()
        y = torch.compile(fn, fullgraph=True)(x, s)
        return [y, *torch.autograd.grad(y, (x, s), upstream)]

    got = run(ours, [distribute_tensor(t, mesh, [placement]) for t in plain])
    assert all(t.placements == (placement,) for t in got)
    expected = run(aten, [t.clone() for t in plain])
    for g, e in zip(got, expected):
        assert_identical(g.full_tensor(), e.detach(), inputs=plain[0])
