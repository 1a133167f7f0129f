"""Assembles a CUDA toolkit that cross-compiles for aarch64 Linux (Grace: sbsa) from the host's
nvcc and PyPI's aarch64 CUDA wheels (scripts/release/aarch64_cuda_toolkit.sh downloads them).

NVIDIA's host toolkit for x86-64 holds targets/x86_64-linux alone; its cross package for sbsa is
not on PyPI. nvcc's device code does not depend on the host, and nvcc takes its headers and
libraries from targets/aarch64-linux when its host compiler is an aarch64 one (its nvcc.profile,
read relative to where nvcc is started from), as CMake's FindCUDAToolkit does when cross-compiling
for aarch64. So the toolkit made here is:
    bin/*, nvvm                the host toolkit's, linked (nvcc, ptxas, cicc: x86-64 programs)
    targets/aarch64-linux/     include/: every header of the wheels (runtime, crt, cccl, cuBLAS,
                               cuSPARSE, cuSOLVER, ... as aten's CUDA headers include them);
                               lib/: the libraries a torch extension links (the runtime, NVRTC)
                               with their unversioned names, as a toolkit installs them
    targets/sbsa-linux         the same (the name NVIDIA's own cross packages use)
The other libraries in the wheels (cuBLAS and the like: hundreds of megabytes, and nothing here
links them) are left out; their CMake targets are then not defined, and none is used.

    python cuda_target.py OUT HOST_TOOLKIT COMPONENTS WHEELS
      COMPONENTS: the cuda-toolkit metapackage's extras taken (cudart,crt,...); WHEELS: a folder
      holding that metapackage's wheel and its components' (pip download). Only the wheels the
      metapackage pins for those extras are read: a component's own dependency at another
      release (pip brings the newest nvJitLink for cuSPARSE) is left out.
"""

import email.parser
import pathlib
import re
import shutil
import sys
import zipfile

# The libraries the CUDA build links (CMake's CUDA runtime, torch's CUDA::cudart and CUDA::nvrtc),
# and the one NVRTC loads.
LIBRARIES = {"libcudart.so.13", "libcudart_static.a", "libcudadevrt.a", "libculibos.a",
             "libnvrtc.so.13", "libnvrtc-builtins.so.13.0"}
TARGET = "targets/aarch64-linux"


def extract(wheel, target):
    """The wheel's headers and chosen libraries, from nvidia/cuXX/{include,lib}/ into target."""
    count = 0
    with zipfile.ZipFile(wheel) as archive:
        for info in archive.infolist():
            parts = pathlib.PurePosixPath(info.filename).parts
            if len(parts) < 4 or parts[0] != "nvidia" or info.is_dir():
                continue
            kind, rest = parts[2], parts[3:]
            if kind == "lib" and (len(rest) != 1 or rest[0] not in LIBRARIES):
                continue
            if kind not in ("include", "lib"):
                continue
            destination = target / kind / pathlib.Path(*rest)
            destination.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(info) as source, open(destination, "wb") as out:
                shutil.copyfileobj(source, out)
            count += 1
    return count


def pinned_wheels(folder, components):
    """The wheels in folder that the cuda-toolkit metapackage pins for the extras components."""
    (metapackage,) = folder.glob("cuda_toolkit-*.whl")
    with zipfile.ZipFile(metapackage) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = email.parser.Parser().parsestr(archive.read(name).decode())
    wheels = []
    for requirement in metadata.get_all("Requires-Dist"):
        pin = re.match(r"([\w.-]+)==([\d.]+)\.\*;.*extra == '([\w-]+)'", requirement)
        if not pin or pin[3] not in components:
            continue
        stem = pin[1].replace("-", "_") + "-" + pin[2] + "-"
        found = [w for w in folder.glob("*.whl") if w.name.startswith(stem)]
        if len(found) != 1:
            sys.exit(f"cuda_target.py: {len(found)} wheels of {pin[1]}=={pin[2]} in {folder}")
        wheels.append(found[0])
    return metadata["Version"], wheels


def main(out, host, components, folder):
    out, host = pathlib.Path(out), pathlib.Path(host).resolve()
    # nvcc reads nvcc.profile beside itself for its include and library paths: the folder linked
    # must be a toolkit's, not one holding a wrapper script named nvcc.
    if not (host / "bin" / "nvcc.profile").is_file() or not (host / "nvvm").is_dir():
        sys.exit(f"cuda_target.py: {host} is not a CUDA toolkit (no bin/nvcc.profile and nvvm)")
    if out.exists():
        shutil.rmtree(out)
    target = out / TARGET
    release, wheels = pinned_wheels(pathlib.Path(folder), set(components.split(",")))
    print(f"cuda-toolkit {release}: {len(wheels)} components")
    for wheel in wheels:
        print(f"{wheel.name}: {extract(wheel, target)} files")
    for name in ("cuda_runtime.h", "crt/host_config.h", "cub/cub.cuh", "cublas_v2.h"):
        if not (target / "include" / name).exists() and not (
                target / "include" / "cccl" / name).exists():
            sys.exit(f"cuda_target.py: no {name} in the wheels given")
    lib = target / "lib"
    for versioned in sorted(lib.glob("*.so.*")):
        if versioned.name.startswith("libnvrtc-builtins"):
            continue
        (lib / versioned.name.split(".so.")[0]).with_suffix(".so").symlink_to(versioned.name)
    missing = {name for name in LIBRARIES if not (lib / name).exists()}
    if missing:
        sys.exit(f"cuda_target.py: the wheels hold no {', '.join(sorted(missing))}")
    (out / "bin").mkdir()
    for program in sorted((host / "bin").iterdir()):
        (out / "bin" / program.name).symlink_to(program)
    (out / "nvvm").symlink_to(host / "nvvm")
    (out / "targets" / "sbsa-linux").symlink_to("aarch64-linux")
    print(f"{out}: nvcc and its tools from {host}; aarch64 headers and libraries in {TARGET}")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(*sys.argv[1:])
