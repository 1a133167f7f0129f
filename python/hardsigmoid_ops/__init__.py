"""Loads libhardsigmoid_ops.so and registers what only Python can register: DTensor sharding,
inductor's fusion of the ops under torch.compile (compile_fusion.py), and their export to ONNX's
own HardSigmoid by both ONNX exporters (onnx_export.py), and their lowering to ExecuTorch with the
library's ExecuTorch kernels (executorch_lowering.py). Offers the ops as typed
functions (functional.py), as a drop-in for torch.nn.Hardsigmoid (nn.py), and as aten's ops in a
decomposition table (aten_lowering.py).

    import hardsigmoid_ops          # loads the library when it finds one (see _library.py)
    hardsigmoid_ops.load_library("path/to/libhardsigmoid_ops.so")   # or names it explicitly

    y = hardsigmoid_ops.hardsigmoid(x)             # x a torch.Tensor or a DTensor
    y = torch.ops.hardsigmoid_ops.hardsigmoid(x)   # the same op
    hardsigmoid_ops.replace_hardsigmoid(model)     # every nn.Hardsigmoid in model runs ours
    hardsigmoid_ops.set_compile_fusion(False)      # opaque kernels under torch.compile
    ep.run_decompositions(hardsigmoid_ops.aten_decompositions())   # aten's ops in their place

The ops themselves are the library's; this package adds no kernels.

Threads (with a GIL or without one): the rule for shared state. Every change the package makes to
state shared across threads is made holding one re-entrant lock (_state.LOCK), and code holding
it imports no module that is not imported yet or that another thread is importing, so that it
never waits for a thread that is importing (which may be waiting for the lock in an on-import
callback). A process forked while another thread holds the lock starts with it free. The state,
and where it changes:

- torch's op registry and loaded libraries: the library's load (_library.load) and everything
  registered after it (_register_python_parts), as one step: no thread sees the ops registered
  and not yet recorded as loaded, or not yet bound to the typed functions (functional.bind);
- the mutating ops' Python kernels (aten_lowering.register) and DTensor's sharding registry
  (sharding.register), in that step;
- the compile-fusion switch, torch.compiler.config.cache_key_tag (for every thread, where torch
  keeps config values per thread: _cache_key_tag.py), inductor's decomposition table and its
  cached copy (compile_fusion.py): set_compile_fusion, the load and the on-import callback change
  them together;
- the ONNX exporters' and ExecuTorch's functions wrapped, the jagged table's entries, the
  kernel library's load (onnx_export.py, executorch_lowering.py, nested_jagged.py): on-import
  callbacks, run holding the lock, and load_kernel_library;
- the on-import registry and sys.meta_path (_on_import.py): the registry changes holding the
  lock; sys.meta_path gets one finder, once, when the package is imported, and the package never
  takes an entry out (an import in another thread, walking the list, would skip a finder).

On-import callbacks run exactly once, after the module's code has run, whichever thread imports
it: a module mid-import is never handed to one; the callback runs at the end of that import, in
the importing thread, before any thread sees the module imported (_on_import.py). Reads need no
lock: each reads one name whole (the switch, a bound function).

No GIL-only guarantee is relied on: nothing assumes that a few lines of Python run without another
thread running in between, which a GIL does not promise either (it switches threads every few
milliseconds; a free-threaded build runs them at once). What a single built-in call on one object
does (a dict's update, a list's insert) is atomic in both builds.
"""

import torch

from . import (
    _library,
    _state,
    aten_lowering,
    compile_fusion,
    executorch_lowering,
    functional,
    nested_jagged,
    nn,
    onnx_export,
)
from .aten_lowering import aten_decompositions
from .compile_fusion import compile_fusion_enabled, set_compile_fusion
from .functional import hardsigmoid, hardsigmoid_backward, hardsigmoid_out
from .nn import replace_hardsigmoid

__all__ = ["aten_decompositions", "build_info", "cmake_prefix_path", "compile_fusion_enabled",
           "hardsigmoid", "hardsigmoid_backward", "hardsigmoid_out", "load_library", "nn",
           "replace_hardsigmoid", "set_compile_fusion"]

# Where find_package(HardsigmoidOps) finds the installed CMake package (a pip install), as
# torch.utils.cmake_prefix_path finds torch's:
#   cmake -DCMAKE_PREFIX_PATH="$(python -c 'import hardsigmoid_ops, torch;
#       print(hardsigmoid_ops.cmake_prefix_path + ";" + torch.utils.cmake_prefix_path)')" ...
cmake_prefix_path = _library.CMAKE_PREFIX_PATH
# sharding.py once imported (where torch has DTensor): imported before the lock is taken.
_sharding = None


def load_library(path=None):
    """Loads the library from `path`, else from where _library.py looks, and registers its DTensor
    sharding. Loading the same library again does nothing. Safe to call from several threads at
    once: each returns with the ops ready (one load at a time, with the registrations that follow
    it: the package's docstring)."""
    _import_what_registering_needs()
    with _state.LOCK:
        if path is None:
            path = _library.configured_path()
            if path is None:
                raise FileNotFoundError(
                    f"hardsigmoid_ops: {_library.LIBRARY_NAME} not found; set "
                    f"{_library.LIBRARY_ENV} or pass its path to hardsigmoid_ops.load_library"
                )
        _library.load(path)
        _register_python_parts()


def build_info():
    """What the loaded library was built as: its path, the torch it was built against, whether it
    has CUDA kernels and which CUDA code it holds (SASS per architecture, PTX), and the processor
    it runs on; from its build record. Raises RuntimeError when no library was loaded through
    this package or torch.ops.load_library."""
    loaded = [p for p in torch.ops.loaded_libraries if p.endswith(_library.LIBRARY_NAME)]
    if not loaded:
        raise RuntimeError("hardsigmoid_ops: no library loaded (hardsigmoid_ops.load_library)")
    return {"library": loaded[0], **_library.build_record(loaded[0])}


def _import_what_registering_needs():
    """The modules the registrations use, imported before the lock is taken (its rule)."""
    global _sharding
    # A torch built without distributed support has no DTensor to register with.
    if torch.distributed.is_available():
        from . import sharding

        _sharding = sharding


def _register_python_parts():
    functional.bind()
    aten_lowering.register()
    compile_fusion.register()
    onnx_export.register()
    executorch_lowering.register()
    nested_jagged.register()
    if _sharding is not None:
        _sharding.register()


# On import: keep ops that are already registered (loaded by the program, or linked into it),
# else load the library if one is configured or found; otherwise load_library(path) does it later.
if _library.ops_registered():
    _import_what_registering_needs()
    with _state.LOCK:
        _register_python_parts()
elif _library.configured_path() is not None:
    load_library()
