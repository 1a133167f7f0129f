"""Writes a stand-in wheel of a package at a version no index serves (a name, a version, no
files), so that pip's resolver can be shown refusing it: scripts/release/check_wheel.sh offers
torch 2.10.0 beside a release wheel, whose requirement must exclude it.

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
