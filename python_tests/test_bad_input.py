"""Bad input, one test per row of DESIGN.md's bad-input table: the right exception, a message that
says what is wrong, and nothing written."""

import re

import pytest
import torch
import torch.nn.functional as F

from hardsigmoid_testing import OPS
from hardsigmoid_testing.checks import assert_identical, assert_unchanged

# Every (op, argument) position a tensor can take.
POSITIONS = [
    ("hardsigmoid", "self"),
    ("hardsigmoid_", "self"),
    ("hardsigmoid_out", "self"),
    ("hardsigmoid_out", "out"),
    ("hardsigmoid_backward", "grad_output"),
    ("hardsigmoid_backward", "self"),
]
ARGUMENTS = {
    "hardsigmoid": ["self"],
    "hardsigmoid_": ["self"],
    "hardsigmoid_out": ["self", "out"],
    "hardsigmoid_backward": ["grad_output", "self"],
}
position_ids = [f"{op}-{arg}" for op, arg in POSITIONS]


def _call(op, position, bad, good):
    """`op` with `bad` as argument `position` and `good` as its other tensor argument."""
    return getattr(OPS, op)(*[bad if arg == position else good for arg in ARGUMENTS[op]])


def _snapshot(*tensors):
    return [t.clone() for t in tensors]


def _assert_all_unchanged(snapshots, tensors):
    for before, after in zip(snapshots, tensors):
        if after.device.type != "meta":
            assert_unchanged(before, after)


@pytest.fixture(
    params=[
        "cpu",
        pytest.param(
            "cuda",
            marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device"),
        ),
        # The Meta kernel must refuse what the others refuse, or torch.compile would trace it.
        "meta",
    ]
)
def any_device(request):
    return request.param


UNSUPPORTED = {
    torch.int64: "Long",
    torch.int32: "Int",
    torch.bool: "Bool",
    torch.complex64: "ComplexFloat",
}


def _of_dtype(dtype, device):
    if dtype == torch.bool:
        return (torch.rand(4, 5) > 0.5).to(device)
    if dtype.is_complex:
        return torch.randn(4, 5, dtype=dtype).to(device)
    return torch.randint(-9, 9, (4, 5), dtype=dtype).to(device)


@pytest.mark.parametrize("dtype", UNSUPPORTED, ids=lambda d: str(d)[6:])
@pytest.mark.parametrize("op,position", POSITIONS, ids=position_ids)
def test_unsupported_dtype(any_device, dtype, op, position):
    bad = _of_dtype(dtype, any_device)
    good = torch.randn(4, 5, device=any_device)
    before = _snapshot(bad, good)
    message = f"{op}: not implemented for '{UNSUPPORTED[dtype]}' ({position})"
    with pytest.raises(NotImplementedError, match=re.escape(message)):
        _call(op, position, bad, good)
    _assert_all_unchanged(before, [bad, good])


@pytest.mark.parametrize("out_shape", [(3, 2), (6,), (2, 3, 1), (), (0,)], ids=str)
def test_out_of_another_shape(any_device, out_shape):
    x = torch.randn(2, 3, device=any_device)
    out = torch.full(out_shape, 42.0, device=any_device)
    before = _snapshot(x, out)
    shape = ", ".join(map(str, out_shape))
    message = f"hardsigmoid_out: out has shape [{shape}] but self has shape [2, 3]"
    with pytest.raises(RuntimeError, match=re.escape(message)):
        OPS.hardsigmoid_out(x, out)
    _assert_all_unchanged(before, [x, out])


# c10::toString of each supported scalar type, as the messages print it.
SUPPORTED = {
    torch.float32: "Float",
    torch.float64: "Double",
    torch.float16: "Half",
    torch.bfloat16: "BFloat16",
}


@pytest.mark.parametrize(
    "self_dtype,out_dtype",
    [(torch.float32, torch.float64), (torch.float16, torch.bfloat16),
     (torch.bfloat16, torch.float32)],
    ids=str,
)
def test_out_of_another_dtype(any_device, self_dtype, out_dtype):
    x = torch.randn(2, 3, dtype=self_dtype, device=any_device)
    out = torch.full((2, 3), 42.0, dtype=out_dtype, device=any_device)
    before = _snapshot(x, out)
    message = (f"hardsigmoid_out: out has dtype {SUPPORTED[out_dtype]} but self has dtype "
               f"{SUPPORTED[self_dtype]}")
    with pytest.raises(RuntimeError, match=re.escape(message)):
        OPS.hardsigmoid_out(x, out)
    _assert_all_unchanged(before, [x, out])


needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
DEVICE_PAIRS = [
    pytest.param("cpu", "meta", id="cpu-meta"),
    pytest.param("meta", "cpu", id="meta-cpu"),
    pytest.param("cuda", "cpu", id="cuda-cpu", marks=needs_cuda),
    pytest.param("cpu", "cuda", id="cpu-cuda", marks=needs_cuda),
]


def _device_name(device):
    return str(torch.empty(0, device=device).device)


