"""Quantized tensors (per-tensor affine QUInt8, QInt8, QInt32 on the CPU): the functional, in-place
and out ops give aten's results exactly — codes (int_repr), scale, zero point, dtype, qscheme and
the output's strides — under each quantized engine, on every 8-bit code, random and edge scales
and zero points, every layout, one thread and all. Where aten's QNNPACK path cannot run (it
divides by zero on an empty tensor, refuses a 0-dim one and a scale that is not a normal float),
ours gives what aten gives under the other engines. What aten refuses (per-channel input, the
backward op, other quantized dtypes) ours refuses, naming op and argument. torch.compile,
torch.export and TorchScript behave as with aten's op."""

import math
import re

import pytest
import torch
import torch.nn.functional as F

from hardsigmoid_testing import OPS
from hardsigmoid_testing.checks import assert_unchanged
from hardsigmoid_testing.forms import Alone
from hardsigmoid_testing.quantized_engines import SUPPORTED as ENGINES
from hardsigmoid_testing.quantized_engines import quantized_engine
from hardsigmoid_testing.torchscript import script

aten = torch.ops.aten
# torch.jit's deprecation warnings: scripting and tracing still work and users still call them.
# torch.compile raises one too on a quantized input (with aten's op as with ours).
ignore_jit_deprecation = pytest.mark.filterwarnings(
    "ignore:`torch.jit.*deprecated:DeprecationWarning",
    "ignore:`torch.jit.*deprecated:FutureWarning")

# The integer type holding each quantized dtype's codes.
CODES = {torch.quint8: torch.uint8, torch.qint8: torch.int8, torch.qint32: torch.int32}
QDTYPES = list(CODES)
FLT_MAX = torch.finfo(torch.float32).max
FLT_MIN = torch.finfo(torch.float32).tiny
# Scales at the edges of float32 (aten computes in float32) and between, zero and negative ones
# included (the quantizer takes them; aten's QNNPACK path refuses them, the other engines compute).
# float32(scale) stays finite, so no NaN arises (an infinite scale times a zero code difference
# would make one).
EDGE_SCALES = [0.0, -0.1, FLT_MIN, 1e-40, 2.0 ** -20, 1 / 6, 3 / 127, 1.0, 1e6, FLT_MAX]


@pytest.fixture(params=ENGINES)
def engine(request):
    with quantized_engine(request.param):
        yield request.param


@pytest.fixture(params=["one_thread", "all_threads"])
def threads(request):
    before = torch.get_num_threads()
    torch.set_num_threads(1 if request.param == "one_thread" else before)
    yield torch.get_num_threads()
    torch.set_num_threads(before)


def _codes(dtype, numel, gen):
    """numel codes of the dtype: every 8-bit code at least once (where numel allows), the rest
    random; QInt32 codes of random magnitudes, near the zero point as well as far from it."""
    info = torch.iinfo(CODES[dtype])
    if dtype == torch.qint32:
        codes = torch.randint(-2 ** 31, 2 ** 31, (numel,), generator=gen, dtype=torch.int64)
        shifts = torch.randint(0, 32, (numel,), generator=gen)
        return (codes >> shifts).to(torch.int32)
    every = torch.arange(info.min, info.max + 1)
    random = torch.randint(info.min, info.max + 1, (max(numel - every.numel(), 0),), generator=gen)
    codes = torch.cat([every, random])[:numel]
    return codes[torch.randperm(numel, generator=gen)].to(CODES[dtype])


def _random_zero_point(dtype, gen):
    info = torch.iinfo(CODES[dtype])
    low, high = (info.min, info.max) if dtype != torch.qint32 else (-1000, 1000)
    return int(torch.randint(low, high + 1, (1,), generator=gen))


def _random_scale(gen):
    return float(10 ** (torch.rand(1, generator=gen) * 7 - 6))  # 1e-6 to 10


def _quantized(dtype, shape, scale, zero_point, gen):
    codes = _codes(dtype, math.prod(shape), gen).reshape(shape)
    return torch._make_per_tensor_quantized_tensor(codes, scale, zero_point)


