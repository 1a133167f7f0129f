"""torch.compile: inductor fuses the ops' math with their pointwise neighbours.

Inductor sees a custom op as an opaque call and fuses nothing into it: every neighbour would cost
another pass over memory. Here each op gets an entry in inductor's decomposition table, mapping it
to aten's own op (the in-place and out ops to a copy of aten's result, with the kernels that
functionalize them as aten's: aten_lowering.py), so a compiled graph is the graph compiled with
aten's hardsigmoid, fused the same way and bitwise equal to it. Eager calls never see the table,
and torch.export keeps the hardsigmoid_ops ops (it does not use it).

Registering is lazy: inductor's decomposition module takes seconds to import, so the entries are
added when torch imports it (at the first torch.compile), or at once if it is already imported.

The switch: set_compile_fusion(False), or HARDSIGMOID_OPS_COMPILE_FUSION=0 in the environment
before import, leaves the opaque kernels everywhere. It applies to graphs compiled afterwards
(torch._dynamo.reset() drops those compiled before). Compiled-graph caches on disk key on the
state: it is appended to torch.compiler.config.cache_key_tag, in every thread
(_cache_key_tag.py), so a graph compiled in one state is never reused in the other (a tag set by
the user stays in front of it; one set after this package's import replaces it, so set yours
first).
"""

import os

from . import _cache_key_tag, _on_import, aten_lowering
from ._state import LOCK

ENV = "HARDSIGMOID_OPS_COMPILE_FUSION"
_DECOMPOSITION_MODULE = "torch._inductor.decomposition"
_TAG_PREFIX = "hardsigmoid_ops-compile-fusion-"
# Part of the tag: raise it when the entries change, or when they apply (4: torch 2.12's table,
# a ContextVar, was not read, so its graphs were cached opaque), so that graphs cached with the
# old ones are not served.
_ENTRIES_VERSION = 4

# The switch, the tag and inductor's table change together, holding the package's lock
# (_state.py): a switch turned while a load registers, or while inductor's module is imported,
# would otherwise leave the tag or the table naming the other state.
_enabled = os.environ.get(ENV, "1") not in ("0", "false", "False", "off")
_registered = False
_on_import.watch(_DECOMPOSITION_MODULE)


# Inductor's entries for the mutating ops, applied while fusion is on; made once, so that _apply
# finds its own entries in the table by identity.
_MUTATING = aten_lowering.mutating_entries(lambda: _enabled)


def _entries():
    return aten_lowering.table(*_MUTATING)


def _apply(module):
    """Adds or removes the entries in inductor's table to match the switch. Inductor compiles
    with a cached copy of the table (fast_random_decomps), made at its first use: dropped here,
    after the table has changed, so that the next compile copies the table as it now is."""
    with LOCK:
        decompositions = module.decompositions
        if _enabled:
            decompositions.update(_entries())  # one call: a compile copies all or none of them
        else:
            for op, decomposition in _entries().items():
                if decompositions.get(op) is decomposition:
                    del decompositions[op]
        cached_copy = getattr(module, "fast_random_decomps", None)
        if hasattr(cached_copy, "cache_clear"):
            cached_copy.cache_clear()


def _tag_cache_keys():
    state = f"v{_ENTRIES_VERSION}-on" if _enabled else "off"
    _cache_key_tag.write(_TAG_PREFIX, _TAG_PREFIX + state)


def register():
    """Called once the ops exist: applies the switch's state now, or when inductor loads."""
    global _registered
    with LOCK:
        _registered = True
        _tag_cache_keys()
        _on_import.when_imported(_DECOMPOSITION_MODULE, _apply)


def set_compile_fusion(enabled):
    """Whether graphs compiled from now on fuse the ops' math into inductor's kernels (True, the
    default) or call the library's kernels as opaque calls (False). Safe to call from any thread,
    during a load or a compile: the tag and inductor's table follow the last call."""
    global _enabled
    with LOCK:
        _enabled = bool(enabled)
        if not _registered:
            return  # the load applies it
        _tag_cache_keys()
        module = _on_import.imported(_DECOMPOSITION_MODULE)
        if module is not None:
            _apply(module)
        # else inductor's module is not imported, or is mid-import: _apply runs at its end.


def compile_fusion_enabled():
    return _enabled
