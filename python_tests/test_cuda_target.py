"""scripts/release/cuda_target.py, the aarch64 CUDA toolkit the aarch64 wheel's CUDA libraries are
built with: only the wheels NVIDIA's cuda-toolkit metapackage pins for the components asked for
are read (not a component's own newer dependency), their headers and the libraries a torch
extension links are laid out as a toolkit's target, and the host's nvcc is linked beside them.
Stand-in wheels: no download."""

import importlib.util
import pathlib
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("cuda_target",
                                              ROOT / "scripts" / "release" / "cuda_target.py")
cuda_target = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cuda_target)


def wheel(folder, name, version, files):
    path = folder / f"{name}-{version}-py3-none-manylinux2014_aarch64.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for member, data in files.items():
            archive.writestr(member, data)
        archive.writestr(f"{name}-{version}.dist-info/METADATA",
                         f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    return path


def metapackage(folder, pins):
    lines = "".join(f"Requires-Dist: {dist}=={version}.*; sys_platform == 'linux' and extra == "
                    f"'{extra}'\n" for extra, (dist, version) in pins.items())
    with zipfile.ZipFile(folder / "cuda_toolkit-13.0.2-py2.py3-none-any.whl", "w") as archive:
        archive.writestr("cuda_toolkit-13.0.2.dist-info/METADATA",
                         f"Metadata-Version: 2.1\nName: cuda-toolkit\nVersion: 13.0.2\n{lines}")


@pytest.fixture
def setup(tmp_path):
    wheels, host = tmp_path / "wheels", tmp_path / "host"
    wheels.mkdir()
    (host / "bin").mkdir(parents=True)
    (host / "bin" / "nvcc").write_text("host nvcc")
    (host / "bin" / "nvcc.profile").write_text("INCLUDES += ...")
    (host / "nvvm").mkdir()
    include = "nvidia/cu13/include/"
    wheel(wheels, "nvidia_cuda_runtime", "13.0.96", {
        include + "cuda_runtime.h": "runtime 13.0", "nvidia/cu13/lib/libcudart.so.13": "aarch64",
        "nvidia/cu13/lib/libcudart_static.a": "", "nvidia/cu13/lib/libcudadevrt.a": ""})
    wheel(wheels, "nvidia_cuda_crt", "13.0.88", {include + "crt/host_config.h": ""})
    wheel(wheels, "nvidia_cuda_cccl", "13.0.85", {include + "cccl/cub/cub.cuh": ""})
    wheel(wheels, "nvidia_cuda_culibos", "13.0.85", {"nvidia/cu13/lib/libculibos.a": ""})
    wheel(wheels, "nvidia_cuda_nvrtc", "13.0.88", {
        "nvidia/cu13/lib/libnvrtc.so.13": "", "nvidia/cu13/lib/libnvrtc-builtins.so.13.0": ""})
    wheel(wheels, "nvidia_cublas", "13.1.0.3", {
        include + "cublas_v2.h": "", "nvidia/cu13/lib/libcublas.so.13": "not linked"})
    # pip brings a component's own dependency at the newest release: not the toolkit's.
    wheel(wheels, "nvidia_nvjitlink", "13.5.37", {include + "nvJitLink.h": "13.5"})
    pins = {"cudart": ("nvidia-cuda-runtime", "13.0.96"), "crt": ("nvidia-cuda-crt", "13.0.88"),
            "cccl": ("nvidia-cuda-cccl", "13.0.85"), "culibos": ("nvidia-cuda-culibos", "13.0.85"),
            "nvrtc": ("nvidia-cuda-nvrtc", "13.0.88"), "cublas": ("nvidia-cublas", "13.1.0.3"),
            "nvjitlink": ("nvidia-nvjitlink", "13.0.88")}
    metapackage(wheels, pins)
    return tmp_path, wheels, host


def test_the_pinned_components_laid_out_as_an_aarch64_target(setup):
    tmp_path, wheels, host = setup
    out = tmp_path / "toolkit"
    cuda_target.main(out, host, "cudart,crt,cccl,culibos,nvrtc,cublas", wheels)
    target = out / "targets" / "aarch64-linux"
    assert (target / "include" / "cuda_runtime.h").read_text() == "runtime 13.0"
    assert (target / "include" / "cccl" / "cub" / "cub.cuh").exists()
    assert not (target / "include" / "nvJitLink.h").exists()
    libraries = sorted(p.name for p in (target / "lib").iterdir())
    assert libraries == ["libcudadevrt.a", "libcudart.so", "libcudart.so.13", "libcudart_static.a",
                         "libculibos.a", "libnvrtc-builtins.so.13.0", "libnvrtc.so",
                         "libnvrtc.so.13"]
    assert (target / "lib" / "libcudart.so").readlink() == pathlib.Path("libcudart.so.13")
    assert (out / "bin" / "nvcc").resolve() == (host / "bin" / "nvcc").resolve()
    assert (out / "nvvm").resolve() == host / "nvvm"
    assert (out / "targets" / "sbsa-linux").resolve() == target.resolve()


def test_a_pinned_component_missing_from_the_folder_stops_it(setup):
    tmp_path, wheels, host = setup
    with pytest.raises(SystemExit, match=r"0 wheels of nvidia-nvjitlink==13.0.88"):
        cuda_target.main(tmp_path / "toolkit", host, "cudart,crt,cccl,nvrtc,nvjitlink", wheels)


def test_a_component_without_the_headers_the_build_reads_stops_it(setup):
    tmp_path, wheels, host = setup
    with pytest.raises(SystemExit, match="no cublas_v2.h in the wheels given"):
        cuda_target.main(tmp_path / "toolkit", host, "cudart,crt,cccl,culibos,nvrtc", wheels)


def test_a_folder_holding_a_wrapper_nvcc_is_not_taken_for_the_toolkit(setup, tmp_path):
    # /usr/local/bin/nvcc may be a script that execs the toolkit's nvcc: linking its folder's
    # programs gives a toolkit whose nvcc finds none of the aarch64 headers.
    _, wheels, _ = setup
    wrapper = tmp_path / "local"
    (wrapper / "bin").mkdir(parents=True)
    (wrapper / "bin" / "nvcc").write_text("#!/bin/sh\nexec /opt/cuda/bin/nvcc \"$@\"\n")
    with pytest.raises(SystemExit, match="is not a CUDA toolkit"):
        cuda_target.main(tmp_path / "toolkit", wrapper, "cudart,crt,cccl,culibos,nvrtc,cublas",
                         wheels)
    assert not (tmp_path / "toolkit").exists()