# Layouts: name -> the tensor the op gets, from a contiguous quantized tensor of a LAYOUT_SHAPES
# shape: one below 2^13 elements and one above 2^14, where an 8-bit input takes the byte table when
# aten's two formulas agree on its 256 codes (every view of it above 2^14 too). Below, aten's
# arithmetic runs element for element, except where the byte loop is the processor's lookup (from
# 2^10 elements: ops/cpu/quantized/byte_lookup_choice.cpp); FLAT_SIZES' first three are below that
# too.
LAYOUT_SHAPE = (3, 5, 16, 25)
LAYOUT_SHAPES = [LAYOUT_SHAPE, (3, 5, 64, 50)]
layout_shapes = pytest.mark.parametrize("shape", LAYOUT_SHAPES, ids=["small", "large"])
LAYOUTS = {
    "contiguous": lambda q: q,
    "channels_last": lambda q: q.contiguous(memory_format=torch.channels_last),
    "transposed": lambda q: q.transpose(1, 3),
    "sliced": lambda q: q[:, 1:, ::2, 3:],
    "expanded": lambda q: q[:, :1].expand(q.shape),
}
# Sizes that take aten's vector loop, its scalar tails, and (above aten's grain, 32768) a split
# between threads whose chunks end off a vector boundary.
FLAT_SIZES = [1, 31, 1000, 2 ** 16 + 37, 3 * 2 ** 15 + 5]


def _aten_under(engine_name, call, x):
    with quantized_engine(engine_name):
        return call(x)


def _qnnpack_cannot_run(x):
    """aten's QNNPACK path (QUInt8 under the QNNPACK engine) crashes on an empty tensor (a
    division by zero) and refuses a 0-dim tensor and a scale whose float32 is not normal and
    positive."""
    if torch.backends.quantized.engine != "qnnpack" or x.dtype != torch.quint8:
        return False
    scale = torch.tensor(x.q_scale(), dtype=torch.float32).item()
    return x.numel() == 0 or x.dim() == 0 or not (scale > 0 and math.isfinite(scale)
                                                  and scale >= FLT_MIN)


def _aten(call, x):
    """aten's result under the current engine, or, where its QNNPACK path cannot run, under
    another engine (there is no QNNPACK result there; where QNNPACK runs, the engines agree but
    for near-ties: test_aten_engines_agree)."""
    if _qnnpack_cannot_run(x):
        others = [e for e in ENGINES if e != "qnnpack"]
        if not others:
            pytest.skip("only QNNPACK here, and aten's QNNPACK path cannot run this input")
        return _aten_under(others[0], call, x)
    return call(x)


def assert_same_quantized(ours, ref, strides=True):
    assert ours.is_quantized and ref.is_quantized
    assert ours.dtype == ref.dtype and ours.qscheme() == ref.qscheme()
    assert (ours.q_scale(), ours.q_zero_point()) == (ref.q_scale(), ref.q_zero_point())
    assert ours.shape == ref.shape
    if strides:
        assert ours.stride() == ref.stride()
    if not torch.equal(ours.int_repr(), ref.int_repr()):
        differ = ours.int_repr() != ref.int_repr()
        first = differ.flatten().nonzero()[:5].flatten().tolist()
        raise AssertionError(f"{int(differ.sum())} of {ours.numel()} codes differ from aten's, "
                             f"first at flat positions {first}")


def _inplace(op, x):
    t = x.clone()
    op(t)
    return t


# The forward forms: (ours, aten's), each returning the quantized result.
FORMS = {
    "functional": (OPS.hardsigmoid, F.hardsigmoid),
    "inplace": (lambda x: _inplace(OPS.hardsigmoid_, x),
                lambda x: _inplace(lambda t: F.hardsigmoid(t, inplace=True), x)),
}


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("numel", FLAT_SIZES)
@pytest.mark.parametrize("dtype", QDTYPES, ids=str)
def test_flat_matches_aten(engine, threads, dtype, numel, form, gen):
    ours, atens = FORMS[form]
    x = _quantized(dtype, (numel,), _random_scale(gen), _random_zero_point(dtype, gen), gen)
    assert_same_quantized(ours(x), _aten(atens, x))


