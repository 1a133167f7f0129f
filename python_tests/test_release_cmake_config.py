"""cmake/HardsigmoidOpsReleasesConfig.cmake, find_package(HardsigmoidOps) in the release wheel: it
gives the torch CMake finds the library the package's loader gives it in Python (_library.py),
read from that torch's torch/version.py, and for a torch build the wheel holds nothing for, no
package and a message saying why. Stand-ins: a Torch CMake package that sets what torch's does,
a torch/version.py, and release folders whose CMake packages say which they are."""

import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
CMAKE = shutil.which("cmake")
pytestmark = pytest.mark.skipif(CMAKE is None, reason="needs cmake")


def configure(tmp_path, version, cuda=None, hip=None, xpu=None, held_cuda="13.0"):
    """cmake's output for a project calling find_package(HardsigmoidOps REQUIRED) beside a torch
    stand-in of `version` (with CUDA `cuda`, HIP `hip`, XPU `xpu`)."""
    package = tmp_path / "site" / "hardsigmoid_ops"
    config = package / "lib" / "cmake" / "HardsigmoidOps"
    config.mkdir(parents=True)
    shutil.copy(ROOT / "cmake" / "HardsigmoidOpsReleasesConfig.cmake",
                config / "HardsigmoidOpsConfig.cmake")
    for directory in ("torch2.11-cuda", "torch2.11-cpu", "torch2.15-cuda", "torch2.15-cpu"):
        lib = package / "releases" / directory / "lib"
        (lib / "cmake" / "HardsigmoidOps").mkdir(parents=True)
        (lib / "cmake" / "HardsigmoidOps" / "HardsigmoidOpsConfig.cmake").write_text(
            f'set(HARDSIGMOID_OPS_CHOSEN "{directory}")\n')
        if directory.endswith("-cuda"):
            (lib / "hardsigmoid_ops_build.json").write_text(
                f'{{"cuda": true, "cuda_version": "{held_cuda}"}}')
    torch = tmp_path / "site" / "torch"
    (torch / "share" / "cmake" / "Torch").mkdir(parents=True)
    fields = "".join(f"{name}: Optional[str] = {value!r}\n"
                     for name, value in (("cuda", cuda), ("hip", hip), ("xpu", xpu)))
    (torch / "version.py").write_text(f"__version__ = '{version}'\ndebug = False\n{fields}")
    (torch / "share" / "cmake" / "Torch" / "TorchConfig.cmake").write_text(
        f'set(Torch_VERSION "{version.split("+")[0].split("a")[0].split(".dev")[0]}")\n'
        f'set(TORCH_INSTALL_PREFIX "{torch}")\n'
        f'set(CAFFE2_USE_CUDA {"ON" if cuda else "OFF"})\n')
    project = tmp_path / "project"
    project.mkdir()
    (project / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.25)\nproject(consumer LANGUAGES NONE)\n"
        "find_package(HardsigmoidOps REQUIRED)\n"
        'message(STATUS "chosen: ${HARDSIGMOID_OPS_CHOSEN}")\n')
    result = subprocess.run([CMAKE, "-S", str(project), "-B", str(tmp_path / "build"),
                             f"-DCMAKE_PREFIX_PATH={package};{torch / 'share' / 'cmake'}"],
                            capture_output=True, text=True, timeout=120)
    return result.returncode, " ".join((result.stdout + result.stderr).split())


@pytest.mark.parametrize("version, cuda, chosen", [
    ("2.11.0+cu130", "13.0", "torch2.11-cuda"), ("2.15.0+cu132", "13.2", "torch2.15-cuda"),
    ("2.11.0+cpu", None, "torch2.11-cpu"), ("2.15.0", None, "torch2.15-cpu")])
def test_the_library_the_package_would_load(tmp_path, version, cuda, chosen):
    status, output = configure(tmp_path, version, cuda)
    assert status == 0 and f"chosen: {chosen}" in output, output


@pytest.mark.parametrize("version, cuda, hip, xpu, why", [
    ("2.11.0+cu128", "12.8", None, None,
     "torch 2.11.0+cu128, a CUDA 12.8 build: the package's CUDA library for it is a CUDA '13.0' "
     "build was found"),
    ("2.11.0+rocm6.4", None, "6.4.43484", None,
     "torch 2.11.0+rocm6.4, a ROCm build (HIP 6.4.43484) was found"),
    ("2.11.0+xpu", None, None, "20250101", "torch 2.11.0+xpu, an XPU build (XPU 20250101) was"),
    ("2.11.0.dev20260101+cu130", "13.0", None, None,
     "torch 2.11.0.dev20260101+cu130, a pre-release, nightly or source build was found"),
    ("2.11.0a0+git1234567", "13.0", None, None, "a pre-release, nightly or source build"),
    ("2.13.0+cu130", "13.0", None, None, "torch 2.13.0+cu130 (CUDA 13.0) was found")])
def test_a_torch_build_the_wheel_does_not_serve_finds_nothing_and_says_why(
        tmp_path, version, cuda, hip, xpu, why):
    status, output = configure(tmp_path, version, cuda, hip, xpu)
    assert status != 0, output
    assert "this package holds libraries for torch2.11-cpu, torch2.11-cuda, torch2.15-cpu, " \
        "torch2.15-cuda" in output, output
    assert why in output, output
    assert "chosen:" not in output
