"""DTensor sharding rules for the four ops: those of a pointwise op, as DTensor applies to aten's.

- Shard and Replicate placements (on any mesh) run on the local shards with no communication, and
  the result has the input's placements.
- hardsigmoid is not linear, so a Partial placement (a pending sum) is reduced to Replicate first,
  as DTensor does for aten.hardsigmoid. hardsigmoid_backward is linear in grad_output, but summing
  per-rank gradients would round differently from aten, so it reduces Partial inputs too.
- hardsigmoid_backward's two inputs get one placement: it follows the input with more shards
  (grad_output on a tie), as DTensor's pointwise rule does, and the other is redistributed to it.
- hardsigmoid_ and hardsigmoid_out write into an argument, so that argument keeps its placements:
  self for the in-place op, out for the out op (self is redistributed to out's placements). A
  Partial self (in-place) or out cannot hold hardsigmoid's result; that is an error, raised before
  any communication (DTensor raises for aten.hardsigmoid_ on a Partial input too, after reducing
  it).
"""

import torch
from torch.distributed.tensor import Replicate

from ._dtensor_api import (
    DTensorSpec,
    OpSpec,
    OpStrategy,
    generate_redistribute_costs,
    register_op_strategy,
)

_OPS = torch.ops.hardsigmoid_ops


def _runtime_spec(strategy):
    """The spec of a DTensor argument as it is now (eager DTensor wraps it in one OpStrategy)."""
    return strategy.strategies[0].output_spec


def _same_mesh(op, strategies):
    meshes = {strategy.mesh for strategy in strategies}
    if len(meshes) > 1:
        raise ValueError(f"{op}: the DTensor arguments are on different device meshes: {meshes}")


def _op_spec(placements, inputs, mesh, has_output):
    """An OpSpec that gives every input (an OpStrategy) `placements`, and the output too."""
    input_specs = [DTensorSpec(mesh, placements, tensor_meta=arg.tensor_meta) for arg in inputs]
    return OpSpec(
        output_specs=DTensorSpec(mesh, placements) if has_output else None,
        input_specs=input_specs,
        redistribute_cost=[generate_redistribute_costs(arg, spec)
                           for arg, spec in zip(inputs, input_specs)],
    )


def _reduced(placements):
    return tuple(Replicate() if p.is_partial() else p for p in placements)


def _reject_partial(op, name, spec):
    if any(p.is_partial() for p in spec.placements):
        raise RuntimeError(
            f"{op}: {name} is a Partial DTensor (placements {spec.placements}); hardsigmoid needs "
            f"the reduced values, and {name} cannot be reduced in place. Use the functional "
            f"hardsigmoid_ops.hardsigmoid, or redistribute {name} to Replicate first."
        )


def _follow(op_schema, followed):
    """One OpSpec per strategy of the followed input: its placements, Partial reduced."""
    inputs = op_schema.args_schema
    _same_mesh(op_schema.op, inputs)
    return OpStrategy([
        _op_spec(_reduced(spec.output_spec.placements), inputs, followed.mesh, has_output=True)
        for spec in followed.strategies
    ])


def hardsigmoid_strategy(op_schema):
    (self,) = op_schema.args_schema
    return _follow(op_schema, self)


def hardsigmoid_backward_strategy(op_schema):
    grad_output, self = op_schema.args_schema
    followed = self if self.max_num_shards() > grad_output.max_num_shards() else grad_output
    return _follow(op_schema, followed)


def hardsigmoid_inplace_strategy(op_schema):
    (self,) = op_schema.args_schema
    spec = _runtime_spec(self)
    _reject_partial(op_schema.op, "self", spec)
    return OpStrategy([_op_spec(spec.placements, [self], spec.mesh, has_output=False)])


def hardsigmoid_out_strategy(op_schema):
    self, out = op_schema.args_schema
    _same_mesh(op_schema.op, (self, out))
    spec = _runtime_spec(out)
    _reject_partial(op_schema.op, "out", spec)
    return OpStrategy([_op_spec(spec.placements, [self, out], spec.mesh, has_output=False)])


def register():
    """Registers the rules with DTensor; registering again replaces them with the same rules."""
    register_op_strategy(_OPS.hardsigmoid.default, hardsigmoid_strategy)
    register_op_strategy(_OPS.hardsigmoid_backward.default, hardsigmoid_backward_strategy)
    register_op_strategy(_OPS.hardsigmoid_.default, hardsigmoid_inplace_strategy)
    register_op_strategy(_OPS.hardsigmoid_out.default, hardsigmoid_out_strategy)
