"""Random test cases for the differential fuzzer: what to call, on which geometry and values.

A case is a pure function of (session seed, device, variant, index), so that its index and the
seed replay it exactly, alone or within a run.
"""

import dataclasses
import random

import torch

from . import FLOAT_DTYPES
from .layouts import distinct_elements, sentinel_view
from .random_layouts import draw_geometry, draw_shape, meta_view
from .value_kinds import VALUE_KINDS

VARIANTS = ("functional", "inplace", "out", "backward")
# The operands of each variant, and whether the op writes them (written views never overlap).
OPERANDS = {
    "functional": {"self": False},
    "inplace": {"self": True},
    "out": {"self": False, "out": True},
    "backward": {"grad_output": False, "self": False},
}
OUT_IS_SELF_PROBABILITY = 0.2


@dataclasses.dataclass(frozen=True)
class Operand:
    strides: tuple
    offset: int
    values: str  # a VALUE_KINDS name; None for an out, which starts as sentinels

    def view(self, shape, dtype, device, values_seed):
        """(buffer, view): the view in a sentinel-filled buffer, its elements drawn if it has a
        value kind."""
        buffer, view = sentinel_view(meta_view(shape, self.strides, self.offset), dtype, device)
        if self.values is not None:
            distinct = distinct_elements(view)
            gen = torch.Generator().manual_seed(values_seed)
            drawn = VALUE_KINDS[self.values](distinct.numel(), dtype, gen)
            distinct.copy_(drawn.reshape(distinct.shape))
        return buffer, view


@dataclasses.dataclass(frozen=True)
class Case:
    index: int
    device: str
    variant: str
    dtype: torch.dtype
    shape: tuple
    operands: dict  # name -> Operand
    out_is_self: bool
    values_seed: int

    def build(self):
        """{name: (buffer, view)} on the case's device; `out` is `self` when out_is_self."""
        built = {}
        for position, (name, operand) in enumerate(self.operands.items()):
            seed = self.values_seed + position  # each operand its own values
            built[name] = operand.view(self.shape, self.dtype, self.device, seed)
        if self.out_is_self:
            built["out"] = built["self"]
        return built

    def describe(self):
        parts = [f"case {self.index}: {self.variant} on {self.device}, {self.dtype}, "
                 f"shape {list(self.shape)}"]
        for name, operand in self.operands.items():
            parts.append(f"{name} strides {list(operand.strides)} offset {operand.offset}"
                         + (f" values {operand.values}" if operand.values else ""))
        if self.out_is_self:
            parts.append("out is self")
        parts.append(f"values seed {self.values_seed}")
        return "; ".join(parts)


def draw_case(session_seed, device, variant, index):
    """The case `index` of `variant` on `device` in the run seeded `session_seed`."""
    # A string seed is hashed with SHA-512 by `random`: stable across processes and versions.
    rng = random.Random(f"{session_seed}/{device}/{variant}/{index}")
    dtype = rng.choice(FLOAT_DTYPES)
    shape = draw_shape(rng)
    out_is_self = variant == "out" and rng.random() < OUT_IS_SELF_PROBABILITY
    operands = {}
    for name, written in OPERANDS[variant].items():
        if name == "out" and out_is_self:
            continue
        # self must be writable when out will be that very view.
        strides, offset = draw_geometry(rng, shape, writable=written or out_is_self)
        values = None if name == "out" else rng.choice(list(VALUE_KINDS))
        operands[name] = Operand(strides, offset, values)
    return Case(index, device, variant, dtype, shape, operands, out_is_self, rng.getrandbits(62))
