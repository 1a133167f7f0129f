"""torch.compile: inductor fuses the ops' math with their pointwise neighbours.

Inductor sees a custom op as an opaque call and fuses nothing into it: every neighbour would cost
another pass over memory. Here each op gets an entry in inductor's decomposition table, mapping it
to aten's own op (the in-place and out ops to a copy of aten's result), so a compiled graph is the
graph compiled with aten's hardsigmoid, fused the same way and bitwise equal to it. Eager calls
never see the table, and torch.export keeps the hardsigmoid_ops ops (it does not use it).

The in-place and out ops need one more step to give aten's graph exactly. AOTAutograd
functionalizes aten's in-place op into hardsigmoid + copy_ before it splits the joint graph, so
the partitioner may recompute the result inside the backward's fused kernel; a custom mutating op
it would wrap whole (auto_functionalized) and decompose only after the split: the backward would
read the stored, rounded result instead (gradients differ in half types), and the out op's kernel
would write into out's buffer where aten's writes a new one. So each of the two also gets a
Python-only CompositeImplicitAutograd kernel (never seen by the C++ dispatcher, so eager calls and
the library's autograd are untouched), which functionalization calls for mutating ops: while
inductor traces, it calls aten's own in-place or out op, which functionalization then treats as
in aten's graph. Anywhere else (torch.export among them) it declines, and the graph keeps the op.
Under the Python dispatcher (tracing) it passes the call on to the C++ dispatcher.

Registering is lazy: inductor's decomposition module takes seconds to import, so the entries are
added when torch imports it (at the first torch.compile), or at once if it is already imported.

The switch: set_compile_fusion(False), or HARDSIGMOID_OPS_COMPILE_FUSION=0 in the environment
before import, leaves the opaque kernels everywhere. It applies to graphs compiled afterwards
(torch._dynamo.reset() drops those compiled before). Compiled-graph caches on disk key on the
state: it is appended to torch.compiler.config.cache_key_tag, so a graph compiled in one state is
never reused in the other (a tag set by the user stays in front of it; one set after this
package's import replaces it, so set yours first).
"""

import contextvars
import os
import sys

import torch

from . import _on_import

ENV = "HARDSIGMOID_OPS_COMPILE_FUSION"
_DECOMPOSITION_MODULE = "torch._inductor.decomposition"
_TAG_PREFIX = "hardsigmoid_ops-compile-fusion-"
# Part of the tag: raise it when the entries change, or when they apply (4: torch 2.12's table,
# a ContextVar, was not read, so its graphs were cached opaque), so that graphs cached with the
# old ones are not served.
_ENTRIES_VERSION = 4

_enabled = os.environ.get(ENV, "1") not in ("0", "false", "False", "off")


def _inplace(self):
    self.copy_(torch.ops.aten.hardsigmoid.default(self))


def _out(self, out):
    out.copy_(torch.ops.aten.hardsigmoid.default(self))


# Marks this module's table entries (also those of an earlier import of it, after a reload).
_inplace._hardsigmoid_ops_entry = _out._hardsigmoid_ops_entry = True
_DECOMPOSE = torch._ops.OpOverload.decompose.__code__


def _current_decomposition_table():
    """The decomposition table of the make_fx tracing in progress ({} when there is none), set
    by proxy_tensor's `decompose` context: in torch 2.11 a module global, in 2.12 a ContextVar
    of the same name (whose .get(op) would return op, not the entry), from 2.13 an attribute of
    the proxy mode (its `enable_decompositions`)."""
    from torch.fx.experimental import proxy_tensor

    table = getattr(proxy_tensor, "CURRENT_DECOMPOSITION_TABLE", None)
    if isinstance(table, contextvars.ContextVar):
        return table.get({})
    if table is not None:
        return table
    mode = proxy_tensor.get_proxy_mode()
    return getattr(mode, "decomposition_table", None) or {}


def _as_atens_when_functionalized(op, atens):
    """A Python-only CompositeImplicitAutograd kernel for a mutating op. Asked by a tracing mode
    through OpOverload.decompose (FunctionalTensorMode asks for every mutating op; FakeTensorMode
    and make_fx for any op with such a kernel), it runs aten's own mutating op when the asker is
    functionalization tracing with a decomposition table that holds this module's entry for the
    op (inductor's table, also used by aot_eager_decomp_partition), and declines (NotImplemented:
    the op stays as it is) anywhere else: fake-tensor tracing, torch.export and its
    run_decompositions, make_fx, aot_eager, fusion switched off. (FunctionalTensorMode's own
    `export` flag is not set by torch.export in torch 2.11, so the table is the signal.)

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
        tracing_for_inductor = getattr(entry, "_hardsigmoid_ops_entry", False)
        if not (_enabled and tracing_for_inductor
                and isinstance(_get_current_dispatch_mode(), FunctionalTensorMode)):
            return NotImplemented
        atens(*args)
        return None

    return kernel


def _register_functionalization():
    ops, aten = torch.ops.hardsigmoid_ops, torch.ops.aten
    key = torch._C.DispatchKey.CompositeImplicitAutograd
    atens_out = lambda self, out: aten.hardsigmoid.out(self, out=out)  # noqa: E731
    for op, atens in ((ops.hardsigmoid_.default, aten.hardsigmoid_.default),
                      (ops.hardsigmoid_out.default, atens_out)):
        if key not in op.py_kernels:
            op.py_impl(key)(_as_atens_when_functionalized(op, atens))


def _entries():
    ops, aten = torch.ops.hardsigmoid_ops, torch.ops.aten
    return {
        ops.hardsigmoid.default: aten.hardsigmoid.default,
        ops.hardsigmoid_.default: _inplace,
        ops.hardsigmoid_out.default: _out,
        ops.hardsigmoid_backward.default: aten.hardsigmoid_backward.default,
    }


def _apply(module):
    """Adds or removes the entries in inductor's table to match the switch. Inductor compiles
    with a cached copy of the table (fast_random_decomps), made at its first use: dropped here,
    so that the next compile copies the table as it now is."""
    decompositions = module.decompositions
    for op, decomposition in _entries().items():
        if _enabled:
            decompositions[op] = decomposition
        elif decompositions.get(op) is decomposition:
            del decompositions[op]
    cached_copy = getattr(module, "fast_random_decomps", None)
    if hasattr(cached_copy, "cache_clear"):
        cached_copy.cache_clear()


def _tag_cache_keys():
    config = torch.compiler.config
    kept = [part for part in config.cache_key_tag.split("|")
            if part and not part.startswith(_TAG_PREFIX)]
    state = f"v{_ENTRIES_VERSION}-on" if _enabled else "off"
    config.cache_key_tag = "|".join([*kept, _TAG_PREFIX + state])


def register():
    """Called once the ops exist: applies the switch's state now, or when inductor loads."""
    _tag_cache_keys()
    _register_functionalization()
    _on_import.when_imported(_DECOMPOSITION_MODULE, _apply)


def set_compile_fusion(enabled):
    """Whether graphs compiled from now on fuse the ops' math into inductor's kernels (True, the
    default) or call the library's kernels as opaque calls (False)."""
    global _enabled
    _enabled = bool(enabled)
    if hasattr(torch.ops.hardsigmoid_ops, "hardsigmoid"):
        register()


def compile_fusion_enabled():
    return _enabled
