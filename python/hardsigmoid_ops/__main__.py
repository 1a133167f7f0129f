"""`python -m hardsigmoid_ops`: what this installation is and whether it works here.

Prints the package's version, the library it loaded and the torch it was built against, the CPU
capability whose loops run (aten's choice, which the library follows), the CUDA code the library
holds, and, for the CPU and each GPU torch sees, the result of one call compared with aten's. Exits
with status 1 when no library is found or a call fails, so a script can use it as a check."""

import importlib.metadata
import pathlib
import sys

import torch

import hardsigmoid_ops


def _version():
    """pip's version where this package is the one pip installed (not a source tree's package on
    PYTHONPATH beside an installed one)."""
    try:
        installed = importlib.metadata.distribution("hardsigmoid_ops")
    except importlib.metadata.PackageNotFoundError:
        installed = None
    here = pathlib.Path(hardsigmoid_ops.__file__).resolve()
    if installed and pathlib.Path(installed.locate_file("hardsigmoid_ops/__init__.py")).resolve() \
            == here:
        return installed.version
    return f"a source tree's package ({here.parent})"


def _call(device):
    """One call on `device` against aten's, by the op's own error where it refuses the device."""
    x = torch.linspace(-4, 4, 33, device=device)
    try:
        ours = torch.ops.hardsigmoid_ops.hardsigmoid(x)
    except RuntimeError as error:
        return False, str(error).splitlines()[0]
    same = torch.equal(ours, torch.ops.aten.hardsigmoid(x))
    return same, "equal to aten's" if same else "NOT equal to aten's"


def main():
    rows = [("hardsigmoid_ops", _version())]
    try:
        info = hardsigmoid_ops.build_info()
    except RuntimeError:
        print("hardsigmoid_ops: no library loaded; install the wheel, or set "
              "HARDSIGMOID_OPS_LIBRARY to a CMake build's libhardsigmoid_ops.so")
        return 1
    built_against = info.get("torch_full_version") or info.get("torch_version") or "unrecorded"
    cuda_code = info.get("cuda_sass", []) + [f"{ptx} (PTX)" for ptx in info.get("cuda_ptx", [])]
    rows += [
        ("library", info["library"]),
        ("torch", f"{torch.__version__} (the library was built against {built_against})"),
        ("CPU", f"{info.get('processor', 'unrecorded')}, the library's loops of aten's capability "
                f"{torch.backends.cpu.get_cpu_capability()}"),
        ("CUDA code", " ".join(cuda_code) or "none"),
    ]
    ok, result = _call("cpu")
    rows.append(("call on cpu", result))
    for index in range(torch.cuda.device_count()):
        major, minor = torch.cuda.get_device_capability(index)
        served, result = _call(f"cuda:{index}")
        ok = ok and served
        rows.append((f"call on cuda:{index}",
                     f"{torch.cuda.get_device_name(index)}, sm_{major}{minor}: {result}"))
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
