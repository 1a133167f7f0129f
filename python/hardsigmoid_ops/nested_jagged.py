"""Jagged nested tensors (torch.jagged): the ops on them as aten's hardsigmoid on them.

A jagged nested tensor is a Python tensor subclass whose __torch_dispatch__ looks each op up in
its table. The functional op, tagged pointwise, needs no entry: the subclass applies it to its
dense values. The backward op is not pointwise-tagged (only the functional op is), so it gets the
entry aten's hardsigmoid_backward has (the table's activation_backward: grad_output jagged, the
op on the values of each jagged argument and any dense one as it is, the result with
grad_output's offsets).
The in-place op gets an entry (the op on the values, in place) where the subclass takes aten's
in-place op, which it does when that op is tagged pointwise (torch 2.15; not 2.11); elsewhere it
has none, and the subclass refuses both (NotImplementedError). The out op has none: refused, as
aten's out= form is. Autograd records the ops on the nested tensor itself (registration/), so
gradients flow as through aten's op.
"""

import torch

from . import _on_import

# The module that holds the jagged table: torch imports it with the first jagged nested tensor.
_TABLE_MODULE = "torch.nested._internal.ops"
_on_import.watch(_TABLE_MODULE)


def _inplace(op, self):
    op(self._values)


def _add_entries(jagged):
    ops = torch.ops.hardsigmoid_ops
    if ops.hardsigmoid_backward.default not in jagged.JAGGED_OPS_TABLE:
        jagged.register_jagged_func(ops.hardsigmoid_backward.default, "self: jt_all, ...")(
            jagged.activation_backward)
    takes_atens_inplace = torch.Tag.pointwise in torch.ops.aten.hardsigmoid_.default.tags
    if takes_atens_inplace and ops.hardsigmoid_.default not in jagged.JAGGED_OPS_TABLE:
        jagged.register_jagged_func(ops.hardsigmoid_.default, "self: jt_all")(_inplace)


def register():
    """Called once the ops exist: adds the backward op's entry to the jagged table when torch
    imports it."""
    _on_import.when_imported(_TABLE_MODULE, _add_entries)
