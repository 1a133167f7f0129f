"""Writes a stand-in wheel of a package at a version no index serves (a name, a version, no
files), so that pip's and uv's resolvers can be shown refusing it:
scripts/release/check_index_install.sh installs torch 2.16.0 this way, the release after the
supported range (below it, PyPI's own torch 2.10.0 serves), and the release wheel's requirement
must exclude it.

    python stand_in_wheel.py FOLDER NAME VERSION
"""

import sys
import zipfile


def main(folder: str, name: str, version: str) -> None:
    info = f"{name}-{version}.dist-info"
    with zipfile.ZipFile(f"{folder}/{name}-{version}-py3-none-any.whl", "w") as wheel:
        wheel.writestr(f"{info}/METADATA",
                       f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        wheel.writestr(f"{info}/WHEEL",
                       "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        wheel.writestr(f"{info}/RECORD", "")


if __name__ == "__main__":
    main(*sys.argv[1:])