@pytest.mark.parametrize("self_device,out_device", DEVICE_PAIRS)
def test_out_on_another_device(self_device, out_device):
    x = torch.randn(2, 3, device=self_device)
    out = torch.full((2, 3), 42.0, device=out_device)
    before = _snapshot(x, out)
    message = (f"hardsigmoid_out: out is on {_device_name(out_device)} but self is on "
               f"{_device_name(self_device)}")
    with pytest.raises(RuntimeError, match=re.escape(message)):
        OPS.hardsigmoid_out(x, out)
    _assert_all_unchanged(before, [x, out])


@pytest.mark.parametrize("grad_device,self_device", DEVICE_PAIRS)
def test_backward_on_different_devices(grad_device, self_device):
    grad = torch.randn(2, 3, device=grad_device)
    x = torch.randn(2, 3, device=self_device)
    before = _snapshot(grad, x)
    message = (f"hardsigmoid_backward: grad_output is on {_device_name(grad_device)} but self is "
               f"on {_device_name(self_device)}")
    with pytest.raises(RuntimeError, match=re.escape(message)):
        OPS.hardsigmoid_backward(grad, x)
    _assert_all_unchanged(before, [grad, x])


# Views of one 12-element buffer.
PARTIAL_OVERLAPS = {
    "shifted_forward": (lambda b: b[0:6], lambda b: b[2:8]),
    "shifted_back": (lambda b: b[1:7], lambda b: b[0:6]),
    "transposed": (lambda b: b[:9].view(3, 3), lambda b: b[:9].view(3, 3).t()),
}


@pytest.mark.parametrize("case", PARTIAL_OVERLAPS)
def test_out_partially_overlapping_self(device, case):
    buffer = torch.randn(12, device=device)
    before = buffer.clone()
    make_self, make_out = PARTIAL_OVERLAPS[case]
    with pytest.raises(RuntimeError, match="hardsigmoid_out: out shares memory with self without "
                                           "being self"):
        OPS.hardsigmoid_out(make_self(buffer), make_out(buffer))
    assert_unchanged(before, buffer)


ALLOWED_ALIASING = {
    "out_is_self": (lambda b: b[0:6], None),
    "same_elements_other_view": (lambda b: b[0:6], lambda b: b.view(3, 4).view(12)[0:6]),
    "disjoint_halves": (lambda b: b[0:6], lambda b: b[6:12]),
    "interleaved": (lambda b: b[0::2], lambda b: b[1::2]),
    "interleaved_columns": (lambda b: b.view(3, 4)[:, 0::2], lambda b: b.view(3, 4)[:, 1::2]),
}


@pytest.mark.parametrize("make_self,make_out", ALLOWED_ALIASING.values(), ids=ALLOWED_ALIASING)
def test_out_sharing_storage_without_partial_overlap_is_allowed(device, make_self, make_out, gen):
    buffer = (torch.randn(12, generator=gen) * 4).to(device)
    ref_buffer = buffer.clone()
    x, ref_x = make_self(buffer), make_self(ref_buffer)
    out = x if make_out is None else make_out(buffer)
    ref_out = ref_x if make_out is None else make_out(ref_buffer)
    OPS.hardsigmoid_out(x, out)
    torch._C._nn.hardsigmoid(ref_x, out=ref_out)
    assert_identical(buffer, ref_buffer)


@pytest.mark.parametrize("op", ["hardsigmoid_", "hardsigmoid_out"])
def test_write_into_internally_overlapping_tensor(any_device, op):
    base = torch.randn(1, 5, device=any_device)
    expanded = base.expand(3, 5)
    x = torch.randn(3, 5, device=any_device)
    before = _snapshot(base, x)
    name = "self" if op == "hardsigmoid_" else "out"
    message = f"{op}: {name} has elements that share memory"
    with pytest.raises(RuntimeError, match=re.escape(message)):
        if op == "hardsigmoid_":
            OPS.hardsigmoid_(expanded)
        else:
            OPS.hardsigmoid_out(x, expanded)
    _assert_all_unchanged(before, [base, x])


def _leaf_requiring_grad(device):
    return torch.randn(2, 3, device=device).requires_grad_()


# (label, op, make arguments): what autograd refuses to record, with aten's own message; a
# non-leaf written in place is valid and recorded (test_inplace_autograd.py).
RECORDED_MUTATIONS = {
    "inplace_leaf": ("hardsigmoid_", lambda d: (_leaf_requiring_grad(d),)),
    "out_self_requires_grad": (
        "hardsigmoid_out", lambda d: (_leaf_requiring_grad(d), torch.zeros(2, 3, device=d))),
    "out_requires_grad": (
        "hardsigmoid_out", lambda d: (torch.randn(2, 3, device=d), _leaf_requiring_grad(d))),
}
ATEN_MUTATIONS = {
    "hardsigmoid_": lambda x: F.hardsigmoid(x, inplace=True),
    "hardsigmoid_out": lambda x, out: torch._C._nn.hardsigmoid(x, out=out),
}
# aten's messages, with aten's op name where ours names our out op.
REFUSAL_MESSAGES = {
    "hardsigmoid_": "a leaf Variable that requires grad is being used in an in-place operation.",
    "hardsigmoid_out": "{}(): functions with out=... arguments don't support automatic "
                       "differentiation, but one of the arguments requires grad.",
}


