"""Whether two builds of the library hold the same device code: the x86-64 library, whose kernels
run on the H100, and the aarch64 one cross-built for Grace (scripts/release/build_wheels.sh runs
this per release). nvcc's device code does not depend on the host, so for every architecture both
hold, each kernel's SASS must be the same instructions and encodings.

cuobjdump -sass prints each cubin's kernels in the order the host's link laid them out, with their
offsets in the file: the comparison is per (architecture, kernel), of the instruction lines with
their encodings, which hold offsets relative to the kernel only. What is compared and what
differs is printed; the exit status is 1 where a kernel differs or is missing from one side.

    python compare_sass.py CUOBJDUMP X86_64_LIBRARY AARCH64_LIBRARY
"""

import re
import subprocess
import sys


def kernels(cuobjdump, library):
    """{architecture: {kernel: [instruction lines]}} of the library's SASS."""
    text = subprocess.run([cuobjdump, "-sass", library], check=True, capture_output=True,
                          text=True).stdout
    found, architecture, kernel = {}, None, None
    for line in text.splitlines():
        match = re.match(r"\s*arch = (sm_\d+\w*)", line)
        if match:
            architecture, kernel = match[1], None
            found.setdefault(architecture, {})
            continue
        match = re.match(r"\s*Function : (\S+)", line)
        if match:
            kernel = match[1]
            if kernel in found[architecture]:
                sys.exit(f"{library}: {kernel} twice for {architecture}")
            found[architecture][kernel] = []
            continue
        # "/*0040*/  LDC R1, c[0x0][0x28] ;  /* 0x00000a00ff017b82 */" and the encoding's second
        # half on a line of its own.
        if kernel and re.match(r"\s*/\*[0-9a-f]{4,}\*/|\s*/\* 0x[0-9a-f]{16} \*/", line):
            found[architecture][kernel].append(" ".join(line.split()))
    return found


def main(cuobjdump, x86_64, aarch64):
    ours = {"x86-64": kernels(cuobjdump, x86_64), "aarch64": kernels(cuobjdump, aarch64)}
    common = sorted(set(ours["x86-64"]) & set(ours["aarch64"]),
                    key=lambda a: int(re.sub(r"\D", "", a)))
    different = 0
    for side, other in (("x86-64", "aarch64"), ("aarch64", "x86-64")):
        only = sorted(set(ours[side]) - set(ours[other]))
        if only:
            print(f"only the {side} library holds {' '.join(only)}: no comparison there")
    if not common:
        print("no architecture held by both")
        return 1
    for architecture in common:
        a, b = ours["x86-64"][architecture], ours["aarch64"][architecture]
        names = sorted(set(a) | set(b))
        # Nothing read is nothing proven: a listing whose form this parser does not know.
        empty = [n for n in names if not a.get(n, [1]) or not b.get(n, [1])]
        if not names or empty:
            print(f"{architecture}: no kernel, or kernels without instructions ({' '.join(empty)}):"
                  f" cuobjdump's listing not read")
            return 1
        same = [n for n in names if a.get(n) is not None and a.get(n) == b.get(n)]
        lines = sum(len(a[n]) for n in same)
        print(f"{architecture}: {len(same)} of {len(names)} kernels the same SASS "
              f"({lines} instruction and encoding lines)")
        for name in names:
            if name in same:
                continue
            different += 1
            if name not in a or name not in b:
                print(f"  {name}: only in the {'aarch64' if name not in a else 'x86-64'} library")
                continue
            for index, (x, y) in enumerate(zip(a[name], b[name])):
                if x != y:
                    print(f"  {name}: line {index}: {x!r} against {y!r}")
                    break
            else:
                print(f"  {name}: {len(a[name])} lines against {len(b[name])}")
    return 1 if different else 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
