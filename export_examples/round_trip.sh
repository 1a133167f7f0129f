#!/usr/bin/env bash
# Exports and compiles the model from Python, then loads and checks the package from C++.
# Usage: round_trip.sh PYTHON LIBRARY RUN_AOTI_PACKAGE_BINARY WORKDIR [DEVICE]   (cpu or cuda)
set -euo pipefail
python="$1" library="$2" runner="$3" workdir="$4" device="${5:-cpu}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ "$device" == cuda ]] && ! "$python" -c 'import sys, torch; sys.exit(not torch.cuda.is_available())'; then
  echo "skipped: no CUDA device"
  exit 77
fi
"$python" "$here/export_model.py" "$library" "$workdir" "$device"
"$runner" "$workdir" "$device"
