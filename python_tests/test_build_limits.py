"""What the artifact says about its own limits: the build record read through build_info(), the
torch-release rule shared by the wheel's requirement and the import check, a library without
CUDA kernels refusing CUDA tensors by name (and warning at import where a GPU is present), and a
GPU the library holds no code for getting the library's error before any launch.

Which branch runs depends on the library under test: scripts/gpu_check.sh's `limits` part builds
one without the GPU's architecture and one without CUDA, and runs this file against each."""

import os
import platform
import re
import subprocess
import sys

import pytest
import torch

import hardsigmoid_ops
from hardsigmoid_ops import _torch_release
from hardsigmoid_testing import OPS
from hardsigmoid_testing.config import REPO_ROOT

INFO = hardsigmoid_ops.build_info()
HAS_CUDA_KERNELS = INFO.get("cuda", False)


def test_build_info_names_the_torch_and_the_code():
    assert INFO["torch_full_version"] == torch.__version__
    assert INFO["processor"] == platform.machine()
    assert all(re.fullmatch(r"sm_\d+[a-z]?", name) for name in INFO["cuda_sass"]), INFO
    assert all(re.fullmatch(r"compute_\d+[a-z]?", name) for name in INFO["cuda_ptx"]), INFO
    if not HAS_CUDA_KERNELS:
        assert INFO["cuda_sass"] == [] and INFO["cuda_ptx"] == [] and INFO["cuda_version"] is None


def test_the_supported_range_is_written_alike():
    """The torch releases a source build takes: CMake's check, the isolated build's requirement
    and the releases the scripts build and test are one range."""
    cmake = re.search(r"set\(HARDSIGMOID_OPS_TORCH_RANGE (\S+) (\S+)\)",
                      (REPO_ROOT / "CMakeLists.txt").read_text()).groups()
    requires = re.search(r'"torch>=([\d.]+),<([\d.]+)"',
                         (REPO_ROOT / "pyproject.toml").read_text()).groups()
    releases = [line for line in (REPO_ROOT / "scripts" / "torch_releases.txt").read_text()
                .splitlines() if line and not line.startswith("#")]
    minors = sorted({_torch_release.release(r) for r in releases},
                    key=lambda v: int(v.split(".")[1]))
    assert cmake == requires, (cmake, requires)
    assert minors[0] == cmake[0] and f"2.{int(minors[-1].split('.')[1]) + 1}" == cmake[1], minors
    assert len(minors) == int(cmake[1].split(".")[1]) - int(cmake[0].split(".")[1])


@pytest.mark.parametrize("built, running, serves", [
    ("2.12.0", "2.12.1", True), ("2.12.1", "2.12.0+cu130", True), ("2.11.0", "2.11.0+cpu", True),
    ("2.11.0", "2.12.0", False), ("2.12.0", "2.11.0", False), ("2.11.0", "3.11.0", False),
    ("2.14.0", "2.14.1", True), ("2.15.0", "2.15.0.dev20260101", False),
    ("2.15.0.dev20260101+cpu", "2.15.0.dev20260101+cu130", True),
    ("2.15.0a0+git1", "2.15.0a0+git2", True), ("2.15.0a0+git1", "2.15.0", False)])
def test_release_rule(built, running, serves):
    assert _torch_release.serves(built, running) is serves
    assert _torch_release.requirement(built) == f"torch=={built[:4]}.*"


@pytest.mark.skipif(HAS_CUDA_KERNELS, reason="this library has CUDA kernels (the refusal is a "
                                             "build's without them)")
@pytest.mark.parametrize("op, args", [("hardsigmoid", 1), ("hardsigmoid_", 1),
                                      ("hardsigmoid_out", 2), ("hardsigmoid_backward", 2)])
def test_cuda_kernel_of_a_library_without_cuda_refuses_by_name(op, args):
    """The CUDA kernel reached with a CPU tensor (no GPU needed: it refuses before looking)."""
    with pytest.raises(RuntimeError, match=rf"hardsigmoid_ops::{op}: .*built without CUDA kernels"
                                           rf".*a tensor on cpu reached it"):
        getattr(OPS, op).default.redispatch(torch._C.DispatchKeySet(torch._C.DispatchKey.CUDA),
                                            *[torch.zeros(3)] * args)


@pytest.mark.skipif(HAS_CUDA_KERNELS or not torch.cuda.is_available(),
                    reason="needs a library without CUDA kernels and a GPU")
def test_without_cuda_kernels_a_gpu_gets_a_warning_and_a_named_refusal():
    with pytest.raises(RuntimeError, match="built without CUDA kernels"):
        OPS.hardsigmoid(torch.zeros(3, device="cuda"))
    environment = dict(os.environ, PYTHONPATH=str(REPO_ROOT / "python"),
                       HARDSIGMOID_OPS_LIBRARY=INFO["library"])
    result = subprocess.run(
        [sys.executable, "-W", "always", "-c", "import hardsigmoid_ops"],
        capture_output=True, text=True, timeout=300, env=environment)
    assert result.returncode == 0, result.stderr
    assert "built without CUDA kernels" in result.stderr and "GPU" in result.stderr, result.stderr


def _runs_on(capability):
    """Whether code of the build runs on a device of `capability` (major, minor): SASS of the same
    major and no higher minor, or PTX of no higher capability (the driver compiles it)."""
    major, minor = capability

    def number(name):
        return int(re.fullmatch(r"\w+_(\d+)[a-z]?", name).group(1))

    sass = any(number(n) // 10 == major and number(n) % 10 <= minor for n in INFO["cuda_sass"])
    ptx = any(number(n) <= major * 10 + minor for n in INFO["cuda_ptx"])
    return sass or ptx


@pytest.mark.skipif(not HAS_CUDA_KERNELS or not torch.cuda.is_available(),
                    reason="needs a library with CUDA kernels and a GPU")
def test_a_gpu_without_code_gets_the_librarys_error():
    """On a GPU the build holds code for, every op runs; on one it does not (gpu_check.sh builds
    one without the GPU's architecture), every op raises the library's error naming the device's
    compute capability and the code held, never CUDA's "no kernel image"."""
    capability = torch.cuda.get_device_capability()
    x = torch.randn(1000, device="cuda")
    calls = {"hardsigmoid": lambda: OPS.hardsigmoid(x),
             "hardsigmoid_": lambda: OPS.hardsigmoid_(x.clone()),
             "hardsigmoid_out": lambda: OPS.hardsigmoid_out(x, torch.empty_like(x)),
             "hardsigmoid_backward": lambda: OPS.hardsigmoid_backward(x, x)}
    if _runs_on(capability):
        for call in calls.values():
            call()
        torch.cuda.synchronize()
        return
    major, minor = capability
    for name, call in calls.items():
        with pytest.raises(RuntimeError) as raised:
            call()
        message = str(raised.value)
        assert "no CUDA code for this GPU" in message, (name, message)
        device = f"{x.device} ({torch.cuda.get_device_name()})"
        assert f"{device} has compute capability {major}.{minor}" in message, message
        held = " ".join(INFO["cuda_sass"]) or "none"
        assert f"holds SASS for {held} and PTX for" in message, message
        assert f'TORCH_CUDA_ARCH_LIST="{major}.{minor}"' in message, message
        assert "no kernel image" not in message, message
    # The error left nothing behind: the device still runs aten's kernels.
    torch.ops.aten.hardsigmoid(x)
    torch.cuda.synchronize()
