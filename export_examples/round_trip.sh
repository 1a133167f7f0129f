#!/usr/bin/env bash
# Exports and compiles the model from Python, then loads and checks the package from C++.
# Usage: round_trip.sh PYTHON LIBRARY RUN_AOTI_PACKAGE_BINARY WORKDIR
set -euo pipefail
python="$1" library="$2" runner="$3" workdir="$4"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$python" "$here/export_model.py" "$library" "$workdir"
"$runner" "$workdir"
