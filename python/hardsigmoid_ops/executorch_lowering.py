"""ExecuTorch: a model using the ops exports, lowers (torch.export, to_edge, to_executorch) and runs
in ExecuTorch's runtime with the library's own CPU kernel for the functional op, eager aten's bits.

- to_executorch turns every op into its out variant, which it finds by schema:
  hardsigmoid_ops::hardsigmoid has one, hardsigmoid.out (registration/schemas.cpp), and the
  ExecuTorch kernel library (executorch_kernels/, libhardsigmoid_ops_executorch.so, built where
  ExecuTorch is found) registers a kernel under that name with ExecuTorch's runtime.
- The in-place and out ops return nothing (their schemas say why), a schema to_executorch's
  out-variant pass cannot read. to_edge lowers a program with a decomposition table of
  ExecuTorch's making (executorch.exir.program._program._default_decomposition_table, wrapped
  here when torch imports that module): it gets entries that functionalize the two as aten's
  mutating ops are, with the library's functional op in aten's place (aten_lowering's kernels: no
  copy), and the backward op as aten's, which the same table lowers to core aten as it lowers
  aten's own. The functional op
  stays as it is. An entry the caller's table already has is left alone.
- The kernel library is loaded into the process when ExecuTorch's Python runtime is imported (or
  at once if it is), so that the runtime, whose pybindings use the same libexecutorch.so, finds
  its kernel. A C++ program links the library instead (executorch_examples/).

A program lowered with aten_decompositions() first (ep.run_decompositions) holds aten's ops
instead, which to_edge lowers to four core aten ops: that route needs no kernel library, and in
float32 gives ExecuTorch's arithmetic, not eager aten's bits.
"""

import ctypes
import functools
import os
import pathlib

import torch

from . import _library, _on_import, aten_lowering
from ._state import LOCK

KERNEL_LIBRARY_NAME = "libhardsigmoid_ops_executorch.so"
_PROGRAM_MODULE = "executorch.exir.program._program"
# The module that loads ExecuTorch's pybindings (and libexecutorch.so), which its Python runtime
# (executorch.runtime) and the older executorch.extension.pybindings API both import.
_RUNTIME_MODULE = "executorch.extension.pybindings.portable_lib"
_WRAPPED = "_hardsigmoid_ops_wrapped"
_MUTATING = aten_lowering.mutating_entries(lambda: True, keep_ours=True)
_loaded = []  # the kernel library's path, once loaded (changed holding the package's lock)
_on_import.watch(_PROGRAM_MODULE)
_on_import.watch(_RUNTIME_MODULE)


def executorch_decompositions():
    """The entries to_edge's table gets: the mutating ops functionalized with the library's
    functional op, the backward op as aten's."""
    ops, aten = torch.ops.hardsigmoid_ops, torch.ops.aten
    inplace, out = _MUTATING
    return {
        ops.hardsigmoid_.default: inplace,
        ops.hardsigmoid_out.default: out,
        ops.hardsigmoid_backward.default: aten.hardsigmoid_backward.default,
    }


def kernel_library_path():
    """The ExecuTorch kernel library beside the loaded libhardsigmoid_ops.so (or where _library.py
    looks for it), or None where it was not built."""
    candidates = [pathlib.Path(p).parent for p in torch.ops.loaded_libraries
                  if os.path.basename(p) == _library.LIBRARY_NAME]
    configured = _library.configured_path()
    if configured is not None:
        candidates.append(pathlib.Path(configured).parent)
    for directory in candidates:
        if (directory / KERNEL_LIBRARY_NAME).is_file():
            return directory / KERNEL_LIBRARY_NAME
    return None


def load_kernel_library(path=None):
    """Loads the ExecuTorch kernel library (`path`, else kernel_library_path()) once, registering
    its kernels with ExecuTorch's runtime; returns its path, or None where there is none. Safe
    from several threads at once: one loads, the others return its path."""
    with LOCK:
        if _loaded:
            return _loaded[0]
        path = path or kernel_library_path()
        if path is None:
            return None
        ctypes.CDLL(str(path), mode=ctypes.RTLD_GLOBAL)
        _loaded.append(pathlib.Path(path))
        return _loaded[0]


def _load_kernel_library_into(_runtime_module):
    load_kernel_library()


def _with_the_ops_entries(create):
    @functools.wraps(create)
    def create_with_hardsigmoid_ops(*args, **kwargs):
        table = create(*args, **kwargs)
        # Item by item: the table is torch.export's CustomDecompTable, a dict whose setdefault
        # would bypass its own storage.
        for op, entry in executorch_decompositions().items():
            if op not in table:
                table[op] = entry
        return table

    setattr(create_with_hardsigmoid_ops, _WRAPPED, True)
    return create_with_hardsigmoid_ops


def _extend_to_edge(module):
    create = getattr(module, "_default_decomposition_table", None)
    if create is not None and not getattr(create, _WRAPPED, False):
        module._default_decomposition_table = _with_the_ops_entries(create)


def register():
    """Called once the ops exist: extends to_edge's table, and loads the kernel library, when
    torch imports each module."""
    _on_import.when_imported(_PROGRAM_MODULE, _extend_to_edge)
    _on_import.when_imported(_RUNTIME_MODULE, _load_kernel_library_into)
