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
"""

import threading

import torch

from . import (
    _library,
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

# One load at a time, with the registrations that follow it. Threads calling load_library at once
# would otherwise see each other's load half done: the library's ops registered but not yet
# recorded by torch as loaded (refused as a second copy), or registered but not yet bound
# (functional.py), or a Python registration made twice. A free-threaded Python runs those
# threads truly at once; with a GIL they interleave wherever the library's dlopen lets them.
_LOADING = threading.RLock()


def load_library(path=None):
    """Loads the library from `path`, else from where _library.py looks, and registers its DTensor
    sharding. Loading the same library again does nothing. Safe to call from several threads at
    once: each returns with the ops ready."""
    with _LOADING:
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


def _register_python_parts():
    functional.bind()
    aten_lowering.register()
    compile_fusion.register()
    onnx_export.register()
    executorch_lowering.register()
    nested_jagged.register()
    # A torch built without distributed support has no DTensor to register with.
    if torch.distributed.is_available():
        from . import sharding

        sharding.register()


# On import: keep ops that are already registered (loaded by the program, or linked into it),
# else load the library if one is configured or found; otherwise load_library(path) does it later.
if _library.ops_registered():
    with _LOADING:
        _register_python_parts()
elif _library.configured_path() is not None:
    load_library()