@pytest.mark.parametrize("case", RECORDED_MUTATIONS)
def test_mutation_autograd_would_record(device, case):
    op, make = RECORDED_MUTATIONS[case]
    args = make(device)
    before = _snapshot(*(a.detach() for a in args))
    message = REFUSAL_MESSAGES[op]
    with pytest.raises(RuntimeError, match=re.escape(message.format("hardsigmoid_out"))):
        getattr(OPS, op)(*args)
    _assert_all_unchanged(before, [a.detach() for a in args])
    # aten refuses the same call with the same words.
    with pytest.raises(RuntimeError, match=re.escape(message.format("hardsigmoid"))):
        ATEN_MUTATIONS[op](*make(device))


@pytest.mark.parametrize("case", RECORDED_MUTATIONS)
def test_mutation_allowed_under_no_grad(device, case):
    op, make = RECORDED_MUTATIONS[case]
    args = make(device)
    ref_args = [a.detach().clone() for a in args]
    written = args[-1]
    version = written._version
    with torch.no_grad():
        getattr(OPS, op)(*args)
        ATEN_MUTATIONS[op](*ref_args)
    assert_identical(written.detach(), ref_args[-1])
    assert written._version > version


def _unsupported_layouts():
    """label -> (the layout's name in the message, a tensor of that layout)."""
    dense = torch.randn(4, 6)
    rows = [torch.randn(2, 6), torch.randn(3, 6)]
    return {
        "sparse_coo": ("sparse COO", dense.to_sparse()),
        "sparse_csr": ("sparse CSR", dense.to_sparse_csr()),
        "nested_strided": ("nested (strided layout)",
                           torch.nested.nested_tensor(rows, layout=torch.strided)),
        "mkldnn": ("mkldnn", dense.to_mkldnn()),
    }


def _as_dense(t):
    """The values of a tensor of any layout, as a dense tensor (to see they were not written)."""
    if t.is_nested:
        return t.values().clone()
    return t.to_dense()


# Jagged nested tensors are taken, as aten's op takes them: test_nested_jagged.py. So are
# per-tensor quantized ones; what is refused of them is named in test_quantized.py.
LAYOUT_LABELS = ["sparse_coo", "sparse_csr", "nested_strided", "mkldnn"]
# Constructing these warns that the layout is in beta / prototype: expected, not our concern.
ignore_csr_beta = pytest.mark.filterwarnings(
    "ignore:Sparse CSR tensor support is in beta state:UserWarning")
ignore_nested_prototype = pytest.mark.filterwarnings(
    "ignore:The PyTorch API of nested tensors is in prototype stage:UserWarning")


@ignore_csr_beta
@ignore_nested_prototype
@pytest.mark.parametrize("layout", LAYOUT_LABELS)
@pytest.mark.parametrize("op,position", POSITIONS, ids=position_ids)
def test_unsupported_layout(layout, op, position):
    name, bad = _unsupported_layouts()[layout]
    good = torch.randn(4, 6)
    bad_before, good_before = _as_dense(bad), good.clone()
    message = (f"{op}: {position} is a {name} tensor; only dense (strided) tensors are "
               "supported")
    with pytest.raises(RuntimeError, match=re.escape(message)):
        _call(op, position, bad, good)
    assert_unchanged(bad_before, _as_dense(bad))
    assert_unchanged(good_before, good)


# Under torch.inference_mode the Autograd kernel, where the layout is checked, is skipped: the
# dispatcher goes straight to the layout's backend. The error must still come, naming the layout
# (by its name or by its dispatch key).
LAYOUT_PATTERNS = {
    "sparse_coo": "sparse COO|SparseCPU",
    "sparse_csr": "sparse CSR|SparseCsrCPU",
    "nested_strided": "nested|NestedTensor",
    "mkldnn": "mkldnn|MkldnnCPU",
}


def _inference_mode_cases():
    return [pytest.param(layout, op, position, id=f"{layout}-{op}-{position}")
            for layout in LAYOUT_LABELS for op, position in POSITIONS]


@ignore_csr_beta
@ignore_nested_prototype
@pytest.mark.parametrize("layout,op,position", _inference_mode_cases())
def test_unsupported_layout_in_inference_mode(layout, op, position):
    with torch.inference_mode():
        bad = _unsupported_layouts()[layout][1]
        good = torch.randn(4, 6)
        bad_before, good_before = _as_dense(bad), good.clone()
        with pytest.raises((RuntimeError, NotImplementedError), match=LAYOUT_PATTERNS[layout]):
            _call(op, position, bad, good)
        assert_unchanged(bad_before, _as_dense(bad))
        assert_unchanged(good_before, good)

