"""Finding and loading libhardsigmoid_ops.so.

Where the library is looked for, first match wins:

1. the path given to ``load_library(path)``;
2. the environment variable ``HARDSIGMOID_OPS_LIBRARY``;
3. ``lib/`` inside this package, where ``pip install`` puts it (the package directory is then the
   install prefix of the CMake package too: ``cmake_prefix_path``);
4. next to this package, then in ``lib/`` and ``build/`` beside the directory holding it: an
   install prefix laid out as ``<prefix>/python/hardsigmoid_ops`` and ``<prefix>/lib``, or this
   source tree with its default ``build/`` directory.

Beside the library, ``hardsigmoid_ops_build.json`` (written by the CMake build) records the torch it
was built against; loading it into another torch raises ImportError naming both, where the loader
would only report a missing symbol.
"""

import json
import os
import pathlib
import re

import torch

LIBRARY_NAME = "libhardsigmoid_ops.so"
LIBRARY_ENV = "HARDSIGMOID_OPS_LIBRARY"
BUILD_RECORD = "hardsigmoid_ops_build.json"

_PACKAGE_DIR = pathlib.Path(__file__).resolve().parent
_PREFIX = _PACKAGE_DIR.parent.parent
_SEARCH_DIRS = (_PACKAGE_DIR / "lib", _PACKAGE_DIR / "lib64", _PACKAGE_DIR, _PREFIX / "lib",
                _PREFIX / "build")
# The prefix find_package(HardsigmoidOps) searches in a pip install: the package directory.
CMAKE_PREFIX_PATH = str(_PACKAGE_DIR)


def ops_registered():
    """Whether the hardsigmoid_ops namespace already has its ops, however they got there (an
    earlier load, a library linked into the program)."""
    return hasattr(torch.ops.hardsigmoid_ops, "hardsigmoid")


def configured_path():
    """The library named by the environment, else the first found in the search directories, else
    None. A variable that names a missing file is an error, not a reason to look elsewhere."""
    from_env = os.environ.get(LIBRARY_ENV)
    if from_env:
        path = pathlib.Path(from_env)
        if not path.is_file():
            raise FileNotFoundError(f"{LIBRARY_ENV}={from_env}: no such file")
        return path
    for directory in _SEARCH_DIRS:
        if (directory / LIBRARY_NAME).is_file():
            return directory / LIBRARY_NAME
    return None


def check_built_for_this_torch(path):
    """Raises ImportError when the build record beside the library at `path` names another torch
    than the one imported. A library without a record (copied on its own) is not checked."""
    record = pathlib.Path(path).parent / BUILD_RECORD
    if not record.is_file():
        return
    built = json.loads(record.read_text())
    built_version = built["torch_version"]
    # CMake knows torch's version as X.Y.Z; torch.__version__ may add a pre-release or local
    # part (2.12.0.dev20260101, 2.11.0+cu130), which the record cannot tell apart.
    running = re.match(r"\d+\.\d+\.\d+", torch.__version__).group(0)
    if built_version != running:
        raise ImportError(
            f"hardsigmoid_ops: {path} was built against torch {built_version}, but this is torch "
            f"{torch.__version__}; a library built against one torch loads only in that version. "
            f"Rebuild it here (pip install --no-build-isolation <source>, or the CMake build).")
    if built.get("cuda") and not torch.backends.cuda.is_built():
        raise ImportError(
            f"hardsigmoid_ops: {path} was built with CUDA kernels, but this torch "
            f"{torch.__version__} has no CUDA; rebuild it against this torch.")


def load(path):
    """Loads the library at `path` once. torch.ops.load_library dlopens by real path, and dlopen of
    a path already open does not run the library's registrations again; a second copy of the
    library under another path would, and fail on duplicate registrations, so it is refused here
    with a message that names both."""
    real = os.path.realpath(path)
    if not os.path.isfile(real):
        raise FileNotFoundError(f"hardsigmoid_ops: no library at {path}")
    if real in {os.path.realpath(p) for p in torch.ops.loaded_libraries}:
        return
    if ops_registered():
        loaded = sorted(p for p in torch.ops.loaded_libraries if LIBRARY_NAME in p)
        origin = ", ".join(loaded) or "not through torch.ops.load_library"
        raise RuntimeError(
            f"hardsigmoid_ops: the ops are already registered (from {origin}); not loading a "
            f"second copy from {path}"
        )
    check_built_for_this_torch(real)
    torch.ops.load_library(real)
