"""hardsigmoid_ops on DTensor across ranks: one GPU a rank (NCCL) when there are enough GPUs, else
CPU ranks (gloo), on any machine. Checks each result against aten's hardsigmoid on the full tensor
and prints it.

    HARDSIGMOID_OPS_LIBRARY=build/libhardsigmoid_ops.so PYTHONPATH=python \\
        torchrun --nproc-per-node 2 distributed_examples/dtensor_example.py
"""

import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import Shard, distribute_tensor

import hardsigmoid_ops  # noqa: F401 (loads the library and registers the ops' DTensor sharding)

ops = torch.ops.hardsigmoid_ops


def device_and_backend(world):
    """("cuda", "nccl") when every rank can have a GPU of its own, else ("cpu", "gloo"): NCCL
    refuses two ranks on one GPU, and gloo runs anywhere."""
    if torch.cuda.is_available() and torch.cuda.device_count() >= world:
        return "cuda", "nccl"
    return "cpu", "gloo"


def main():
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    device, backend = device_and_backend(world)
    if device == "cuda":
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    # The backend is named: left to init_device_mesh, a machine with a GPU gets an NCCL group
    # only, which cannot hold CPU tensors ("No backend type associated with device type cpu").
    dist.init_process_group(backend)
    mesh = init_device_mesh(device, (world,))
    torch.manual_seed(0)  # the same full tensor on every rank
    full = torch.randn(4096, 1024, device=device) * 4

    x = distribute_tensor(full, mesh, [Shard(0)]).requires_grad_()
    y = ops.hardsigmoid(x)            # each rank computes its own rows; y is Shard(0), nothing sent
    y.sum().backward()                # x.grad is Shard(0), from hardsigmoid_backward
    with torch.no_grad():
        ops.hardsigmoid_(y)           # in place: y stays Shard(0)

    reference = full.clone().requires_grad_()
    expected = F.hardsigmoid(reference)
    expected.sum().backward()
    ok = (y.placements == (Shard(0),)
          and torch.equal(x.grad.full_tensor(), reference.grad)
          and torch.equal(y.full_tensor(), F.hardsigmoid(expected.detach())))
    if rank == 0:
        print(f"{world} ranks on {device} ({backend}): placements {y.placements}, "
              f"{'equal to aten' if ok else 'DIFFERENT FROM ATEN'}")
    dist.destroy_process_group()
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
