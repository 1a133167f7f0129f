"""Merges one platform's per-release wheels into the release wheel
(scripts/release/build_wheels.sh).

Each input wheel was built by pip against one torch release, with CMake's install tree in
hardsigmoid_ops/releases/torchX.Y-VARIANT (release_directory in _torch_release.py). The output
holds the Python package once (the same bytes in every input, or this fails), every input's
release tree, and at hardsigmoid_ops/lib/cmake/HardsigmoidOps the CMake package that hands
find_package to the release's own (cmake/HardsigmoidOpsReleasesConfig.cmake). Its metadata is the
inputs' (the same in each but for the torch requirement), requiring the releases it holds
(releases_requirement); its RECORD is written anew.

    python merge_release_wheels.py OUT_DIR WHEEL...      prints the merged wheel's path
"""

import base64
import email.parser
import hashlib
import pathlib
import sys
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python" / "hardsigmoid_ops"))
import _torch_release  # noqa: E402  (the package's own rule, imported without torch)

PACKAGE = "hardsigmoid_ops"
CMAKE_DIR = f"{PACKAGE}/lib/cmake/HardsigmoidOps"
RELEASES = f"{PACKAGE}/releases/"


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def read_wheel(path):
    """{name: (ZipInfo, bytes)} of a wheel, without its RECORD."""
    with zipfile.ZipFile(path) as wheel:
        return {info.filename: (info, wheel.read(info)) for info in wheel.infolist()
                if not info.filename.endswith(".dist-info/RECORD") and not info.is_dir()}


def release_of(files, wheel):
    """The release directories a per-release wheel holds: exactly one."""
    held = {name[len(RELEASES):].split("/")[0] for name in files if name.startswith(RELEASES)}
    if len(held) != 1 or _torch_release.parse_release_directory(next(iter(held))) is None:
        sys.exit(f"{wheel}: holds release trees {sorted(held)}, not one torchX.Y-VARIANT")
    return next(iter(held))


def metadata_without_torch(text):
    """The METADATA text with its torch requirement left out, and that requirement."""
    lines = text.splitlines(keepends=True)
    torch_lines = [line for line in lines if line.startswith("Requires-Dist: torch")]
    return "".join(line for line in lines if line not in torch_lines), torch_lines


def main(out_dir, wheels):
    merged, releases, metadata = {}, [], None
    for wheel in wheels:
        files = read_wheel(wheel)
        directory = release_of(files, wheel)
        if directory in releases:
            sys.exit(f"{wheel}: a second wheel for {directory}")
        releases.append(directory)
        for name, (info, data) in files.items():
            if name.endswith(".dist-info/METADATA"):
                rest, torch_lines = metadata_without_torch(data.decode())
                if len(torch_lines) != 1:
                    sys.exit(f"{wheel}: torch requirements {torch_lines}, not one")
                if metadata is not None and rest != metadata[1]:
                    sys.exit(f"{wheel}: its metadata differs from {wheels[0]}'s beyond torch's")
                metadata = (name, rest)
                continue
            if name in merged and merged[name][1] != data:
                sys.exit(f"{wheel}: {name} differs from the same file of an earlier wheel")
            merged[name] = (info, data)

    # The dispatching CMake package, with the version file every release's tree shares.
    version_file = "lib/cmake/HardsigmoidOps/HardsigmoidOpsConfigVersion.cmake"
    versions = {merged[f"{RELEASES}{d}/{version_file}"][1] for d in releases}
    if len(versions) != 1:
        sys.exit("the releases' CMake version files differ")
    template = merged[next(iter(merged))][0]
    for name, data in ((f"{CMAKE_DIR}/HardsigmoidOpsConfig.cmake",
                        (ROOT / "cmake" / "HardsigmoidOpsReleasesConfig.cmake").read_bytes()),
                       (f"{CMAKE_DIR}/HardsigmoidOpsConfigVersion.cmake", versions.pop())):
        info = zipfile.ZipInfo(name, date_time=template.date_time)
        info.external_attr = 0o644 << 16
        merged[name] = (info, data)

    held = {_torch_release.parse_release_directory(d)[0] for d in releases}
    requirement = _torch_release.releases_requirement(held)
    name, rest = metadata
    header = email.parser.Parser().parsestr(rest, headersonly=True)
    # Requires-Dist goes after the header fields that precede it in the core metadata's order.
    head, _, body = rest.partition("\n\n")
    text = f"{head}\nRequires-Dist: {requirement}\n\n{body}" if body else \
        f"{head.rstrip()}\nRequires-Dist: {requirement}\n"
    info = zipfile.ZipInfo(name, date_time=template.date_time)
    info.external_attr = 0o644 << 16
    merged[name] = (info, text.encode())

    wheel_file = next(data for n, (_, data) in merged.items() if n.endswith(".dist-info/WHEEL"))
    tag = next(line.split(": ", 1)[1] for line in wheel_file.decode().splitlines()
               if line.startswith("Tag: "))
    dist_info = name.rsplit("/", 1)[0]
    out = pathlib.Path(out_dir) / f"{PACKAGE}-{header['Version']}-{tag}.whl"
    out.parent.mkdir(parents=True, exist_ok=True)
    record = f"{dist_info}/RECORD"
    lines = []
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as wheel:
        # The dist-info folder last, as the wheel format recommends.
        for member in sorted(merged, key=lambda n: (n.startswith(dist_info), n)):
            info, data = merged[member]
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
            lines.append(record_line(member, data))
        lines.append(f"{record},,")
        info = zipfile.ZipInfo(record, date_time=template.date_time)
        info.external_attr = 0o644 << 16
        wheel.writestr(info, "\n".join(lines) + "\n", zipfile.ZIP_DEFLATED)
    print(out)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
