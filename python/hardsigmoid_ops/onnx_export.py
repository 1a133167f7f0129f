"""torch.onnx.export: a model using the ops exports as the same model with aten's hardsigmoid
does, with both exporters, to ONNX's own HardSigmoid (alpha 1/6, beta 1/2), no custom domain.

- The default exporter (torch.export-based, dynamo=True) lowers the exported program with a
  decomposition table of its own making before it translates it (for every op without an ONNX
  translation). Here that table also gets aten_lowering's entries, so the four ops become aten's
  (the in-place and out ops functionalized as aten's are) and the exporter goes on as for aten's
  model: the same graph, node for node. A translation the user gives for one of the ops
  (custom_translation_table) takes precedence. This wraps the exporter's internal function that
  makes the table (torch.onnx._internal.exporter._decomp.create_onnx_friendly_decomposition_table,
  the same in torch 2.11 through 2.15), when the exporter imports it.
- The TorchScript-based exporter (dynamo=False) converts a TorchScript graph (traced, or the
  scripted module's), op by op, with a symbolic function per op. The trace of a mutating custom op
  records no result, and its passes would leave the graph reading the tensor as it was before the
  op. So in the graph it gets, before any pass, each of the four ops becomes aten's op as aten's
  own would appear there (the in-place op returning its input, whose later uses read the result;
  the out op in aten's out= form): from then on the exporter treats it as aten's, exporting what
  aten's exports (HardSigmoid, through aten's symbolic function) and refusing what aten's refuses
  (the backward op and the out= form have no symbolic function). This wraps the exporter's
  internal function that makes the graph (torch.onnx._internal.torchscript_exporter.utils.
  _create_jit_graph, the same in torch 2.11 through 2.15), when the exporter imports it.

Both are extended when torch imports the exporter's module, not before (torch imports neither
until torch.onnx.export runs).
"""

import functools

from . import _on_import, aten_lowering

_DECOMP_MODULE = "torch.onnx._internal.exporter._decomp"
_TORCHSCRIPT_MODULE = "torch.onnx._internal.torchscript_exporter.utils"
_WRAPPED = "_hardsigmoid_ops_wrapped"
_on_import.watch(_DECOMP_MODULE)
_on_import.watch(_TORCHSCRIPT_MODULE)
# Each op's aten op, as the TorchScript graph holds it: (inputs) -> the tensor written or made.
_ATENS_IN_GRAPHS = {
    "hardsigmoid_ops::hardsigmoid": "aten::hardsigmoid",
    "hardsigmoid_ops::hardsigmoid_": "aten::hardsigmoid_",
    "hardsigmoid_ops::hardsigmoid_out": "aten::hardsigmoid",
    "hardsigmoid_ops::hardsigmoid_backward": "aten::hardsigmoid_backward",
}


def _with_the_ops_as_atens(create):
    """The exporter's table maker, returning its table with aten_lowering's entries added."""

    @functools.wraps(create)
    def create_with_hardsigmoid_ops(onnx_registered_ops, *args, **kwargs):
        table = create(onnx_registered_ops, *args, **kwargs)
        for op, entry in aten_lowering.aten_decompositions().items():
            if op not in onnx_registered_ops:
                table.setdefault(op, entry)
        return table

    setattr(create_with_hardsigmoid_ops, _WRAPPED, True)
    return create_with_hardsigmoid_ops


def _as_atens_in(graph, block):
    """Each of the ops' nodes in the block (and the blocks within) as aten's op: one result, of
    the type of the tensor it makes or writes (a mutating op's last argument), and the later uses
    of a written tensor reading that result."""
    for node in list(block.nodes()):
        for inner in node.blocks():
            _as_atens_in(graph, inner)
        aten = _ATENS_IN_GRAPHS.get(node.kind())
        if aten is None:
            continue
        inputs = list(node.inputs())
        replacement = graph.create(aten, inputs, 1)
        replacement.insertBefore(node)
        replacement.copyMetadata(node)
        if node.outputsSize():
            replacement.output().setType(node.output().type())
            node.output().replaceAllUsesWith(replacement.output())
        else:
            replacement.output().setType(inputs[-1].type())
            inputs[-1].replaceAllUsesAfterNodeWith(replacement, replacement.output())
        node.destroy()


def _with_atens_in_the_graph(create):
    """The exporter's graph maker, returning its graph with the ops as aten's."""

    @functools.wraps(create)
    def create_with_atens(*args, **kwargs):
        made = create(*args, **kwargs)
        graph = made[0]
        _as_atens_in(graph, graph.block())
        return made

    setattr(create_with_atens, _WRAPPED, True)
    return create_with_atens


def _wrap(module, name, wrapper):
    function = getattr(module, name, None)
    if function is not None and not getattr(function, _WRAPPED, False):
        setattr(module, name, wrapper(function))


def _extend_the_default_exporter(module):
    _wrap(module, "create_onnx_friendly_decomposition_table", _with_the_ops_as_atens)


def _extend_the_torchscript_exporter(module):
    _wrap(module, "_create_jit_graph", _with_atens_in_the_graph)


def register():
    """Called once the ops exist: extends each exporter when torch imports it."""
    _on_import.when_imported(_DECOMP_MODULE, _extend_the_default_exporter)
    _on_import.when_imported(_TORCHSCRIPT_MODULE, _extend_the_torchscript_exporter)
