"""Checks an installed release wheel from a user's seat (scripts/release/check_wheel.sh runs it
in a fresh environment, from outside the source tree, with no compiler reachable): the package
imports with nothing but `import hardsigmoid_ops`, its metadata pins the torch it runs in, and
every op gives aten's bits, NaN bits included, on fresh random values and edge values, in
awkward layouts, on the CPU and on every GPU torch sees. A library without CUDA kernels must
refuse a CUDA tensor by saying so, and warn at import where a GPU is present. Prints what it
found; exits non-zero on the first difference.

    python check_wheel.py [--torch-cuda-list] [--as-torch-without-cuda]
      --torch-cuda-list: the library must hold SASS for every architecture of torch's own wheel
                         (torch._C._cuda_getArchFlags()) and PTX of the newest
      --as-torch-without-cuda: a stand-in for a torch built without CUDA (PyTorch's +cpu
                         wheels, which PyPI does not serve): torch.version.cuda reads None before
                         the package is imported, so the package must load its release's build
                         without CUDA, which must give aten's bits and refuse CUDA tensors. What
                         it does not prove: that build's link against a real +cpu torch
                         (scripts/release/check_index_install.sh checks that it needs no CUDA
                         library)
"""

import argparse
import importlib.metadata
import json
import pathlib
import re
import sys
import warnings

import torch

if "--as-torch-without-cuda" in sys.argv:
    torch.version.cuda = None

with warnings.catch_warnings(record=True) as import_warnings:
    warnings.simplefilter("always")
    import hardsigmoid_ops

from hardsigmoid_ops import _library, _torch_release

OPS = torch.ops.hardsigmoid_ops
DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
INT_VIEW = {torch.float32: torch.int32, torch.float64: torch.int64, torch.float16: torch.int16,
            torch.bfloat16: torch.int16}


def edge_values(dtype):
    info = torch.finfo(dtype)
    values = [float("nan"), -float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 3.0, -3.0,
              2.999, -2.999, 3.001, -3.001, info.tiny, -info.tiny, info.tiny / 4, -info.tiny / 4,
              info.max, -info.max, info.eps, 1.0, -1.0, 6.0, -6.0]
    return torch.tensor(values, dtype=torch.float64).to(dtype)


def same_bits(ours, expected, what):
    layout = (ours.shape, ours.dtype, ours.stride())
    if layout != (expected.shape, expected.dtype, expected.stride()):
        sys.exit(f"{what}: shape/dtype/strides {ours.shape} {ours.dtype} {ours.stride()} against "
                 f"aten's {expected.shape} {expected.dtype} {expected.stride()}")
    a = ours.contiguous().view(INT_VIEW[ours.dtype])
    b = expected.contiguous().view(INT_VIEW[ours.dtype])
    if not torch.equal(a, b):
        where = (a != b).nonzero()[0].tolist()
        sys.exit(f"{what}: differs from aten at {where}: {ours.contiguous().view(-1)[0]} ...")


