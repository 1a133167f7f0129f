#!/usr/bin/env bash
# Exports a model using the ops to an ExecuTorch program from Python, runs it with run_pte (a C++
# program linked against ExecuTorch and the library's ExecuTorch kernels), and checks that its
# output is, byte for byte, what eager aten computes, and that run_pte loads no libtorch.
# Usage: round_trip.sh PYTHON LIBRARY RUN_PTE WORKDIR
set -euo pipefail
python="$1" library="$2" runner="$3" workdir="$4"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if loaded="$(ldd "$runner" | grep -E 'lib(torch|c10)[^ ]*\.so')"; then
  echo "run_pte loads libtorch:" >&2
  echo "$loaded" >&2
  exit 1
fi
export PYTHONPATH="$here/../python${PYTHONPATH:+:$PYTHONPATH}" HARDSIGMOID_OPS_LIBRARY="$library"
for dtype in float32 float64 float16 bfloat16; do
  "$python" "$here/export_model.py" "$library" "$workdir/$dtype" "$dtype"
  "$runner" "$workdir/$dtype/model.pte" "$workdir/$dtype/input.bin" "$workdir/$dtype/output.bin"
  cmp "$workdir/$dtype/output.bin" "$workdir/$dtype/expected.bin"
  echo "$dtype: run_pte's output is eager aten's, byte for byte"
done
