"""The ops as aten's ops: a decomposition table mapping each of the four to aten's, for compilers
that take only aten or core aten, and the kernels that let the two mutating ops take their entry.

    ep = torch.export.export(model, (x,))             # keeps the hardsigmoid_ops ops
    ep = ep.run_decompositions(hardsigmoid_ops.aten_decompositions())   # aten's graph, no ours
    table = torch.export.default_decompositions()
    table.update(hardsigmoid_ops.aten_decompositions())
    ep = ep.run_decompositions(table)                 # core aten, as aten's model lowers

The functional ops map to aten's own ops (aten.hardsigmoid, aten.hardsigmoid_backward) and the
in-place and out ops to a copy of aten's result; inductor's entries (compile_fusion.py) are the
same, made with the fusion switch as their condition.

The mutating ops need one more step to give aten's graph exactly. Functionalization turns aten's
in-place op into hardsigmoid + copy_ (so that a partitioner may recompute the result inside the
backward's fused kernel, and out's buffer is a new one); a custom mutating op it would wrap whole
(auto_functionalized), and a decomposition would apply to it only after that, or not at all (an
exported program's auto_functionalized nodes keep the op). So each of the two also gets a
Python-only CompositeImplicitAutograd kernel (never seen by the C++ dispatcher, so eager calls and
the library's autograd are untouched), which functionalization calls for mutating ops: when the
tracing's decomposition table holds one of this module's entries for the op, and its condition
holds, the kernel calls aten's own in-place or out op, which functionalization then treats as in
aten's graph. Anywhere else (torch.export, fake-tensor tracing, make_fx, aot_eager) it declines,
and the graph keeps the op. Under the Python dispatcher (tracing) it passes the call on to the C++
dispatcher. For an entry made to keep the library's functional op (mutating_entries with
`keep_ours`, for ExecuTorch: executorch_lowering.py) the kernel functionalizes the op as aten's
is, with the library's functional op in aten's place.
"""

import contextvars
import sys

import torch

from . import _library, functional

__all__ = ["aten_decompositions"]

_DECOMPOSE = torch._ops.OpOverload.decompose.__code__
# The attributes that mark this module's entries for the mutating ops: their condition, and
# whether the functionalization kernel keeps the library's functional op rather than running
# aten's mutating op.
_CONDITION = "_hardsigmoid_ops_condition"
_KEEPS_OURS = "_hardsigmoid_ops_keeps_ours"


def mutating_entries(condition, keep_ours=False):
    """Table entries for the in-place and out ops, applied by the kernels below while
    condition() is true: a copy of aten's functional op's result (functionalized as aten's own
    mutating op), or with keep_ours a copy of the library's functional op's result (functionalized
    as aten's op is, with the library's functional op). Made once per table: compile_fusion.py
    removes its own by identity."""

    def functional(self):
        if keep_ours:
            return torch.ops.hardsigmoid_ops.hardsigmoid.default(self)
        return torch.ops.aten.hardsigmoid.default(self)

    def inplace(self):
        self.copy_(functional(self))

    def out(self, out):
        out.copy_(functional(self))

    for entry in (inplace, out):
        setattr(entry, _CONDITION, condition)
        setattr(entry, _KEEPS_OURS, keep_ours)
    return inplace, out


def table(inplace, out):
    """The four ops' entries: aten's own functional ops, and the given mutating entries."""
    ops, aten = torch.ops.hardsigmoid_ops, torch.ops.aten
    return {
        ops.hardsigmoid.default: aten.hardsigmoid.default,
        ops.hardsigmoid_.default: inplace,
        ops.hardsigmoid_out.default: out,
        ops.hardsigmoid_backward.default: aten.hardsigmoid_backward.default,
    }


_ALWAYS = mutating_entries(lambda: True)


def aten_decompositions():
    """A decomposition table (a new dict each call) mapping each hardsigmoid_ops op to aten's ops,
    as torch.export.default_decompositions() maps aten's to core aten: for
    ExportedProgram.run_decompositions, make_fx and the compilers that take such a table. With it
    the program is the one exported from the same model with aten's hardsigmoid, and computes its
    bits. torch.export keeps the hardsigmoid_ops ops unless it is given this table."""
    if not _library.ops_registered():
        functional._not_loaded()
    return table(*_ALWAYS)