def layouts(x):
    """x contiguous, transposed, step-2, and offset by one element (unaligned)."""
    square = x[: (x.numel() // 16) * 16].view(-1, 16)
    return {"contiguous": x, "transposed": square.t(), "step2": x.repeat_interleave(2)[::2],
            "offset": torch.cat([x[:1], x])[1:]}


def check_device(device):
    checked = 0
    for dtype in DTYPES:
        random = (torch.randn(4099, dtype=torch.float64) * 5).to(dtype)
        x_all = torch.cat([random, edge_values(dtype)]).to(device)
        g_all = torch.randn(x_all.numel(), dtype=torch.float64).to(dtype).to(device)
        for name, x in layouts(x_all).items():
            g = layouts(g_all)[name]
            what = f"{device} {dtype} {name}"
            expected = torch.ops.aten.hardsigmoid(x)
            same_bits(OPS.hardsigmoid(x), expected, f"hardsigmoid, {what}")
            same_bits(hardsigmoid_ops.hardsigmoid(x), expected,
                      f"hardsigmoid_ops.hardsigmoid, {what}")
            inplace = x.clone()
            OPS.hardsigmoid_(inplace)
            aten_inplace = x.clone()
            torch.ops.aten.hardsigmoid_(aten_inplace)
            same_bits(inplace, aten_inplace, f"hardsigmoid_, {what}")
            out = torch.empty_like(x)
            OPS.hardsigmoid_out(x, out)
            same_bits(out, expected, f"hardsigmoid_out, {what}")
            same_bits(OPS.hardsigmoid_backward(g, x), torch.ops.aten.hardsigmoid_backward(g, x),
                      f"hardsigmoid_backward, {what}")
            leaf = x.detach().clone().requires_grad_()
            OPS.hardsigmoid(leaf).backward(g)
            aten_leaf = x.detach().clone().requires_grad_()
            torch.ops.aten.hardsigmoid(aten_leaf).backward(g)
            same_bits(leaf.grad, aten_leaf.grad, f"autograd, {what}")
            checked += 6
    return checked


def check_quantized():
    x = torch.randn(5000) * 4
    q = torch.quantize_per_tensor(x, 0.05, 128, torch.quint8)
    ours, expected = OPS.hardsigmoid(q), torch.ops.aten.hardsigmoid(q)
    if not (torch.equal(ours.int_repr(), expected.int_repr())
            and ours.q_scale() == expected.q_scale()
            and ours.q_zero_point() == expected.q_zero_point()):
        sys.exit("quantized hardsigmoid differs from aten")


def check_refuses_cuda():
    """A library without CUDA kernels: its CUDA kernel (reached here with a CPU tensor, which
    works without a GPU) refuses by name; with a GPU, a real CUDA tensor does, and importing
    warned."""
    cuda_only = torch._C.DispatchKeySet(torch._C.DispatchKey.CUDA)
    try:
        OPS.hardsigmoid.default.redispatch(cuda_only, torch.zeros(3))
    except RuntimeError as error:
        if "built without CUDA kernels" not in str(error):
            sys.exit(f"the CUDA refusal does not say why: {error}")
    else:
        sys.exit("a library without CUDA kernels ran its CUDA kernel")
    if torch.cuda.is_available():
        if not any("built without CUDA kernels" in str(w.message) for w in import_warnings):
            sys.exit("import gave no warning on a machine with a GPU")
        try:
            OPS.hardsigmoid(torch.zeros(3, device="cuda"))
        except RuntimeError as error:
            assert "built without CUDA kernels" in str(error), error
        else:
            sys.exit("a CUDA tensor ran in a library without CUDA kernels")


def check_cuda_without_gpu():
    """A library with CUDA kernels where torch sees no GPU (an aarch64 CUDA torch under emulation):
    its CUDA kernel, reached with a CPU tensor, fails as aten's own CUDA kernel does, and a CUDA
    tensor gets torch's own error; never the refusal of a library built without CUDA kernels."""
    cuda_only = torch._C.DispatchKeySet(torch._C.DispatchKey.CUDA)
    errors = []
    for op in (OPS.hardsigmoid.default, torch.ops.aten.hardsigmoid.default):
        try:
            op.redispatch(cuda_only, torch.zeros(3))
        except RuntimeError as error:
            errors.append(str(error).splitlines()[0])
        else:
            sys.exit(f"{op} ran a CPU tensor in its CUDA kernel")
    if errors[0] != errors[1] or "built without CUDA kernels" in errors[0]:
        sys.exit(f"the CUDA kernel without a GPU: {errors[0]!r}; aten's: {errors[1]!r}")
    try:
        OPS.hardsigmoid(torch.zeros(3).to("cuda"))
    except RuntimeError as error:
        if "built without CUDA kernels" in str(error):
            sys.exit(f"a CUDA tensor without a GPU got the library's refusal: {error}")
        return str(error).splitlines()[0]
    sys.exit("a CUDA tensor was made where torch sees no GPU")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--torch-cuda-list", action="store_true")
    parser.add_argument("--as-torch-without-cuda", action="store_true")
    args = parser.parse_args()

    info = hardsigmoid_ops.build_info()
    package = pathlib.Path(hardsigmoid_ops.__file__).resolve().parent
    # The release wheel's library for this torch: its release's CUDA build where torch has CUDA,
    # on either platform, else its build without CUDA.
    held = _library.held_releases()
    release = _torch_release.release(torch.__version__)
    cuda = bool(torch.version.cuda)
    expected = package / "releases" / _torch_release.release_directory(release, cuda) / "lib"
    if (pathlib.Path(info["library"]).resolve().parent != expected
            or package.parent.name == "python"):
        sys.exit(f"not the installed package's library for torch {torch.__version__}: "
                 f"{info['library']} ({expected} expected)")
    version = importlib.metadata.version("hardsigmoid_ops")
    requires = importlib.metadata.requires("hardsigmoid_ops")
    wanted = _torch_release.releases_requirement({r for r, _ in held})
    # A version an index accepts: no local label (PEP 440).
    if requires != [wanted] or "+" in version:
        sys.exit(f"metadata {version}, {requires}: not the releases held, {wanted}")

    checked = check_device("cpu") + 1
    check_quantized()
    if info["cuda"]:
        if args.torch_cuda_list:
            # torch's list is one string, "sm_75 sm_80 ...".
            torch_list = {name for name in (torch._C._cuda_getArchFlags() or "").split()
                          if name.startswith("sm_")}
            newest = max(torch_list, key=lambda name: int(re.match(r"sm_(\d+)", name).group(1)))
            if (not torch_list or not torch_list <= set(info["cuda_sass"])
                    or info["cuda_ptx"] != [newest.replace("sm_", "compute_")]):
                sys.exit(f"CUDA code {info['cuda_sass']} + PTX {info['cuda_ptx']} against torch's "
                         f"{sorted(torch_list)}")
        for index in range(torch.cuda.device_count()):
            checked += check_device(f"cuda:{index}")
        if not torch.cuda.is_available():
            info["cuda_tensor_without_gpu"] = check_cuda_without_gpu()
    else:
        check_refuses_cuda()
    if args.as_torch_without_cuda and info["cuda"]:
        sys.exit(f"a torch without CUDA got a library with CUDA kernels: {info['library']}")
    print(json.dumps({"wheel_version": version, "requires": requires,
                      "torch": torch.__version__, "python": sys.version.split()[0],
                      "gpus": [torch.cuda.get_device_name(i)
                               for i in range(torch.cuda.device_count())]
                      if torch.cuda.is_available() else [],
                      "comparisons_equal_to_aten": checked, **info}, indent=1))


if __name__ == "__main__":
    main()
