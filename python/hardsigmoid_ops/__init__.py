"""Loads libhardsigmoid_ops.so and registers what only Python can register: DTensor sharding.

    import hardsigmoid_ops          # loads the library when it finds one (see _library.py)
    hardsigmoid_ops.load_library("path/to/libhardsigmoid_ops.so")   # or names it explicitly

    y = torch.ops.hardsigmoid_ops.hardsigmoid(x)   # x a torch.Tensor or a DTensor

The ops themselves are the library's; this package adds no kernels.
"""

import torch

from . import _library

__all__ = ["load_library"]


def load_library(path=None):
    """Loads the library from `path`, else from where _library.py looks, and registers its DTensor
    sharding. Loading the same library again does nothing."""
    if path is None:
        path = _library.configured_path()
        if path is None:
            raise FileNotFoundError(
                f"hardsigmoid_ops: {_library.LIBRARY_NAME} not found; set "
                f"{_library.LIBRARY_ENV} or pass its path to hardsigmoid_ops.load_library"
            )
    _library.load(path)
    _register_sharding()


def _register_sharding():
    # A torch built without distributed support has no DTensor to register with.
    if torch.distributed.is_available():
        from . import sharding

        sharding.register()


# On import: keep ops that are already registered (loaded by the program, or linked into it),
# else load the library if one is configured or found; otherwise load_library(path) does it later.
if _library.ops_registered():
    _register_sharding()
elif _library.configured_path() is not None:
    load_library()