def _current_decomposition_table():
    """The decomposition table of the make_fx tracing in progress ({} when there is none), set
    by proxy_tensor's `decompose` context: in torch 2.11 a module global, in 2.12 a ContextVar
    of the same name (whose .get(op) would return op, not the entry), from 2.13 an attribute of
    the proxy mode (its `enable_decompositions`)."""
    from torch.fx.experimental import proxy_tensor

    current = getattr(proxy_tensor, "CURRENT_DECOMPOSITION_TABLE", None)
    if isinstance(current, contextvars.ContextVar):
        return current.get({})
    if current is not None:
        return current
    mode = proxy_tensor.get_proxy_mode()
    return getattr(mode, "decomposition_table", None) or {}


def _as_atens_when_functionalized(op, atens):
    """A Python-only CompositeImplicitAutograd kernel for a mutating op. Asked by a tracing mode
    through OpOverload.decompose (FunctionalTensorMode asks for every mutating op; FakeTensorMode
    and make_fx for any op with such a kernel), it runs aten's own mutating op (or, for an entry
    that keeps the library's op, functionalizes it as aten's, with the library's functional op)
    when the asker is functionalization tracing with a decomposition table that holds one of this
    module's entries for the op whose condition holds (inductor's table with fusion on, also used
    by aot_eager_decomp_partition; aten_decompositions(); ExecuTorch's, executorch_lowering.py),
    and declines (NotImplemented: the op stays as it is) anywhere else. (FunctionalTensorMode's
    own `export` flag is not set by torch.export in torch 2.11, so the table is the signal.)

    Under the Python dispatcher the kernel is also picked for the dispatch keys of a device the
    library has no kernel for (torch._ops.resolve_key prefers it to the Autograd kernel there):
    then it runs the op as the C++ dispatcher alone would, so tracing on such devices works as
    it did without this kernel."""

    def kernel(*args):
        from torch._subclasses.functional_tensor import FunctionalTensorMode
        from torch.utils._python_dispatch import _get_current_dispatch_mode

        if sys._getframe(1).f_code is not _DECOMPOSE:
            with torch._C._DisablePythonDispatcher():
                return op(*args)
        entry = _current_decomposition_table().get(op)
        condition = getattr(entry, _CONDITION, None)
        if not (condition is not None and condition()
                and isinstance(_get_current_dispatch_mode(), FunctionalTensorMode)):
            return NotImplemented
        (_functionalized_as_ours if getattr(entry, _KEEPS_OURS) else atens)(*args)
        return None

    return kernel


def _functionalized_as_ours(self, out=None):
    """What functionalization does with aten's mutating ops, with the library's functional op:
    the written tensor's value becomes the op's result, no copy (at::functionalization::impl's
    replace_, commit_update and sync), so the graph holds hardsigmoid_ops.hardsigmoid where aten's
    holds aten.hardsigmoid. The program being lowered was traced through the ops' own checks;
    the shape and dtype are checked again, as the out op checks them."""
    target = self if out is None else out
    result = torch.ops.hardsigmoid_ops.hardsigmoid.default(self)
    if (result.dtype, result.shape) != (target.dtype, target.shape):
        raise RuntimeError(
            f"hardsigmoid_out: out has dtype {target.dtype} and shape {list(target.shape)} but "
            f"self has dtype {result.dtype} and shape {list(result.shape)}; expected the same")
    target.replace_(result.from_functional())
    target.commit_update()
    target.sync()


def register():
    """Gives the mutating ops their kernels (once the ops exist; again does nothing)."""
    ops, aten = torch.ops.hardsigmoid_ops, torch.ops.aten
    key = torch._C.DispatchKey.CompositeImplicitAutograd
    atens_out = lambda self, out: aten.hardsigmoid.out(self, out=out)  # noqa: E731
    for op, atens in ((ops.hardsigmoid_.default, aten.hardsigmoid_.default),
                      (ops.hardsigmoid_out.default, atens_out)):
        if key not in op.py_kernels:
            op.py_impl(key)(_as_atens_when_functionalized(op, atens))
