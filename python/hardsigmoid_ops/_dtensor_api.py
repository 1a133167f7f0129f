"""The parts of DTensor that the sharding rules need, in one place.

torch 2.11's public ``torch.distributed.tensor.experimental.register_sharding`` does not fit the
out op: it expands rules written for one mesh dimension to every combination over the mesh and
DTensor runs the cheapest, so nothing keeps out at its own placements, and a redistributed out is
a copy: the op writes the copy and out keeps its old values, with no error. So the rules are
registered as DTensor registers its own, with ``register_op_strategy`` on DTensor's sharding
propagator, through the private names imported below (the other three ops too, so that each
rule states the one placement every input takes). They were checked against torch 2.11; a torch
that lacks one fails here, on import, naming what is missing.
"""

import torch

_TESTED_WITH = "2.11"


def _missing(what, error):
    return RuntimeError(
        f"hardsigmoid_ops: DTensor sharding relies on torch's private {what}, which this torch "
        f"({torch.__version__}; tested with {_TESTED_WITH}) does not provide: {error}. Update the "
        "rules in hardsigmoid_ops/sharding.py for this torch."
    )


try:
    from torch.distributed.tensor import DTensor
    from torch.distributed.tensor._dtensor_spec import DTensorSpec
    from torch.distributed.tensor._op_schema import (
        OpSchema,
        OpSpec,
        OpStrategy,
        RuntimeSchemaInfo,
    )
    from torch.distributed.tensor._ops.utils import generate_redistribute_costs
except ImportError as error:
    raise _missing("DTensor op-strategy types", error) from error

__all__ = [
    "DTensorSpec",
    "OpSchema",
    "OpSpec",
    "OpStrategy",
    "generate_redistribute_costs",
    "register_op_strategy",
]


def register_op_strategy(op, strategy):
    """Registers `strategy` (OpSchema -> OpStrategy) as DTensor's sharding rule for `op`, an op
    whose only arguments are tensors (so nothing else enters DTensor's sharding cache key)."""
    try:
        propagator = DTensor._op_dispatcher.sharding_propagator
        register = propagator.register_op_strategy
    except AttributeError as error:
        raise _missing("DTensor._op_dispatcher.sharding_propagator.register_op_strategy",
                       error) from error
    register(op, strategy, RuntimeSchemaInfo())
