#!/usr/bin/env bash
# aten's bits on 64-bit ARM, proven under emulation: builds the library, its GoogleTest suite and
# the ExecuTorch kernel library for aarch64 against PyPI's aarch64 torch and executorch wheels, and
# runs them under qemu-aarch64, once under each of aten's aarch64 CPU capabilities: DEFAULT (NEON)
# and SVE256 (qemu's CPU with 256-bit SVE):
#   - every CPU GoogleTest case but the >2^31-element one (see below), against the aarch64 aten;
#   - a pytest selection that proves the bits (python_tests/aarch64_selection.txt);
#   - CTest's torchscript_round_trip: models scripted by the aarch64 torch, loaded and run by a C++
#     program (its int8 model made for qnnpack, the ARM engine);
#   - a .pte exported on this machine (the newest torch release's environment,
#     scripts/torch_versions.sh), run by run_pte built for aarch64, byte-equal to eager aten's
#     output computed by the aarch64 torch.
# Emulation proves bits, never speed: nothing here is timed as a claim.
#
#   bash scripts/aarch64_check.sh [setup|default|sve256|all]
# (setup: the packages, root and wheels only; default or sve256: that capability alone)
#
# Its three parts, in scripts/aarch64/ (environment.sh says where each thing lives): setup.sh (a
# fresh Debian 12 x86-64 machine's packages, the arm64 root, the aarch64 wheels: cached and
# reused), build.sh (the cross-build and the .pte programs) and run.sh (the runs). The
# >2^31-element GoogleTest case is left out: 8 GiB and some minutes natively, far longer emulated,
# and what it proves (64-bit indexing) is the same C++ on both architectures.
set -euo pipefail
PARTS="$(cd "$(dirname "${BASH_SOURCE[0]}")/aarch64" && pwd)"
PART="${1:-all}"
case "$PART" in
  setup | default | sve256 | all) ;;
  *)
    echo "aarch64_check.sh: unknown part '$PART' (setup, default, sve256, all)" >&2
    exit 2
    ;;
esac
bash "$PARTS/setup.sh"
[[ "$PART" == setup ]] && exit 0
bash "$PARTS/build.sh"
bash "$PARTS/run.sh" "$PART"
