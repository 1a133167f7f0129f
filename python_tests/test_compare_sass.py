"""scripts/release/compare_sass.py, the proof that the aarch64 library's kernels are the x86-64
library's: it finds a changed instruction, a kernel held by one side only and an architecture
held by one side only, and is not misled by the order cuobjdump prints kernels in. A stand-in
cuobjdump prints the listings (no CUDA library is needed)."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def listing(kernels):
    """cuobjdump -sass's text for {architecture: {kernel: [instructions]}}."""
    lines = []
    for architecture, functions in kernels.items():
        lines += ["", "Fatbin elf code:", "================", f"arch = {architecture}",
                  "code version = [1,8]", "host = linux", "compile_size = 64bit", "",
                  f"\tcode for {architecture}"]
        for name, instructions in functions.items():
            lines += [f"\t\tFunction : {name}", '\t.headerflags\t@"EF_CUDA_SM90"']
            for offset, instruction in enumerate(instructions):
                address, encoding = f"/*{offset * 16:04x}*/", f"/* 0x{offset:016x} */"
                lines += [f"        {address}   {instruction} ;   {encoding}",
                          f"                                  /* 0x{offset + 7:016x} */"]
    return "\n".join(lines) + "\n"


def compare(tmp_path, x86_64, aarch64):
    for name, kernels in (("x86_64.so", x86_64), ("aarch64.so", aarch64)):
        (tmp_path / (name + ".txt")).write_text(listing(kernels))
        (tmp_path / name).write_bytes(b"")
    cuobjdump = tmp_path / "cuobjdump"
    cuobjdump.write_text(f"#!{sys.executable}\nimport sys\n"
                         "print(open(sys.argv[-1] + '.txt').read(), end='')\n")
    cuobjdump.chmod(0o755)
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "release" / "compare_sass.py"),
                           str(cuobjdump), str(tmp_path / "x86_64.so"),
                           str(tmp_path / "aarch64.so")], capture_output=True, text=True)


KERNELS = {"sm_90": {"_Z1av": ["LDC R1, c[0x0][0x28]", "EXIT"], "_Z1bv": ["MOV R2, R3", "EXIT"]},
           "sm_100": {"_Z1av": ["LDC R1, c[0x0][0x38]", "EXIT"]}}


def test_the_same_kernels_in_another_order_are_the_same(tmp_path):
    reordered = {"sm_100": KERNELS["sm_100"],
                 "sm_90": dict(reversed(list(KERNELS["sm_90"].items())))}
    result = compare(tmp_path, KERNELS, reordered)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "sm_90: 2 of 2 kernels the same SASS" in result.stdout
    assert "sm_100: 1 of 1 kernels the same SASS" in result.stdout


def test_a_changed_instruction_is_found(tmp_path):
    changed = {"sm_90": {**KERNELS["sm_90"], "_Z1bv": ["MOV R2, R4", "EXIT"]},
               "sm_100": KERNELS["sm_100"]}
    result = compare(tmp_path, KERNELS, changed)
    assert result.returncode == 1
    assert "sm_90: 1 of 2 kernels the same SASS" in result.stdout
    assert "_Z1bv: line 0: '/*0000*/ MOV R2, R3 ; /* 0x0000000000000000 */' against " \
        "'/*0000*/ MOV R2, R4" in result.stdout, result.stdout


def test_a_kernel_or_an_architecture_on_one_side_only_is_named(tmp_path):
    fewer = {"sm_90": {"_Z1av": KERNELS["sm_90"]["_Z1av"]}, "sm_110": KERNELS["sm_100"]}
    result = compare(tmp_path, KERNELS, fewer)
    assert result.returncode == 1
    assert "_Z1bv: only in the x86-64 library" in result.stdout
    assert "only the x86-64 library holds sm_100: no comparison there" in result.stdout
    assert "only the aarch64 library holds sm_110: no comparison there" in result.stdout


def test_a_listing_with_no_instructions_read_proves_nothing(tmp_path):
    empty = {"sm_90": {"_Z1av": []}}
    result = compare(tmp_path, empty, empty)
    assert result.returncode == 1
    assert "sm_90: no kernel, or kernels without instructions (_Z1av)" in result.stdout
    result = compare(tmp_path, {"sm_90": {}}, {"sm_90": {}})
    assert result.returncode == 1