@layout_shapes
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", QDTYPES, ids=str)
def test_layouts_match_aten(engine, threads, dtype, layout, shape, gen):
    x = LAYOUTS[layout](_quantized(dtype, shape, _random_scale(gen),
                                   _random_zero_point(dtype, gen), gen))
    assert_same_quantized(OPS.hardsigmoid(x), _aten(F.hardsigmoid, x))


@layout_shapes
@pytest.mark.parametrize("layout", ["contiguous", "channels_last", "transposed", "sliced"])
@pytest.mark.parametrize("dtype", QDTYPES, ids=str)
def test_inplace_on_views_matches_aten(engine, dtype, layout, shape, gen):
    """In place on a view: the view's codes and parameters as aten's, and the base's other codes
    untouched (the base keeps its own parameters, as with aten's op)."""
    base = _quantized(dtype, shape, _random_scale(gen), _random_zero_point(dtype, gen), gen)
    if layout == "channels_last":
        base = LAYOUTS[layout](base)
    results = []
    for ours in (True, False):
        written = base.clone()  # clone keeps channels_last
        view = written if layout == "channels_last" else LAYOUTS[layout](written)
        if ours:
            OPS.hardsigmoid_(view)
        else:
            _aten(aten.hardsigmoid_, view)
        results.append((view, written))
    (ours_view, ours_base), (aten_view, aten_base) = results
    assert_same_quantized(ours_view, aten_view)
    assert_same_quantized(ours_base, aten_base)


def test_inplace_on_expanded_is_refused_as_atens():
    x = torch.quantize_per_tensor(torch.randn(1, 4), 0.05, 10, torch.quint8).expand(3, 4)
    before = x.int_repr().clone()
    with pytest.raises(RuntimeError, match="hardsigmoid_: self has elements that share memory"):
        OPS.hardsigmoid_(x)
    with pytest.raises(RuntimeError):
        aten.hardsigmoid_(x)
    assert_unchanged(before, x.int_repr())


@pytest.mark.parametrize("numel", [1000, 20000])
@pytest.mark.parametrize("dtype", QDTYPES, ids=str)
def test_edge_scales_and_zero_points(engine, dtype, numel, gen):
    info = torch.iinfo(CODES[dtype])
    # The dtype's ends, and zero points outside its range, which the quantizer takes from
    # _make_per_tensor_quantized_tensor (QNNPACK wraps a QUInt8 one to a byte). QInt32's scalar
    # formula subtracts the zero point in int32: zero points far from 0 would overflow it for the
    # codes far from them, in aten as here.
    zero_points = ([info.min - 20, info.min, 0, info.max, info.max + 45]
                   if dtype != torch.qint32 else [-2 ** 20, 0, 2 ** 20])
    for scale in EDGE_SCALES:
        for zero_point in zero_points:
            x = _quantized(dtype, (numel,), scale, zero_point, gen)
            for form, (ours, atens) in FORMS.items():
                try:
                    assert_same_quantized(ours(x), _aten(atens, x))
                except AssertionError as error:
                    raise AssertionError(f"{form}, scale {scale}, zero point {zero_point}: "
                                         f"{error}") from None


@pytest.mark.parametrize("dtype", QDTYPES, ids=str)
def test_empty_and_zero_dim(engine, dtype, gen):
    for x in (_quantized(dtype, (0, 3), 0.1, 0, gen), _quantized(dtype, (), 0.1, 0, gen)):
        for form, (ours, atens) in FORMS.items():
            assert_same_quantized(ours(x), _aten(atens, x))


def _near_a_tie(x, out):
    """Where the exact result, in output codes, lies within float rounding of halfway between two
    codes (computed in float64 from the input's value)."""
    exact = (x.dequantize().double() / 6 + 0.5).clamp(0, 1) / out.q_scale() + out.q_zero_point()
    return (exact - exact.floor() - 0.5).abs() < 1e-3


