"""Typed functions over the library's ops, shaped as torch.nn.functional's.

    hardsigmoid(input, inplace=False)      # F.hardsigmoid's signature; inplace returns input
    hardsigmoid_out(input, out)            # writes out (of input's shape), returns it
    hardsigmoid_backward(grad_output, input)

Each is one call into the dispatcher: the ops are bound once the library is loaded (bind()), to
the C++ callables torch.ops' overloads call themselves, skipping the overloads' Python frame, so
that a small call costs about what F.hardsigmoid's does (benchmarks/python_overhead.py). Dynamo
cannot trace those callables; each is registered with torch.compiler.substitute_in_graph, so that
under torch.compile the overload stands in for it. Before the library is loaded they raise.
Tensor subclasses and modes (DTensor, FakeTensor, torch.func) see the ops, as they do through
torch.ops. TorchScript cannot compile these functions: scripted code calls torch.ops directly
(as hardsigmoid_ops.nn.Hardsigmoid does).
"""

import torch
from torch import Tensor

from . import _on_import

__all__ = ["hardsigmoid", "hardsigmoid_backward", "hardsigmoid_out"]


def _not_loaded(*args, **kwargs):
    raise RuntimeError(
        "hardsigmoid_ops: the library is not loaded: hardsigmoid_ops.load_library(path), or set "
        "HARDSIGMOID_OPS_LIBRARY before importing hardsigmoid_ops")


# Bound by bind(), holding the package's lock, once; read without it (a name's value is read
# whole): a call made before the load has returned may still find _not_loaded.
_hardsigmoid = _hardsigmoid_ = _hardsigmoid_out = _hardsigmoid_backward = _not_loaded
_DYNAMO = "torch._dynamo"
_on_import.watch(_DYNAMO)


def _direct(overload):
    """The callable an OpOverload's __call__ forwards to, with the overload as its stand-in under
    torch.compile (registered once torch._dynamo is imported: importing it here would add half a
    second to every import of the package); the overload itself where a torch keeps no such
    callable."""
    direct = getattr(overload, "_op", None)
    if direct is None:
        return overload

    def substitute(_dynamo):
        @torch.compiler.substitute_in_graph(direct, skip_signature_check=True)
        def traced(*args, **kwargs):
            return overload(*args, **kwargs)

    _on_import.when_imported(_DYNAMO, substitute)
    return direct


def bind():
    """Binds the functions to the loaded library's ops (once: the library loads only once)."""
    global _hardsigmoid, _hardsigmoid_, _hardsigmoid_out, _hardsigmoid_backward
    if _hardsigmoid is not _not_loaded:
        return
    ops = torch.ops.hardsigmoid_ops
    _hardsigmoid = _direct(ops.hardsigmoid.default)
    _hardsigmoid_ = _direct(ops.hardsigmoid_.default)
    _hardsigmoid_out = _direct(ops.hardsigmoid_out.default)
    _hardsigmoid_backward = _direct(ops.hardsigmoid_backward.default)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """relu6(input + 3) / 6 elementwise, as F.hardsigmoid: a new tensor, or with inplace=True
    input itself, overwritten. Differentiable as aten's, in-place included."""
    if inplace:
        _hardsigmoid_(input)
        return input
    return _hardsigmoid(input)


def hardsigmoid_out(input: Tensor, out: Tensor) -> Tensor:
    """Writes hardsigmoid(input) into out and returns out. out must already have input's shape,
    dtype and device (it is never resized); out may be input itself."""
    _hardsigmoid_out(input, out)
    return out


def hardsigmoid_backward(grad_output: Tensor, input: Tensor) -> Tensor:
    """grad_output / 6 where -3 < input < 3, else 0: aten.hardsigmoid_backward's result."""
    return _hardsigmoid_backward(grad_output, input)
