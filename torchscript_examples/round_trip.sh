#!/usr/bin/env bash
# Saves the models from Python, then loads and checks them from C++.
# Usage: round_trip.sh PYTHON LIBRARY RUN_MODELS_BINARY WORKDIR
set -euo pipefail
python="$1" library="$2" runner="$3" workdir="$4"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$python" "$here/save_models.py" "$library" "$workdir"
"$runner" "$workdir"