@pytest.mark.parametrize("dtype", [torch.quint8, torch.qint8], ids=str)
def test_aten_engines_agree(dtype, gen):
    """The premise of taking another engine's result where QNNPACK cannot run (no QNNPACK result
    exists there to differ from): aten's engines other than QNNPACK give the same codes on every
    input, and QNNPACK gives them too except where the exact result is a near-tie between two
    codes, which its arithmetic may round the other way (seen: quint8, scale 0.0125558041036129,
    zero point 234, code 80: 45 under QNNPACK, 46 under the others). Every code, 16 random
    parameters. The library follows each engine, near-ties included (test_matches_aten above)."""
    if len(ENGINES) < 2:
        pytest.skip("one quantized engine here")
    for _ in range(16):
        x = _quantized(dtype, (2 ** 12,), _random_scale(gen), _random_zero_point(dtype, gen), gen)
        results = {e: _aten_under(e, F.hardsigmoid, x) for e in ENGINES}
        others = [results[e] for e in ENGINES if e != "qnnpack"]
        for other in others[1:]:
            assert_same_quantized(other, others[0])
        if "qnnpack" in results and others:
            qnnpack, reference = results["qnnpack"], others[0]
            assert (qnnpack.q_scale(), qnnpack.q_zero_point(), qnnpack.shape) == (
                reference.q_scale(), reference.q_zero_point(), reference.shape)
            differ = qnnpack.int_repr().int() != reference.int_repr().int()
            assert (qnnpack.int_repr().int() - reference.int_repr().int()).abs().max() <= 1
            assert not (differ & ~_near_a_tie(x, reference)).any(), (
                f"QNNPACK differs away from a tie at scale {x.q_scale()}, zero point "
                f"{x.q_zero_point()}")


@pytest.mark.parametrize("numel", [256, 2 ** 14], ids=["arithmetic", "table"])
def test_near_tie_follows_each_engine(numel):
    """The input that showed QNNPACK's own rounding (every code, at the scale and zero point where
    code 80 is a near-tie): the library gives each engine's codes, by arithmetic and by the
    byte table alike, and the engines do differ there."""
    if "qnnpack" not in ENGINES or len(ENGINES) < 2:
        pytest.skip("needs QNNPACK and another engine")
    codes = torch.arange(256, dtype=torch.uint8).repeat(numel // 256)
    x = torch._make_per_tensor_quantized_tensor(codes, 0.0125558041036129, 234)
    results = {}
    for engine in ENGINES:
        with quantized_engine(engine):
            results[engine] = F.hardsigmoid(x)
            assert_same_quantized(OPS.hardsigmoid(x), results[engine])
    other = next(e for e in ENGINES if e != "qnnpack")
    assert not torch.equal(results["qnnpack"].int_repr(), results[other].int_repr())


def _near_tie_scales(dtype, ties, gen):
    """(scale, zero point) pairs: for each of `ties` random codes and zero points, the float32
    scale that puts that code's exact result nearest a tie between two output codes, and the
    float32 scales two steps either side of it, where any engine's arithmetic (a product rounded
    or fused, a scalar or a vector formula) can round either way. Of random scales about one in
    7,000 has a code that a fused and an unfused product round apart; of these about one in ten.
    The output code y of code q is 256 * (scale * (q - zero point) + 3) / 6 (less 128 for QInt8),
    so y = k + 1/2 at scale = ((k + 1/2) * 6 / 256 - 3) / (q - zero point)."""
    info = torch.iinfo(CODES[dtype])
    pairs = []
    while len(pairs) < 5 * ties:
        zero_point, code = torch.randint(info.min, info.max + 1, (2,), generator=gen).tolist()
        difference = code - zero_point
        if difference == 0:
            continue
        # the codes whose tie lies on the side of 3 that this difference's sign reaches
        k = int(torch.randint(128, 256, (1,), generator=gen)) if difference > 0 else int(
            torch.randint(0, 128, (1,), generator=gen))
        tie = torch.tensor(((k + 0.5) * 6 / 256 - 3) / difference, dtype=torch.float32)
        for step in range(-2, 3):
            scale = tie
            for _ in range(abs(step)):
                scale = torch.nextafter(scale, scale * 2 if step > 0 else scale / 2)
            pairs.append((float(scale), zero_point))
    return pairs


@pytest.mark.parametrize("numel", [256, 2 ** 14], ids=["arithmetic", "table"])
@pytest.mark.parametrize("dtype", [torch.quint8, torch.qint8], ids=str)
def test_near_ties_follow_each_engine(engine, dtype, numel, gen):
    """Every code at scales that put some code at a tie (_near_tie_scales): the library gives the
    engine's codes there, by arithmetic and by the byte table alike. This found the library
    rounding one QNNPACK tie the x86-64 way on aarch64, where torch's QNNPACK fuses its
    arithmetic."""
    info = torch.iinfo(CODES[dtype])
    codes = torch.arange(info.min, info.max + 1, dtype=CODES[dtype]).repeat(numel // 256)
    for scale, zero_point in _near_tie_scales(dtype, 64, gen):
        x = torch._make_per_tensor_quantized_tensor(codes, scale, zero_point)
        ours, theirs = OPS.hardsigmoid(x), F.hardsigmoid(x)
        try:
            assert_same_quantized(ours, theirs)
        except AssertionError as error:
            raise AssertionError(f"scale {scale!r}, zero point {zero_point}: {error}") from None


@layout_shapes
@pytest.mark.parametrize("out_layout", ["contiguous", "channels_last", "transposed"])
@pytest.mark.parametrize("dtype", QDTYPES, ids=str)
def test_out_matches_aten(engine, dtype, out_layout, shape, gen):
    """out takes the result's codes and parameters and keeps its own strides, as aten's."""
    x = _quantized(dtype, shape, _random_scale(gen), _random_zero_point(dtype, gen), gen)
    if out_layout == "transposed":
        x = x.transpose(1, 3)
    results = []
    for call in (lambda x, out: OPS.hardsigmoid_out(x, out),
                 lambda x, out: OPS.hardsigmoid.out(x, out=out),
                 lambda x, out: aten.hardsigmoid.out(x, out=out)):
        out = _quantized(dtype, shape, 0.3, _random_zero_point(dtype, gen), gen)
        out = LAYOUTS[out_layout](out) if out_layout != "transposed" else out.transpose(1, 3)
        strides = out.stride()
        _aten(lambda x: call(x, out), x)
        assert out.stride() == strides
        results.append(out)
    assert_same_quantized(results[0], results[2])
    assert_same_quantized(results[1], results[2])


@pytest.mark.parametrize("dtype", QDTYPES, ids=str)
@pytest.mark.parametrize("shape", [(40, 33), (400, 330)], ids=["small", "large"])
def test_out_is_self(engine, dtype, shape, gen):
    x = _quantized(dtype, shape, _random_scale(gen), _random_zero_point(dtype, gen), gen)
    ours, atens = x.clone(), x.clone()
    OPS.hardsigmoid_out(ours, ours)
    _aten(lambda t: aten.hardsigmoid.out(t, out=t), atens)
    assert_same_quantized(ours, atens)


def _per_channel():
    return torch.quantize_per_channel(torch.randn(2, 3), torch.tensor([0.1, 0.2]),
                                      torch.tensor([1, 2]), 0, torch.quint8)


def _quint8(shape=(2, 3)):
    return torch.quantize_per_tensor(torch.randn(shape), 0.05, 10, torch.quint8)


# (call, aten's call or None, message of ours, tensors that must be left as they were)
def _refusals():
    per_channel, q, q_out = _per_channel(), _quint8(), _quint8()
    qint8_out = torch.quantize_per_tensor(torch.randn(2, 3), 0.1, 0, torch.qint8)
    float_out, dense = torch.zeros(2, 3), torch.randn(2, 3)
    quint4x2 = torch.quantize_per_tensor(torch.randn(2, 4), 0.1, 1, torch.quint4x2)
    return {
        "per_channel": (lambda: OPS.hardsigmoid(per_channel), lambda: F.hardsigmoid(per_channel),
                        "hardsigmoid: self is quantized with the per_channel_affine scheme", []),
        "per_channel_inplace": (lambda: OPS.hardsigmoid_(per_channel),
                                lambda: aten.hardsigmoid_(per_channel),
                                "hardsigmoid_: self is quantized with the per_channel_affine",
                                [per_channel]),
        "per_channel_out": (lambda: OPS.hardsigmoid_out(q, per_channel), None,
                            "hardsigmoid_out: out is quantized with the per_channel_affine",
                            [per_channel]),
        "quint4x2": (lambda: OPS.hardsigmoid(quint4x2), lambda: F.hardsigmoid(quint4x2),
                     "hardsigmoid: not implemented for 'QUInt4x2' (self)", []),
        "backward_grad_output": (lambda: OPS.hardsigmoid_backward(q, dense),
                                 lambda: aten.hardsigmoid_backward(q, dense),
                                 "hardsigmoid_backward: grad_output is a quantized tensor", []),
        "backward_self": (lambda: OPS.hardsigmoid_backward(dense, q),
                          lambda: aten.hardsigmoid_backward(dense, q),
                          "hardsigmoid_backward: self is a quantized tensor", []),
        "backward_both": (lambda: OPS.hardsigmoid_backward(q, q),
                          lambda: aten.hardsigmoid_backward(q, q),
                          "hardsigmoid_backward: grad_output is a quantized tensor", []),
        "out_float": (lambda: OPS.hardsigmoid_out(q, float_out),
                      lambda: aten.hardsigmoid.out(q, out=float_out),
                      "hardsigmoid_out: self is quantized (QUInt8) but out is not quantized "
                      "(Float)", [float_out]),
        "self_float_out_quantized": (lambda: OPS.hardsigmoid_out(dense, q_out),
                                     lambda: aten.hardsigmoid.out(dense, out=q_out),
                                     "hardsigmoid_out: self is not quantized (Float) but out is "
                                     "quantized (QUInt8)", [q_out]),
        "out_other_dtype": (lambda: OPS.hardsigmoid_out(q, qint8_out),
                            lambda: aten.hardsigmoid.out(q, out=qint8_out),
                            "hardsigmoid_out: out has dtype QInt8 but self has dtype QUInt8",
                            [qint8_out]),
    }


def _snapshot(tensors):
    return [(t.int_repr().clone(), t.q_scale() if t.qscheme() == torch.per_tensor_affine else None)
            if t.is_quantized else t.clone() for t in tensors]


@pytest.mark.parametrize("mode", ["grad_mode", "inference_mode"])
@pytest.mark.parametrize("case", list(_refusals()))
def test_refused_as_atens(case, mode):
    """Each refusal names op and argument, under inference mode (which skips the Autograd
    kernel) too, and leaves every tensor as it was; aten refuses the same call."""
    with torch.inference_mode(mode == "inference_mode"):
        call, atens, message, untouched = _refusals()[case]
        before = _snapshot(untouched)
        with pytest.raises((RuntimeError, NotImplementedError), match=re.escape(message)):
            call()
        for (old, after) in zip(before, _snapshot(untouched)):
            assert str(old) == str(after)
        if atens is not None:
            with pytest.raises((RuntimeError, NotImplementedError)):
                atens()


def test_out_partially_overlapping_self_is_refused():
    """aten's quantized out= computes into a new tensor and copies it, so an out sharing some of
    self's elements gets the result; ours refuses it, as for dense tensors, leaving both as they
    were."""
    base = _quint8((10,))
    before = base.int_repr().clone()
    with pytest.raises(RuntimeError, match="hardsigmoid_out: out shares memory with self"):
        OPS.hardsigmoid_out(base[0:6], base[4:10])
    assert_unchanged(before, base.int_repr())


def test_out_of_another_shape_is_refused():
    """aten's quantized out= copies its result into out with broadcasting; ours, as for dense
    tensors, takes an out of self's shape only and leaves another untouched."""
    q = _quint8((2, 3))
    for shape in [(4, 2, 3), (3,), (0,)]:
        out = _quint8(shape)
        before = out.int_repr().clone()
        with pytest.raises(RuntimeError, match="hardsigmoid_out: out has shape"):
            OPS.hardsigmoid_out(q, out)
        assert_unchanged(before, out.int_repr())


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_quantized_cuda_is_refused():
    q = torch.quantize_per_tensor(torch.randn(4, device="cuda"), 0.1, 0, torch.quint8)
    with pytest.raises(RuntimeError, match="hardsigmoid: self is a quantized tensor on cuda"):
        OPS.hardsigmoid(q)
    with pytest.raises((RuntimeError, NotImplementedError)):
        F.hardsigmoid(q)


def test_grad_mode_and_autograd_graph(gen):
    """A quantized tensor cannot require grad; under grad mode the result has no grad_fn, as
    aten's."""
    x = _quantized(torch.quint8, (8,), 0.05, 3, gen)
    ours = OPS.hardsigmoid(x)
    assert ours.grad_fn is None and not ours.requires_grad
    assert_same_quantized(ours, F.hardsigmoid(x))


# Dynamo and export: aten's quantized op cannot be traced (fake tensors do not take quantized
# tensors); torch.compile falls back to eager, fullgraph and export raise. Ours does the same.
def _functions():
    return {"ours": lambda t: OPS.hardsigmoid(t), "aten": lambda t: F.hardsigmoid(t)}


@ignore_jit_deprecation
def test_compile_runs_eagerly_with_atens_result(gen):
    x = _quantized(torch.quint8, (4, 33), 0.05, 3, gen)
    torch._dynamo.reset()
    results = {name: torch.compile(fn)(x) for name, fn in _functions().items()}
    assert_same_quantized(results["ours"], results["aten"])
    torch._dynamo.reset()


def _raised(call):
    try:
        call()
    except Exception as error:  # compared with aten's exception class
        return type(error)
    return None


def test_fullgraph_compile_and_export_fail_as_atens(gen):
    x = _quantized(torch.quint8, (4, 33), 0.05, 3, gen)
    for entry in (lambda fn: torch.compile(fn, fullgraph=True)(x),
                  lambda fn: torch.export.export(Alone(fn), (x,))):
        torch._dynamo.reset()
        raised = {name: _raised(lambda: entry(fn)) for name, fn in _functions().items()}
        assert raised["aten"] is not None, "aten's op now compiles: test ours there"
        assert raised["ours"] is raised["aten"]
    torch._dynamo.reset()


class _Gate(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.ops.hardsigmoid_ops.hardsigmoid(x)
        torch.ops.hardsigmoid_ops.hardsigmoid_(x)
        return torch.cat([y.int_repr(), x.int_repr()])


@ignore_jit_deprecation
def test_torchscript(gen):
    x = _quantized(torch.qint8, (5, 7), 0.05, 3, gen)
    expected = torch.cat([F.hardsigmoid(x).int_repr(), F.hardsigmoid(x).int_repr()])
    scripted = script(_Gate())
    traced = torch.jit.trace(_Gate(), (x.clone(),))
    for model in (scripted, traced):
        assert torch.equal(model(x.clone()), expected)


def test_package_functions_and_module(gen):
    """hardsigmoid_ops.hardsigmoid and nn.Hardsigmoid, out of place and in place."""
    import hardsigmoid_ops

    x = _quantized(torch.quint8, (6, 9), 0.05, 3, gen)
    expected = F.hardsigmoid(x)
    calls = [lambda t: hardsigmoid_ops.hardsigmoid(t),
             lambda t: hardsigmoid_ops.hardsigmoid(t, inplace=True),
             lambda t: hardsigmoid_ops.nn.Hardsigmoid()(t),
             lambda t: hardsigmoid_ops.nn.Hardsigmoid(inplace=True)(t)]
    for call in calls:
        assert_same_quantized(call(x.clone()), expected)


@pytest.mark.parametrize("in_dims", [0, 1])
def test_vmap_as_atens(in_dims, gen):
    x = _quantized(torch.qint8, (4, 6, 5), _random_scale(gen), 7, gen)
    ours = torch.vmap(OPS.hardsigmoid, in_dims=in_dims)(x)
    assert_same_quantized(ours, torch.vmap(F.hardsigmoid, in_dims=in_dims)(x))
